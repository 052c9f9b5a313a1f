"""Generate the blind agent corpus: agent frameworks not in the main corpus, under their real
OpenInference instrumentation, talking to a local server that speaks the Chat Completions
API (JSON and server-sent events) as OpenAI's reference describes it.

Written by a hand that has not read ragmon's readers (``monitor/``): the ground truth follows
the written policy (docs/opentelemetry.md, "Tool outputs as passages" and "An agent's
question, context and retrieved documents") and is taken from what the model server RECEIVED
(the answering request's tool messages, the history's included, in its order) and what the
search tool RETURNED, never from the spans.

Per stack, next to this file under ``open/`` (two cases of three) and ``sealed/`` (every
third case, in the order the cases run): ``<stack>.otlp`` (length-prefixed protobuf export
requests), ``<stack>.otlp.jsonl`` (OTLP/JSON, hex ids, one request per line) and
``<stack>.truth.jsonl`` (one ground-truth object per trace, the main corpus's keys plus
``tool_errors``).

Run, each stack in its own environment (see README.md):
``python tests/otel_corpus/blind/generate.py --stack llamaindex-agent-openinference``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Where this machine keeps the repository and Python: an exception's stack trace on a span
# names files below them, and a corpus file must not carry where it was generated.
PLACES = ((f"{HERE.parents[2]}/", ""), (f"{sys.base_prefix}/", "<python>/"))


def _relative(text: str) -> str:
    for place, instead in PLACES:
        text = text.replace(place, instead)
    return text


def scrubbed(message: Any) -> Any:
    """``message`` (an OTLP protobuf message) with every string that names a file below the
    repository or the Python installation written relative to it, in place; returned."""
    for field, value in message.ListFields():
        # protobuf 6.30+ says is_repeated; the corpus's own venvs (5.x) say it by label
        many = (
            field.is_repeated
            if hasattr(field, "is_repeated")
            else field.label == field.LABEL_REPEATED
        )
        if field.type == field.TYPE_STRING:
            if many:
                value[:] = [_relative(v) for v in value]
            else:
                setattr(message, field.name, _relative(value))
        elif field.type == field.TYPE_MESSAGE:
            for item in value if many else [value]:
                scrubbed(item)
    return message


KB = {
    "shipping-policy": "Standard shipping takes 3-5 business days; express takes 1-2.",
    "refunds-2024": "Refunds are issued within 14 days of receiving the returned item.",
    "restocking-fees": "A restocking fee of $25 applies to opened electronics returns.",
    "warranty": "Electronics carry a 2-year limited warranty against defects.",
    "gift-cards": "Gift cards cannot be refunded or exchanged for cash.",
    "price-match": "We do not match prices from other retailers.",
    "international": "International orders ship from Rotterdam and take 7-12 business days.",
}
URL = "https://help.example.com/articles/"

# case, the user's question, the answer, the searches per model request (each request's list
# is the searches it asks for at once), and how the search tool writes its result
CASES: list[tuple[str, str, str, list[list[str]], str]] = [
    ("hits-url", "how long does standard shipping take",
     "Standard shipping takes 3-5 business days [1].", [["standard shipping"]], "hits"),
    ("numbered-dot", "can I get cash for a gift card",
     "No, gift cards cannot be exchanged for cash [1].", [["gift card cash"]], "dot"),
    ("free-text", "what warranty do electronics carry",
     "A 2-year limited warranty.", [["electronics warranty"]], "free"),
    ("parallel", "refund time and restocking fee for opened electronics",
     "Refunds take 14 days; a $25 fee applies.", [["refund days", "restocking fee"]], "json"),
    ("sequential", "where do international orders ship from and how long is express",
     "From Rotterdam [1]; express takes 1-2 days [1].",
     [["international orders"], ["express shipping"]], "source"),
    ("tool-error", "is my order eligible for a price match",
     "I could not search the help centre right now.", [["price match"]], "error"),
    ("no-results", "do you sell telescopes", "I don't know.", [["telescopes"]], "none"),
    ("empty-object", "do you offer layaway plans", "I don't know.", [["layaway"]], "empty"),
    ("begins-with-no", "were refunds ever older than 2019",
     "Refunds are issued within 14 days.", [["refunds 2019"]], "not-nothing"),
    ("repeat", "how fast is express delivery", "Express takes 1-2 days [1].",
     [["express delivery"], ["express delivery"]], "documents"),
    ("turn-1", "can gift cards be refunded", "No, gift cards cannot be refunded [1].",
     [["gift card refund"]], "documents"),
    ("turn-2", "and do you match other retailers' prices",
     "No, we do not match other retailers' prices [1].", [["match prices"]], "paren"),
]  # fmt: skip
SESSION = "blind-conv-7"
INSTRUCTIONS = "Answer from search_help's results; cite [n]."
STREAMED = {"sequential", "repeat"}  # AutoGen's streamed runs (the model's server-sent events)
ERROR = "search index unavailable (HTTP 503)"
STOP = frozenset("a an the of to do does is are how what when for on in my i can it".split())


def search_kb(query: str) -> list[dict[str, str]]:
    """The two documents sharing most content words with ``query`` (ties by id)."""
    words = {w.strip("?.,'") for w in query.lower().split()} - STOP
    scored = []
    for doc_id, text in KB.items():
        text_words = {w.strip("?.,;$'") for w in text.lower().split()}
        overlap = len(words & text_words) + sum(
            1 for w in words for t in text_words if len(w) > 4 and t.startswith(w[:5])
        )
        if overlap:
            scored.append((-overlap, doc_id))
    return [{"id": d, "text": KB[d]} for _, d in sorted(scored)[:2]]


def tool_output(fmt: str, query: str) -> tuple[str, list[dict[str, Any]]]:
    """What the search tool returns in ``fmt``, and its passages as the written policy
    counts them (a free-text result is one passage without an id; "found nothing" none)."""
    found = search_kb(query)
    if fmt == "hits":
        hits = [{"url": URL + d["id"], "title": d["id"], "snippet": d["text"]} for d in found]
        return json.dumps({"hits": hits}), [{"id": URL + d["id"], "text": d["text"]}
                                             for d in found]  # fmt: skip
    if fmt == "json":
        return json.dumps([{"doc_id": d["id"], "content": d["text"]} for d in found]), found
    if fmt == "documents":
        docs = [{"id": d["id"], "text": d["text"], "score": 0.8} for d in found]
        return json.dumps({"documents": docs}), found
    if fmt == "dot":
        return "\n".join(f"{i}. {d['text']} (doc_id: {d['id']})"
                         for i, d in enumerate(found, 1)), found  # fmt: skip
    if fmt == "source":
        return "\n".join(f"Source {i} - {d['text']} (source: {d['id']})"
                         for i, d in enumerate(found, 1)), found  # fmt: skip
    if fmt == "paren":
        return "\n".join(f"{i}) {d['text']} (id: {d['id']})"
                         for i, d in enumerate(found, 1)), found  # fmt: skip
    if fmt == "none":
        return "No relevant documents were found.", []
    if fmt == "empty":
        return json.dumps({"results": []}), []
    if fmt == "not-nothing":
        text = "No results for refunds were older than 2019. " + KB["refunds-2024"]
        return text, [{"id": None, "text": text}]
    text = "The help centre says: " + " ".join(d["text"] for d in found)
    return text, [{"id": None, "text": text}]


class Box:
    """The search tool and the model server's notes: what each search returned, what the
    answering request carried."""

    def __init__(self) -> None:
        self.case = ""
        self.outputs: dict[str, list[dict[str, Any]]] = {}  # a raw result -> its passages
        self.returned: dict[str, list[dict[str, Any]]] = {}  # case -> documents this turn
        self.calls: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self.received: dict[str, list[str]] = {}  # case -> the answering request's tool texts
        self.session: dict[str, str] = {}  # case -> the session id the app gave its run

    def search(self, query: str) -> str:
        fmt = next(c[4] for c in CASES if c[0] == self.case)
        self.calls[self.case] = self.calls.get(self.case, 0) + 1
        if fmt == "error":
            self.errors[self.case] = self.errors.get(self.case, 0) + 1
            raise RuntimeError(ERROR)
        raw, passages = tool_output(fmt, query)
        self.outputs[raw] = passages
        self.returned.setdefault(self.case, []).extend(p for p in passages)
        return raw

    def passages_of(self, text: str) -> list[dict[str, Any]]:
        """A tool message's passages: the result it carries (a framework may quote or wrap
        it), else — an error text the framework wrote — the whole message, one passage of
        unknown id, as the policy reads free text."""
        for raw, passages in self.outputs.items():
            if raw == text or raw in text or json.dumps(raw)[1:-1] in text:
                return passages
        return [{"id": None, "text": text}] if text.strip() else []

    def truth(self, case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        context: list[dict[str, Any]] = []
        for text in self.received.get(case, []):
            context += [p for p in self.passages_of(text) if p not in context]
        docs = self.returned.get(case, [])
        row = {"case": case, "trace_id": trace_id, "query": query, "answer": answer,
               "retrieved": list(dict.fromkeys(d["id"] for d in docs if d["id"] is not None)),
               "context": [{"doc_id": p["id"], "text": p["text"]} for p in context],
               "tool_calls": self.calls.get(case, 0), "tool_errors": self.errors.get(case, 0),
               "steps": len(next(c[3] for c in CASES if c[0] == case))}  # fmt: skip
        if case in self.session:
            row["session_id"] = self.session[case]
        if self.errors.get(case):  # the written policy names no rule for a failed tool
            row["policy_gap"] = (
                "a tool error's text, as the model received it, read as the policy reads any "
                "other free text: one passage of unknown id"
            )
        return row


def model_server(box: Box) -> str:
    """A local Chat Completions server: the n-th request of a case asks for that case's n-th
    searches (parallel tool calls when several), the next one answers; the answering
    request's tool messages (their text, in order) are noted for the truth."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    asked: dict[str, int] = {}
    by_case = {c[0]: c for c in CASES}

    def text_of(content: Any) -> str:
        if isinstance(content, list):
            return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return str(content or "")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def reply(self, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            case, _, answer, searches, _ = by_case[box.case]
            n = asked[case] = asked.get(case, -1) + 1
            calls = [{"id": f"call_{case}_{n}_{i}", "type": "function",
                      "function": {"name": "search_help", "arguments": json.dumps({"query": q})}}
                     for i, q in enumerate(searches[n])] if n < len(searches) else []  # fmt: skip
            if not calls:
                box.received[case] = [text_of(m.get("content")) for m in body["messages"]
                                      if m["role"] == "tool"]  # fmt: skip
            message: dict[str, Any] = {"role": "assistant", "content": answer}
            if calls:
                message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls" if calls else "stop"
            base = {"id": f"chatcmpl-{case}-{n}", "created": 1765000000, "model": body["model"]}
            usage = {"prompt_tokens": 80, "completion_tokens": 12, "total_tokens": 92}
            if not body.get("stream"):
                self.reply({**base, "object": "chat.completion", "usage": usage,
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish}]})  # fmt: skip
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            if calls:
                deltas = [{"role": "assistant", "tool_calls": [{**c, "index": i}]}
                          for i, c in enumerate(calls)]  # fmt: skip
            else:
                words = answer.split(" ")
                deltas = [{"role": "assistant", "content": (" " if i else "") + w}
                          for i, w in enumerate(words)]  # fmt: skip
            for delta in [*deltas, {}]:
                chunk = {**base, "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": delta,
                                      "finish_reason": None if delta else finish}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            last = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


