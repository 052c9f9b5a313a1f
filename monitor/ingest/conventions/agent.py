"""What a trace's agent did to answer, read from its spans in any convention: the model
calls, the tool calls, the retrieval calls, the steps before the answer (model calls that
asked for a tool) and the tool calls that failed — kept on the trace as ``ragmon.agent.*``
attributes, which the segmenter turns into measured inputs and the bounded ``agent``
segment (``no_tools``, ``tools``: tools but no retrieval through them, ``retrieval_tools``).

A framework's answer channel is not a tool call: smolagents' agents answer by calling their
``final_answer`` tool (smolagents' documentation: "use an action blob with name
final_answer"), so that call is not counted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from monitor.core.model import AGENT_ATTRIBUTE, AGENT_INPUTS, AGENT_SEGMENTS, AGENT_TOOLS
from monitor.ingest.conventions.core import Said, ToolCall, _loads, _outermost
from monitor.ingest.conventions.genai import _is_inference
from monitor.ingest.conventions.turns import ANSWER_TOOLS
from monitor.ingest.otlp import Span

NO_TOOLS, TOOLS, RETRIEVAL_TOOLS = AGENT_SEGMENTS
# Google ADK's span around parallel calls (``trace_merged_tool_calls``: "not needed for
# telemetry purposes"; each call has its own span): not a call
MERGED = "(merged tools)"
NOT_CALLS = ANSWER_TOOLS | {MERGED}


# What an OpenInference LLM span of a real model call carries; Haystack's instrumentation
# also gives its prompt builder the LLM kind, with a prompt template and nothing of these.
_CALL_KEYS = ("llm.input_messages", "llm.output_messages", "llm.prompts", "llm.model_name",
              "llm.token_count")  # fmt: skip


_FIRST_CALL = "llm.output_messages.0.message.tool_calls.0.tool_call.function.name"


def _calls_a_model(attributes: Mapping[str, object]) -> bool:
    return any(k.startswith(_CALL_KEYS) for k in attributes)


def _classified(spans: list[Span]) -> tuple[list[Span], list[Span]]:
    """(model calls, tool calls) among ``spans``, in one pass. An OpenInference span is what
    its kind says (an LLM span only when it carries messages, prompts or a model name:
    Haystack gives its prompt builder the LLM kind too); any other span is a GenAI or
    OpenLLMetry inference or tool span by its attributes."""
    calls: list[Span] = []
    tools: list[Span] = []
    for s in spans:
        a = s.attributes
        kind = a.get("openinference.span.kind")
        if kind is not None:
            kind = str(kind).upper()
            if kind == "LLM" and ("llm.model_name" in a or _calls_a_model(a)):
                calls.append(s)
            elif kind == "TOOL" and _tool_name(s) not in NOT_CALLS:
                tools.append(s)
        elif (
            a.get("gen_ai.operation.name") == "execute_tool"
            or a.get("traceloop.span.kind") == "tool"
        ):
            if _tool_name(s) not in NOT_CALLS:
                tools.append(s)
        elif _is_inference(s):
            calls.append(s)
    return calls, tools


def _tool_name(s: Span) -> str:
    a = s.attributes
    return str(a.get("tool.name") or a.get("gen_ai.tool.name") or a.get("traceloop.entity.name")
               or "")  # fmt: skip


def _failed(s: Span) -> bool:
    """A tool call that failed: its span's status is Error, or it says so (Strands'
    ``gen_ai.tool.status``, the conventions' ``error.type``)."""
    a = s.attributes
    return s.error or a.get("gen_ai.tool.status") == "error" or bool(a.get("error.type"))


def _requested(s: Span) -> list[str]:
    """The names of the tools a model call asked for (OpenInference output messages, the
    GenAI ``tool_call`` parts, a ``gen_ai.choice`` event's tool calls)."""
    a = s.attributes
    names = []
    # (the keys are read only where a call is: in the first output message, or beyond it)
    if _FIRST_CALL in a or "llm.output_messages.1.message.role" in a:
        names = [str(v) for k, v in a.items() if k.endswith(".tool_call.function.name")
                 and k.startswith("llm.output_messages.")]  # fmt: skip
    said = a.get("gen_ai.output.messages")
    value = _loads(said) if isinstance(said, str) and '"tool_call"' in said else None
    for m in value if isinstance(value, list) else ():
        parts = m.get("parts") if isinstance(m, dict) else None
        names += [str(p.get("name", "")) for p in parts if isinstance(p, dict)
                  and p.get("type") == "tool_call"] if isinstance(parts, list) else []  # fmt: skip
    for e in s.events:
        if e.name == "gen_ai.choice":
            names += _choice_tools(_loads(e.attributes.get("message")))
    return names


def _choice_tools(message: object) -> list[str]:
    """Tool names in a choice event's message: OpenAI-style ``tool_calls`` or Bedrock-style
    ``toolUse`` blocks (Strands)."""
    if isinstance(message, dict):
        calls = message.get("tool_calls")
        return [str((c.get("function") or {}).get("name", "")) for c in calls
                if isinstance(c, dict)] if isinstance(calls, list) else []  # fmt: skip
    if isinstance(message, list):
        return [str(b["toolUse"].get("name", "")) for b in message
                if isinstance(b, dict) and isinstance(b.get("toolUse"), dict)]  # fmt: skip
    return []


