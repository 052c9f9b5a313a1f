"""The agent readers on spans of frameworks the readers were not written against (the blind
agent corpus, ``tests/otel_corpus/blind/open``, issue 73): LlamaIndex's ``FunctionAgent``
and AutoGen AgentChat's ``AssistantAgent`` under their OpenInference instrumentations. The
sealed part is never read here."""

from __future__ import annotations

import json

import pytest

from monitor.ingest import conversion
from monitor.sources import framing
from tests.otel_corpus import FORMATS, HERE, converted, differences, truth

OPEN = HERE / "blind" / "open"
# Haystack's Agent: its messages only as Python ``ChatMessage(...)`` reprs (docs: declined)
READ = ("llamaindex-agent-openinference", "autogen-agentchat-openinference",
        "agno-openinference")  # fmt: skip


def test_llamaindex_tool_output_is_read_through_to_its_content() -> None:
    """LlamaIndex's TOOL span records the whole ``ToolOutput`` (llama-index-core: blocks,
    tool_name, raw_input, raw_output, is_error); the model is given its ``content``, the text
    blocks joined by lines."""
    from monitor.ingest.conventions.openinference import _tool_result

    blocks = [{"text": "1. a (doc_id: x)"}, {"block_type": "image", "url": "u"},
              {"block_type": "text", "text": "2. b (doc_id: y)"}]  # fmt: skip
    output = {"blocks": blocks, "tool_name": "search", "raw_output": "…", "is_error": False}
    assert _tool_result(json.dumps(output)) == "1. a (doc_id: x)\n2. b (doc_id: y)"
    assert _tool_result('{"blocks": [], "note": "no tool_name"}') == (
        '{"blocks": [], "note": "no tool_name"}')  # fmt: skip


def test_autogen_function_results_are_tool_messages_of_their_own() -> None:
    """AutoGen's instrumentation writes a ``FunctionExecutionResultMessage`` as a message of
    role ``function`` whose results are ``llm.input_messages.{i}.function.{j}`` JSON objects:
    each is one tool message, with its call id."""
    from monitor.ingest.conventions.openinference import _input_messages

    def one(content: str, call: str) -> str:
        return json.dumps({"name": "search", "content": content, "call_id": call})

    attrs = {
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "q",
        "llm.input_messages.1.message.role": "function",
        "llm.input_messages.1.function.1": one("[b]", "c2"),
        "llm.input_messages.1.function.0": one("[a]", "c1"),
    }
    assert _input_messages(attrs) == [
        {"role": "user", "content": "q"},
        {"role": "function", "content": "[a]", "tool_call_id": "c1", "name": "search"},
        {"role": "function", "content": "[b]", "tool_call_id": "c2", "name": "search"},
    ]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("stack", READ)
def test_the_open_blind_traces_are_read_exactly(stack: str, fmt: str) -> None:
    got = converted(stack, fmt, OPEN)
    wrong = {
        e["case"]: p for t, e in truth(stack, OPEN).items() if (p := differences(e, got.get(t)))
    }
    assert not wrong


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_haystack_agent_reprs_are_declined_and_counted(fmt: str) -> None:
    """Haystack's Agent spans carry its messages only as Python reprs: no trace is made of
    them (never a guess at a repr's text), and each is counted."""
    stack = "haystack-agent-openinference"
    data = (OPEN / f"{stack}{FORMATS[fmt]}").read_bytes()
    result = conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_"))
    assert not result.traces
    assert result.count("unrecognised") == len(truth(stack, OPEN))


def test_a_tool_that_raised_gives_the_model_its_error_text_as_a_passage() -> None:
    """LlamaIndex's ``FunctionAgent``: a tool that raises leaves its TOOL span in Error with
    no output, and the agent hands the model the exception's text as the tool message. The
    policy (docs, "A tool that fails"): what the model was given, read as any result (free
    text: one passage of unknown id), the call counted as a tool error; not retrieved."""
    from monitor.core.model import AGENT_INPUTS
    from monitor.ingest.conventions import map_spans
    from monitor.ingest.otlp import Span

    def span(sid: str, parent: str, start: int, kind: str, **attrs: object) -> Span:
        return Span("a" * 32, sid * 16, parent * 16 if parent else "", sid, start, start + 1,
                    {"openinference.span.kind": kind, **attrs}, error=kind == "TOOL")  # fmt: skip

    user = {"llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "is the store open"}  # fmt: skip
    called = "llm.output_messages.0.message.tool_calls.0.tool_call."
    asked = {f"{called}id": "c1", f"{called}function.name": "search"}
    error = "search backend unavailable: connection refused"
    spans = [
        span("1", "", 0, "CHAIN", **{"input.value": "AgentWorkflowStartEvent()"}),
        span("2", "1", 1, "LLM", **user, **asked, **{"llm.model_name": "m"}),
        span("3", "1", 3, "TOOL", **{"tool.name": "search", "input.value": '{"query": "open"}'}),
        span("4", "1", 5, "LLM", **user, **{
            "llm.model_name": "m",
            "llm.input_messages.1.message.role": "assistant",
            "llm.input_messages.1.message.tool_calls.0.tool_call.id": "c1",
            "llm.input_messages.2.message.role": "tool",
            "llm.input_messages.2.message.tool_call_id": "c1",
            "llm.input_messages.2.message.content": error,
            "llm.output_messages.0.message.content": "I could not look that up."}),
    ]  # fmt: skip
    trace = map_spans(spans).trace
    assert trace is not None
    assert trace.query == "is the store open"
    assert [(p.doc_id, p.text) for p in trace.context] == [(None, error)]
    assert trace.retrieved == []
    assert trace.attributes[AGENT_INPUTS["tool_errors"]] == 1


def test_malformed_function_results_are_skipped_without_a_crash() -> None:
    """A function result that is not a JSON object with text content is no tool message."""
    from monitor.ingest.conventions.openinference import _input_messages

    attrs: dict[str, object] = {
        "llm.input_messages.0.message.role": "function",
        "llm.input_messages.0.function.0": "not json",
        "llm.input_messages.0.function.1": '["a list"]',
        "llm.input_messages.0.function.2": '{"content": 3, "call_id": 4}',
        "llm.input_messages.0.function.x": '{"content": "no index"}',
        "llm.input_messages.0.function.3": '{"content": "kept", "call_id": 5}',
    }
    assert _input_messages(attrs) == [
        {"role": "function", "content": "kept", "tool_call_id": 5, "name": None}]  # fmt: skip
