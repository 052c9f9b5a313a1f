"""The connection side of the OTLP/HTTP receiver, for any HTTP intake that must not be held
by its clients: a thread per connection with a bounded number of them (``BoundedServer``,
which closes the connection waiting longest for its headers to make room, else answers 503
once the request was read), reads bounded by a per-read timeout and a per-request deadline
(``DeadlineReader``, so a client trickling a byte per timeout cannot hold its slot), and a
gzip body unpacked within a limit (``gunzip``)."""

from __future__ import annotations

import contextlib
import io
import socket
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer


class BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most ``limit`` connections at once. When all are taken,
    the connection waiting longest before its headers were complete is closed to make room;
    when none is waiting, the new one gets a 503 (after its request was read) and is closed."""

    daemon_threads = True
    request_queue_size = 128  # listen backlog (socketserver's default is 5)

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 limit: int) -> None:  # fmt: skip
        super().__init__(address, handler)
        self._slots = threading.BoundedSemaphore(limit)
        self._waiting: dict[socket.socket, float] = {}  # connection -> since (before headers)
        self._waiting_lock = threading.Lock()

    def waiting(self, connection: socket.socket, since: float | None) -> None:
        """``connection`` waits for a request's headers since ``since``; None: no longer."""
        with self._waiting_lock:
            if since is None:
                self._waiting.pop(connection, None)
            else:
                self._waiting[connection] = since

    def _make_room(self) -> bool:
        """Close the connection waiting longest before its headers; False when none does."""
        with self._waiting_lock:
            if not self._waiting:
                return False
            oldest = min(self._waiting, key=self._waiting.__getitem__)
            del self._waiting[oldest]
        with contextlib.suppress(OSError):  # the plain socket's: its thread reads EOF and ends
            socket.socket.shutdown(oldest, socket.SHUT_RDWR)
        return True

    def process_request(self, request: Request, client_address: object) -> None:
        """A slot for the connection (room made, or a 503), then its thread."""
        if not self._slots.acquire(blocking=False) and not (
            self._make_room() and self._slots.acquire(timeout=1.0)
        ):
            refuse(_socket_of(request))
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request: Request, client_address: object) -> None:
        """The connection's thread; its slot is given back when it ends."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.waiting(_socket_of(request), None)
            self._slots.release()

    def handle_error(self, request: Request, client_address: object) -> None:
        """A connection closed under its thread (made room for another, reset by the client)
        is no error worth a traceback on stderr."""


Request = socket.socket | tuple[bytes, socket.socket]  # what socketserver hands a server


def _socket_of(request: Request) -> socket.socket:
    """The connection's socket (a TCP server's request is one; a datagram's is a pair)."""
    return request if isinstance(request, socket.socket) else request[1]


def refuse(request: socket.socket) -> None:
    """503 on a connection there is no room for: its request read first (bounded: 64 KiB,
    0.2 s), so that closing it does not reset the connection before the client reads the
    answer; then the write side is closed and what else comes is drained briefly."""
    with contextlib.suppress(OSError):
        request.settimeout(0.2)
        with contextlib.suppress(OSError):
            request.recv(65536)
        request.sendall(_TOO_MANY)
        socket.socket.shutdown(request, socket.SHUT_WR)
        deadline = time.monotonic() + 0.2
        while time.monotonic() < deadline and request.recv(65536):
            pass


_BUSY = b'{"code": 503, "message": "too many connections"}'
_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
    b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY), _BUSY)
)


class DeadlineReader(io.RawIOBase):
    """The connection's reads, each bounded by the read timeout and all of a request's
    together by its deadline (``begin``: the headers' from their first byte; ``body``:
    the body's), so a client sending one byte per timeout cannot hold its slot."""

    def __init__(self, sock: socket.socket, read_timeout: float, header_timeout: float) -> None:
        self.sock = sock
        self.read_timeout = read_timeout
        self.header_timeout = header_timeout
        self.deadline: float | None = None  # None: waiting for a request's first byte

    def readable(self) -> bool:
        """Always: it is a socket's reading side."""
        return True

    def begin(self) -> None:
        """A new request: its deadline starts with its first byte."""
        self.deadline = None

    def body(self, size: int, rate: int) -> None:
        """The headers are in: the body of ``size`` bytes must come at ``rate`` at least."""
        self.deadline = time.monotonic() + self.header_timeout + size / rate

    def readinto(self, buffer: WriteableBuffer) -> int:
        """One read, bounded by the read timeout and the request's deadline."""
        timeout = self.read_timeout
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("request deadline passed")
            timeout = min(timeout, left)
        self.sock.settimeout(timeout)
        n = int(self.sock.recv_into(buffer))
        if n and self.deadline is None:
            self.deadline = time.monotonic() + self.header_timeout
        return n


class TooLarge(Exception):
    """A gzip body that decompresses past the limit (a gzip bomb)."""


def gunzip(data: bytes, limit: int) -> bytes | None:
    """Decompressed bytes, None when corrupt or truncated; ``TooLarge`` past ``limit``."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error:
        return None
    if len(out) > limit:
        raise TooLarge
    return out if d.eof else None
