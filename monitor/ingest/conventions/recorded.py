"""Agents whose model calls are on no span, but whose conversation is recorded on the agent's
span: its ``output.value`` is a JSON object whose ``messages`` list holds every message the
agent was run with and added, tool calls and tool results included.

* Haystack's ``Agent`` under openinference-instrumentation-haystack: two CHAIN spans
  (``Pipeline.run``, ``Agent.run``), no model or tool span, the messages only as the Python
  reprs of Haystack's ``ChatMessage`` objects::

      ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='…',
          origin=ToolCall(tool_name='search', arguments={…}, id='call_1', extra=None),
          error=False)], _name=None, _meta={})

  read with ``pyrepr`` (parsed, never evaluated; a repr it cannot read leaves the trace
  unread);
* CrewAI under openinference-instrumentation-crewai: the task's AGENT span records the
  ``TaskOutput``, whose ``messages`` are the chat messages the model was sent (``role``,
  ``content``, ``tool_calls``, ``tool_call_id``), beside TOOL spans and no LLM span.

The last assistant text is the answer, the messages before it the answering request, whose
tool results are the packed context (an earlier turn's included, each result once by its
call id: ``turns``); this turn's are the results after the last user message, whose text is
the question (the caller prefers the root's input where it says one).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import NamedTuple

from monitor.ingest.conventions.core import OPENINFERENCE, Said, ToolCall, _loads, _Shape, _text
from monitor.ingest.conventions.pyrepr import Call, ReprError, parse
from monitor.ingest.conventions.turns import ANSWER_TOOLS, ToolResult, calls, once, passages
from monitor.ingest.otlp import Span

_MARK = "ChatMessage("
MAX_MESSAGES = 1000


class _Asked(NamedTuple):
    """A tool call an assistant's message asks for."""

    id: str | None
    name: str
    arguments: str | None  # JSON in one spelling


class _Result(NamedTuple):
    """A tool result a message hands the model."""

    call: str | None  # the call's id
    name: str  # the tool's name, where the message says it
    text: str
    error: bool


class _Message(NamedTuple):
    role: str  # user, system, assistant, tool
    text: str  # its text parts, joined by lines
    calls: list[_Asked]  # an assistant's tool calls
    results: list[_Result]  # a tool message's results
    model: str | None  # the model that wrote an assistant's message, where it says


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _json_arguments(value: object) -> str | None:
    """A call's arguments (an object, or its JSON) as JSON in one spelling."""
    value = _loads(value)
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


# --- Haystack's ChatMessage reprs -------------------------------------------------------


def _asked(call: Call) -> _Asked:
    name = str(call.kwargs.get("tool_name") or "unknown")
    return _Asked(_id(call.kwargs.get("id")), name, _json_arguments(call.kwargs.get("arguments")))


def _haystack_result(result: Call) -> _Result:
    """What the model was given for a tool call: the result string, or (later Haystack
    versions) the text of its content parts, joined by lines."""
    value = result.kwargs.get("result")
    if isinstance(value, list):
        value = "\n".join(str(p.kwargs["text"]) for p in value if isinstance(p, Call)
                          and isinstance(p.kwargs.get("text"), str))  # fmt: skip
    origin = result.kwargs.get("origin")
    asked = _asked(origin) if isinstance(origin, Call) else _Asked(None, "", None)
    text = value if isinstance(value, str) else ""
    return _Result(asked.id, asked.name, text, result.kwargs.get("error") is True)


def _from_repr(value: object) -> _Message | None:
    """A parsed ``ChatMessage`` (its role an enum member read as its value), or None."""
    if not isinstance(value, Call) or value.name.rpartition(".")[2] != "ChatMessage":
        return None
    role = value.kwargs.get("_role", value.kwargs.get("role"))
    parts = value.kwargs.get("_content", value.kwargs.get("content"))
    if not isinstance(role, str) or not isinstance(parts, list):
        return None
    texts, asked, results = [], [], []
    for part in parts:
        kind = part.name.rpartition(".")[2] if isinstance(part, Call) else ""
        if kind == "TextContent" and isinstance(text := part.kwargs.get("text"), str):
            texts.append(text)
        elif kind == "ToolCall":
            asked.append(_asked(part))
        elif kind == "ToolCallResult":
            results.append(_haystack_result(part))
    meta = value.kwargs.get("_meta", value.kwargs.get("meta"))
    model = _id(meta.get("model")) if isinstance(meta, dict) else None
    return _Message(role.lower(), "\n".join(texts), asked, results, model)


