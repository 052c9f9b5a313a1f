"""The OTLP corpus from real instrumentation (tests/otel_corpus): ragmon reads every trace
exactly as the pipeline that produced it saw it, in protobuf and in OTLP/JSON."""

from __future__ import annotations

import itertools

import pytest

from monitor.core.model import AGENT_ATTRIBUTE, AGENT_INPUTS
from monitor.ingest import conversion
from monitor.ingest.conventions import CONTENT_MISSING
from monitor.sources import framing
from tests.otel_corpus import (
    AGENT_CASES,
    AGENT_STACKS,
    FORMATS,
    HERE,
    STACKS,
    converted,
    differences,
    truth,
)
from tests.otel_corpus.generate import AGENT_SEARCHES, TOOL_SEARCHES

# What a stack does not emit: the trace must say so, never invent it.
ANSWER_NOT_EMITTED = {
    # OpenLLMetry's LlamaIndex instrumentation records no output for a streamed response
    # (neither on the query engine nor on the LLM task), so the answer is not in the trace.
    ("llamaindex-openllmetry", "stream"),
}
# OTel GenAI retrieval spans carry ids without text, so passages come from the prompt, and
# nothing says which retrieved document a passage is (the n-th passage is not the n-th
# document after a cutoff, a reranker or a fusion): the ids stay unknown and are counted.
IDS_NOT_EMITTED = {"openai-genai", "google-genai"}
# No text on the spans: content capture off (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
# unset), or content in log events only (event_only), which ragmon does not read.
NOTHING_CAPTURED = ("openai-genai-nocontent", "google-genai-events", "google-adk-nocontent")


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("stack", [s for s in STACKS if s not in NOTHING_CAPTURED])
def test_every_trace_is_read_exactly(stack: str, fmt: str) -> None:
    """Query, answer, packed context (ids and texts, prompt order) and retrieved ids (rank
    order) equal the pipeline's own, for every trace the stack emits in full."""
    got = converted(stack, fmt)
    wrong = {}
    for trace_id, expected in truth(stack).items():
        case = expected["case"]
        if (stack, case) in ANSWER_NOT_EMITTED:
            assert trace_id not in got, f"{case}: a missing answer was invented"
            continue
        if stack in IDS_NOT_EMITTED and trace_id in got:
            trace = got[trace_id]
            assert [p.doc_id for p in trace.context] == [None] * len(trace.context), (
                f"{case}: passage ids were guessed"
            )
            assert trace.attributes.get("ragmon.ids_unresolved", 0) == len(trace.context)
            expected = {**expected, "context": [
                {"doc_id": None, "text": c["text"]} for c in expected["context"]]}  # fmt: skip
        problems = differences(expected, got.get(trace_id))
        if problems:
            wrong[case] = problems
    assert not wrong


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("stack", ["llamaindex-openllmetry", *NOTHING_CAPTURED])
def test_what_a_stack_does_not_emit_is_counted_as_missing(stack: str, fmt: str) -> None:
    """A trace without its answer or its texts is counted ``content_missing``, never
    evaluated."""
    data = (HERE / f"{stack}{FORMATS[fmt]}").read_bytes()
    result = conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_"))
    total = len(truth(stack))
    missing = total if stack in NOTHING_CAPTURED else len(ANSWER_NOT_EMITTED)
    assert result.counts.get(CONTENT_MISSING, 0) == missing
    assert len(result.traces) == total - missing


def test_the_corpus_covers_every_case_in_every_stack() -> None:
    """Each stack ran every pipeline variant (a generator that silently skipped one would
    shrink the corpus)."""
    only_llamaindex = {"llm-rerank", "workflow", "fusion", "chat", "chunks"}
    cases = {r["case"] for r in truth(STACKS[0]).values()} - only_llamaindex
    assert {"plain", "cutoff", "rerank", "empty", "refusal", "citations", "async", "stream",
            "concurrent-a", "concurrent-b"} <= cases  # fmt: skip
    for stack in STACKS:
        if stack in AGENT_STACKS:
            assert {r["case"] for r in truth(stack).values()} == AGENT_CASES
            continue
        # Haystack's fake generator component does not stream, and the local Bedrock server
        # does not speak ConverseStream's binary event stream: no streaming case there
        expected = cases - {"stream"} if stack.startswith(("haystack", "bedrock")) else cases
        if stack.startswith("llamaindex"):  # LLM rerank, Workflow, fusion, chat, two chunks
            expected = expected | only_llamaindex
        assert {r["case"] for r in truth(stack).values()} == expected


