"""What an agent did, read from its spans: model calls (a wrapped call once, a prompt builder
never), tool calls (not a framework's answer tool), steps, tool errors (span status in both
OTLP encodings, or the tool's own status attribute)."""

from __future__ import annotations

import json

import pytest

from monitor.ingest.conventions.agent import agent_work
from monitor.ingest.otlp import Event, Span, decode_json


def _span(sid: str, start: int, end: int, parent: str = "", error: bool = False,
          events: list[Event] | None = None, **attrs: object) -> Span:  # fmt: skip
    return Span("a" * 32, sid * 16, parent * 16 if parent else "", sid, start, end,
                dict(attrs), events=events or [], error=error)  # fmt: skip


def _work(spans: list[Span], retrievals: int = 0, through: bool = False) -> dict[str, object]:
    return {k.removeprefix("ragmon.agent."): v
            for k, v in agent_work(spans, retrievals, through).items()}  # fmt: skip


LLM = {"openinference.span.kind": "LLM", "llm.model_name": "m"}
TOOL = {"openinference.span.kind": "TOOL", "tool.name": "search"}


def test_an_openinference_agent_loop() -> None:
    """Two searches, one failing, then smolagents' final_answer: two tool calls, two steps,
    one error, three model calls (one wrapped in another: once)."""
    spans = [
        _span("1", 0, 100, **{"openinference.span.kind": "AGENT"}),
        _span("2", 1, 10, "1", **LLM), _span("3", 2, 9, "2", **LLM),  # predict around complete
        _span("4", 11, 12, "1", **TOOL),
        _span("5", 13, 20, "1", **LLM), _span("6", 21, 22, "1", error=True, **TOOL),
        _span("7", 23, 30, "1", **LLM),
        _span("8", 31, 32, "1", **{**TOOL, "tool.name": "final_answer"}),
        # Haystack's prompt builder has the LLM kind and only a template: no model call
        _span("9", 40, 41, "1", **{"openinference.span.kind": "LLM",
                                   "llm.prompt_template.template": "{q}"}),
    ]  # fmt: skip
    assert _work(spans, 1, True) == {
        "ragmon.agent": "retrieval_tools", "model_calls": 3, "tool_calls": 2,
        "retrieval_calls": 1, "steps": 2, "tool_errors": 1,
        # no arguments recorded: no call is taken for a repeat
        "repeated_calls": 0, "longest_repeat": 1,
        "tools": {"search": {"calls": 2, "errors": 1, "seconds": 0.0, "repeats": 0}}}  # fmt: skip


def test_genai_tool_calls_without_tool_spans_are_what_the_models_asked() -> None:
    """The openai client's instrumentation has no tool span: the ``tool_call`` parts of the
    models' outputs count (a tool that fetched no passages: ``tools``, not retrieval)."""
    ask = json.dumps([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": "{}"},
        {"type": "tool_call", "id": "c2", "name": "get_time", "arguments": "{}"}]}])  # fmt: skip
    spans = [_span("1", 0, 5, **{"gen_ai.operation.name": "chat", "gen_ai.output.messages": ask}),
             _span("2", 6, 9, **{"gen_ai.operation.name": "chat"})]  # fmt: skip
    assert _work(spans) == {"ragmon.agent": "tools", "model_calls": 2, "tool_calls": 2,
                            "retrieval_calls": 0, "steps": 1, "tool_errors": 0}  # fmt: skip


def test_strands_tool_status_and_a_plain_pipeline() -> None:
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"}
    spans = [_span("1", 0, 5, **{"gen_ai.operation.name": "chat"}),
             _span("2", 6, 7, **{**tool, "gen_ai.tool.status": "error"}),
             _span("3", 8, 9, **{**tool, "gen_ai.tool.status": "success"}),
             _span("4", 10, 12, **{"gen_ai.operation.name": "chat"})]  # fmt: skip
    work = _work(spans)
    assert (work["tool_calls"], work["tool_errors"], work["steps"]) == (2, 1, 1)
    rag = [_span("1", 0, 1, **{"openinference.span.kind": "RETRIEVER"}), _span("2", 2, 3, **LLM)]
    assert _work(rag, 1)["ragmon.agent"] == "no_tools"


