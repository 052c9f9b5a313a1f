"""Batch mode in process: the outbox's log and the batch stage against an in-memory batch API
(the real SDK against a local Batches server, with kill -9, is in tests/integration)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.ingest.native import NativeDecoder
from monitor.judge.batch import ERRORED, EXPIRED, SUCCEEDED, BatchStage, InProcess
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.outbox import LOG_NAME, Outbox, read
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, demo
from monitor.telemetry import Metrics
from sinks.memory import InMemorySink

ALL = SamplingRules(1.0, 1.0)


class FakeBatches:
    """An in-memory batch API: batches end when told; some requests can be made to fail."""

    name = "fake"

    def __init__(self) -> None:
        self.created: list[tuple[str, list[str], float]] = []
        self.ended_ids: set[str] = set()
        self.outcomes: dict[str, str] = {}
        self.fail_create = False
        self.strangers: list[str] = []
        self.keys: dict[str, str] = {}  # provider id -> the outbox's batch key
        self.lock = threading.Lock()

    def submit(self, requests: list[tuple[str, RagTrace]], key: str) -> str:
        with self.lock:
            if self.fail_create:
                raise ConnectionError("the API is down")
            pid = f"batch_{len(self.created)}"
            self.created.append((pid, [rid for rid, _ in requests], time.time()))
            self.keys[pid] = key
            self._traces = {**getattr(self, "_traces", {}), **dict(requests)}
            return pid

    def ended(self, provider_id: str) -> bool:
        return provider_id in self.ended_ids

    def results(self, provider_id: str) -> Iterator[tuple[str, str, Any]]:
        (ids,) = [ids for pid, ids, _ in self.created if pid == provider_id]
        for rid in self.strangers:  # ids the batch never had
            yield rid, SUCCEEDED, HeuristicJudge().judge(next(iter(self._traces.values())))
        for rid in ids:
            outcome = self.outcomes.get(rid, SUCCEEDED)
            answer = HeuristicJudge().judge(self._traces[rid]) if outcome == SUCCEEDED else None
            yield rid, outcome, answer

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        return [pid for pid, _, at in self.created if at >= since and self.keys[pid] == key]

    def verdict(self, answer: Any, trace: RagTrace) -> Verdict:
        assert isinstance(answer, Verdict)
        return answer.model_copy(update={"cost_usd": 0.001})


def batch_stage(api: FakeBatches, outbox_dir: Path, **kw: Any) -> BatchStage:
    budget = Budget(BudgetLimits(1e9, 1e12, 1e9))
    calls = InProcess(api)
    return BatchStage(calls, Outbox(outbox_dir), HeuristicJudge(), HashSampler(ALL), budget,  # type: ignore[arg-type]
                      observer=Metrics(CollectorRegistry()), poll_seconds=0.02, **kw)  # fmt: skip


def pipeline(
    n: int, stage: BatchStage, sink: InMemorySink, only: list[int] | None = None
) -> tuple[Pipeline, ListSource]:
    indices = only if only is not None else range(n)
    source = ListSource([demo.generate_bytes(i) for i in indices], source="traces")
    p = Pipeline(source, NativeDecoder(), CheckSuite(), [sink], judge_stage=stage,
                 sleep=lambda _: None)  # fmt: skip
    return p, source


def wait_for(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def judged_lines(p: Pipeline, stage: BatchStage, sink: InMemorySink) -> int:
    """Write what the batch stage collected; how many judge-only lines the sink has."""
    p._write_judged(stage.drain())
    return sum(e.judge_only for e in sink.evaluations)


def judgeable_ids(n: int) -> set[str]:
    from monitor.judge.stage import judgeable

    return {t.trace_id for t in (RagTrace.from_data(demo.generate(i)) for i in range(n))
            if judgeable(t)}  # fmt: skip


def test_checks_are_written_and_committed_before_the_batch_ends(tmp_path: Path) -> None:
    """The check line carries judge.skipped = batched, the offsets move at once, and the
    verdicts come later as judge-only lines."""
    api = FakeBatches()
    stage = batch_stage(api, tmp_path, max_requests=5)
    sink = InMemorySink()
    p, source = pipeline(12, stage, sink)
    p.start()
    p.process(source.poll(12, 0))
    p.checkpoint()
    assert source.committed == {("traces", 0): 12}  # nothing waits for the batch
    batched = {e.trace_id for e in sink.evaluations if e.judge_skipped == "batched"}
    assert batched == judgeable_ids(12)
    wait_for(lambda: len(api.created) == len(batched) // 5)  # full batches only
    api.ended_ids.update(pid for pid, _, _ in api.created)
    wait_for(lambda: judged_lines(p, stage, sink) == 5 * len(api.created))
    judged = [e for e in sink.evaluations if e.judge_only]
    assert all(e.judge is not None and e.judge.weight == 1.0 and not e.checks for e in judged)
    assert json.loads(json.dumps(judged[0].to_line()))["judge_only"] is True
    p.checkpoint()
    state = read(tmp_path / LOG_NAME)
    assert all(b.written for b in state.batches.values()) or not state.batches  # compacted
    stage.close()


def test_a_restart_polls_the_batch_it_submitted_and_never_submits_it_again(tmp_path: Path) -> None:
    api = FakeBatches()
    first = batch_stage(api, tmp_path, max_requests=3)
    p, source = pipeline(6, first, InMemorySink())
    p.start()
    p.process(source.poll(6, 0))
    p.checkpoint()
    wait_for(lambda: len(api.created) >= 1)
    first.close()  # as good as a crash for the log: every line was fsync'd when written
    created = len(api.created)
    second = batch_stage(api, tmp_path, max_requests=3)
    sink = InMemorySink()
    p2, source2 = pipeline(6, second, sink)  # the same records read again: no new requests
    p2.start()
    p2.process(source2.poll(6, 0))
    api.ended_ids.update(pid for pid, _, _ in api.created)
    total = sum(len(ids) for _, ids, _ in api.created)
    wait_for(lambda: judged_lines(p2, second, sink) == total)
    assert len(api.created) == created  # nothing submitted twice
    requested = [rid for _, ids, _ in api.created for rid in ids]
    assert len(requested) == len(set(requested))
    second.close()


def log_a_submit(directory: Path, traces: list[RagTrace], weight: float,
                 extra_ids: tuple[str, ...] = ()) -> None:  # fmt: skip
    """An outbox log holding the traces' requests and a submit line for batch b1 of them
    (and ``extra_ids``), with nothing after: a process that stopped around the create."""
    outbox = Outbox(directory)
    outbox.open()
    for t in traces:
        outbox.add(t.trace_id, {"weight": weight, "usd": 0.0, "at": time.time()},
                   t.to_json())  # fmt: skip
    outbox.submitting("b1", [t.trace_id for t in traces] + list(extra_ids), time.time())
    outbox.close()


def test_a_batch_created_just_before_a_crash_is_adopted_not_created_again(tmp_path: Path) -> None:
    """The log has the submit line, the provider has the batch, the submitted line never
    made it: the restarted stage finds the batch by its key and time."""
    api = FakeBatches()
    traces = [RagTrace.from_data(demo.generate(i)) for i in range(3)]
    log_a_submit(tmp_path, traces, weight=2.0)
    api.submit([(t.trace_id, t) for t in traces], "b1")  # ... and the process died here
    stage = batch_stage(api, tmp_path, max_requests=100)
    stage.start()
    wait_for(lambda: read(tmp_path / LOG_NAME).batches["b1"].provider == "batch_0")
    assert len(api.created) == 1
    api.ended_ids.add("batch_0")
    got: list[Any] = []
    wait_for(lambda: got.extend(stage.drain()) or len(got) == 3)
    assert {e.judge.weight for _, e in got if e.judge} == {2.0}  # the weight from the log
    stage.close()


def test_a_failed_create_is_retried_once_the_api_is_back(tmp_path: Path) -> None:
    api = FakeBatches()
    api.fail_create = True
    stage = batch_stage(api, tmp_path, max_requests=2)
    p, source = pipeline(4, stage, InMemorySink())
    p.start()
    p.process(source.poll(4, 0))
    time.sleep(0.2)
    assert api.created == []
    api.fail_create = False
    wait_for(lambda: len(api.created) >= 1)
    requested = [rid for _, ids, _ in api.created for rid in ids]
    assert len(requested) == len(set(requested))
    stage.close()


def test_errored_and_expired_requests_are_lines_that_say_so(tmp_path: Path) -> None:
    api = FakeBatches()
    stage = batch_stage(api, tmp_path, max_requests=3)
    from monitor.judge.stage import judgeable

    only = [i for i in range(30) if judgeable(RagTrace.from_data(demo.generate(i)))][:3]
    p, source = pipeline(3, stage, InMemorySink(), only)
    traces = [RagTrace.from_data(demo.generate(i)) for i in only]
    api.outcomes = {traces[0].trace_id: ERRORED, traces[1].trace_id: EXPIRED}
    api.strangers = ["not-in-the-batch"]  # ignored: a line per request of the batch
    p.start()
    p.process(source.poll(3, 0))
    wait_for(lambda: len(api.created) == 1)
    api.ended_ids.add("batch_0")
    got: list[Any] = []
    wait_for(lambda: got.extend(stage.drain()) or len(got) == 3)
    by_id = {e.trace_id: e for _, e in got}
    assert by_id[traces[0].trace_id].judge_skipped == "error:errored"
    assert by_id[traces[1].trace_id].judge_skipped == "error:expired"
    assert by_id[traces[2].trace_id].judge is not None
    assert len(got) == 3 and stage.drain() == []
    stage.close()


def test_the_outbox_log_survives_a_cut_line_and_remembers_judged_ids(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path)
    outbox.open()
    assert outbox.add("a", {"at": 0.0}, "{}") and outbox.add("b", {"at": 0.0}, "{}")
    assert not outbox.add("a", {"at": 0.0}, "{}")  # the same request read again
    outbox.submitting("b1", ["a"], 1.0)
    outbox.submitted("b1", "p1")
    outbox.close()
    with (tmp_path / LOG_NAME).open("a") as fh:
        fh.write('{"t": "written", "bat')  # a crash mid-line
    again = Outbox(tmp_path)
    again.open()
    assert again.pending() == ["b"] and again.open_batches()[0].provider == "p1"
    assert again.pending_count() == 1
    again.written("b1")  # every batch written: the log is compacted
    assert not again.add("a", {"at": 0.0}, "{}")  # judged before: not judged again
    assert again.pending() == ["b"]
    again.close()
    assert read(tmp_path / LOG_NAME).requests.keys() == {"b"}


def test_a_torn_last_line_is_cut_so_the_next_request_is_not_lost(tmp_path: Path) -> None:
    """Power lost mid-write leaves half a line at the end of the log: on open it is cut, so
    the request appended next starts on its own line and survives the next restart, and
    every request ends as a result line."""
    outbox = Outbox(tmp_path)
    outbox.open()
    assert outbox.add("a", {"at": 0.0}, "{}")
    outbox.close()
    with (tmp_path / LOG_NAME).open("a") as fh:
        fh.write('{"t":"request","id":"torn","weight":1.0,"tra')  # no newline: torn
    again = Outbox(tmp_path)
    again.open()
    assert again.add("b", {"at": 0.0}, "{}")
    again.close()
    state = read(tmp_path / LOG_NAME)
    assert list(state.requests) == ["a", "b"] and state.bad_lines == 0


def test_a_request_line_without_its_trace_is_a_bad_line(tmp_path: Path) -> None:
    """A ``request`` line that lost its trace (edited, or written by something else) is
    counted as unreadable when the log is read, not kept as a request whose batch would fail
    on it later."""
    (tmp_path / LOG_NAME).write_text(
        '{"t":"request","id":"a","weight":1.0,"usd":0.0,"at":0.0,"trace":{}}\n'
        '{"t":"request","id":"b","weight":1.0,"usd":0.0,"at":0.0}\n'
    )
    state = read(tmp_path / LOG_NAME)
    assert list(state.requests) == ["a"] and state.bad_lines == 1


def test_a_batch_naming_a_request_the_outbox_lost_still_gives_the_others_lines(
    tmp_path: Path,
) -> None:
    """A batch whose submit line names a request the log no longer has (its line was torn):
    the cycle does not stop on it; the other requests get their lines, the lost one is
    counted once as unknown_request."""
    api = FakeBatches()
    traces = [RagTrace.from_data(demo.generate(i)) for i in range(2)]
    log_a_submit(tmp_path, traces, weight=1.0, extra_ids=("lost",))
    registry = CollectorRegistry()
    budget = Budget(BudgetLimits(1e9, 1e12, 1e9))
    stage = BatchStage(InProcess(api), Outbox(tmp_path), HeuristicJudge(), HashSampler(ALL),  # type: ignore[arg-type]
                       budget, observer=Metrics(registry), poll_seconds=0.02)  # fmt: skip
    stage.start()
    try:
        wait_for(lambda: len(api.created) == 1)
        assert api.created[0][1] == [t.trace_id for t in traces]
        api.ended_ids.add("batch_0")
        got: list[Any] = []
        wait_for(lambda: got.extend(stage.drain()) or len(got) == 2)
        time.sleep(0.1)  # more cycles: the unknown request is counted once
    finally:
        stage.close()
    assert {e.trace_id for _, e in got} == {t.trace_id for t in traces}
    errors = registry.get_sample_value("ragmon_judge_errors_total", {"kind": "unknown_request"})
    assert errors == 1.0


def test_a_stop_says_how_many_requests_and_batches_wait_in_the_outbox(tmp_path: Path) -> None:
    """Requests and batches outlive the process by design: the stop says how many wait for
    the next start."""
    from structlog.testing import capture_logs

    api = FakeBatches()
    stage = batch_stage(api, tmp_path, max_requests=1000)
    p, source = pipeline(20, stage, InMemorySink())
    p.start()
    p.process(source.poll(20, 0))
    with capture_logs() as logs:
        stage.close()
    (said,) = [e for e in logs if e["event"] == "batch_outbox_waiting"]
    assert said["requests"] == len(judgeable_ids(20)) > 0 and said["open_batches"] == 0


def test_a_judge_without_a_batch_api_is_refused_not_given_another_providers() -> None:
    """``batch_api`` picks the provider by the judge's own class; any other judge is a
    configuration error (before: every judge not named openai got Anthropic's batch API)."""
    import pytest

    from monitor.core.errors import ConfigError
    from monitor.judge.batch import batch_api

    with pytest.raises(ConfigError, match="anthropic or openai"):
        batch_api(HeuristicJudge(), 0.5)