class Recorder:
    """Finished spans per case (one trace each) and the truth; written split open / sealed."""

    def __init__(self, stack: str) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        self.stack = stack
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": stack}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.cases: list[tuple[list[Any], dict[str, Any]]] = []

    def run(self, ask: Callable[[str, str], str], box: Box) -> None:
        for case, query, _, _, _ in CASES:
            box.case = case
            answer = ask(case, query)
            spans = list(self.exporter.get_finished_spans())
            self.exporter.clear()
            ids = {s.context.trace_id for s in spans}
            if len(ids) != 1:
                raise RuntimeError(f"{case}: expected one trace, got {len(ids)}")
            trace_id = f"{ids.pop():032x}"
            self.cases.append((spans, box.truth(case, query, answer, trace_id)))

    def write(self) -> None:
        from google.protobuf.json_format import MessageToDict
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        for part in ("open", "sealed"):
            chosen = [c for i, c in enumerate(self.cases) if (i % 3 == 2) == (part == "sealed")]
            requests = [scrubbed(encode_spans(spans)) for spans, _ in chosen]
            folder = HERE / part
            folder.mkdir(exist_ok=True)
            proto = b"".join(len(b).to_bytes(4, "big") + b
                             for b in (r.SerializeToString() for r in requests))  # fmt: skip
            (folder / f"{self.stack}.otlp").write_bytes(proto)
            with (folder / f"{self.stack}.otlp.jsonl").open("w", encoding="utf-8") as out:
                for request in requests:
                    doc = MessageToDict(request)
                    for rs in doc.get("resourceSpans", []):
                        for ss in rs.get("scopeSpans", []):
                            for s in ss.get("spans", []):
                                for key in ("traceId", "spanId", "parentSpanId"):
                                    if s.get(key):
                                        s[key] = base64.b64decode(s[key]).hex()
                    out.write(json.dumps(doc, sort_keys=True) + "\n")
            with (folder / f"{self.stack}.truth.jsonl").open("w", encoding="utf-8") as out:
                for _, row in sorted(chosen, key=lambda c: c[1]["case"]):
                    out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


