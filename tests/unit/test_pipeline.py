"""The pipeline from a list source to an in-memory sink, with metrics on a fresh registry."""

from __future__ import annotations

import json
import threading

import pytest
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.errors import SinkFailure
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, demo
from monitor.telemetry import LabelLimiter, Metrics
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink


class FailingSink(InMemorySink):
    name = "failing"
    flush_calls = 0

    def flush(self) -> None:
        self.flush_calls += 1
        raise OSError("disk full")


def build(values: list[bytes], *sinks: InMemorySink) -> tuple[Pipeline, ListSource, Metrics]:
    source = ListSource(values, source="traces")
    metrics = Metrics(CollectorRegistry())
    pipeline = Pipeline(
        source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics), *sinks],
        observer=metrics, batch_size=7, sleep=lambda _: None,
    )  # fmt: skip
    return pipeline, source, metrics


def demo_records(n: int) -> list[bytes]:
    return [demo.generate_bytes(i) for i in range(n)]


def test_every_record_is_evaluated_or_dead_lettered() -> None:
    """Valid traces reach the sink; bad ones become dead letters; offsets are committed."""
    values = demo_records(20)
    values[3] = b"{oops"
    values[11] = b'{"trace_id": "nothex"}'
    sink = InMemorySink()
    pipeline, source, metrics = build(values, sink)
    pipeline.start()
    stats = pipeline.run(threading.Event())
    pipeline.close()
    assert len(sink.evaluations) == 18
    assert [d.offset for d in sink.dead_letters] == [3, 11]
    assert [d.reason for d in sink.dead_letters] == ["invalid_json", "invalid_record"]
    assert source.committed == {("traces", 0): 20}
    assert stats.records == 20 and stats.traces == 18 and stats.dead_letters == 2
    assert sink.started and sink.closed and sink.flushes >= 1
    get = metrics.registry.get_sample_value
    assert get("ragmon_records_total", {"source": "list"}) == 20
    assert get("ragmon_dead_letters_total", {"reason": "invalid_json"}) == 1


def test_check_counters_match_the_evaluations() -> None:
    """Per-check flagged counters equal the flagged results the sink received."""
    sink = InMemorySink()
    pipeline, _, metrics = build(demo_records(200), sink)
    pipeline.start()
    pipeline.run(threading.Event())
    get = metrics.registry.get_sample_value
    total = sum(
        get("ragmon_traces_total", {"app": "support-assistant", "route": r}) or 0
        for r in ("billing", "orders", "support", "security")
    )
    assert total == 200
    for check in ("refusal", "unsupported_numbers", "citation", "empty_context"):
        expected = sum(1 for e in sink.evaluations if e.checks[check].flagged)
        got = sum(
            get("ragmon_check_results_total",
                {"check": check, "result": "flagged", "app": "support-assistant", "route": r})
            or 0
            for r in ("billing", "orders", "support", "security")
        )  # fmt: skip
        assert got == expected > 0, check


def test_failed_flush_commits_nothing() -> None:
    """If a durable sink cannot flush after its retries, nothing is committed, ever."""
    sink = FailingSink()
    pipeline, source, metrics = build(demo_records(5), sink)
    pipeline.start()
    with pytest.raises(SinkFailure, match="disk full"):
        pipeline.run(threading.Event())
    assert sink.flush_calls == 3  # the configured attempts
    with pytest.raises(SinkFailure):  # e.g. the final checkpoint on the way out
        pipeline.checkpoint()
    assert source.committed == {}
    assert metrics.registry.get_sample_value("ragmon_commits_total", {"outcome": "ok"}) is None


class EndlessSource(ListSource):
    """A source that never runs dry (a topic), as the rebalance tests need."""

    def __init__(self, values: list[bytes]) -> None:
        super().__init__(values, source="traces")

    @property
    def exhausted(self) -> bool:
        return False