def _arguments(s: Span) -> str | None:
    """A tool call's arguments as its span records them (OpenInference ``input.value``, the
    GenAI ``gen_ai.tool.call.arguments``, Strands' ``gen_ai.tool.message`` event on the tool's
    span, OpenLLMetry's ``traceloop.entity.input``), JSON in one spelling; None when the span
    does not say (content capture off): such a call is never taken for a repeat."""
    a = s.attributes
    raw = (a.get("gen_ai.tool.call.arguments") or a.get("input.value")
           or a.get("traceloop.entity.input"))  # fmt: skip
    if raw is None:
        raw = next((e.attributes.get("content") for e in s.events
                    if e.name == "gen_ai.tool.message"), None)  # fmt: skip
    if not isinstance(raw, str):
        return None
    value = _loads(raw.strip())
    if isinstance(value, str):
        return value.strip()
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return raw.strip()


MAX_TOOLS = 32  # tool names kept per trace; more are counted under "other"


def _span_call(t: Span, failed: frozenset[str]) -> ToolCall:
    return ToolCall(_tool_name(t) or "unknown", _arguments(t), _failed(t) or t.span_id in failed,
                    max(0, t.end - t.start) / 1e9)  # fmt: skip


def tool_health(calls: list[ToolCall]) -> tuple[dict[str, int], dict[str, dict[str, float]]]:
    """Loops and each tool's calls, over ``calls`` in the order they ran: (``repeated_calls``:
    calls of a tool with the arguments of an earlier call of it in the trace,
    ``longest_repeat``: the longest run of one such call in a row — both over the calls whose
    arguments are recorded — and, per tool name, ``calls``, ``errors``, ``seconds`` spent in
    them and ``repeats``)."""
    seen: set[tuple[str, str]] = set()
    per: dict[str, dict[str, float]] = {}
    repeated, longest, run, last = 0, 0, 0, None
    for call in calls:
        name = call.name
        if name not in per and len(per) >= MAX_TOOLS:
            name = "other"
        own = per.setdefault(name, {"calls": 0, "errors": 0, "seconds": 0.0, "repeats": 0})
        own["calls"] += 1
        own["errors"] += call.failed
        own["seconds"] = round(own["seconds"] + (call.seconds or 0.0), 6)
        key = (name, call.arguments) if call.arguments is not None else None
        if key is not None and key in seen:
            repeated += 1
            own["repeats"] += 1
        run = run + 1 if key is not None and key == last else 1
        longest, last = max(longest, run), key
        if key is not None:
            seen.add(key)
    return {"repeated_calls": repeated, "longest_repeat": longest}, per


def agent_work(
    spans: list[Span],
    retrieval_calls: int,
    through_tools: bool,
    said: Said | None = None,
    failed: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """The ``ragmon.agent.*`` attributes of one trace. ``retrieval_calls`` and
    ``through_tools`` (its passages came from tool results) are the convention's reading;
    ``said``, what the agent's messages tell it did, counts where the spans record no model
    call (the model calls and steps; the tool calls too where no tool span records them);
    ``failed``, the tool spans whose result the model was handed as an error. The loops come
    from tool spans, or from the messages' tool calls; the per-tool counts
    (``ragmon.agent.tools``: calls, errors, seconds) from tool spans only: with tool calls
    asked for and no tool span the trace does not say them (never a guess from what the
    models asked for); with no tool call at all there is no loop."""
    model_spans, tools = _classified(spans)
    models = sorted(_outermost(model_spans), key=lambda s: s.start)
    health: dict[str, int] = {}
    per_tool: dict[str, dict[str, float]] = {}
    calls = [_span_call(t, failed) for t in sorted(tools, key=lambda t: t.start)]
    model_calls = len(models)
    if tools:
        # a step: a model call after which a tool ran before the next model call began
        starts = sorted(t.start for t in tools)
        nexts = [m.start for m in models[1:]] + [max(s.end for s in spans) + 1]
        # (tool spans without a model call: no step; zip would have raised on the lengths)
        steps = sum(1 for m, n in zip(models, nexts[: len(models)], strict=True)
                    if any(m.end <= t < n for t in starts))  # fmt: skip
        if not models and said is not None:  # model calls on no span (CrewAI): the messages'
            model_calls, steps = said.model_calls, said.steps
        health, per_tool = tool_health(calls)
    elif not models and said is not None:  # no span says it: the agent's messages do
        model_calls, steps, calls = said
        health, _ = tool_health(calls)  # (no span: no time, so no per-tool counts)
    else:  # no tool spans (the openai client's instrumentations): what the models asked for
        asked = [[n for n in _requested(s) if n not in ANSWER_TOOLS] for s in models]
        steps = sum(1 for a in asked if a)
        calls = [ToolCall(n, None, False) for a in asked for n in a]
        if not calls:  # no tool ran: no loop (tools asked for without spans: unknown)
            health = {"repeated_calls": 0, "longest_repeat": 0}
    segment = RETRIEVAL_TOOLS if through_tools else TOOLS if calls else NO_TOOLS
    measured = {
        "model_calls": model_calls,
        "tool_calls": len(calls),
        "retrieval_calls": retrieval_calls,
        "agent_steps": steps,
        "tool_errors": sum(1 for c in calls if c.failed),
        **health,
    }
    out: dict[str, object] = {AGENT_ATTRIBUTE: segment}
    out.update((AGENT_INPUTS[k], v) for k, v in measured.items())
    if per_tool:
        out[AGENT_TOOLS] = per_tool
    return out
