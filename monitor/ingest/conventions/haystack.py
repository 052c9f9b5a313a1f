"""Haystack's ``Agent`` under OpenInference (openinference-instrumentation-haystack): the run
is two CHAIN spans (``Pipeline.run``, ``Agent.run``) and no model or tool span; the agent's
messages, tool calls and tool results are on the agent's span only as the Python reprs of
Haystack's ``ChatMessage`` objects, in its JSON ``output.value``'s ``messages``::

    ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='…',
        origin=ToolCall(tool_name='search', arguments={…}, id='call_1', extra=None),
        error=False)], _name=None, _meta={})

They are read with ``pyrepr`` (parsed, never evaluated; a repr it cannot read makes the trace
unread, as before). The messages are the whole conversation the agent was run with and what
it added: the last assistant text is the answer, the messages before it the answering
request, whose tool results are the packed context (an earlier turn's included, each result
once by its call id: ``turns``); this turn's are the results after the last user message,
whose text is the question.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from monitor.ingest.conventions.core import OPENINFERENCE, Said, ToolCall, _loads, _Shape
from monitor.ingest.conventions.pyrepr import Call, ReprError, parse
from monitor.ingest.conventions.turns import ANSWER_TOOLS, ToolResult, calls, once, passages
from monitor.ingest.otlp import Span

_MARK = "ChatMessage("
MAX_MESSAGES = 1000


class _Message(NamedTuple):
    role: str  # user, system, assistant, tool
    text: str  # its text parts, joined by lines
    calls: list[Call]  # an assistant's ToolCall parts
    results: list[Call]  # a tool message's ToolCallResult parts
    model: str | None  # the model that wrote an assistant's message (its ``_meta``)


def _message(value: object) -> _Message | None:
    """A parsed ``ChatMessage`` (its role an enum member read as its value), or None."""
    if not isinstance(value, Call) or value.name.rpartition(".")[2] != "ChatMessage":
        return None
    role = value.kwargs.get("_role", value.kwargs.get("role"))
    parts = value.kwargs.get("_content", value.kwargs.get("content"))
    if not isinstance(role, str) or not isinstance(parts, list):
        return None
    texts, tool_calls, results = [], [], []
    for part in parts:
        if not isinstance(part, Call):
            continue
        kind = part.name.rpartition(".")[2]
        if kind == "TextContent" and isinstance(part.kwargs.get("text"), str):
            texts.append(str(part.kwargs["text"]))
        elif kind == "ToolCall":
            tool_calls.append(part)
        elif kind == "ToolCallResult":
            results.append(part)
    meta = value.kwargs.get("_meta", value.kwargs.get("meta"))
    model = meta.get("model") if isinstance(meta, dict) else None
    return _Message(role.lower(), "\n".join(texts), tool_calls, results,
                    model if isinstance(model, str) and model else None)  # fmt: skip


def _result_text(result: Call) -> str:
    """What the model was given for a tool call: the result string, or (later Haystack
    versions) the text of its content parts, joined by lines."""
    value = result.kwargs.get("result")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(p.kwargs["text"]) for p in value if isinstance(p, Call)
                         and isinstance(p.kwargs.get("text"), str))  # fmt: skip
    return ""


def _origin(result: Call) -> Call | None:
    origin = result.kwargs.get("origin")
    return origin if isinstance(origin, Call) else None


def _tool(call: Call) -> str:
    return str(call.kwargs.get("tool_name") or "unknown")


def _searched(call: Call | None) -> bool:
    """A tool call that is not the answer channel (a result without its call: kept)."""
    return call is None or _tool(call) not in ANSWER_TOOLS


def _call_id(call: Call | None) -> str | None:
    value = call.kwargs.get("id") if call is not None else None
    return value if isinstance(value, str) and value else None


def _arguments(call: Call) -> str | None:
    value = call.kwargs.get("arguments")
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def _reprs(span: Span) -> list[str] | None:
    """The ``messages`` reprs of a span's output (``{"messages": [...]}``), or None."""
    raw = span.attributes.get("output.value")
    if not isinstance(raw, str) or _MARK not in raw:
        return None
    value = _loads(raw)
    items = value.get("messages") if isinstance(value, dict) else None
    if not isinstance(items, list) or not 0 < len(items) <= MAX_MESSAGES:
        return None
    if not all(isinstance(i, str) and i.startswith(_MARK) for i in items):
        return None
    return items


def _conversation(spans: list[Span]) -> list[_Message] | None:
    """The messages of the innermost span that records them (the agent's, not the pipeline's
    around it), or None when no span does or one of them is not read."""
    for span in sorted(spans, key=lambda s: s.start, reverse=True):
        items = _reprs(span)
        if items is None:
            continue
        try:
            messages = [_message(parse(item)) for item in items]
        except ReprError:
            return None
        return [m for m in messages if m is not None] or None
    return None


def chat_reprs(spans: list[Span]) -> _Shape | None:
    """An agent whose messages the spans carry only as ``ChatMessage`` reprs (Haystack's
    ``Agent``): the shape read from them, or None (not such a trace, or no tool result was
    given to the answering call: not an agent that retrieved)."""
    messages = _conversation(spans)
    if not messages:
        return None
    last = max((i for i, m in enumerate(messages) if m.role == "assistant" and m.text.strip()),
               default=-1)  # fmt: skip
    if last < 0:
        return None
    request = messages[:last]
    asked = max((i for i, m in enumerate(request) if m.role == "user"), default=-1)
    results = [
        ToolResult(_call_id(_origin(r)), _result_text(r), i > asked)
        for i, m in enumerate(request)
        for r in m.results
        if _searched(_origin(r))
    ]
    given = once(results)
    if not calls(given):
        return None
    shape = _Shape(OPENINFERENCE, retrieval_calls=calls(given), through_tools=True)
    shape.packed, shape.retrieved = passages(given)
    shape.question = request[asked].text if asked >= 0 else ""
    shape.answer = messages[last].text
    # this turn's work: the model calls are the assistant's messages after the question
    turn = messages[asked + 1 : last + 1]
    failed = {i for m in turn for r in m.results
              if r.kwargs.get("error") is True and (i := _call_id(_origin(r)))}  # fmt: skip
    asked_for = [c for m in turn for c in m.calls if _searched(c)]
    shape.said = Said(
        model_calls=sum(1 for m in turn if m.role == "assistant"),
        steps=sum(1 for m in turn if m.role == "assistant" and m.calls),
        calls=[ToolCall(_tool(c), _arguments(c), _call_id(c) in failed) for c in asked_for],
    )
    shape.model = messages[last].model
    return shape