def test_a_flush_failing_on_the_rebalance_thread_ends_the_run_as_failed() -> None:
    """kafka-python calls on_revoked on its IO thread; a sink that cannot flush there must end
    run() with the failure (the daemon logs pipeline_failed and exits 1), not leave a
    pipeline that polls on without ever committing again."""
    sink = FailingSink()
    source = EndlessSource(demo_records(5))
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [sink], sleep=lambda _: None,
                        poll_timeout=0.01)  # fmt: skip
    pipeline.start()
    pipeline.process(source.poll(5, 0))
    revoke = threading.Thread(target=pipeline.on_revoked, args=([("traces", 0)],))
    revoke.start()
    revoke.join()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            pipeline.run(threading.Event())
        except BaseException as exc:
            outcome.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=5)
    assert not runner.is_alive(), "the run goes on after its sink failed"
    assert isinstance(outcome[0], SinkFailure) and "disk full" in str(outcome[0])
    assert source.committed == {}


def test_stop_event_ends_the_loop_with_a_commit() -> None:
    """A set stop event ends run() at once and still commits what was processed."""
    pipeline, source, _ = build(demo_records(5))
    pipeline.start()
    pipeline.process(source.poll(3, 0))
    stop = threading.Event()
    stop.set()
    pipeline.run(stop)
    assert source.committed == {("traces", 0): 3}


def test_labels_stay_bounded_under_unbounded_routes() -> None:
    """10,000 distinct routes and apps produce at most max_values + other + unknown labels."""
    sink = InMemorySink()
    source_values = []
    for i in range(10_000):
        rec = demo.generate(i)
        rec["route"] = f"route-{i}"
        rec["app"] = f"app-{i}" if i % 2 else None
        source_values.append(json.dumps(rec).encode())
    metrics = Metrics(CollectorRegistry())
    prom = PrometheusSink(metrics, routes=LabelLimiter(max_values=5), apps=LabelLimiter(["app-1"]))
    pipeline = Pipeline(ListSource(source_values), NativeDecoder(), CheckSuite(), [prom, sink])
    pipeline.start()
    pipeline.run(threading.Event())
    labels: dict[str, set[str]] = {}
    for family in metrics.registry.collect():
        for sample in family.samples:
            for key, value in sample.labels.items():
                labels.setdefault(key, set()).add(value)
    assert len(labels["route"]) == 6  # five first-seen routes + other
    assert labels["app"] == {"app-1", "other", "unknown"}
    assert "trace_id" not in labels
    assert labels["check"] == set(CheckSuite().names)
    assert labels["result"] <= {"flagged", "passed", "not_applicable"}


def test_revoke_flushes_and_offers_only_revoked_partitions() -> None:
    """The rebalance handler flushes the sinks, returns the revoked partitions' finished
    offsets and forgets them, so a later checkpoint does not commit them."""
    sink = InMemorySink()
    values = demo_records(6)
    pipeline, source, _ = build(values, sink)
    pipeline.start()
    pipeline.process(source.poll(6, 0))
    flushes = sink.flushes
    offsets, notes = pipeline.on_revoked([("traces", 0)])
    assert offsets == {("traces", 0): 6}
    assert notes == {}  # native records are whole traces: nothing to note
    assert sink.flushes == flushes + 1
    pipeline.checkpoint()
    assert source.committed == {}  # revoked: nothing left for this process to commit


def test_lost_partitions_are_dropped_without_commit() -> None:
    """Lost partitions (the member was expelled) are forgotten, nothing is offered."""
    pipeline, source, _ = build(demo_records(3))
    pipeline.start()
    pipeline.process(source.poll(3, 0))
    pipeline.on_lost([("traces", 0)])
    pipeline.checkpoint()
    assert source.committed == {}


def test_invalid_citations_are_counted() -> None:
    """Every citation marker naming no passage is counted, per route."""
    sink = InMemorySink()
    pipeline, _, metrics = build(demo_records(300), sink)
    pipeline.start()
    pipeline.run(threading.Event())
    expected = sum(
        len(e.checks["citation"].evidence.to_line().get("invalid", [])) for e in sink.evaluations
    )
    got = sum(
        metrics.registry.get_sample_value(
            "ragmon_invalid_citations_total", {"app": "support-assistant", "route": r}
        )
        or 0
        for r in ("billing", "orders", "support", "security")
    )
    assert got == expected > 0


