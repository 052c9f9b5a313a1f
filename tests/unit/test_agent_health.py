"""An agent's health on every trace, from the corpus's real instrumentation: per tool its calls,
errors, seconds and repeats on the evaluation line and as ``ragmon_agent_tool_*`` counters
(tool label bounded), the loops as measured inputs."""

from __future__ import annotations

import msgspec
import pytest
from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.segments import measure_inputs
from sinks.prometheus import PrometheusSink
from tests.otel_corpus import converted, truth

# (the searches a stack's tool spans record: each carries its tool's arguments)
STACKS = ("pydantic-ai-genai", "strands-genai-events", "smolagents-openinference",
          "langgraph-react-openinference", "google-adk-genai")  # fmt: skip


def _case(stack: str, case: str) -> RagTrace:
    by_case = {r["case"]: t for t, r in truth(stack).items()}
    return converted(stack, "otlp-proto")[by_case[case]]


@pytest.mark.parametrize("stack", STACKS)
def test_one_search_twice_is_a_loop_on_the_line(stack: str) -> None:
    """The repeat case: the model searched "express shipping" twice in a row (two requests):
    one repeated call, a run of two, and the line's ``agent_tools`` says so per tool."""
    trace = _case(stack, "repeat")
    line = Evaluation(trace, {}, inputs=measure_inputs(trace)).to_line()
    assert (line["inputs"]["repeated_calls"], line["inputs"]["longest_repeat"]) == (1, 2)
    tools = line["agent_tools"]
    assert list(tools) == ["search_help"]
    assert {k: tools["search_help"][k] for k in ("calls", "errors", "repeats")} == {
        "calls": 2, "errors": 0, "repeats": 1}  # fmt: skip
    assert 0 < tools["search_help"]["seconds"] < 5


@pytest.mark.parametrize("stack", STACKS)
def test_two_searches_in_parallel_are_no_loop(stack: str) -> None:
    trace = _case(stack, "parallel")
    inputs = measure_inputs(trace)
    assert (inputs["repeated_calls"], inputs["longest_repeat"], inputs["tool_calls"]) == (0, 1, 2)


def test_the_counters_per_tool_and_their_bound() -> None:
    """Every agent stack's traces through the Prometheus sink: calls by outcome, repeats and
    seconds per tool; a native record's malformed counts are skipped, never a crash; past
    32 tool names, ``other``."""
    metrics = registry.build_metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    suite = CheckSuite()
    traces = [t for stack in STACKS for t in converted(stack, "otlp-proto").values()]
    for trace in traces:
        sink.write(Evaluation(trace, suite(trace)))
    base = traces[0]
    odd = [{"search_help": {"calls": 1, "errors": 2}}, {"x": "y"}, {"x": {"calls": -1}},
           "tools", {"x": {"calls": float("nan")}}, {"x": {"calls": True}}]  # fmt: skip
    for tools in odd:
        attributes = {**base.attributes, "ragmon.agent.tools": tools}
        sink.write(Evaluation(msgspec.structs.replace(base, attributes=attributes), {}))
    for i in range(40):
        attributes = {**base.attributes, "ragmon.agent.tools": {
            f"tool{i}": {"calls": 1, "errors": 1, "seconds": 0.5, "repeats": 0}}}  # fmt: skip
        sink.write(Evaluation(msgspec.structs.replace(base, attributes=attributes), {}))
    sink.flush()
    got = metrics.registry.get_sample_value
    calls = sum(t.attributes["ragmon.agent.tools"]["search_help"]["calls"] for t in traces)
    repeats = sum(t.attributes["ragmon.agent.tools"]["search_help"]["repeats"] for t in traces)
    seconds = sum(t.attributes["ragmon.agent.tools"]["search_help"]["seconds"] for t in traces)
    assert repeats == len(STACKS)  # one repeat case a stack
    ok = {"tool": "search_help", "outcome": "ok"}
    assert got("ragmon_agent_tool_calls_total", ok) == calls
    assert got("ragmon_agent_tool_repeats_total", {"tool": "search_help"}) == repeats
    assert got("ragmon_agent_tool_seconds_total", {"tool": "search_help"}) == pytest.approx(seconds)
    # 31 tool names beside search_help, then other: 9 calls, all failed
    other = {"tool": "other", "outcome": "error"}
    assert got("ragmon_agent_tool_calls_total", other) == 9
    assert got("ragmon_agent_tool_calls_total", {"tool": "tool0", "outcome": "error"}) == 1
