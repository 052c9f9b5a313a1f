"""A local HTTP server that speaks the Anthropic Messages API wire format, scriptable per
request: verdict payloads, latency, 429 with retry-after, 529, 500, malformed JSON, truncated
output; and the Message Batches API (create, retrieve, list, results as JSONL; requests that
succeed, error, are canceled or expire; batches that end when the test says so; a results
download that stalls midway, for a crash while results are read). The real ``anthropic`` SDK
talks to it through ``base_url``."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
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
    # the tool input computed from the request, as a model reads its prompt (e.g. one
    # relevance entry per passage it was shown)
    reads: Callable[[dict[str, Any]], dict[str, Any]] | None = None


def verdict(
    *labels: str, refusal: bool = False, has_answer: bool | None = None,
    relevance: str | None = None,
) -> Reply:  # fmt: skip
    """A verdict of claims with these labels; with ``relevance``, also the answer's relevance
    and, as a model reading its prompt would, the first passage relevant and the rest not."""
    claims = [{"text": f"claim {i}", "label": lab, "passage": 1 if lab != "ABSENT" else None}
              for i, lab in enumerate(labels)]  # fmt: skip
    given = {"claims": claims, "is_refusal": refusal, "context_has_answer": has_answer}
    if relevance is None:
        return Reply(tool_input=given)

    def reads(request: dict[str, Any]) -> dict[str, Any]:
        n = str(request.get("messages")).count("<passage n=")
        per_passage = ["relevant"] + ["irrelevant"] * (n - 1) if n else []
        return {**given, "answer_relevance": relevance, "context_relevance": per_passage}

    return Reply(reads=reads)


def _message(request: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    """A Messages API answer to ``request`` as ``reply`` scripts it."""
    content: list[dict[str, Any]]
    if reply.text_only is not None:
        content = [{"type": "text", "text": reply.text_only}]
    else:
        tool = (request.get("tools") or [{}])[0].get("name", "record_verdict")
        content = [{"type": "tool_use", "id": "toolu_01", "name": tool,
                    "input": reply.reads(request) if reply.reads else reply.tool_input,
                    }]  # fmt: skip
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model"),
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 900, "output_tokens": 120,
                  "cache_read_input_tokens": 400, "cache_creation_input_tokens": 0},
    }  # fmt: skip


class MessagesApi:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.default: Reply = verdict("SUPPORTED")
        self.requests: list[dict[str, Any]] = []
        self.count_requests: list[dict[str, Any]] = []  # POST /v1/messages/count_tokens
        self.models_status = 200  # what GET /v1/models/{id} answers (the start-up check)
        self.lock = threading.Lock()
        # Message Batches: id -> {"requests": [...], "created": datetime, "ended": bool}
        self.batches: dict[str, dict[str, Any]] = {}
        self.end_batches = False  # every batch ends as soon as it is retrieved
        self.outcomes: dict[str, str] = {}  # custom_id -> errored | canceled | expired
        self.results_stall = 0.0  # seconds the results download stops after its first line
        self.results_started = threading.Event()
        self.results_release = threading.Event()  # ends a stall early
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if self.path.startswith("/v1/messages/batches"):
                    self._batches_get()
                    return
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
                if self.path.startswith("/v1/messages/batches"):
                    self._batch_create(request)
                    return
                if self.path.endswith("/count_tokens"):  # kept apart: not a judge call
                    with api.lock:
                        api.count_requests.append(request)
                    self._send(200, json.dumps({"input_tokens": len(body) // 4}).encode(), {})
                    return
                with api.lock:
                    api.requests.append({"path": self.path, "body": request,
                                         "headers": dict(self.headers)})  # fmt: skip
                    reply = api.script.popleft() if api.script else api.default
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body, reply.headers)
                    return
                if reply.status != 200:
                    err = {"type": "error", "error": {"type": "api_error", "message": "scripted"}}
                    self._send(reply.status, json.dumps(err).encode(), reply.headers)
                    return
                message = _message(request, reply, len(api.requests))
                self._send(200, json.dumps(message).encode(), reply.headers)

            # --- Message Batches -------------------------------------------------------

            def _batch_create(self, request: dict[str, Any]) -> None:
                batch_id = f"msgbatch_{uuid.uuid4().hex[:20]}"
                with api.lock:
                    api.batches[batch_id] = {"requests": request["requests"], "ended": False,
                                             "created": datetime.now(UTC)}  # fmt: skip
                    api.requests.append({"path": self.path, "body": request,
                                         "headers": dict(self.headers)})  # fmt: skip
                self._send(200, json.dumps(self._batch(batch_id)).encode(), {})

            def _batches_get(self) -> None:
                parts = self.path.split("?")[0].rstrip("/").split("/")  # /v1/messages/batches/...
                if len(parts) == 4:
                    with api.lock:
                        data = [self._batch(b) for b in reversed(list(api.batches))]
                    page = {"data": data, "has_more": False,
                            "first_id": data[0]["id"] if data else None,
                            "last_id": data[-1]["id"] if data else None}  # fmt: skip
                    self._send(200, json.dumps(page).encode(), {})
                    return
                batch_id = parts[4]
                if batch_id not in api.batches:
                    err = {"type": "error", "error": {"type": "not_found_error", "message": "no"}}
                    self._send(404, json.dumps(err).encode(), {})
                    return
                if len(parts) == 6 and parts[5] == "results":
                    self._results(batch_id)
                    return
                if api.end_batches:
                    with api.lock:
                        api.batches[batch_id]["ended"] = True
                self._send(200, json.dumps(self._batch(batch_id)).encode(), {})

            def _batch(self, batch_id: str) -> dict[str, Any]:
                b = api.batches[batch_id]
                counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled",
                                        "expired"), 0)  # fmt: skip
                for r in b["requests"]:
                    outcome = api.outcomes.get(r["custom_id"], "succeeded")
                    counts[outcome if b["ended"] else "processing"] += 1
                created = b["created"]
                return {
                    "id": batch_id, "type": "message_batch",
                    "processing_status": "ended" if b["ended"] else "in_progress",
                    "request_counts": counts,
                    "created_at": created.isoformat(),
                    "expires_at": (created + timedelta(hours=24)).isoformat(),
                    "ended_at": datetime.now(UTC).isoformat() if b["ended"] else None,
                    "archived_at": None, "cancel_initiated_at": None,
                    "results_url": f"{api.base_url}/v1/messages/batches/{batch_id}/results"
                    if b["ended"] else None,
                }  # fmt: skip

            def _results(self, batch_id: str) -> None:
                lines = []
                for n, r in enumerate(api.batches[batch_id]["requests"]):
                    outcome = api.outcomes.get(r["custom_id"], "succeeded")
                    result: dict[str, Any] = {"type": outcome}
                    if outcome == "succeeded":
                        result["message"] = _message(r["params"], api.default, n)
                    elif outcome == "errored":
                        error = {"type": "api_error", "message": "scripted"}
                        result["error"] = {"type": "error", "error": error}
                    lines.append(json.dumps({"custom_id": r["custom_id"], "result": result}))
                body = ("\n".join(lines) + "\n").encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/binary")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                first = body.index(b"\n") + 1
                self.wfile.write(body[:first])
                self.wfile.flush()
                api.results_started.set()
                if api.results_stall:
                    api.results_release.wait(api.results_stall)
                self.wfile.write(body[first:])

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