# --- LlamaIndex FunctionAgent ---------------------------------------------------------------


def llamaindex_agent(stack: str) -> None:
    """A LlamaIndex ``FunctionAgent`` (an ``OpenAILike`` model, a ``search_help`` function
    tool) under openinference-instrumentation-llama-index. The conversation's turns share
    one ``Memory`` (it carries the first turn's messages); the repeat case
    streams the agent's events."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    LlamaIndexInstrumentor().instrument(tracer_provider=rec.provider)
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.memory import Memory
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.openai import OpenAI

    box = Box()

    def search_help(query: str) -> str:
        """Search the help centre for articles about ``query``."""
        return box.search(query)

    llm = OpenAI(model="gpt-4o-mini", api_base=model_server(box), api_key="blind")
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(search_help)], llm=llm,
                          system_prompt=INSTRUCTIONS)  # fmt: skip
    conversation: list[Any] = []

    async def run(case: str, query: str) -> str:
        if case.startswith("turn-"):
            if not conversation:
                conversation.append(Memory.from_defaults(session_id=SESSION))
            handler = agent.run(query, memory=conversation[0])
        else:
            handler = agent.run(query)
        if case == "repeat":
            async for _ in handler.stream_events():
                pass
        return str((await handler).response.content)

    def ask(case: str, query: str) -> str:
        if case.startswith("turn-"):
            box.session[case] = SESSION
            with using_session(SESSION):
                return asyncio.run(run(case, query))
        return asyncio.run(run(case, query))

    rec.run(ask, box)
    rec.write()


# --- AutoGen AgentChat ----------------------------------------------------------------------


def autogen_agent(stack: str) -> None:
    """An AutoGen AgentChat ``AssistantAgent`` (``OpenAIChatCompletionClient``, a
    ``search_help`` tool, ``reflect_on_tool_use``: the answer is a model call after the
    tools) under openinference-instrumentation-autogen-agentchat. The conversation's turns
    run on one agent (its model context carries the first turn); the others on a fresh one,
    streaming the model's answers in the ``STREAMED`` cases."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

    AutogenAgentChatInstrumentor().instrument(tracer_provider=rec.provider)
    from autogen_agentchat.agents import AssistantAgent
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    box = Box()
    url = model_server(box)
    info = {"vision": False, "function_calling": True, "json_output": False,
            "family": "unknown", "structured_output": False}  # fmt: skip

    async def search_help(query: str) -> str:
        """Search the help centre for articles about the query."""
        return box.search(query)

    def agent(stream: bool = False) -> Any:
        client = OpenAIChatCompletionClient(model="fake-gpt", base_url=url, api_key="blind",
                                            model_info=info)  # fmt: skip
        return AssistantAgent("helper", model_client=client, tools=[search_help],
                              reflect_on_tool_use=True, max_tool_iterations=4,
                              model_client_stream=stream,
                              system_message=INSTRUCTIONS)  # fmt: skip

    conversation: list[Any] = []

    async def run(case: str, query: str) -> str:
        if case.startswith("turn-"):
            if not conversation:
                conversation.append(agent())
            helper = conversation[0]
        else:
            helper = agent(stream=case in STREAMED)
        result = await helper.run(task=query)
        return str(result.messages[-1].content)

    def ask(case: str, query: str) -> str:
        if case.startswith("turn-"):
            box.session[case] = SESSION
            with using_session(SESSION):
                return asyncio.run(run(case, query))
        return asyncio.run(run(case, query))

    rec.run(ask, box)
    rec.write()


