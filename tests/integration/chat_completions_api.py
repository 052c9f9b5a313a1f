"""A local server that speaks the OpenAI Chat Completions wire format, for the real ``openai``
SDK to talk to over HTTP: scripted answers, and the ways real servers differ — one without
JSON-schema output (400, as older vLLM and llama.cpp builds answer), one without tools, one
that ignores ``response_format`` and answers in prose, one that reports no ``usage``, plus
429/500, slow answers and malformed bodies."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
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
    # How self-hosted reasoning servers answer without a reasoning parser: the content is
    # ``wrap`` with the verdict JSON put in for "{json}" (a <think> block first, a fence, a
    # sentence around it), whatever was asked; ``reasoning`` goes in a message field of its
    # own (vLLM's reasoning_content); ``finish_reason`` "length" cuts the content in half.
    wrap: str | None = None
    reasoning: str | None = None
    finish_reason: str = "stop"
    completion_tokens: int = 120
    object_arguments: bool = False  # tool-call arguments as a JSON object, not a string
    # the arguments computed from the request, as a model reads its prompt
    reads: Callable[[dict[str, Any]], dict[str, Any]] | None = None


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
        # the Batch API: uploaded files by id, batches by id (ended when the test says so)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.end_batches = False
        self.failed_ids: set[str] = set()  # custom_ids answered with an error line
        self.expired_ids: set[str] = set()  # custom_ids not run within the window
        # As the API reference's create example answers: a new batch is "validating" with
        # every request count 0 for a while before it is "in_progress" with its total.
        self.validating_seconds = 1.0
        self.creates = 0  # create calls the server recorded a batch for (each one is paid)
        self.lose_create_answers = 0  # record the next creates, then answer 500
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if self.path.startswith(("/v1/batches", "/v1/files")):
                    self._batch_api_get()
                    return
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
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.startswith("/v1/files"):
                    self._upload(raw)
                    return
                body = json.loads(raw)
                if self.path.startswith("/v1/batches"):
                    self._batch_create(body)
                    return
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

            # --- the Batch API ----------------------------------------------------------

            def _upload(self, raw: bytes) -> None:
                """multipart/form-data with the JSONL in the part named "file"."""
                boundary = self.headers["Content-Type"].split("boundary=")[1].strip('"')
                content = b""
                for part in raw.split(b"--" + boundary.encode()):
                    head, _, data = part.partition(b"\r\n\r\n")
                    if b'name="file"' in head:
                        content = data.removesuffix(b"\r\n")
                file_id = f"file-{uuid.uuid4().hex[:20]}"
                with api.lock:
                    api.files[file_id] = content
                self._send(200, {"id": file_id, "object": "file", "bytes": len(content),
                                 "created_at": int(time.time()), "filename": "batch.jsonl",
                                 "purpose": "batch", "status": "processed"})  # fmt: skip

            def _batch_create(self, body: dict[str, Any]) -> None:
                batch_id = f"batch_{uuid.uuid4().hex[:20]}"
                lines = api.files[body["input_file_id"]].decode().splitlines()
                with api.lock:
                    api.batches[batch_id] = {"input": [json.loads(x) for x in lines if x.strip()],
                                             "created": int(time.time()), "ended": False,
                                             "body": body, "at": time.monotonic()}  # fmt: skip
                    api.creates += 1
                    lost = api.lose_create_answers > 0
                    api.lose_create_answers -= lost
                if lost:  # recorded, but the answer never makes it back
                    self._send(500, {"error": {"message": "internal", "type": "server_error"}})
                    return
                self._send(200, api.batch(batch_id))

            def _batch_api_get(self) -> None:
                parts = self.path.split("?")[0].rstrip("/").split("/")  # /v1/batches[/id]
                if parts[2] == "files":  # /v1/files/{id}/content
                    self._raw(200, api.files[parts[3]], {})
                    return
                if len(parts) == 3:
                    data = [api.batch(b) for b in reversed(list(api.batches))]
                    self._send(200, {"object": "list", "data": data, "has_more": False,
                                     "first_id": data[0]["id"] if data else None,
                                     "last_id": data[-1]["id"] if data else None})  # fmt: skip
                    return
                if api.end_batches and not api.batches[parts[3]]["ended"]:
                    api.finish(parts[3])
                self._send(200, api.batch(parts[3]))

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

    def batch(self, batch_id: str) -> dict[str, Any]:
        """The Batch object, as ``GET /v1/batches/{id}`` answers it."""
        b = self.batches[batch_id]
        validating = not b["ended"] and time.monotonic() - b["at"] < self.validating_seconds
        n = 0 if validating else len(b["input"])
        bad = self.failed_ids | self.expired_ids
        failed = sum(r["custom_id"] in bad for r in b["input"]) if b["ended"] else 0
        status = "completed" if b["ended"] else "validating" if validating else "in_progress"
        return {
            "id": batch_id, "object": "batch", "endpoint": b["body"]["endpoint"],
            "input_file_id": b["body"]["input_file_id"],
            "completion_window": b["body"]["completion_window"],
            "status": status,
            "created_at": b["created"], "metadata": b["body"].get("metadata"),
            "output_file_id": b.get("output_file_id"), "error_file_id": b.get("error_file_id"),
            "request_counts": {"total": n, "completed": n - failed if b["ended"] else 0,
                               "failed": failed},
        }  # fmt: skip

    def finish(self, batch_id: str) -> None:
        """End a batch: an output file (and an error file for ``failed_ids``)."""
        b = self.batches[batch_id]
        out, err = [], []
        for n, request in enumerate(b["input"]):
            line = {"id": f"batch_req_{n}", "custom_id": request["custom_id"]}
            if request["custom_id"] in self.failed_ids:
                err.append({**line, "response": None,
                            "error": {"code": "server_error", "message": "scripted"}})  # fmt: skip
            elif request["custom_id"] in self.expired_ids:  # as the Batch API guide shows it
                err.append({**line, "response": None, "error": {
                    "code": "batch_expired",
                    "message": "This request could not be executed before the completion "
                               "window expired."}})  # fmt: skip
            else:
                body = self.completion(request["body"], self.default)
                out.append({**line, "response": {"status_code": 200, "body": body},
                            "error": None})  # fmt: skip
        for key, lines in (("output_file_id", out), ("error_file_id", err)):
            if lines:
                file_id = f"file-{uuid.uuid4().hex[:20]}"
                self.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                b[key] = file_id
        b["ended"] = True

    def refusal(self, body: dict[str, Any]) -> str | None:
        """Why this server refuses the request (400), as servers without a feature do."""
        fmt = (body.get("response_format") or {}).get("type")
        if fmt == "json_schema" and not self.json_schema and not self.ignores_response_format:
            return "response_format of type json_schema is not supported"
        if body.get("tools") and not self.tools:
            return "tools are not supported by this model"
        return None

    def completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        given = reply.reads(body) if reply.reads is not None else reply.tool_input
        args = json.dumps(given if given is not None else {
            "claims": reply.claims, "is_refusal": reply.is_refusal,
            "context_has_answer": reply.context_has_answer})  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": args}
        if reply.prose is not None or (self.ignores_response_format and not body.get("tools")):
            message["content"] = reply.prose or "The answer looks faithful to me."
        elif reply.wrap is not None:
            message["content"] = reply.wrap.replace("{json}", args)
        elif body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            call = {"id": "call_1", "type": "function",
                    "function": {"name": name, "arguments":
                                 json.loads(args) if reply.object_arguments else args}}  # fmt: skip
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        if reply.finish_reason == "length" and message.get("content"):
            message["content"] = message["content"][: len(message["content"]) // 2]
        doc: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        }  # fmt: skip
        if self.usage:
            out = reply.completion_tokens
            doc["usage"] = {"prompt_tokens": 900, "completion_tokens": out,
                            "total_tokens": 900 + out}  # fmt: skip
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
