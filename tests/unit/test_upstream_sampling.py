"""Upstream sampling: the probability a trace was kept with, read where the producer says it
— OTel's consistent probability sampling in the root span's tracestate (OTEP 235: the `th`
rejection threshold, 1 to 14 hex digits padded with zeros to 56 bits, probability
1 - th/2^56), or Honeycomb's `SampleRate` attribute (one in N) — and each trace counted as
its adjusted count."""

from __future__ import annotations

import json

import pytest

from monitor.core.model import RagTrace
from monitor.ingest.conventions import sample_rate
from monitor.ingest.otlp import Span, decode_json


def root(trace_state: str = "", **attributes: object) -> Span:
    return Span("ab" * 16, "cd" * 8, "", "root", 1, 2, dict(attributes),
                trace_state=trace_state)  # fmt: skip


@pytest.mark.parametrize(
    ("trace_state", "expected"),
    [
        ("ot=th:0", 1.0),  # the spec: th:0 keeps every trace
        ("ot=th:8", 0.5),  # 0x80000000000000 = 2^55
        ("ot=th:c", 0.25),
        ("ot=th:e668", 0.1),  # 0xe6680000000000 / 2^56 = 0.9 rejected (to 4 hex digits)
        ("vendor=abc,ot=rv:0123456789abcd;th:8", 0.5),  # other members and sub-keys first
        ("ot=rv:0123456789abcd", None),  # randomness but no threshold: nothing said
        ("ot=th:zz", None),  # malformed: unknown beats a guess
        ("ot=th:123456789abcdef0", None),  # over 14 digits
        ("", None),
    ],
)
def test_the_threshold_in_tracestate_is_the_keep_probability(
    trace_state: str, expected: float | None
) -> None:
    got = sample_rate(root(trace_state))
    assert got == (None if expected is None else pytest.approx(expected, rel=1e-3))


def test_sample_rate_attribute_and_what_is_not_read() -> None:
    """`SampleRate` N (one in N) on the span or its resource; `sampling.priority` is a
    keep-or-drop hint, not a probability: not read; the tracestate wins over the attribute."""
    assert sample_rate(root(SampleRate=10)) == pytest.approx(0.1)
    span = root()
    span.resource["SampleRate"] = 4
    assert sample_rate(span) == pytest.approx(0.25)
    assert sample_rate(root(**{"sampling.priority": 1})) is None
    assert sample_rate(root(SampleRate=0)) is None and sample_rate(root(SampleRate=True)) is None
    assert sample_rate(root("ot=th:8", SampleRate=10)) == pytest.approx(0.5)


def test_otlp_json_carries_the_trace_state_to_the_span() -> None:
    body = {"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "ab" * 16, "spanId": "cd" * 8, "name": "root", "traceState": "ot=th:c",
    }]}]}]}  # fmt: skip
    (span,) = decode_json(json.dumps(body).encode())
    assert span.trace_state == "ot=th:c" and sample_rate(span) == pytest.approx(0.25)


def test_a_native_record_says_its_sample_rate_and_counts_as_its_adjusted_count() -> None:
    trace = RagTrace.from_data({"trace_id": "ab" * 16, "sample_rate": 0.2})
    assert trace.adjusted_count == pytest.approx(5.0)
    assert RagTrace.from_data({"trace_id": "ab" * 16}).adjusted_count == 1.0
    for bad in (0, -0.5, 1.5, "0.2"):
        with pytest.raises(ValueError):
            RagTrace.from_data({"trace_id": "ab" * 16, "sample_rate": bad})


def test_the_weight_counters_count_each_trace_as_its_adjusted_count() -> None:
    """`ragmon_traces_weight_total` and `ragmon_check_results_weight_total` beside the
    counts: an unsampled trace adds 1, one kept with probability 0.1 adds 10 (the counts add
    1 each)."""
    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.checks import CheckSuite
    from monitor.core.model import Evaluation
    from monitor.sources import demo
    from sinks.prometheus import PrometheusSink

    metrics = registry.build_metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    suite = CheckSuite()
    for i, rate in enumerate((None, 0.1)):
        trace = RagTrace.from_data({**demo.generate(i), "sample_rate": rate, "route": "r"})
        sink.write(Evaluation(trace, suite(trace)))
    sink.flush()
    reg = metrics.registry
    labels = {"app": "support-assistant", "route": "r"}
    assert reg.get_sample_value("ragmon_traces_total", labels) == 2
    assert reg.get_sample_value("ragmon_traces_weight_total", labels) == pytest.approx(11)
    counted = sum(reg.get_sample_value("ragmon_check_results_weight_total",
                                       {"check": "refusal", "result": r, **labels}) or 0
                  for r in ("flagged", "passed", "not_applicable"))  # fmt: skip
    assert counted == pytest.approx(11)


