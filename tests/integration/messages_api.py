"""A local HTTP server that speaks the Anthropic Messages API wire format, scriptable per
request: verdict payloads, latency, 429 with retry-after, 529, 500, malformed JSON, truncated
output. The real ``anthropic`` SDK talks to it through ``base_url``."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer. ``tool_input`` is what the model 'calls' record_verdict with."""

    status: int = 200
    tool_input: dict[str, Any] | None = None
    raw_body: bytes | None = None  # sent as is (malformed JSON, ...)
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    stop_reason: str = "tool_use"
    text_only: str | None = None  # a reply without the tool call


def verdict(*labels: str, refusal: bool = False, has_answer: bool | None = None) -> Reply:
    claims = [{"text": f"claim {i}", "label": lab, "passage": 1 if lab != "ABSENT" else None}
              for i, lab in enumerate(labels)]  # fmt: skip
    return Reply(tool_input={"claims": claims, "is_refusal": refusal,
                             "context_has_answer": has_answer})  # fmt: skip


class MessagesApi:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.default: Reply = verdict("SUPPORTED")
        self.requests: list[dict[str, Any]] = []
        self.models_status = 200  # what GET /v1/models/{id} answers (the start-up check)
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if not self.path.startswith("/v1/models/"):
                    self._send(404, b'{"type": "error", "error": {"type": "not_found_error"}}', {})
                    return
                model = self.path.rsplit("/", 1)[1]
                if api.models_status != 200:
                    kind = {401: "authentication_error", 403: "permission_error"}.get(
                        api.models_status, "not_found_error"
                    )
                    err = {"type": "error", "error": {"type": kind, "message": "scripted"}}
                    self._send(api.models_status, json.dumps(err).encode(), {})
                    return
                info = {"type": "model", "id": model, "display_name": model,
                        "created_at": "2025-01-01T00:00:00Z"}  # fmt: skip
                self._send(200, json.dumps(info).encode(), {})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                request = json.loads(body)
                with api.lock:
                    api.requests.append({"path": self.path, "body": request,
                                         "headers": dict(self.headers)})  # fmt: skip
                    reply = api.script.popleft() if api.script else api.default
                if reply.delay:
                    time.sleep(reply.delay)
                if self.path.endswith("/count_tokens"):
                    self._send(200, json.dumps({"input_tokens": len(body) // 4}).encode(), {})
                    return
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body, reply.headers)
                    return
                if reply.status != 200:
                    err = {"type": "error", "error": {"type": "api_error", "message": "scripted"}}
                    self._send(reply.status, json.dumps(err).encode(), reply.headers)
                    return
                content: list[dict[str, Any]]
                if reply.text_only is not None:
                    content = [{"type": "text", "text": reply.text_only}]
                else:
                    tool = (request.get("tools") or [{}])[0].get("name", "record_verdict")
                    content = [{"type": "tool_use", "id": "toolu_01", "name": tool,
                                "input": reply.tool_input}]  # fmt: skip
                message = {
                    "id": f"msg_{len(api.requests)}",
                    "type": "message",
                    "role": "assistant",
                    "model": request.get("model"),
                    "content": content,
                    "stop_reason": reply.stop_reason,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 900, "output_tokens": 120,
                              "cache_read_input_tokens": 400, "cache_creation_input_tokens": 0},
                }  # fmt: skip
                self._send(200, json.dumps(message).encode(), reply.headers)

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("request-id", "req_test")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> MessagesApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
