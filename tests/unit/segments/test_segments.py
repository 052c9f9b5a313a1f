"""Segments and inputs: each dimension's value on real query forms, their bounds, and their
way into evaluation lines and per-segment metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from pydantic import ValidationError

from monitor.config import Settings
from monitor.core.model import RagTrace
from monitor.segments import INPUTS, REFUSAL_LANGUAGES, Segmenter, SegmentsConfig
from monitor.segments.shape import query_length, query_shape
from tests.conftest import make_trace, run_daemon_pipeline

LANGUAGES = Path(__file__).resolve().parents[3] / "monitor" / "checks" / "languages"


@pytest.fixture(scope="module")
def segmenter() -> Segmenter:
    return Segmenter(SegmentsConfig())


def test_the_default_languages_are_the_refusal_checks() -> None:
    assert sorted(REFUSAL_LANGUAGES) == sorted(p.stem for p in LANGUAGES.glob("*.toml"))


@pytest.mark.parametrize(
    ("query", "language"),
    [
        ("What is the refund window for enterprise customers?", "en"),
        ("¿Cuántos días tarda el reembolso?", "es"),
        ("Wie lange dauert die Rückerstattung?", "de"),
        ("Combien de jours faut-il pour un remboursement ?", "fr"),
        ("Сколько дней занимает возврат денег?", "ru"),
        ("退款需要多少天？", "zh"),
        ("返金には何日かかりますか", "ja"),
        ("환불은 며칠이 걸리나요?", "ko"),
        ("Geri ödeme kaç gün sürer?", "tr"),
        ("Πόσες μέρες χρειάζεται η επιστροφή χρημάτων;", "other"),  # Greek: not kept
        ("Hoàn tiền mất bao nhiêu ngày?", "other"),  # Vietnamese: not kept
        ("12345 678", "unknown"),  # no letters
        ("", "unknown"),
    ],
)
def test_the_language_of_a_query(segmenter: Segmenter, query: str, language: str) -> None:
    assert segmenter.segments(make_trace(query=query))["language"] == language


def test_a_language_outside_the_allow_list_is_other_and_a_kept_one_stays() -> None:
    only = Segmenter(SegmentsConfig(languages=["de"]))
    assert only.segments(make_trace(query="Wie lange dauert das?"))["language"] == "de"
    assert only.segments(make_trace(query="How long does it take?"))["language"] == "other"


@pytest.mark.parametrize(
    ("query", "shape"),
    [
        ("What is the refund window?", "question"),
        ("how long does shipping take", "question"),  # no question mark
        ("Explain the refund policy", "question"),  # a request to be told
        ("¿Dónde está mi pedido?", "question"),
        ("wo ist meine Bestellung", "question"),
        ("Bu ürün iade edilebilir mi", "question"),  # Turkish particle
        ("退款需要多少天", "question"),
        ("refund policy enterprise", "keyword"),
        ("iPhone 15 price", "keyword"),
        ("Rückerstattung Frist", "keyword"),
        ("Summarise the refund policy for enterprise customers in the EU region", "instruction"),
        ("   ", "unknown"),
    ],
)
def test_the_shape_of_a_query(segmenter: Segmenter, query: str, shape: str) -> None:
    assert segmenter.segments(make_trace(query=query))["query_shape"] == shape


def test_query_length_by_characters_with_configurable_thresholds() -> None:
    assert query_length("a" * 30, 30, 120) == "short"
    assert query_length("a" * 31, 30, 120) == "medium"
    assert query_length("a" * 121, 30, 120) == "long"
    assert query_length("a" * 11, 10, 20) == "medium"
    assert query_length("  ", 30, 120) is None and query_shape("", 6) is None


def _trace(**extra: Any) -> RagTrace:
    """A trace with ``extra`` fields (``context`` as passage objects)."""
    passages = extra.pop("context", None)
    trace = make_trace("an answer", ["one passage"], "refund policy", **extra)
    if passages is None:
        return trace
    return RagTrace.from_data({**json.loads(trace.to_json()), "context": passages})


def test_data_source_from_the_passages_or_the_otel_attribute(segmenter: Segmenter) -> None:
    def source(**extra: Any) -> str:
        return segmenter.segments(_trace(**extra))["data_source"]

    ctx = [{"text": "a", "data_source": "kb"}, {"text": "b", "data_source": "kb"}]
    assert source(context=ctx) == "kb"
    ctx[1] = {"text": "b", "data_source": "wiki"}
    assert source(context=ctx) == "mixed"
    assert source(attributes={"gen_ai.data_source.id": "help-kb"}) == "help-kb"
    assert source(attributes={"gen_ai.data_source.id": ["a", "b"]}) == "mixed"
    assert source() == "unknown"


def test_document_age_against_the_traces_time(segmenter: Segmenter) -> None:
    def passage(ts: str) -> dict[str, str]:
        return {"text": "x", "timestamp": ts}

    at = "2026-11-30T00:00:00Z"
    new, old = passage("2026-11-20T00:00:00Z"), passage("2025-01-01T00:00:00Z")
    for context, age in (([new], "new"), ([old], "old"), ([new, old], "mixed")):
        trace = _trace(timestamp=at, context=context)
        assert segmenter.segments(trace)["doc_age"] == age
    assert segmenter.inputs(_trace(timestamp=at, context=[new]))["doc_age_days"] == 10.0
    # no trace time, or no document time: unknown, and no age input
    assert segmenter.segments(_trace(context=[new]))["doc_age"] == "unknown"
    assert "doc_age_days" not in segmenter.inputs(_trace(timestamp=at))


def test_inputs_are_measured_and_scores_only_where_traces_carry_them(
    segmenter: Segmenter,
) -> None:
    trace = make_trace(
        "four", ["ab", "cde"], "query",
        retrieved=[{"doc_id": "a", "score": 0.9}, {"doc_id": "b", "score": 0.6},
                   {"doc_id": "c"}],
    )  # fmt: skip
    got = segmenter.inputs(trace)
    assert got == {"passages": 2, "context_chars": 5, "query_chars": 5, "answer_chars": 4,
                   "retrieved": 3, "top_score": 0.9, "score_gap": 0.3}  # fmt: skip
    assert set(got) <= set(INPUTS)
    bare = segmenter.inputs(make_trace("a", [], "q", retrieved=[{"doc_id": "a"}]))
    assert "top_score" not in bare and "score_gap" not in bare


def test_each_dimension_keeps_its_first_values_and_counts_the_folded_ones() -> None:
    seg = Segmenter(SegmentsConfig(max_values=2, attributes=["tenant_tier"]))
    routes = [seg.segments(_trace(route=r))["route"] for r in ("a", "b", "c", "a", "d")]
    assert routes == ["a", "b", "other", "a", "other"]
    tiers = [seg.segments(_trace(attributes={"tenant_tier": t}))["tenant_tier"]
             for t in ("gold", "free", "gold", "trial")]  # fmt: skip
    assert tiers == ["gold", "free", "gold", "other"]
    assert seg.folded["route"] == 2 and seg.folded["tenant_tier"] == 1
    assert seg.folded["language"] == 0


def test_a_combination_seen_before_is_bounded_the_same_and_a_folded_one_counted_again() -> None:
    """The segmenter keeps the bounded segments of value combinations none of whose values
    was folded; a repeated combination with a folded value is still counted each time, and
    the segments handed out are the trace's own (changing one changes no other)."""
    seg = Segmenter(SegmentsConfig(max_values=1))
    first = seg.segments(_trace(route="a"))
    again = seg.segments(_trace(route="a"))
    assert again == first and again is not first and again["route"] == "a"
    again["route"] = "changed"
    assert seg.segments(_trace(route="a"))["route"] == "a"
    folded = [seg.segments(_trace(route="b"))["route"] for _ in range(3)]
    assert folded == ["other"] * 3 and seg.folded["route"] == 3