def test_the_squares_and_the_segments_weights_give_the_effective_sample() -> None:
    """Beside the weights, each trace's adjusted count squared (`..._weight_squares_total`,
    for Kish's effective sample n_eff = sum(w)^2 / sum(w^2) in the alert rules), per route
    and per segment; per segment the outcomes' weights too. One trace unsampled and one kept
    with probability 0.1: weights 1 + 10, squares 1 + 100, n_eff 121 / 101."""
    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.checks import CheckSuite
    from monitor.core.model import Evaluation
    from monitor.sources import demo
    from sinks.prometheus import PrometheusSink

    metrics = registry.build_metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    suite = CheckSuite()
    for i, rate in enumerate((None, 0.1)):
        trace = RagTrace.from_data({**demo.generate(i), "sample_rate": rate, "route": "r"})
        sink.write(Evaluation(trace, suite(trace), segments={"app": "a", "tier": "gold"}))
    sink.flush()
    reg = metrics.registry
    got = reg.get_sample_value
    route = {"app": "support-assistant", "route": "r"}
    assert got("ragmon_traces_weight_squares_total", route) == pytest.approx(101)
    for dimension, segment in (("app", "a"), ("tier", "gold")):
        seg = {"dimension": dimension, "segment": segment}
        assert got("ragmon_segment_traces_total", seg) == 2
        assert got("ragmon_segment_traces_weight_total", seg) == pytest.approx(11)
        assert got("ragmon_segment_traces_weight_squares_total", seg) == pytest.approx(101)
        counted = sum(got("ragmon_segment_check_results_weight_total",
                          {**seg, "check": "refusal", "result": r}) or 0
                      for r in ("flagged", "passed", "not_applicable"))  # fmt: skip
        assert counted == pytest.approx(11)


def test_a_rate_below_what_otel_can_write_is_refused_and_the_daemon_goes_on() -> None:
    """2**-56 is the smallest probability OTEP 235's 56-bit thresholds write (``th`` of 14
    ``f``). A native record below it is a dead letter naming the field; before, its weight
    squared (5e285 squared) overflowed in the Prometheus sink and stopped the daemon, again
    on the same record after each restart. An OTel ``SampleRate`` above 2**56 (infinity,
    which OTLP's double carries, among them: its 1/N was 0 and the weight divided by it) is
    nothing said. The smallest rate that is taken counts, squares included, as finite."""
    import math
    import threading

    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.checks import CheckSuite
    from monitor.ingest.native import NativeDecoder
    from monitor.pipeline import Pipeline
    from monitor.sources import ListSource, demo
    from sinks.memory import InMemorySink
    from sinks.prometheus import PrometheusSink

    assert sample_rate(root("ot=th:ffffffffffffff")) == 2.0**-56
    for n in (2.0**57, 1e300, math.inf, math.nan):
        assert sample_rate(root(SampleRate=n)) is None
    assert sample_rate(root(SampleRate=2**56)) == 2.0**-56
    with pytest.raises(ValueError):
        RagTrace.from_data({"trace_id": "ab" * 16, "sample_rate": 1e-286})
    records = [{**demo.generate(i), "sample_rate": rate}
               for i, rate in enumerate((1e-286, 2.0**-56, 5e-324, 0.5))]  # fmt: skip
    metrics = registry.build_metrics(CollectorRegistry())
    source = ListSource([json.dumps(r).encode() for r in records], source="traces")
    sink = InMemorySink()
    p = Pipeline(source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics), sink],
                 observer=metrics, sleep=lambda _: None)  # fmt: skip
    p.start()
    p.run(threading.Event())
    p.close()
    assert [e.trace.sample_rate for e in sink.evaluations] == [2.0**-56, 0.5]
    assert [d.reason for d in sink.dead_letters] == ["invalid_record"] * 2
    assert all("sample_rate" in d.detail for d in sink.dead_letters)
    assert source.committed == {("traces", 0): 4}
    squares = sum(s.value for f in metrics.registry.collect() for s in f.samples
                  if s.name == "ragmon_traces_weight_squares_total")  # fmt: skip
    assert math.isfinite(squares) and squares >= 2.0**112