# --- Agno -------------------------------------------------------------------------------------


def agno_agent(stack: str) -> None:
    """An Agno ``Agent`` (``OpenAIChat`` pointed at the local server, a ``search_help``
    function) under openinference-instrumentation-agno. The conversation's turns share one
    session (an in-memory db, ``add_history_to_context``); the other cases run without one."""
    rec = Recorder(stack)
    from openinference.instrumentation.agno import AgnoInstrumentor

    AgnoInstrumentor().instrument(tracer_provider=rec.provider)
    from agno.agent import Agent
    from agno.db.in_memory import InMemoryDb
    from agno.models.openai import OpenAIChat

    box = Box()

    def search_help(query: str) -> str:
        """Search the help centre for articles about the query.

        Args:
            query: what to search for
        """
        return box.search(query)

    model = OpenAIChat(id="gpt-4o-mini", base_url=model_server(box), api_key="blind")
    agent = Agent(model=model, tools=[search_help], instructions=INSTRUCTIONS,
                  db=InMemoryDb(), add_history_to_context=True)  # fmt: skip

    def ask(case: str, query: str) -> str:
        box.session[case] = SESSION if case.startswith("turn-") else f"blind-{case}"
        return str(agent.run(query, session_id=box.session[case]).content)

    rec.run(ask, box)
    rec.write()


