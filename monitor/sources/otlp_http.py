"""OTLP/HTTP trace receiver as a source: ``POST /v1/traces`` with a protobuf or JSON
``ExportTraceServiceRequest``, optionally gzip-compressed (the OTLP/HTTP spec).

A small deployment points its OTel SDK's OTLP/HTTP exporter at ragmon instead of running a
Collector and Kafka. Accepted requests wait in a bounded queue for the pipeline; when it is
full the receiver answers 503 with ``Retry-After`` (the OTLP exporters retry 429/502/503/504),
so a slow pipeline pushes back instead of buffering without bound. Decoding happens in the
pipeline: a body that is not OTLP is accepted here and becomes a dead letter with a reason.

Durability: accepted spans are held in memory until evaluated. A graceful stop finishes
them (``stop_intake``: later requests get 503, so the exporter retries elsewhere; what was
accepted is evaluated before the exit). A crash loses them (the exporter got its 200);
where that matters, export to Kafka and use the Kafka source.

Exposure: the receiver listens on loopback unless told otherwise. ``bearer_token`` makes
every request present ``Authorization: Bearer <token>`` (compared in constant time; the
scheme is case-insensitive; a missing or wrong token gets 401, counted like every answer);
``tls`` serves HTTPS. Connections are bounded: at most ``max_connections`` at once, and
every read — request line, headers, body, or the wait for the next request on a keep-alive
connection — times out after ``read_timeout`` seconds, which closes the connection. The
whole request is bounded too, since a client can send one byte per read timeout for as long
as it likes: its line and headers must arrive within ``header_timeout`` of their first
byte, its body at ``min_body_rate`` bytes a second (after that grace). When every slot is
taken, the connection that has waited longest before its headers were complete (idle,
trickling, not yet authenticated) is closed to make room; only when none is does a new
connection get 503 — after its request has been read, so that the client sees the answer
and not a reset.
"""

from __future__ import annotations

import hmac
import io
import itertools
import json
import queue
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from google.rpc.status_pb2 import Status

from monitor.core.errors import SourceError
from monitor.core.exposure import is_loopback
from monitor.core.model import revealed
from monitor.sources import SourceDefaults, SourcePosition, SourceRecord
from monitor.sources.http_intake import BoundedServer, DeadlineReader, TooLarge, gunzip
from monitor.sources.otlp_http_config import OtlpHttpSourceConfig

if TYPE_CHECKING:
    from monitor.telemetry import Metrics