def test_bad_segment_settings_are_refused() -> None:
    with pytest.raises(ValidationError, match="ISO 639-1"):
        Settings.model_validate({"segments": {"languages": ["english"]}})
    with pytest.raises(ValidationError, match="built-in dimensions"):
        Settings.model_validate({"segments": {"attributes": ["route"]}})


def test_off_means_empty_segments_and_inputs() -> None:
    seg = Segmenter(SegmentsConfig(enabled=False))
    assert seg.segments(_trace()) == {} and seg.inputs(_trace()) == {}


def test_the_daemons_pipeline_writes_segments_and_counts_them_per_dimension() -> None:
    """Through the registry's pipeline: every line has segments and inputs; /metrics has one
    series per dimension and segment (never the cross product), and the input histograms."""
    settings = Settings.model_validate({"judge": {"backend": "none"}})
    metrics, sink, pipeline = run_daemon_pipeline(settings, 60)
    lines = [e.to_line() for e in sink.evaluations]
    assert len(lines) == 60
    assert all(set(line["segments"]) == set(pipeline.segmenter.dimensions) for line in lines)
    assert all(line["inputs"]["passages"] >= 0 for line in lines)
    get = metrics.registry.get_sample_value
    for dimension in pipeline.segmenter.dimensions:
        values = {line["segments"][dimension] for line in lines}
        total = sum(get("ragmon_segment_traces_total",
                        {"dimension": dimension, "segment": v}) or 0 for v in values)  # fmt: skip
        assert total == 60, dimension
    flagged = sum(line["checks"]["refusal"]["flagged"] for line in lines)
    english = {"dimension": "language", "segment": "en", "check": "refusal", "result": "flagged"}
    assert get("ragmon_segment_check_results_total", english) == flagged
    assert get("ragmon_input_passages_count") == 60
    names = {s.name for m in metrics.registry.collect() for s in m.samples
             if s.name.startswith("ragmon_segment_check_results")}  # fmt: skip
    labels = {frozenset(s.labels) for m in metrics.registry.collect() for s in m.samples
              if s.name == "ragmon_segment_check_results_total"}  # fmt: skip
    assert names and labels == {frozenset({"dimension", "segment", "check", "result"})}
    assert get("ragmon_segment_values_folded_total", {"dimension": "route"}) == 0