# --- Haystack Agent ---------------------------------------------------------------------------


def haystack_agent(stack: str) -> None:
    """A Haystack ``Agent`` component (``OpenAIChatGenerator`` pointed at the local server, a
    ``search_help`` ``Tool``; a failing tool's error goes back to the model) in a one-component
    ``Pipeline``, under openinference-instrumentation-haystack. The conversation's second
    turn is run with the first turn's messages before its question."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.haystack import HaystackInstrumentor

    HaystackInstrumentor().instrument(tracer_provider=rec.provider)
    from haystack import Pipeline
    from haystack.components.agents import Agent
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import Tool
    from haystack.utils import Secret

    box = Box()
    tool = Tool(name="search_help", description="Search the help centre.",
                parameters={"type": "object", "properties": {"query": {"type": "string"}},
                            "required": ["query"]},
                function=box.search)  # fmt: skip
    generator = OpenAIChatGenerator(model="gpt-4o-mini", api_base_url=model_server(box),
                                    api_key=Secret.from_token("blind"))  # fmt: skip
    pipe = Pipeline()
    pipe.add_component("agent", Agent(chat_generator=generator, tools=[tool],
                                      system_prompt=INSTRUCTIONS))  # fmt: skip
    history: list[Any] = []

    def ask(case: str, query: str) -> str:
        messages = [*history, ChatMessage.from_user(query)]
        if case.startswith("turn-"):
            box.session[case] = SESSION
            with using_session(SESSION):
                out = pipe.run({"agent": {"messages": messages}})["agent"]
        else:
            out = pipe.run({"agent": {"messages": [ChatMessage.from_user(query)]}})["agent"]
        if case == "turn-1":
            history[:] = [m for m in out["messages"] if not m.is_from("system")]
        return str(out["last_message"].text)

    rec.run(ask, box)
    rec.write()


RUNNERS = {
    "llamaindex-agent-openinference": llamaindex_agent,
    "autogen-agentchat-openinference": autogen_agent,
    "agno-openinference": agno_agent,
    "haystack-agent-openinference": haystack_agent,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stack", choices=list(RUNNERS), required=True)
    RUNNERS[parser.parse_args().stack](parser.parse_args().stack)


if __name__ == "__main__":
    main()
