"""A local OTLP/HTTP logs endpoint for tests: decodes what it receives with opentelemetry-proto."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord


class OtlpLogsReceiver:
    """Collects every LogRecord POSTed to /v1/logs; ``status`` scripts the answer code."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self.resources: list[dict[str, Any]] = []
        self.status = 200
        self.requests = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                receiver.requests += 1
                if self.path != "/v1/logs" or receiver.status != 200:
                    self.send_response(receiver.status if self.path == "/v1/logs" else 404)
                    self.end_headers()
                    return
                request = ExportLogsServiceRequest.FromString(body)
                for rl in request.resource_logs:
                    attrs = {kv.key: kv.value.string_value for kv in rl.resource.attributes}
                    for sl in rl.scope_logs:
                        for record in sl.log_records:
                            receiver.records.append(record)
                            receiver.resources.append(attrs)
                payload = ExportLogsServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/logs"

    def __enter__(self) -> OtlpLogsReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def attributes(record: LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in record.attributes:
        v = kv.value
        out[kv.key] = v.double_value if v.HasField("double_value") else v.string_value
    return out
