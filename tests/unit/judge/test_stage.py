"""The judge stage beside the pipeline: records held open until their verdict, bounded queue,
circuit breaker, pause on configuration errors, skips counted."""

from __future__ import annotations

import json
import threading
import time

import pytest
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.errors import JudgeConfigError, JudgeError
from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.ingest.native import NativeDecoder
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules
from monitor.judge.stage import CircuitBreaker, JudgeStage
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, demo
from monitor.telemetry import Metrics
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink

ALL = SamplingRules(base_rate=1.0, flagged_rate=1.0)


class GatedJudge:
    """Judges like the heuristic judge, but only once ``gate`` is set; or raises ``error``."""

    name = "gated"
    model = "gated-1"

    def __init__(self, error: Exception | None = None) -> None:
        self.gate = threading.Event()
        self.error = error
        self.calls = 0

    def judge(self, trace: RagTrace) -> Verdict:
        self.calls += 1
        if self.error is not None:
            raise self.error
        self.gate.wait(10)
        return HeuristicJudge().judge(trace)

    def close(self) -> None:
        """Nothing held."""


def stage(judge: object, metrics: Metrics, rules: SamplingRules = ALL, **kw: object) -> JudgeStage:
    budget = Budget(BudgetLimits(1e9, 1e12, 1e9))
    return JudgeStage(judge, HashSampler(rules), budget, observer=metrics, **kw)  # type: ignore[arg-type]


def pipeline(
    n: int, judge_stage: JudgeStage, sink: InMemorySink, metrics: Metrics
) -> tuple[Pipeline, ListSource]:
    source = ListSource([demo.generate_bytes(i) for i in range(n)], source="traces")
    p = Pipeline(source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics), sink],
                 observer=metrics, judge_stage=judge_stage, judge_drain_seconds=5,
                 sleep=lambda _: None)  # fmt: skip
    return p, source


def test_judged_records_stay_open_until_their_verdict() -> None:
    """While the judge holds a verdict the watermark stays at that record; once it arrives
    the evaluation is written with the verdict and the offset moves on."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    s = stage(judge, metrics, concurrency=2)
    sink = InMemorySink()
    p, source = pipeline(20, s, sink, metrics)
    p.start()
    p.process(source.poll(20, 0))
    judgeable = [e for e in sink.evaluations]  # not judgeable ones were written at once
    assert p.checkpoint_state.committable()[("traces", 0)] < 20
    assert all(e.judge_skipped == "not_judgeable" for e in judgeable)
    judge.gate.set()
    p.run(threading.Event())
    assert len(sink.evaluations) == 20
    assert source.committed == {("traces", 0): 20}
    judged = [e for e in sink.evaluations if e.judge is not None]
    assert judged and all(e.to_line()["judge"]["judge"] == "heuristic" for e in judged)
    get = metrics.registry.get_sample_value
    assert get("ragmon_judge_decisions_total", {"outcome": "judged"}) == len(judged)


def test_full_queue_is_a_counted_skip_not_a_stall() -> None:
    """With one worker busy and a queue of one, further sampled traces are skipped at once."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    s = stage(judge, metrics, concurrency=1, max_queue=1)
    sink = InMemorySink()
    p, source = pipeline(30, s, sink, metrics)
    p.start()
    t0 = time.monotonic()
    p.process(source.poll(30, 0))
    assert time.monotonic() - t0 < 2  # never waited for the judge
    skipped = sum(e.judge_skipped == "queue_full" for e in sink.evaluations)
    assert skipped > 0
    assert metrics.registry.get_sample_value(
        "ragmon_judge_decisions_total", {"outcome": "queue_full"}) == skipped  # fmt: skip
    judge.gate.set()
    p.run(threading.Event())
    assert len(sink.evaluations) == 30


def test_judge_outage_opens_the_breaker_and_nothing_is_lost() -> None:
    """A judge that keeps failing: errors are counted, the breaker opens, every trace is still
    written (with the reason) and every offset committed."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge(error=JudgeError("server_error", "down"))
    s = stage(judge, metrics, concurrency=1,
              breaker=CircuitBreaker(3, 60.0, time.monotonic))  # fmt: skip
    sink = InMemorySink()
    p, source = pipeline(60, s, sink, metrics)
    p.start()
    p.run(threading.Event())
    assert len(sink.evaluations) == 60 and source.committed == {("traces", 0): 60}
    reasons = {e.judge_skipped for e in sink.evaluations}
    assert "error:server_error" in reasons and "circuit_open" in reasons
    assert judge.calls < 60
    assert metrics.registry.get_sample_value("ragmon_judge_errors_total", {"kind": "server_error"})


def test_configuration_error_pauses_the_judge() -> None:
    """A rejected key pauses the judge (alert metric) instead of failing every call."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge(error=JudgeConfigError("http_401", "bad key"))
    s = stage(judge, metrics, concurrency=1)
    sink = InMemorySink()
    p, source = pipeline(40, s, sink, metrics)
    p.start()
    p.process(source.poll(10, 0))  # some are queued; the first call fails with the 401
    deadline = time.monotonic() + 10
    while not s.paused and time.monotonic() < deadline:
        p._write_judged(s.drain(wait=0.1))
    p.run(threading.Event())  # the rest arrive while the judge is paused
    assert s.paused
    assert metrics.registry.get_sample_value("ragmon_judge_paused") == 1
    assert any(e.judge_skipped == "paused" for e in sink.evaluations)
    assert source.committed == {("traces", 0): 40}