def test_the_series_stay_within_the_stated_bound() -> None:
    """Many routes, releases and attribute values, max_values 3: the per-segment counters hold
    at most D x (3 + other + unknown) x C x 3 check series and D x 5 traffic series, as the
    README's bound says (one dimension per series, never the cross product)."""
    from monitor.checks import CheckSuite
    from monitor.core.model import Evaluation
    from monitor.telemetry import Metrics
    from sinks.prometheus import PrometheusSink

    seg = Segmenter(SegmentsConfig(max_values=3, attributes=["tenant"]))
    metrics = Metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    suite = CheckSuite()
    for i in range(300):
        trace = make_trace("It costs $5.", ["It costs $5."], f"question {i}?", route=f"r{i}",
                           release=f"v{i % 40}", attributes={"tenant": f"t{i}"})  # fmt: skip
        segments, inputs = seg(trace)
        sink.write(Evaluation(trace, suite(trace), segments=segments, inputs=inputs))
    sink.flush()
    samples = [s for m in metrics.registry.collect() for s in m.samples]
    checks = [s for s in samples if s.name == "ragmon_segment_check_results_total"]
    traffic = [s for s in samples if s.name == "ragmon_segment_traces_total"]
    d, c = len(seg.dimensions), len(suite.checks)
    assert len(checks) <= d * 5 * c * 3 and len(traffic) <= d * 5
    routes = {s.labels["segment"] for s in traffic if s.labels["dimension"] == "route"}
    assert routes == {"r0", "r1", "r2", "other"}
    assert seg.folded["route"] == 297 and seg.folded["tenant"] == 297


def test_the_agent_segment_and_inputs_as_the_trace_says(segmenter: Segmenter) -> None:
    """From the span mapping's ``ragmon.agent.*`` attributes (a native record may carry
    them); without them the segment is unknown and the inputs are left out, never zero."""
    plain = segmenter(_trace())
    assert plain.segments["agent"] == "unknown"
    assert not {"model_calls", "tool_calls", "agent_steps"} & plain.inputs.keys()
    said = {"ragmon.agent": "retrieval_tools", "ragmon.agent.model_calls": 3,
            "ragmon.agent.tool_calls": 2, "ragmon.agent.retrieval_calls": 2,
            "ragmon.agent.steps": 2, "ragmon.agent.tool_errors": 1}  # fmt: skip
    agent = segmenter(_trace(attributes=said))
    assert agent.segments["agent"] == "retrieval_tools"
    names = ("model_calls", "tool_calls", "retrieval_calls", "agent_steps", "tool_errors")
    assert [agent.inputs[k] for k in names] == [3, 2, 2, 2, 1]
    odd = segmenter(_trace(attributes={"ragmon.agent": "planner", "ragmon.agent.tool_calls": -1,
                                       "ragmon.agent.model_calls": True}))  # fmt: skip
    assert odd.segments["agent"] == "other"
    assert "tool_calls" not in odd.inputs and "model_calls" not in odd.inputs