@pytest.mark.parametrize(("status", "error"), [
    ({"code": 2}, True), ({"code": "STATUS_CODE_ERROR"}, True), ({"code": 1}, False),
    ({"code": "STATUS_CODE_OK"}, False), ({}, False), (None, False)])  # fmt: skip
def test_a_spans_error_status_in_otlp_json(status: object, error: bool) -> None:
    """The proto3 JSON mapping writes an enum as its number or its name."""
    span = {"traceId": "a" * 32, "spanId": "b" * 16, "name": "s", "status": status}
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    (decoded,) = decode_json(json.dumps(doc).encode())
    assert decoded.error is error


def test_a_spans_error_status_in_protobuf() -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    from monitor.ingest.otlp import decode_proto

    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.trace_id, span.span_id, span.name = b"\x0a" * 16, b"\x0b" * 8, "tool"
    span.status.code = 2
    (decoded,) = decode_proto(request.SerializeToString())
    assert decoded.error


def test_loops_are_the_same_tool_with_the_same_arguments_again() -> None:
    """One trace's tool calls in start order, as the instrumentations record their arguments
    (PydanticAI's and ADK's ``gen_ai.tool.call.arguments``, smolagents' ``input.value``,
    Strands' ``gen_ai.tool.message`` event on the tool's span): the same search three times
    in a row, another, the first again (other spacing, the same JSON), and a call whose
    arguments were not captured. Per tool: calls, errors, seconds and repeats."""

    def genai(sid: str, start: int, args: str | None, name: str = "search_help") -> Span:
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        if args is not None:
            attrs["gen_ai.tool.call.arguments"] = args
        return _span(sid, start * 10**9, start * 10**9 + 250_000_000, **attrs)

    strands = _span("9", 9 * 10**9, 9 * 10**9 + 10**9, events=[
        Event("gen_ai.tool.message", {"role": "tool", "content": '{"query": "x"}', "id": "c9"})],
        **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search_help",
           "gen_ai.tool.status": "error"})  # fmt: skip
    spans = [
        genai("1", 1, '{"query":"refund days"}'), genai("2", 2, '{"query": "refund days"}'),
        genai("3", 3, '{"query":"refund days"}'), genai("4", 4, '{"query":"fees"}', "lookup"),
        genai("5", 5, '{"query":"refund days"}'), genai("6", 6, None), genai("7", 7, None),
        _span("8", 8 * 10**9, 8 * 10**9 + 1, **{
            "openinference.span.kind": "TOOL", "tool.name": "lookup",
            "input.value": '{"args": [], "kwargs": {"query": "fees"}}'}), strands,
    ]  # fmt: skip
    work = _work(spans)
    assert (work["repeated_calls"], work["longest_repeat"]) == (3, 3)
    assert work["tools"] == {
        "search_help": {"calls": 7, "errors": 1, "seconds": 2.5, "repeats": 3},
        # smolagents' arguments are not the GenAI ones' spelling: another call
        "lookup": {"calls": 2, "errors": 0, "seconds": 0.25, "repeats": 0}}  # fmt: skip


def test_eighty_five_failing_calls_in_a_row_are_one_run() -> None:
    """The loop peers report: one agent repeated the same failing call 85 times."""
    spans = [_span(f"{i:02d}", i * 10, i * 10 + 5, error=True, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch_invoice",
        "gen_ai.tool.call.arguments": '{"id": 7}'}) for i in range(85)]  # fmt: skip
    work = _work(spans)
    assert (work["repeated_calls"], work["longest_repeat"], work["tool_errors"]) == (84, 85, 85)