def test_a_library_error_at_start_is_one_line_not_a_traceback() -> None:
    """A sink or a source whose start raises a library's own error (sqlite3.Error, say; not
    an OSError) stops the start with a StartupError naming the part in one line."""
    import sqlite3

    from monitor.core.errors import SinkError, SourceError

    class LockedSink(InMemorySink):
        name = "sqlite"

        def start(self) -> None:
            raise sqlite3.OperationalError("database is locked\n(more detail)")

    pipeline, _, _ = build(demo_records(1), LockedSink())
    with pytest.raises(SinkError) as err:
        pipeline.start()
    assert str(err.value) == "cannot start the sqlite sink: OperationalError: database is locked"

    class BadSource(ListSource):
        def start(self) -> None:
            raise ValueError("no partitions")

    source = BadSource([], source="x")
    bad = Pipeline(source, NativeDecoder(), CheckSuite(), [InMemorySink()])
    with pytest.raises(SourceError, match=r"^cannot start the list source: ValueError: no part"):
        bad.start()


def test_the_check_counters_and_exemplars_are_a_recount_of_the_evaluations() -> None:
    """The Prometheus sink counts a trace once for its label set and all its outcomes and
    makes the series at flush: every ``ragmon_check_results_total`` and ``ragmon_traces_*``
    series equals a plain recount of the evaluations (over several flushes, routes and apps
    mixed, some traces sampled upstream), and a flagged series' exemplar is the last trace
    flagged in it."""
    values = []
    for i in range(60):
        rec = json.loads(demo.generate_bytes(i))
        rec["route"] = ("billing", "login", None)[i % 3]
        rec["sample_rate"] = 0.5 if i % 7 == 0 else None
        values.append(json.dumps(rec).encode())
    sink = InMemorySink()
    metrics = Metrics(CollectorRegistry())
    pipeline = Pipeline(ListSource(values), NativeDecoder(), CheckSuite(),
                        [PrometheusSink(metrics), sink], batch_size=7,
                        commit_interval=0.0)  # fmt: skip
    pipeline.start()
    pipeline.run(threading.Event())
    pipeline.close()
    counts: dict[tuple[str, str, str, str], int] = {}
    weights: dict[tuple[str, str, str, str], float] = {}
    last_flagged: dict[tuple[str, str, str, str], str] = {}
    for ev in sink.evaluations:
        for name, result in ev.checks.items():
            key = (name, result.outcome, ev.trace.app or "unknown", ev.trace.route or "unknown")
            counts[key] = counts.get(key, 0) + 1
            weights[key] = weights.get(key, 0.0) + ev.trace.adjusted_count
            if result.flagged:
                last_flagged[key] = ev.trace_id
    got, got_weights, exemplars = {}, {}, {}
    traces: dict[tuple[str, str], list[float]] = {}
    for ev in sink.evaluations:
        t = traces.setdefault((ev.trace.app or "unknown", ev.trace.route or "unknown"), [0, 0, 0])
        t[0] += 1
        t[1] += ev.trace.adjusted_count
        t[2] += ev.trace.adjusted_count**2
    got_traces: dict[tuple[str, str], list[float]] = {}
    names = (
        "ragmon_traces_total",
        "ragmon_traces_weight_total",
        "ragmon_traces_weight_squares_total",
    )
    for family in metrics.registry.collect():
        for sample in family.samples:
            labels = sample.labels
            if sample.name in names:
                where = (labels["app"], labels["route"])
                got_traces.setdefault(where, [0, 0, 0])[names.index(sample.name)] = sample.value
            if sample.name in ("ragmon_check_results_total", "ragmon_check_results_weight_total"):
                key = (labels["check"], labels["result"], labels["app"], labels["route"])
                if sample.name == "ragmon_check_results_total":
                    got[key] = sample.value
                    if sample.exemplar is not None:
                        exemplars[key] = sample.exemplar.labels["trace_id"]
                else:
                    got_weights[key] = sample.value
    assert got == counts and len(counts) > 10
    assert got_traces.keys() == traces.keys()
    for where, (n, w, w2) in traces.items():
        assert got_traces[where] == [n, pytest.approx(w), pytest.approx(w2)]
    assert got_weights == pytest.approx(weights)
    assert exemplars == last_flagged and exemplars