PATH = "/v1/traces"
PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class OtlpHttpSource(SourceDefaults):
    """An OTLP/HTTP receiver: each accepted POST /v1/traces body is one record."""

    name = "otlp_http"

    @classmethod
    def from_config(
        cls, config: OtlpHttpSourceConfig, metrics: Metrics | None = None
    ) -> OtlpHttpSource:
        """``source.otlp_http`` (the configuration refused an exposed bind without a token
        unless allow_unauthenticated, which is said here at start-up)."""
        h = config
        if h.bearer_token is None and not is_loopback(h.host):
            structlog.get_logger("ragmon.otlp_http").warning(
                "otlp_http_unauthenticated", host=h.host,
                hint="allow_unauthenticated is set: requests are not authenticated by ragmon",
            )  # fmt: skip
        return cls(
            h.host,
            h.port,
            h.max_body_bytes,
            h.max_queue,
            on_request=metrics.on_otlp_request if metrics else None,
            bearer_token=revealed(h.bearer_token),
            tls=(h.tls_cert_file, h.tls_key_file) if h.tls_cert_file and h.tls_key_file else None,
            max_connections=h.max_connections,
            read_timeout=h.read_timeout_seconds,
            header_timeout=h.header_timeout_seconds,
            min_body_rate=h.min_body_bytes_per_second,
        )

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 4318,
        max_body_bytes: int = 16 << 20,
        max_queue: int = 1000,
        on_request: Callable[[int], None] | None = None,
        bearer_token: str | None = None,
        tls: tuple[Path, Path] | None = None,
        max_connections: int = 64,
        read_timeout: float = 10.0,
        header_timeout: float = 10.0,
        min_body_rate: int = 65_536,
    ) -> None:
        self.host = host
        self._token = bearer_token.encode() if bearer_token else None
        self._tls = tls
        self.requested_port = port
        self.max_body_bytes = max_body_bytes
        self._queue: queue.Queue[SourceRecord] = queue.Queue(maxsize=max_queue)
        self._seq = itertools.count()
        self._on_request = on_request
        self._server: BoundedServer | None = None
        self._thread: threading.Thread | None = None
        self.max_connections = max_connections
        self.read_timeout = read_timeout
        self.header_timeout = header_timeout
        self.min_body_rate = min_body_rate
        self.accepting = True  # False once a graceful stop began: requests get 503
        self._intake = threading.Lock()
        self.log = structlog.get_logger("ragmon.otlp_http")

    @property
    def port(self) -> int:
        """The port it listens on (the one picked when configured as 0)."""
        return self._server.server_address[1] if self._server else self.requested_port

    def ready(self) -> bool:
        """Listening."""
        return self._server is not None

    def start(self) -> None:
        """Listen; a port in use or an unreadable certificate is a ``SourceError``."""
        where = f"{self.host}:{self.requested_port}"
        try:
            server = BoundedServer(
                (self.host, self.requested_port), _handler(self), self.max_connections
            )
        except OSError as exc:
            raise SourceError(f"cannot listen for OTLP/HTTP on {where}: {exc.strerror}") from exc
        if self._tls is not None:
            cert, key = self._tls
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            try:
                context.load_cert_chain(cert, key)
            except OSError as exc:  # ssl.SSLError is one too
                server.server_close()
                detail = exc.strerror or str(exc)
                raise SourceError(
                    f"cannot load the OTLP/HTTP TLS certificate {cert}: {detail}"
                ) from exc
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="ragmon-otlp-http", daemon=True
        )
        self._thread.start()
        self.log.info("otlp_http_listening", host=self.host, port=self.port, path=PATH,
                      tls=self._tls is not None, auth=self._token is not None,
                      max_connections=self.max_connections)  # fmt: skip

    def authorised(self, header: str | None) -> bool:
        """True when no token is configured or ``header`` presents it (constant time). The
        scheme is case-insensitive (RFC 9110 section 11.1)."""
        if self._token is None:
            return True
        scheme, _, credentials = (header or "").strip().partition(" ")
        given = credentials.strip().encode("utf-8", "replace")
        return scheme.lower() == "bearer" and hmac.compare_digest(given, self._token)

    def offer(self, body: bytes, content_type: str) -> str | None:
        """Queue one request body; None when queued, else why not (503 either way)."""
        record = SourceRecord(
            SourcePosition(self.name, 0, next(self._seq)),
            body,
            headers=(("content-type", content_type.encode()),),
        )
        with self._intake:  # no body is queued after stop_intake() has returned
            if not self.accepting:
                return "ragmon is stopping, retry later"
            try:
                self._queue.put_nowait(record)
            except queue.Full:
                return "pipeline busy, retry later"
        return None

    def counted(self, code: int) -> None:
        """Count one response code."""
        if self._on_request is not None:
            self._on_request(code)

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        """Accepted request bodies, at most ``max_records``, waiting up to ``timeout`` seconds."""
        try:
            out = [self._queue.get(timeout=timeout)]
        except queue.Empty:
            return []
        while len(out) < max_records:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return out

    # never exhausted (it runs until closed), no record time, nothing to commit (an
    # exporter does not resend what it got a 200 for): SourceDefaults'
    replays_unfinished = False  # a 200 told the exporter its spans are taken care of

    def stop_intake(self) -> None:
        """From now on every request gets 503 with Retry-After (the exporter retries, e.g.
        against another replica); what is queued stays for ``poll``."""
        with self._intake:
            self.accepting = False

    def close(self) -> None:
        """Stop listening and release the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _Handler(BaseHTTPRequestHandler):
    """One OTLP/HTTP request: checked, un-gzipped and offered to the source's queue."""

    source: OtlpHttpSource  # set per server by _handler()
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: requests are counted in ragmon_otlp_http_requests_total."""

    def setup(self) -> None:
        """The connection's reads through a ``DeadlineReader``; it waits for a request."""
        super().setup()
        src = self.source
        self._reader = DeadlineReader(self.connection, src.read_timeout, src.header_timeout)
        self.rfile = io.BufferedReader(self._reader)
        self._server().waiting(self.connection, time.monotonic())

    def _server(self) -> BoundedServer:
        server = self.server
        assert isinstance(server, BoundedServer)
        return server

    def handle_one_request(self) -> None:
        """One request, its deadline starting with its first byte; after it the connection
        waits again (an idle keep-alive may be closed to make room)."""
        self._reader.begin()
        super().handle_one_request()
        self._server().waiting(self.connection, time.monotonic())

    def _reply(self, code: int, body: bytes = b"", ctype: str = JSON, **headers: str) -> None:
        self.source.counted(code)
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, code: int, message: str, **headers: str) -> None:
        """OTLP/HTTP: an error carries a ``google.rpc.Status`` in the request's content
        type, protobuf-encoded for a protobuf request, JSON otherwise (readable with curl);
        its ``code`` is the HTTP status (the spec leaves it unused by clients)."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == PROTOBUF:
            body = Status(code=code, message=message).SerializeToString()
            self._reply(code, body, PROTOBUF, **headers)
        else:
            self._reply(code, json.dumps({"code": code, "message": message}).encode(), JSON,
                        **headers)  # fmt: skip

    def do_GET(self) -> None:
        self._error(405, "POST OTLP traces to /v1/traces", Allow="POST")

    def do_POST(self) -> None:
        self._server().waiting(self.connection, None)  # headers complete: keep the slot
        if not self.source.accepting:
            self.close_connection = True
            self._error(503, "ragmon is stopping, retry later", Retry_After="1")
            return
        request = self._request()
        if request is None:
            return
        body, ctype = request
        refused = self.source.offer(body, ctype)
        if refused is not None:
            self.close_connection = not self.source.accepting
            self._error(503, refused, Retry_After="1")
            return
        # An empty ExportTraceServiceResponse: zero bytes in protobuf, {} in JSON.
        self._reply(200, b"" if ctype == PROTOBUF else b"{}", ctype)

    def _request(self) -> tuple[bytes, str] | None:
        """The body (un-gzipped) and its content type; None once refused with a reply."""
        if not self.source.authorised(self.headers.get("Authorization")):
            self._error(401, "missing or wrong bearer token", WWW_Authenticate="Bearer")
            self.close_connection = True
            return None
        if self.path.split("?")[0] != PATH:
            self._error(404, f"unknown path; ragmon receives traces at {PATH}")
            return None
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._error(411, "Content-Length required")
            return None
        size = int(length)
        if size > self.source.max_body_bytes:
            self._error(413, f"body over {self.source.max_body_bytes} bytes")
            self.close_connection = True
            return None
        self._reader.body(size, self.source.min_body_rate)
        body = self.rfile.read(size)
        if len(body) < size:  # the client went away or the body's deadline passed
            self.close_connection = True
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in (PROTOBUF, JSON):
            self._error(415, f"Content-Type must be {PROTOBUF} or {JSON}")
            return None
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding == "gzip":
            try:
                unpacked = gunzip(body, self.source.max_body_bytes)
            except TooLarge:
                self.close_connection = True
                self._error(413, f"gzip body decompresses past {self.source.max_body_bytes} bytes")
                return None
            if unpacked is None:
                self._error(400, "gzip body is corrupt or truncated")
                return None
            return unpacked, ctype
        if encoding != "identity":
            self._error(415, f"Content-Encoding {encoding} not supported (gzip is)")
            return None
        return body, ctype


def _handler(source: OtlpHttpSource) -> type[BaseHTTPRequestHandler]:
    # ``timeout`` is the socket timeout of every read, the wait on an idle keep-alive too
    return type("Handler", (_Handler,), {"source": source, "timeout": source.read_timeout})
