"""The OTel GenAI conventions (the current generation and the older one) and OpenLLMetry
(Traceloop), which share the shape: inference spans, retrieval spans or vector-store events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from monitor.ingest.conventions.core import (
    _answer_value,
    _Doc,
    _doc,
    _first_string,
    _flat_messages,
    _is_repr,
    _loads,
    _messages,
    _meta_id,
    _outermost,
    _question_from_prompt,
    _score,
    _Shape,
    _text,
    _unique,
)
from monitor.ingest.conventions.packing import _packed
from monitor.ingest.conventions.turns import ANSWER_TOOLS, ToolResult, calls, once, passages
from monitor.ingest.otlp import Span

# --- OTel GenAI and OpenLLMetry ---------------------------------------------------------

_INFERENCE_OPS = frozenset({"chat", "text_completion", "generate_content", "completion"})


def _is_inference(s: Span) -> bool:
    a = s.attributes
    op = a.get("gen_ai.operation.name")
    if op is not None:
        return isinstance(op, str) and op in _INFERENCE_OPS
    return any(
        k in a
        for k in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt",
                  "gen_ai.completion", "gen_ai.prompt.0.content", "gen_ai.completion.0.content",
                  "llm.request.type")
    ) or any(e.name in _LEGACY_EVENTS for e in s.events)  # fmt: skip


def has_model_call(spans: list[Span]) -> bool:
    """Some span of these is a model call (OpenInference LLM, or a GenAI inference span)."""
    return any(s.kind == "LLM" or _is_inference(s) for s in spans)


_LEGACY_EVENTS = frozenset({
    "gen_ai.content.prompt", "gen_ai.content.completion", "gen_ai.system.message",
    "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice",
})  # fmt: skip
_RESULT_EVENTS = {"db.query.result": "db.query.result.", "db.search.result": "db.search.result."}


def _prompt_and_answer(s: Span) -> tuple[list[tuple[str, str]], str, str]:
    """(input messages, system instructions, answer) of an inference span, any generation."""
    a = s.attributes
    system = _text(a.get("gen_ai.system_instructions"))
    inputs = _messages(a.get("gen_ai.input.messages")) or _messages(a.get("gen_ai.prompt"))
    inputs = inputs or _flat_messages(a, "gen_ai.prompt")
    outputs = _messages(a.get("gen_ai.output.messages")) or _messages(a.get("gen_ai.completion"))
    outputs = outputs or _flat_messages(a, "gen_ai.completion")
    for e in s.events:  # ≤ 1.36 content events
        ea = e.attributes
        if e.name == "gen_ai.content.prompt":
            inputs = inputs or _messages(ea.get("gen_ai.prompt"))
        elif e.name == "gen_ai.content.completion":
            outputs = outputs or _messages(ea.get("gen_ai.completion"))
        elif e.name in ("gen_ai.system.message", "gen_ai.user.message", "gen_ai.tool.message"):
            inputs.append((e.name.split(".")[1], _text(ea.get("content"))))
        elif e.name == "gen_ai.choice":
            outputs = outputs or _choice(ea.get("message") or ea.get("content"))
    answer = next((t for role, t in outputs if role != "tool" and t), "")
    return inputs, system, answer


def _choice(value: object) -> list[tuple[str, str]]:
    """The messages of a ``gen_ai.choice`` event: a message, or (Strands) the message's
    content blocks alone (``[{"text": …}, {"toolUse": …}]``: the assistant's)."""
    blocks = _loads(value)
    if (
        isinstance(blocks, list)
        and blocks
        and all(
            isinstance(b, dict) and not {"role", "parts", "content", "message"} & b.keys()
            for b in blocks
        )
    ):
        return [("assistant", _text(blocks))]
    return _messages(value)


def _tool_result_blocks(raw: str) -> list[tuple[str | None, str]]:
    """(call id, text) of the results a tool message carries: Bedrock-style ``toolResult``
    blocks (Strands: ``[{"toolResult": {"toolUseId": …, "content": [{"text": …} | {"json":
    …}]}}]``), one result each, their text blocks joined; anything else is the result
    itself, of unknown call."""
    value = _loads(raw)
    blocks = value if isinstance(value, list) else []
    if not blocks or not all(isinstance(b, dict) and isinstance(b.get("toolResult"), dict)
                             for b in blocks):  # fmt: skip
        return [(None, raw)]
    out = []
    for block in blocks:
        result = block["toolResult"]
        content = result.get("content")
        parts = [p for p in (content if isinstance(content, list) else [])
                 if isinstance(p, dict) and ("text" in p or "json" in p)]  # fmt: skip
        texts = [p["text"] if isinstance(p.get("text"), str) else json.dumps(p["json"])
                 for p in parts]  # fmt: skip
        out.append((_call_id(result.get("toolUseId")), "\n".join(texts)))
    return out


def _call_id(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _result_events(s: Span) -> list[_Doc]:
    docs = []
    for e in s.events:
        head = _RESULT_EVENTS.get(e.name)
        if head is None:
            continue
        a = e.attributes
        meta_id = _meta_id(a.get(head + "metadata"))
        doc_id = a.get(head + "id") or meta_id
        text = a.get(head + "document") or a.get(head + "entity")
        docs.append(_Doc(str(doc_id) if doc_id else None, _text(text) or None,
                         _score(a.get(head + "score"))))  # fmt: skip
    return docs


def _entity_docs(value: object) -> list[_Doc]:
    """Documents in an OpenLLMetry task's entity output: LangChain's ``{"documents": [...]}``
    or LlamaIndex's list of ``NodeWithScore`` JSON strings."""
    value = _loads(value)
    if isinstance(value, dict):
        value = value.get("documents", value.get("nodes"))
    if not isinstance(value, list):
        return []
    docs = []
    for item in value:
        item = _loads(item)
        if isinstance(item, dict) and ("node" in item or "page_content" in item or "text" in item):
            docs.append(_doc(item))
    return docs


_RETRIEVAL_OPS = frozenset({"retrieval", "retrieve", "vector_db_retrieve"})


def _retriever_name(a: Mapping[str, object]) -> bool:
    """An OpenLLMetry task named after a retriever class ("BM25Retriever.task"), not the
    query engine around it ("RetrieverQueryEngine.task")."""
    name = str(a.get("traceloop.entity.name", "")).lower()
    return "retriev" in name and "engine" not in name


def _is_retrieval(s: Span) -> bool:
    a = s.attributes
    op = a.get("gen_ai.operation.name")
    return (
        (isinstance(op, str) and op in _RETRIEVAL_OPS)
        or "gen_ai.retrieval.documents" in a
        or "db.vector.query.top_k" in a
        or any(e.name in _RESULT_EVENTS for e in s.events)
        or (a.get("traceloop.span.kind") == "task" and _retriever_name(a))
    )  # fmt: skip


def _response_text(response: object) -> str:
    """A tool's response as its text: a string as it is; Google ADK's wrapping of a plain
    return value read through (its tool caller makes a return value that is not a dict
    ``{"result": value}``: the function response must be a dict); any other JSON as JSON."""
    if isinstance(response, dict) and response.keys() == {"result"}:
        response = response["result"]
    return response if isinstance(response, str) else json.dumps(response)


def _tool_results(s: Span) -> list[ToolResult]:
    """What the tools returned, as an inference span's input shows it, in order, each result
    once (``turns.once``): the ≥1.37 ``tool_call_response`` parts (the convention puts them in
    a ``tool`` message, PydanticAI in a ``user`` one; the value under ``response``, or
    PydanticAI's ``result``; the call's ``id``), an older ``tool`` message's content (its
    ``tool_call_id``), and ``gen_ai.tool.message`` events. Results before the last user
    message that says something are an earlier turn's (the history a conversation's next
    call carries); the answer channel's (``final_answer``) are no result."""
    out: list[ToolResult] = []
    value = _loads(s.attributes.get("gen_ai.input.messages") or s.attributes.get("gen_ai.prompt"))
    for m in value if isinstance(value, list) else ():
        if not isinstance(m, dict):
            continue
        parts = m.get("parts")
        said = False
        if isinstance(parts, list):
            for part in parts:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "tool_call_response":
                    if part.get("name") not in ANSWER_TOOLS:
                        text = _response_text(part.get("response", part.get("result")))
                        out.append(ToolResult(_call_id(part.get("id")), text, True))
                elif part.get("type") == "text" and part.get("content"):
                    said = True
        elif m.get("role") == "tool" and isinstance(m.get("content"), str):
            out.append(ToolResult(_call_id(m.get("tool_call_id")), m["content"], True))
        else:
            said = bool(m.get("content"))
        if said and m.get("role") == "user":  # a new question: what came before is history
            out = [r._replace(this_turn=False) for r in out]
    for e in s.events:
        if e.name == "gen_ai.user.message":
            out = [r._replace(this_turn=False) for r in out]
        elif e.name == "gen_ai.tool.message" and isinstance(c := e.attributes.get("content"), str):
            out += [ToolResult(call or _call_id(e.attributes.get("id")), text, True)
                    for call, text in _tool_result_blocks(c)]  # fmt: skip
    return once(out)


def _tool_retrieval(
    said: list[tuple[Span, tuple[list[tuple[str, str]], str, str]]], convention: str
) -> _Shape | None:
    """An agent that retrieves through a tool, under the GenAI conventions: no retrieval
    span. The packed context is every passage of the tool results the answering model call
    was given (its ``tool`` messages or parts, an earlier turn's included, in order, each
    once; each result split into documents where it is a list of them:
    ``tool_output.tool_docs``); the retrieved documents this turn's; the question the last
    user message of that call; the answer its output. ``said``: each inference span with
    its ``_prompt_and_answer``."""
    answering = [(s, found) for s, found in said if found[2]]
    if not answering:
        return None
    last, (inputs, system, answer) = max(answering, key=lambda p: p[0].end)
    results = _tool_results(last)
    if not calls(results):
        return None
    shape = _Shape(convention, retrieval_calls=calls(results), through_tools=True)
    shape.packed, shape.retrieved = passages(results)
    users = [t for role, t in inputs if role == "user" and t]
    shape.question = users[-1] if users else ""
    shape.answer = answer
    shape.prompt = [t for t in (system, *(t for role, t in inputs if role != "assistant")) if t]
    a = last.attributes
    model = a.get("gen_ai.response.model") or a.get("gen_ai.request.model")
    shape.model = str(model) if model else None
    return shape


def _genai_like(spans: list[Span], root: Span, convention: str) -> _Shape | None:
    retrievals = [s for s in spans if _is_retrieval(s)]
    inferences = [s for s in spans if _is_inference(s)]
    if not retrievals:
        said = [(s, _prompt_and_answer(s)) for s in inferences]
        shape = _tool_retrieval(said, convention)
        if shape is None and said and not any(any(found) for _, found in said):
            # model calls whose content was not captured (content capture off): the trace's
            # text is missing, which is counted as such, not as a shape ragmon cannot read
            return _Shape(convention)
        return shape
    shape = _Shape(convention, retrieval_calls=len(_outermost(retrievals)))
    docs: list[_Doc] = []
    returned_nothing = False
    for r in retrievals:
        listed = _loads(r.attributes.get("gen_ai.retrieval.documents"))
        if isinstance(listed, list):
            docs.extend(_doc(d) for d in listed if isinstance(d, dict))
            returned_nothing = returned_nothing or not listed
        docs.extend(_result_events(r))
        if "traceloop.entity.output" in r.attributes:
            entity = _entity_docs(r.attributes["traceloop.entity.output"])
            docs.extend(entity)
            returned_nothing = returned_nothing or not entity
        if not shape.question:
            a = r.attributes
            shape.question = _first_string(
                a.get("gen_ai.retrieval.query.text")
                or a.get("db.query.text")
                or a.get("traceloop.entity.input")  # a retriever task's own input
                or ""
            )
    shape.retrieved = _unique(docs)
    if shape.retrieved and all(d.text for d in shape.retrieved):
        shape.packed = _packed(spans, retrievals, shape.retrieved)
    elif returned_nothing and not shape.retrieved:
        shape.packed = []  # the retriever ran and returned nothing
    ra = root.attributes
    root_question = _first_string(ra.get("traceloop.entity.input")) or _first_string(
        ra.get("input.value")
    )
    if root_question and not _is_repr(root_question):  # a workflow's StartEvent() is not
        shape.question = root_question
    shape.answer = _answer_value(ra.get("traceloop.entity.output"))
    if inferences:
        answering = max(inferences, key=lambda s: s.end)
        inputs, system, answer = _prompt_and_answer(answering)
        shape.answer = shape.answer or answer
        shape.prompt = [t for t in (system, *(t for role, t in inputs if role != "assistant")) if t]
        users = [t for role, t in inputs if role == "user" and t]
        if not shape.question and users:
            shape.question = _question_from_prompt(users[-1])
        a = answering.attributes
        model = a.get("gen_ai.response.model") or a.get("gen_ai.request.model")
        shape.model = str(model) if model else None
    return shape