# --- chat messages as JSON (CrewAI's TaskOutput) ----------------------------------------


def _from_json(value: Mapping[str, object]) -> _Message:
    """A chat message as the OpenAI API spells it: ``role``, ``content`` (text or parts),
    an assistant's ``tool_calls`` (``{id, function: {name, arguments}}``), a tool message's
    ``tool_call_id`` and ``name``."""
    role = str(value.get("role", "user")).lower()
    content = value.get("content")
    text = content if isinstance(content, str) else _text(content) if content else ""
    asked = []
    tool_calls = value.get("tool_calls")
    for c in tool_calls if isinstance(tool_calls, list) else ():
        function = c.get("function") if isinstance(c, dict) else None
        if isinstance(function, dict):
            name = str(function.get("name") or "unknown")
            asked.append(_Asked(_id(c.get("id")), name, _json_arguments(function.get("arguments"))))
    results = []
    if role in ("tool", "function"):
        results = [_Result(_id(value.get("tool_call_id")), str(value.get("name") or ""), text,
                           False)]  # fmt: skip
        text = ""
    return _Message(role, text, asked, results, None)


def _recorded(span: Span) -> list[_Message] | None:
    """The messages a span's output records (``{"messages": [...]}``: ``ChatMessage`` reprs
    or chat messages as JSON), or None: none recorded, or one not read."""
    raw = span.attributes.get("output.value")
    if not isinstance(raw, str) or '"messages"' not in raw:
        return None
    value = _loads(raw)
    items = value.get("messages") if isinstance(value, dict) else None
    if not isinstance(items, list) or not 0 < len(items) <= MAX_MESSAGES:
        return None
    if all(isinstance(i, str) and i.startswith(_MARK) for i in items):
        try:
            found = [_from_repr(parse(i)) for i in items]
        except ReprError:
            return None
        messages = [m for m in found if m is not None]
        return messages if len(messages) == len(items) else None
    if all(isinstance(i, dict) and isinstance(i.get("role"), str) for i in items):
        return [_from_json(i) for i in items]
    return None


def _conversation(spans: list[Span]) -> list[_Message] | None:
    """The messages of the innermost span that records them (the agent's, not the pipeline's
    or crew's around it; the last task's of several)."""
    for span in sorted(spans, key=lambda s: s.start, reverse=True):
        messages = _recorded(span)
        if messages is not None:
            return messages
    return None


def _searched(name: str) -> bool:
    """A tool call that is not a framework's answer channel."""
    return name not in ANSWER_TOOLS


def recorded_conversation(spans: list[Span]) -> _Shape | None:
    """An agent whose conversation is recorded on its span (Haystack's ``Agent``, CrewAI's
    task): the shape read from it, or None (no such span, or no tool result was given to the
    answering call: not an agent that retrieved)."""
    messages = _conversation(spans)
    if not messages:
        return None
    last = max((i for i, m in enumerate(messages) if m.role == "assistant" and m.text.strip()),
               default=-1)  # fmt: skip
    if last < 0:
        return None
    request = messages[:last]
    asked = max((i for i, m in enumerate(request) if m.role == "user"), default=-1)
    results = [ToolResult(r.call, r.text, i > asked)
               for i, m in enumerate(request) for r in m.results if _searched(r.name)]  # fmt: skip
    given = once(results)
    if not calls(given):
        return None
    shape = _Shape(OPENINFERENCE, retrieval_calls=calls(given), through_tools=True)
    shape.packed, shape.retrieved = passages(given)
    shape.question = request[asked].text if asked >= 0 else ""
    shape.answer = messages[last].text
    # this turn's work: the model calls are the assistant's messages after the question
    turn = messages[asked + 1 : last + 1]
    failed = {r.call for m in turn for r in m.results if r.error and r.call}
    shape.said = Said(
        model_calls=sum(1 for m in turn if m.role == "assistant"),
        steps=sum(1 for m in turn if m.role == "assistant" and m.calls),
        calls=[
            ToolCall(c.name, c.arguments, c.id in failed)
            for m in turn
            for c in m.calls
            if _searched(c.name)
        ],
    )
    shape.model = messages[last].model
    return shape