def test_identical_content_is_judged_once() -> None:
    """The same passages and answer under another trace id reuse the cached verdict (with
    that trace's weight, no spend)."""
    from monitor.judge.cache import VerdictCache

    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    judge.gate.set()
    s = stage(judge, metrics, concurrency=1, cache=VerdictCache(100))
    record = demo.generate(0)
    first = [json.dumps(record).encode()]
    record["trace_id"] = "ab" * 16
    second = [json.dumps(record).encode()]
    sink = InMemorySink()
    source = ListSource(first + second, source="traces")
    p = Pipeline(source, NativeDecoder(), CheckSuite(), [sink], judge_stage=s,
                 sleep=lambda _: None)  # fmt: skip
    p.start()
    p.process(source.poll(1, 0))
    p._write_judged(s.drain(wait=5))
    p.process(source.poll(1, 0))
    assert judge.calls == 1
    first, second = sink.evaluations[0], sink.evaluations[-1]
    assert first.trace_id != second.trace_id and first.judge.verdict == second.judge.verdict
    assert metrics.registry.get_sample_value("ragmon_judge_decisions_total",
                                             {"outcome": "cached"}) == 1  # fmt: skip


def test_same_family_judge_and_generator_is_flagged() -> None:
    """A Claude judge grading Claude answers raises the self-preference flag."""
    from monitor.judge.stage import model_family

    assert model_family("claude-haiku-5-5") == model_family("anthropic/claude-sonnet-4-6")
    assert model_family("gpt-4o-mini") == "openai" and model_family("my-model") is None

    class ClaudeJudge(GatedJudge):
        model = "claude-haiku-5-5"

    metrics = Metrics(CollectorRegistry())
    judge = ClaudeJudge()
    judge.gate.set()
    s = stage(judge, metrics)
    record = next(r for r in map(demo.generate, range(50)) if r["context"])
    record["model"] = "claude-sonnet-5"
    source = ListSource([json.dumps(record).encode()], source="traces")
    p = Pipeline(source, NativeDecoder(), CheckSuite(), [InMemorySink()], judge_stage=s)
    p.start()
    p.run(threading.Event())
    assert metrics.registry.get_sample_value("ragmon_judge_same_family") == 1


