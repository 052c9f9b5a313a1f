"""A local server that speaks the OpenAI Chat Completions wire format, for the real ``openai``
SDK to talk to over HTTP: scripted answers, and the ways real servers differ — one without
JSON-schema output (400, as older vLLM and llama.cpp builds answer), one without tools, one
that ignores ``response_format`` and answers in prose, one that reports no ``usage``, plus
429/500, slow answers and malformed bodies."""

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
    """One scripted answer; ``claims`` is the verdict the 'model' gives."""

    status: int = 200
    claims: list[dict[str, Any]] = field(default_factory=list)
    is_refusal: bool = False
    context_has_answer: bool | None = None
    raw_body: bytes | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    prose: str | None = None  # answer with this text whatever was asked
    tool_input: dict[str, Any] | None = None  # the arguments instead of a verdict


def verdict(*labels: str) -> Reply:
    claims = [{"text": f"claim {i}", "label": lab, "passage": 1 if lab != "ABSENT" else None}
              for i, lab in enumerate(labels)]  # fmt: skip
    return Reply(claims=claims)


class ChatCompletionsApi:
    def __init__(
        self,
        json_schema: bool = True,
        tools: bool = True,
        ignores_response_format: bool = False,
        usage: bool = True,
    ) -> None:
        self.script: deque[Reply] = deque()
        self.default = verdict("SUPPORTED")
        self.requests: list[dict[str, Any]] = []
        self.json_schema, self.tools = json_schema, tools
        self.ignores_response_format, self.usage = ignores_response_format, usage
        self.models_status = 200
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if not self.path.startswith("/v1/models/"):
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})
                    return
                model = self.path.rsplit("/", 1)[1]
                if api.models_status != 200:
                    msg = "model not found" if api.models_status == 404 else "invalid api key"
                    self._send(api.models_status, {"error": {"message": msg, "type": "error"}})
                    return
                self._send(200, {"id": model, "object": "model", "created": 0, "owned_by": "x"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with api.lock:
                    api.requests.append(body)
                    reply = api.script.popleft() if api.script else api.default
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw_body is not None:
                    self._raw(reply.status, reply.raw_body, reply.headers)
                    return
                if reply.status != 200:
                    err = {"error": {"message": "scripted", "type": "server_error"}}
                    self._send(reply.status, err, reply.headers)
                    return
                refused = api.refusal(body)
                if refused:
                    self._send(400, {"error": {"message": refused, "type": "invalid_request_error",
                                               "param": "response_format"}})  # fmt: skip
                    return
                self._send(200, api.completion(body, reply))

            def _send(self, status: int, doc: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:  # fmt: skip
                self._raw(status, json.dumps(doc).encode(), headers or {})

            def _raw(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def refusal(self, body: dict[str, Any]) -> str | None:
        """Why this server refuses the request (400), as servers without a feature do."""
        fmt = (body.get("response_format") or {}).get("type")
        if fmt == "json_schema" and not self.json_schema and not self.ignores_response_format:
            return "response_format of type json_schema is not supported"
        if body.get("tools") and not self.tools:
            return "tools are not supported by this model"
        return None

    def completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        args = json.dumps(reply.tool_input if reply.tool_input is not None else {
            "claims": reply.claims, "is_refusal": reply.is_refusal,
            "context_has_answer": reply.context_has_answer})  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": args}
        if reply.prose is not None or (self.ignores_response_format and not body.get("tools")):
            message["content"] = reply.prose or "The answer looks faithful to me."
        elif body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            call = {"id": "call_1", "type": "function",
                    "function": {"name": name, "arguments": args}}  # fmt: skip
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        doc: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }  # fmt: skip
        if self.usage:
            doc["usage"] = {"prompt_tokens": 900, "completion_tokens": 120, "total_tokens": 1020}
        return doc

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ChatCompletionsApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
