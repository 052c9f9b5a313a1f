"""OTLP/HTTP trace receiver as a source: ``POST /v1/traces`` with a protobuf or JSON
``ExportTraceServiceRequest``, optionally gzip-compressed (the OTLP/HTTP spec).

A small deployment points its OTel SDK's OTLP/HTTP exporter at ragmon instead of running a
Collector and Kafka. Accepted requests wait in a bounded queue for the pipeline; when it is
full the receiver answers 503 with ``Retry-After`` (the OTLP exporters retry 429/502/503/504),
so a slow pipeline pushes back instead of buffering without bound. Decoding happens in the
pipeline: a body that is not OTLP is accepted here and becomes a dead letter with a reason.

Durability: accepted spans are held in memory until evaluated. A crash loses them (the
exporter got its 200); where that matters, export to Kafka and use the Kafka source.

Exposure: the receiver listens on loopback unless told otherwise. ``bearer_token`` makes
every request present ``Authorization: Bearer <token>`` (compared in constant time; a
missing or wrong token gets 401, counted like every answer); ``tls`` serves HTTPS.
"""

from __future__ import annotations

import hmac
import itertools
import json
import queue
import ssl
import threading
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import structlog

from monitor.errors import SourceError
from monitor.sources import SourceListener, SourcePosition, SourceRecord

PATH = "/v1/traces"
PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class OtlpHttpSource:
    name = "otlp_http"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 4318,
        max_body_bytes: int = 16 << 20,
        max_queue: int = 1000,
        on_request: Callable[[int], None] | None = None,
        bearer_token: str | None = None,
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.host = host
        self._expected_auth = f"Bearer {bearer_token}".encode() if bearer_token else None
        self._tls = tls
        self.requested_port = port
        self.max_body_bytes = max_body_bytes
        self._queue: queue.Queue[SourceRecord] = queue.Queue(maxsize=max_queue)
        self._seq = itertools.count()
        self._on_request = on_request
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.log = structlog.get_logger("ragmon.otlp_http")

    @property
    def port(self) -> int:
        return self._server.server_address[1] if self._server else self.requested_port

    def listen(self, listener: SourceListener) -> None:
        """No partitions move: nothing to tell."""

    def ready(self) -> bool:
        """Listening."""
        return self._server is not None

    def start(self) -> None:
        """Listen; a port in use or an unreadable certificate is a ``SourceError``."""
        where = f"{self.host}:{self.requested_port}"
        try:
            server = ThreadingHTTPServer((self.host, self.requested_port), _handler(self))
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
                      tls=self._tls is not None, auth=self._expected_auth is not None)  # fmt: skip

    def authorised(self, header: str | None) -> bool:
        """True when no token is configured or ``header`` presents it (constant time)."""
        if self._expected_auth is None:
            return True
        return hmac.compare_digest((header or "").strip().encode(), self._expected_auth)

    def offer(self, body: bytes, content_type: str) -> bool:
        """Queue one request body; False when the queue is full."""
        record = SourceRecord(
            SourcePosition(self.name, 0, next(self._seq)),
            body,
            headers=(("content-type", content_type.encode()),),
        )
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            return False
        return True

    def counted(self, code: int) -> None:
        if self._on_request is not None:
            self._on_request(code)

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
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

    @property
    def exhausted(self) -> bool:
        return False

    def commit(self, offsets: dict[tuple[str, int], int]) -> None:
        """Nothing to commit: an exporter does not resend what it got a 200 for."""

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _gunzip(data: bytes, limit: int) -> bytes | None:
    """Decompressed bytes, or None when larger than ``limit`` (a gzip bomb) or corrupt."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error:
        return None
    if len(out) > limit or not d.eof:
        return None
    return out


class _Handler(BaseHTTPRequestHandler):
    """One OTLP/HTTP request: checked, un-gzipped and offered to the source's queue."""

    source: OtlpHttpSource  # set per server by _handler()
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: requests are counted in ragmon_otlp_http_requests_total."""

    def _reply(self, code: int, body: bytes = b"", ctype: str = JSON, **headers: str) -> None:
        self.source.counted(code)
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, code: int, message: str, **headers: str) -> None:
        # OTLP/HTTP: errors carry a google.rpc.Status; JSON is accepted by exporters
        # and readable with curl.
        body = json.dumps({"code": code, "message": message}).encode()
        self._reply(code, body, JSON, **headers)

    def do_GET(self) -> None:
        self._error(405, "POST OTLP traces to /v1/traces", Allow="POST")

    def do_POST(self) -> None:
        request = self._request()
        if request is None:
            return
        body, ctype = request
        if not self.source.offer(body, ctype):
            self._error(503, "pipeline busy, retry later", Retry_After="1")
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
        body = self.rfile.read(size)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in (PROTOBUF, JSON):
            self._error(415, f"Content-Type must be {PROTOBUF} or {JSON}")
            return None
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding == "gzip":
            unpacked = _gunzip(body, self.source.max_body_bytes)
            if unpacked is None:
                self._error(400, "gzip body is corrupt or decompresses past the limit")
                return None
            return unpacked, ctype
        if encoding != "identity":
            self._error(415, f"Content-Encoding {encoding} not supported (gzip is)")
            return None
        return body, ctype


def _handler(source: OtlpHttpSource) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"source": source})