def test_traces_are_counted_per_instrumentation_and_version() -> None:
    """``ragmon_otlp_instrumentation_traces_total`` names the instrumentation package and its
    version with what ragmon made of the trace, so an upgrade that breaks a mapping shows."""
    from prometheus_client import CollectorRegistry

    from monitor.ingest.assembly import OtlpAssembler
    from monitor.sources import SourcePosition, SourceRecord
    from monitor.telemetry import Metrics

    metrics = Metrics(CollectorRegistry())
    assembler = OtlpAssembler("otlp_proto", observer=metrics)
    data = (HERE / "llamaindex-openllmetry.otlp").read_bytes()
    for i, message in enumerate(framing.read_messages(data, "otlp-proto")):
        assembler.feed(SourceRecord(SourcePosition("corpus", 0, i), message))
    assembler.due(flush=True)
    labels = {"instrumentation": "opentelemetry.instrumentation.llamaindex", "version": "0.62.4"}
    sample = metrics.registry.get_sample_value
    name = "ragmon_otlp_instrumentation_traces_total"
    emitted = len(truth("llamaindex-openllmetry")) - 1
    assert sample(name, {**labels, "convention": "openllmetry"}) == emitted
    assert sample(name, {**labels, "convention": CONTENT_MISSING}) == 1


def test_instrumentation_labels_are_bounded() -> None:
    """Past 32 (instrumentation, version) pairs, further ones count as ``other``."""
    from prometheus_client import CollectorRegistry

    from monitor.telemetry import Metrics

    metrics = Metrics(CollectorRegistry())
    for i in range(40):
        metrics.on_assembled("openinference", "complete", (f"lib{i}", "1.0"))
    other = {"instrumentation": "other", "version": "other", "convention": "openinference"}
    name = "ragmon_otlp_instrumentation_traces_total"
    assert metrics.registry.get_sample_value(name, other) == 8
    first = {"instrumentation": "lib0", "version": "1.0", "convention": "openinference"}
    assert metrics.registry.get_sample_value(name, first) == 1


def _loops(stack: str, expected: dict[str, object]) -> dict[str, int | None]:
    """The loops the model's searches make (the generator's plan: the same search twice in
    the repeat case): repeated calls and the longest run of one call. None where the stack
    has no tool spans (the openai client's: the trace does not say)."""
    if stack == "openai-genai-tools":
        return {"repeated_calls": None, "longest_repeat": None}
    query = str(expected["query"])
    plan = AGENT_SEARCHES.get(query) or [[q] for q in TOOL_SEARCHES.get(query, [query])]
    searches = [q for step in plan for q in step]
    repeated = len(searches) - len(set(searches))
    longest = max(sum(1 for _ in run) for _, run in itertools.groupby(searches))
    return {"repeated_calls": repeated, "longest_repeat": longest}


# Retrieval only through a tool: the agent frameworks and the two earlier tool stacks.
TOOL_STACKS = (*AGENT_STACKS, "openai-agents-openinference", "openai-genai-tools")


@pytest.mark.parametrize("stack", STACKS)
def test_what_the_agent_did_is_measured(stack: str) -> None:
    """The agent stacks' traces: retrieval through tools, as many tool and retrieval calls as
    the app's search tool ran (the truth counts them), one model call more than the requests
    that asked for searches (the truth's steps: one search a request, or two at once in the
    parallel case), then the answer. Every other stack: no tools, one retrieval call."""
    got = converted(stack, "otlp-proto")
    wrong = {}
    for trace_id, expected in truth(stack).items():
        trace = got.get(trace_id)
        if trace is None:
            continue
        work = {k: trace.attributes.get(v) for k, v in AGENT_INPUTS.items()}
        segment = trace.attributes.get(AGENT_ATTRIBUTE)
        if stack in TOOL_STACKS:
            n = expected.get("tool_calls")
            if n is None:  # the first two tool stacks' truth predates the count: the searches
                asked = TOOL_SEARCHES if stack == "openai-genai-tools" else {}  # their model asked
                n = len(asked.get(expected["query"], [""]))
            steps = expected.get("steps", n)
            want = ("retrieval_tools", {"model_calls": steps + 1, "tool_calls": n,
                                        "retrieval_calls": n, "agent_steps": steps,
                                        "tool_errors": 0, **_loops(stack, expected)})  # fmt: skip
        else:
            retrievals = 2 if "-hybrid-" in stack else 1  # two retrievers side by side
            want = ("no_tools", {**work, "tool_calls": 0, "agent_steps": 0, "tool_errors": 0,
                                 "retrieval_calls": retrievals})  # fmt: skip
        if (segment, work) != want:
            wrong[expected["case"]] = (segment, work)
    assert not wrong
