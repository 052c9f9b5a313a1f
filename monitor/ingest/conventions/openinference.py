"""OpenInference (Arize; the LangChain, LlamaIndex, Haystack and OpenAI Agents
instrumentations): the shape of a trace from its CHAIN, RETRIEVER, RERANKER, TOOL and LLM
spans.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from monitor.ingest.conventions.core import (
    OPENINFERENCE,
    _answer_value,
    _Doc,
    _doc,
    _fill_ids,
    _first_string,
    _indexed,
    _is_repr,
    _loads,
    _outermost,
    _Shape,
    _text,
    _unique,
)
from monitor.ingest.conventions.packing import _packed, _positions_in
from monitor.ingest.conventions.recorded import recorded_conversation
from monitor.ingest.conventions.tool_output import tool_docs
from monitor.ingest.conventions.turns import ANSWER_TOOLS, ToolResult, calls, once, passages
from monitor.ingest.otlp import Span

# --- OpenInference ----------------------------------------------------------------------


def _documents(s: Span) -> list[_Doc]:
    return [_doc(d) for d in _indexed(s.attributes, "retrieval.documents", "document.")]


def _outer_retrievals(spans: list[Span], retrievers: list[Span]) -> list[_Doc]:
    """The documents of each outermost retriever span, in order. A retriever span that wraps
    others (DSPy's ``Retrieve`` around its client, a fusion retriever around its children,
    LlamaIndex's nested calls) is the step's result: its list is the fused or re-emitted
    one, and the ids and chunk ids it lacks come from the inner spans' documents by text."""
    parent = {s.span_id: s.parent_span_id for s in spans}
    ids = {r.span_id for r in retrievers}

    def outer_of(span_id: str) -> str | None:
        """The outermost retriever span above ``span_id`` (None: it is outermost)."""
        found, seen = None, 0
        p = parent.get(span_id)
        while p and seen < 64:  # a cycle in bad input must not hang
            if p in ids:
                found = p
            p, seen = parent.get(p), seen + 1
        return found

    inner: dict[str, list[_Doc]] = {}
    outers: list[Span] = []
    for r in retrievers:
        top = outer_of(r.span_id)
        if top is None:
            outers.append(r)
        else:
            inner.setdefault(top, []).extend(_documents(r))
    docs: list[_Doc] = []
    for r in outers:
        own = _documents(r)
        nested = inner.get(r.span_id, [])
        docs.extend(_fill_ids(own, nested) if own else nested)
    return _unique(docs)


# Haystack's ``Document.__repr__``, as its instrumentation records a component's documents:
# ``Document(id=<id>, content: '…', meta: {…}, score: …)``; only the id is read.
_HAYSTACK_REPR = re.compile(r"^Document\(id=([^,)\s]+)[,)]")


def _listed(s: Span) -> list[tuple[str | None, str | None]] | None:
    """(id, text) of the documents a step after the retrievers lists, in its order: a
    RERANKER's input documents (the list it was handed: the fused one), or a CHAIN's output
    ``{"documents": [...]}`` as document objects or Haystack reprs (their ids only)."""
    if s.kind == "RERANKER":
        docs = _indexed(s.attributes, "reranker.input_documents", "document.")
        return [(str(d["id"]) if d.get("id") else None, _text(d.get("content")) or None)
                for d in docs] or None  # fmt: skip
    if s.kind != "CHAIN":
        return None
    value = _loads(s.attributes.get("output.value"))
    items = value.get("documents") if isinstance(value, dict) else None
    if not isinstance(items, list) or not items:
        return None
    out: list[tuple[str | None, str | None]] = []
    for item in items:
        if isinstance(item, dict):
            d = _doc(item)
            out.append((d.id, d.text))
        elif isinstance(item, str) and (m := _HAYSTACK_REPR.match(item)):
            out.append((m.group(1), None))
        else:
            return None
    return out


def _fused(spans: list[Span], retrievers: list[Span], retrieved: list[_Doc]) -> list[_Doc]:
    """The retrieved documents in the order the step that joined several retrievers' lists
    returned them (a hybrid's fusion: Haystack's ``DocumentJoiner``, a LangGraph node), read
    from the first step to finish after the retrievers that lists exactly those documents,
    each once; empty when no step does (each retriever's own list in turn stays)."""
    after = max(r.end for r in retrievers)
    # in the order the steps finished: a node around the retrievers that fuses their lists
    # (LangGraph) finishes first, then the steps after them (Haystack's joiner, a reranker)
    for s in sorted((s for s in spans if s.end >= after and s.kind != "RETRIEVER"),
                    key=lambda s: s.end):  # fmt: skip
        listed = _listed(s)
        if listed is None or len(listed) != len(retrieved):
            continue
        order: list[_Doc] = []
        for doc_id, text in listed:
            match = next((d for d in retrieved if d not in order and (
                (text is not None and d.text == text)
                or (doc_id is not None and doc_id in (d.id, d.chunk)))), None)  # fmt: skip
            if match is None:
                break
            order.append(match)
        else:
            return order
    return []


def _within_tools(spans: list[Span], retrievers: list[Span], tool_spans: list[Span]) -> bool:
    """Some retriever ran inside one of the TOOL spans (an agent's retriever tool:
    LangChain's ``create_retriever_tool``)."""
    if not tool_spans:
        return False
    tools = {s.span_id for s in tool_spans}
    parent = {s.span_id: s.parent_span_id for s in spans}
    for r in retrievers:
        p: str | None = r.parent_span_id
        seen = 0
        while p and seen < 64:  # a cycle in bad input must not hang
            if p in tools:
                return True
            p, seen = parent.get(p), seen + 1
    return False


def _openinference(spans: list[Span], root: Span) -> _Shape | None:
    by_kind: dict[str, list[Span]] = {}
    for s in spans:  # (one pass: ``kind`` is read from the attributes each time)
        by_kind.setdefault(s.kind, []).append(s)
    retrievers, rerankers = by_kind.get("RETRIEVER", []), by_kind.get("RERANKER", [])
    llms = by_kind.get("LLM", [])
    if not retrievers and not rerankers:
        return _tool_retrieval(spans, root, llms)
    shape = _Shape(OPENINFERENCE)
    shape.retrieval_calls = len(_outermost(retrievers))
    shape.through_tools = _within_tools(spans, retrievers, by_kind.get("TOOL", []))
    shape.retrieved = _outer_retrievals(spans, retrievers)
    if shape.retrieval_calls > 1:  # a hybrid: the step that fused the lists says their order
        shape.retrieved = _fused(spans, retrievers, shape.retrieved) or shape.retrieved
    if rerankers:
        packed = _indexed(rerankers[-1].attributes, "reranker.output_documents", "document.")
        shape.packed = _fill_ids([_doc(d) for d in packed], shape.retrieved)
    elif shape.retrieved:
        shape.packed = shape.retrieved
    elif retrievers:
        shape.packed = []  # the retriever ran and returned nothing
    said: list[dict[str, object]] = []
    if llms:
        said = _indexed(llms[-1].attributes, "llm.input_messages", "message.")
        # (``_flat_messages`` of the same attributes, without reading them twice)
        shape.prompt = [_text(m.get("content")) for m in said
                        if "content" in m and m.get("role", "user") != "assistant"]  # fmt: skip
    if shape.retrieved and all(d.text for d in shape.retrieved):
        # the last model call's messages first: that is where the passages usually are
        found = _positions_in(shape.prompt, shape.retrieved) if shape.prompt else []
        if found and llms[-1].start >= max(r.end for r in retrievers):
            shape.packed = [shape.retrieved[n] for _, n in found]
        else:
            shape.packed = _packed(spans, retrievers, shape.retrieved, shape.packed)
    if shape.packed and said:  # an agent's retriever tool: the earlier turns' results too
        shape.packed = _with_history(said, shape.retrieved, shape.packed)
    first = (retrievers or rerankers)[0].attributes
    given = root.attributes.get("input.value")
    # an agent's state (LangGraph's messages): the user's last message, not the tool's query
    question = _question(root, said) if _is_message_state(given) else _first_string(given)
    if not question or _is_repr(question):  # a workflow's StartEvent() is not the question
        question = _first_string(first.get("input.value") or first.get("reranker.query"))
    shape.question = question
    shape.answer = _answer(root, llms)
    shape.model = _model(llms)
    return shape


def _llm_answer(llm: Span) -> str:
    a = llm.attributes
    return (
        _text(a.get("llm.output_messages.0.message.content"))
        or _answer_value(a.get("output.value"))
        or _response_text(_loads(a.get("output.value")))
    )


def _response_text(value: object) -> str:
    """The assistant's text in a Responses API object (a streamed agent turn records the
    final response, ``[{"output": [{"type": "message", "content": [{"type":
    "output_text", "text": ...}]}]}]``), or in a list of chat messages."""
    if isinstance(value, list) and value:
        value = value[-1]
    if not isinstance(value, dict):
        return ""
    output = value.get("output")
    items: list[Any] = output if isinstance(output, list) else [value]
    texts = [_text(item.get("content")) for item in items if _assistant_message(item)]
    return "\n".join(t for t in texts if t)


def _assistant_message(item: object) -> bool:
    return (
        isinstance(item, dict)
        and item.get("role", "assistant") == "assistant"
        and item.get("type", "message") == "message"
    )


def _answer(root: Span, llms: list[Span]) -> str:
    """The root's output, unless it is a repr (a workflow's ``StopEvent(...)``, cut short):
    then, and when the root says nothing, the last model call that says what it answered."""
    answer = _answer_value(root.attributes.get("output.value"))
    if answer and not _is_repr(answer):
        return answer
    for llm in sorted(llms, key=lambda s: s.end, reverse=True):
        said = _llm_answer(llm)
        if said:
            return said
    return "" if _is_repr(answer) else answer


def _model(llms: list[Span]) -> str | None:
    return next((str(s.attributes["llm.model_name"]) for s in reversed(llms)
                 if s.attributes.get("llm.model_name")), None)  # fmt: skip


# The roles a tool's result is given to the model under: OpenAI's ``tool`` (and the older
# ``function``), smolagents' ``tool-response`` (an "Observation:" the model reads).
_TOOL_ROLES = frozenset({"tool", "function", "tool-response"})
# A label an agent framework puts before the tool's result in the message ("Observation:").
_RESULT_LABEL = re.compile(r"[A-Za-z][A-Za-z _-]{0,30}:\s*")


def _message_text(message: Mapping[str, object]) -> str:
    """A flattened message's text: its ``content``, or its text parts in order
    (``contents.{i}.message_content.text``)."""
    content = message.get("content")
    if content is not None:  # as given: a tool's JSON result stays the string it was
        return content if isinstance(content, str) else _text(content)
    parts = sorted((int(k.split(".")[1]), str(v)) for k, v in message.items()
                   if k.startswith("contents.") and k.endswith(".message_content.text")
                   and k.split(".")[1].isdigit())  # fmt: skip
    return "\n".join(text for _, text in parts)


def _result_in(text: str, results: set[str]) -> str | None:
    """The tool result a tool message carries: the whole message, or the message after a
    short label ("Observation:\n…"); None when it carries none of ``results``."""
    if text in results:
        return text
    label = _RESULT_LABEL.match(text)
    rest = text[label.end() :] if label else None
    return rest if rest is not None and rest in results else None


def _tool_result(value: object) -> str | None:
    """A TOOL span's result as the model is given it: its ``output.value``, or the content
    of the LangChain ``ToolMessage`` it records (``{"type": "tool", "data": {"content":
    …}}``, LangGraph's ``ToolNode``), or of LlamaIndex's ``ToolOutput`` (``{"blocks":
    [{"text": …}], "tool_name": …, "raw_output": …}``: its text blocks, joined by lines)."""
    if not isinstance(value, str):
        return None
    message = _loads(value) if value.startswith("{") else None
    if isinstance(message, dict) and message.get("type") == "tool":
        data = message.get("data", message)
        content = data.get("content") if isinstance(data, dict) else None
        if isinstance(content, str):
            return content
    if (
        isinstance(message, dict)
        and "tool_name" in message
        and isinstance(blocks := message.get("blocks"), list)
    ):  # LlamaIndex's ToolOutput: the model is given its ``content``, its text blocks joined
        return "\n".join(str(b["text"]) for b in blocks if isinstance(b, dict)
                         and b.get("block_type", "text") == "text" and "text" in b)  # fmt: skip
    return value


def _is_message_state(value: object) -> bool:
    """An agent's input that is its message list (``{"messages": [...]}``), not a question."""
    loaded = _loads(value)
    return isinstance(loaded, dict) and isinstance(loaded.get("messages"), list)


# smolagents names the tools a step calls in its "Calling tools:" message's text
_CALLED = re.compile(r"""['"]name['"]\s*:\s*['"]([^'"]+)['"]""")
_SHORTEST = 16  # a result shorter than this is found whole, never inside other text


def _given(
    messages: list[dict[str, object]], known: set[str], spanless: bool = False
) -> list[ToolResult]:
    """The tool results in the answering call's messages, in order, each once: this turn's
    (``known``: the results of this trace's TOOL spans, or its retrieved texts, each found
    whole in a tool message, after a short label, or inside it when the framework joins
    several in one message) and an earlier turn's (a tool message that holds none of
    ``known``; the answer channel's results are none: named by the message, by the call it
    answers, or by the step before it). With ``spanless``, a tool message after the last
    user message that holds none of ``known`` is this turn's too: a result no TOOL span
    recorded (LlamaIndex's tool span of a call that raised records no output; the agent
    hands the model the error's text)."""
    out: list[ToolResult] = []
    named: dict[str, str] = {}  # call id -> tool name, from the assistant's tool calls
    last_called: list[str] = []  # the tools the latest calling message named
    asked = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for i, m in enumerate(messages):
        role = str(m.get("role"))
        calls = _indexed(m, "tool_calls", "tool_call.")
        if calls:
            last_called = [str(c.get("function.name", "")) for c in calls]
            named.update((str(c["id"]), str(c.get("function.name", ""))) for c in calls
                         if c.get("id"))  # fmt: skip
        if role == "tool-call":
            last_called = _CALLED.findall(_message_text(m))
        if role not in _TOOL_ROLES:
            continue
        text = _message_text(m)
        call = str(m["tool_call_id"]) if m.get("tool_call_id") else None
        whole = _result_in(text, known)
        if whole is not None:
            out.append(ToolResult(call, whole, True))
            continue
        inside = sorted((at, k) for k in known if len(k) >= _SHORTEST and (at := text.find(k)) >= 0)
        if inside:
            out += [ToolResult(None, k, True) for _, k in inside]
            continue
        name = str(m.get("name") or named.get(call or "", ""))
        if (name and name in ANSWER_TOOLS) or (not name and last_called
                                               and set(last_called) <= ANSWER_TOOLS):  # fmt: skip
            continue
        # (only smolagents' observation carries a label: another result is the text it is)
        label = _RESULT_LABEL.match(text) if role == "tool-response" else None
        out.append(ToolResult(call, text[label.end() :] if label else text, spanless and i > asked))
    return once(out)


def _with_history(
    messages: list[dict[str, object]], retrieved: list[_Doc], packed: list[_Doc]
) -> list[_Doc]:
    """A retriever's packed documents with the earlier turns' tool results the answering
    call was given (LangChain's retriever tool: the documents joined into one tool message),
    in the order of its messages; ``packed`` as it is when there are none."""
    if not any(str(m.get("role")) in _TOOL_ROLES for m in messages):
        return packed  # no tool message: no history (a plain pipeline's prompt)
    texts = {d.text: d for d in retrieved if d.text}
    given = _given(messages, set(texts))
    if all(r.this_turn for r in given):
        return packed
    out = [d for r in given for d in ([texts[r.text]] if r.this_turn else tool_docs(r.text))]
    return _unique([*out, *packed])


def _input_messages(attrs: Mapping[str, object]) -> list[dict[str, object]]:
    """A model call's input messages (``llm.input_messages.{i}.message.*``), with the
    function results AutoGen's instrumentation writes beside a ``function`` message
    (``llm.input_messages.{i}.function.{j}``: JSON of ``name``, ``content``, ``call_id``,
    ``is_error``; openinference-instrumentation-autogen-agentchat) as tool messages of
    their own, one a result, in order (``is_error``: the result is a failed call's)."""
    out: list[dict[str, object]] = []
    for raw in _indexed(attrs, "llm.input_messages"):
        message = {k[8:]: v for k, v in raw.items() if k.startswith("message.")}
        results = sorted((int(k[9:]), v) for k, v in raw.items()
                         if k.startswith("function.") and k[9:].isdigit())  # fmt: skip
        for _, value in results:
            result = _loads(value)
            if isinstance(result, dict) and isinstance(result.get("content"), str):
                out.append({"role": "function", "content": result["content"],
                            "tool_call_id": result.get("call_id"), "name": result.get("name"),
                            "is_error": result.get("is_error") is True})  # fmt: skip
        if message and not results:
            out.append(message)
    return out


def _tool_retrieval(spans: list[Span], root: Span, llms: list[Span]) -> _Shape | None:
    """An agent that retrieves through a function tool (OpenAI Agents SDK, smolagents and
    others): no retriever span. The packed context is every passage of the tool results the
    last model call was given as tool messages (an earlier turn's included, in the order it
    saw them, each once: ``_given``; a result no model saw, such as smolagents'
    ``final_answer``, is not context), the retrieved documents this trace's TOOL spans'
    results; the question the root's input, else the last user message of the answering
    call; the answer the root's output, else the last model call's text."""
    if not llms:  # the model calls are on no span: the conversation an agent span records
        return _recorded(spans, root)
    tools = [s for s in spans if s.kind == "TOOL"]
    results = {r for s in tools if (r := _tool_result(s.attributes.get("output.value")))
               is not None}  # fmt: skip
    if not tools:  # (a tool that raised may have recorded no result)
        return None
    last = max(llms, key=lambda s: s.end)
    messages = _input_messages(last.attributes)
    given = _given(messages, results, spanless=True)
    answer = _answer_value(root.attributes.get("output.value"))
    if not answer or _is_repr(answer):
        answer = next((a for s in sorted(llms, key=lambda s: s.end, reverse=True)
                       if (a := _llm_answer(s))), "")  # fmt: skip
    if not calls(given) or not answer:
        return None
    # a call per TOOL span whose result the model was given (one tool called twice with the
    # same answer: two calls, its passages once)
    seen = {r.text for r in given if r.this_turn}
    ran = sum(1 for s in spans if s.kind == "TOOL"
              and _tool_result(s.attributes.get("output.value")) in seen)  # fmt: skip
    shape = _Shape(OPENINFERENCE, retrieval_calls=max(ran, calls(given)), through_tools=True)
    shape.packed, shape.retrieved = passages(given)
    # a tool span whose result the request hands the model as an error failed, whatever its
    # status says (AutoGen records a raising tool's span without an error status)
    errors = {m["content"] for m in messages if m.get("is_error") is True}
    shape.failed_tools = frozenset(
        s.span_id
        for s in tools
        if errors and _tool_result(s.attributes.get("output.value")) in errors
    )
    shape.question = _question(root, messages)
    shape.answer = answer
    shape.model = _model(llms)
    return shape


def _recorded(spans: list[Span], root: Span) -> _Shape | None:
    """An agent whose conversation is recorded on its span (``recorded``: Haystack's Agent,
    CrewAI's task or agent); the question what the root's input says the user asked (the
    kickoff's inputs; the last user message of a message list, before a framework wraps it
    in its template: CrewAI's "Current Task: …"), else the conversation's last user
    message; the answer the root's, else the conversation's."""
    shape = recorded_conversation(spans)
    if shape is not None:
        shape.question = _question(root, [{"role": "user", "content": shape.question}])
        answer = _answer_value(root.attributes.get("output.value"))
        if answer and not _is_repr(answer):
            shape.answer = answer
    return shape


def _typed(value: object) -> str:
    """What the user typed in one message of an agent's input message list, in the spellings
    frameworks record: ``{"role": "user", "content": …}``, LangChain's ``("user", …)`` pair
    or serialized ``{"type": "human", "data": {"content": …}}``; "" for any other message."""
    if isinstance(value, list) and len(value) == 2 and value[0] in ("user", "human"):
        return value[1] if isinstance(value[1], str) else ""
    if not isinstance(value, dict):
        return ""
    if value.get("role") == "user" or value.get("type") == "human":
        data = value.get("data")
        content = value.get("content", data.get("content") if isinstance(data, dict) else None)
        return content if isinstance(content, str) else _text(content) if content else ""
    return ""


def _question(root: Span, messages: list[dict[str, object]]) -> str:
    """The root's input: the last message the user typed when it is a message list (an
    agent's state), else the question it holds; where it says nothing, the last user
    message the answering call was given."""
    users = [_message_text(m) for m in messages if m.get("role") == "user"]
    given = root.attributes.get("input.value")
    if _is_message_state(given):
        typed = [t for m in _loads(given)["messages"] if (t := _typed(m))]  # type: ignore[index]
        question = typed[-1] if typed else ""
    else:
        question = _first_string(given)
    return question if question and not _is_repr(question) else (["", *users])[-1]