def test_disk_cache_survives_a_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Verdicts appended to the cache file are found by a new cache (a restarted daemon)."""
    from monitor.judge.cache import VerdictCache

    trace = RagTrace.from_data(demo.generate(0))
    verdict = HeuristicJudge().judge(trace)
    path = tmp_path / "verdicts.jsonl"
    first = VerdictCache(10, path)
    key = VerdictCache.key("heuristic-v1", trace)
    first.put(key, verdict)
    first.close()
    with path.open("a") as fh:
        fh.write('{"key": "torn"')  # a crash mid-line is skipped
    second = VerdictCache(10, path)
    assert second.get(key) == verdict
    second.close()


def test_redacting_judge_never_sees_pii() -> None:
    """With judge.redact_pii the judge receives placeholders, not the e-mail address."""
    from monitor.core.pii import Redactor
    from monitor.judge.stage import RedactingJudge

    seen: list[RagTrace] = []

    class Recording:
        name = "rec"
        model = "rec-1"

        def judge(self, trace: RagTrace) -> Verdict:
            seen.append(trace)
            return HeuristicJudge().judge(trace)

        def close(self) -> None:
            """Nothing held."""

    record = demo.generate(0)
    record["query"] = "I am jane@example.com, " + record["query"]
    record["answer"] = "Mail jane@example.com. " + record["answer"]
    record["context"] = [{"doc_id": "p", "text": "Contact jane@example.com for refunds."}]
    RedactingJudge(Recording(), Redactor()).judge(RagTrace.from_data(record))
    text = seen[0].to_json()
    assert "jane@example.com" not in text and "[REDACTED:EMAIL]" in text


def test_a_judge_bug_is_counted_as_internal_and_logged_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An unexpected exception in the judge is the documented kind ``internal`` (not the
    exception's class name), every trace is still written, and one traceback is logged."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge(error=TypeError("boom"))
    s = stage(judge, metrics, concurrency=1, breaker=CircuitBreaker(1000, 1, time.monotonic))
    sink = InMemorySink()
    p, _ = pipeline(20, s, sink, metrics)
    p.start()
    p.run(threading.Event())
    assert len(sink.evaluations) == 20
    kinds = {
        sample.labels["kind"]
        for family in metrics.registry.collect()
        if family.name == "ragmon_judge_errors"
        for sample in family.samples
        if sample.name == "ragmon_judge_errors_total"
    }
    assert kinds == {"internal"} and judge.calls >= 2
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("judge_crashed") == 1


def test_the_stage_alone_stamps_the_sampling_weight() -> None:
    """Judges see the trace only; the verdict written carries 1 / inclusion probability."""
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    judge.gate.set()
    s = stage(judge, metrics, rules=SamplingRules(base_rate=0.25, flagged_rate=0.25))
    sink = InMemorySink()
    p, _ = pipeline(200, s, sink, metrics)
    p.start()
    p.run(threading.Event())
    p.close()
    judged = [e for e in sink.evaluations if e.judge is not None]
    want = {e.trace_id: 1.0 if e.trace.golden_id else 4.0 for e in judged}  # probes: always
    assert judged and {e.trace_id: e.judge.weight for e in judged} == want  # type: ignore[union-attr]
    assert 4.0 in want.values()


def test_the_partition_share_reaches_the_budget_through_the_pipeline() -> None:
    """A source's listener is the pipeline; it scales the judge's group-wide budget."""
    metrics = Metrics(CollectorRegistry())
    s = stage(GatedJudge(), metrics)
    p, _ = pipeline(1, s, InMemorySink(), metrics)
    p.on_share(0.25)
    assert s.budget.share == 0.25
    p.on_share(1.5)  # more than all partitions is all of them
    assert s.budget.share == 1.0


def test_a_full_disk_under_the_verdict_cache_keeps_every_verdict(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """The cache file's disk fills up after the start. Linux's /dev/full answers every write
    with ENOSPC, as a full disk does (null(4): "Writes to the /dev/full device fail with an
    ENOSPC error"). The verdicts were paid for: each is written and kept in memory, no worker
    dies (a dead worker held its record open for good), and the failure is logged once."""
    from monitor.judge.cache import VerdictCache

    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    judge.gate.set()
    cache = VerdictCache(100, path=tmp_path / "verdicts.jsonl")
    assert cache._file is not None
    cache._file.close()
    cache._file = open("/dev/full", "a", encoding="utf-8")  # noqa: SIM115 - the cache closes it
    s = stage(judge, metrics, concurrency=2, cache=cache)
    sink = InMemorySink()
    p, source = pipeline(20, s, sink, metrics)
    p.start()
    run = threading.Thread(target=p.run, args=(threading.Event(),), daemon=True)
    run.start()
    run.join(30)  # before the fix a worker died in put() and the run waited for its verdict
    assert not run.is_alive()
    assert len(sink.evaluations) == 20 and source.committed == {("traces", 0): 20}
    judged = [e for e in sink.evaluations if e.judge is not None]
    assert len(judged) == judge.calls >= 2 and cache.write_errors >= 2
    assert all(w.is_alive() for w in s._workers)
    assert cache.get(VerdictCache.key(judge.model, judged[0].trace)) is not None
    p.close()
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("] verdict_cache_write_failed") == 1


class RaisingSampler(HashSampler):
    """A sampler with a bug: it raises on every trace."""

    def decide(self, evaluation):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("float division by zero")


def test_a_raise_in_the_stage_writes_the_line_and_counts_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A bug in sampling (or the cache, or the estimate) took the daemon down, and since the
    record was never committed, again after each restart. Now every trace's line is written
    with ``error:internal``, counted as a judge error, committed, and logged once."""
    metrics = Metrics(CollectorRegistry())
    budget = Budget(BudgetLimits(1e9, 1e12, 1e9))
    s = JudgeStage(GatedJudge(), RaisingSampler(ALL), budget, observer=metrics)  # type: ignore[arg-type]
    sink = InMemorySink()
    p, source = pipeline(20, s, sink, metrics)
    p.start()
    p.run(threading.Event())
    assert len(sink.evaluations) == 20 and source.committed == {("traces", 0): 20}
    skipped = [e.judge_skipped for e in sink.evaluations]
    errors = skipped.count("error:internal")
    assert errors and set(skipped) <= {"error:internal", "not_judgeable"}
    get = metrics.registry.get_sample_value
    assert get("ragmon_judge_errors_total", {"kind": "internal"}) == errors
    assert get("ragmon_judge_decisions_total", {"outcome": "error"}) == errors
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("] judge_stage_failed") == 1
