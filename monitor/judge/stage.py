"""``JudgeStage``: sampling, budget and a bounded pool of judge workers beside the check path.

The pipeline hands every checked evaluation to ``consider``. Not sampled, over budget, queue
full, circuit open or judge paused: the evaluation goes on at once with the reason recorded
(``judge.skipped``) and is counted. Sampled: it is queued and its record stays open — not
committed — until a worker has a verdict or an error; ``drain`` hands finished evaluations
back to the pipeline on its own thread, so sinks stay single-threaded. Nothing blocks: a
full queue is a counted skip, never a stall.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

import msgspec
import structlog

from monitor.core.errors import JudgeConfigError, JudgeError
from monitor.core.model import Evaluation, RagTrace, ShadowResults
from monitor.core.pii import Redactor
from monitor.core.verdict import Verdict
from monitor.judge.cache import VerdictCache
from monitor.judge.sampler import Budget, HashSampler

_FAMILIES = (
    ("anthropic", ("claude",)),
    ("openai", ("gpt", "o1-", "o3-", "o4-", "chatgpt")),
    ("google", ("gemini", "gemma")),
    ("meta", ("llama",)),
    ("mistral", ("mistral", "mixtral", "codestral")),
)


_NO_USAGE = {
    "cost_usd": 0.0,
    "input_tokens": 0,
    "output_tokens": 0,
    "cache_read_tokens": 0,
    "cache_write_tokens": 0,
    "latency_seconds": 0.0,
}


def model_family(model: str | None) -> str | None:
    """The vendor family of a model id ("claude-haiku-5-5" -> "anthropic"), or None."""
    if not model:
        return None
    m = model.lower()
    for family, marks in _FAMILIES:
        if any(mark in m for mark in marks):
            return family
    return None


class Judge(Protocol):
    """Grades one trace. ``close`` releases what the judge holds (a child process, a
    connection pool); the stage calls it once, after the last call."""

    name: str
    model: str

    def judge(self, trace: RagTrace) -> Verdict:
        """The verdict on ``trace`` (raises ``JudgeError`` by kind when there is none)."""

    def close(self) -> None:
        """Release the judge's clients or processes."""


class JudgeObserver(Protocol):
    """What the judge stage reports (``Metrics`` implements it)."""

    def on_decision(self, outcome: str) -> None:
        """One decision on a trace: judged, not_sampled, over_budget, ..."""

    def on_same_family(self, family: str) -> None:
        """The judge and the answering model are of one family."""

    def on_verdict(self, verdict: Verdict) -> None:
        """One verdict."""

    def on_judge_error(self, kind: str) -> None:
        """One failed judge call, by kind."""

    def on_judge_state(self, queued: int, paused: bool) -> None:
        """The queue depth and whether the judge is paused."""


@dataclass
class Pending:
    """A trace queued for the judge, with the caller's ticket, its weight and reserved spend."""

    evaluation: Evaluation
    ticket: int  # the caller's handle for this trace (the pipeline's: its open records)
    weight: float
    estimated_usd: float


class RedactingJudge:
    """Hands the judge a copy of the trace with PII replaced by typed placeholders."""

    def __init__(self, inner: Judge, redactor: Redactor) -> None:
        self.inner = inner
        self.redactor = redactor
        self.name = inner.name
        self.model = inner.model

    def judge(self, trace: RagTrace) -> Verdict:
        """The inner judge's verdict on the redacted trace."""
        return self.inner.judge(self.redact(trace))

    def redact(self, trace: RagTrace) -> RagTrace:
        """``trace`` with PII in question, passages and answer replaced."""
        r = self.redactor
        context = [msgspec.structs.replace(p, text=r.redact(p.text)) for p in trace.context]
        return msgspec.structs.replace(trace, query=r.redact(trace.query),
                                       answer=r.redact(trace.answer), context=context)  # fmt: skip

    def close(self) -> None:
        """Close the inner judge."""
        self.inner.close()


class CircuitBreaker:
    """Opens after ``threshold`` consecutive failures, for ``cooldown`` seconds."""

    def __init__(self, threshold: int, cooldown: float, clock: Callable[[], float]) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._open_until = 0.0
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """Whether a call may go out now (the breaker is not open)."""
        with self._lock:
            return self._clock() >= self._open_until

    def record(self, ok: bool) -> None:
        """The outcome of a call."""
        with self._lock:
            if ok:
                self._failures = 0
                return
            self._failures += 1
            if self._failures >= self.threshold:
                self._open_until = self._clock() + self.cooldown
                self._failures = 0


@dataclass
class ShadowJudge:
    """A candidate judge (``shadow.judge``) asked about every trace the live judge judged, by
    the same worker right after it, within its own budget and behind its own breaker: its
    verdicts never become the live ones (they ride in ``Evaluation.shadow``)."""

    judge: Judge
    budget: Budget
    breaker: CircuitBreaker
    estimate: Callable[[RagTrace], tuple[int, float]]
    version: str  # its evaluator version (backend/model/rubric)

    def ask(self, evaluation: Evaluation, weight: float) -> Evaluation:
        """``evaluation`` (judged by the live judge) with the shadow judge's verdict, or why
        there is none (over_budget, circuit_open, error:<kind>)."""
        trace = evaluation.trace
        verdict, skipped = None, None
        tokens, usd = self.estimate(trace)
        if not self.breaker.allow():
            skipped = "circuit_open"
        elif not self.budget.try_acquire(tokens, usd):
            skipped = "over_budget"
        else:
            try:
                verdict = self.judge.judge(trace).fitted(len(trace.context), weight)
            except Exception as exc:  # its failures are its own: the live verdict stands
                self.breaker.record(False)
                self.budget.settle(usd, 0.0)
                skipped = f"error:{exc.kind if isinstance(exc, JudgeError) else 'internal'}"
            else:
                self.breaker.record(True)
                self.budget.settle(usd, verdict.cost_usd)
        base = evaluation.shadow or ShadowResults(None, {})
        shadow = ShadowResults(base.checks, {**base.evaluators, "judge": self.version},
                               verdict, skipped)  # fmt: skip
        return replace(evaluation, shadow=shadow)


def judgeable(trace: RagTrace) -> bool:
    """Something to judge: an answer and context text. Redacted or absent content is not,
    nor a trace assembled from spans before all of them arrived (``ragmon.incomplete``)."""
    answer = trace.answer  # isspace() reads without copying, as strip() would
    if not answer or answer.isspace() or not any(p.text and not p.text.isspace()
                                                 for p in trace.context):  # fmt: skip
        return False
    attrs = trace.attributes
    return not (attrs.get("ragmon.content_redacted") or attrs.get("ragmon.incomplete"))


class JudgeStage:
    """The judge beside the check path: sampling, budget, breaker, cache, worker threads."""

    def __init__(
        self,
        judge: Judge,
        sampler: HashSampler,
        budget: Budget,
        observer: JudgeObserver | None = None,
        concurrency: int = 4,
        max_queue: int = 1000,
        breaker: CircuitBreaker | None = None,
        estimate: Callable[[RagTrace], tuple[int, float]] = lambda t: (1000, 0.0),
        clock: Callable[[], float] = time.monotonic,
        cache: VerdictCache | None = None,
        shadow: ShadowJudge | None = None,
    ) -> None:
        self.judge = judge
        self.shadow = shadow
        self.sampler = sampler
        self.budget = budget
        self.observer = observer
        self.breaker = breaker or CircuitBreaker(5, 30.0, clock)
        self.estimate = estimate
        self.cache = cache
        # a jury's model is "first+second": either family grading its own is flagged
        self._families = {model_family(m) for m in judge.model.split("+")} - {None}
        self.same_family_seen = False
        self._queue: queue.Queue[Pending | None] = queue.Queue(maxsize=max_queue)
        self._done: queue.Queue[tuple[Pending, Evaluation]] = queue.Queue()
        self._in_flight = 0
        self._lock = threading.Lock()
        self.paused = False
        self._crash_logged = False
        self._workers = [
            threading.Thread(target=self._work, name=f"ragmon-judge-{i}", daemon=True)
            for i in range(concurrency)
        ]
        self.log = structlog.get_logger("ragmon.judge")

    def start(self) -> None:
        """Start the worker threads."""
        for w in self._workers:
            w.start()

    @property
    def in_flight(self) -> int:
        """Traces queued or being judged."""
        with self._lock:
            return self._in_flight

    def _skip(self, evaluation: Evaluation, outcome: str) -> Evaluation:
        if self.observer is not None:
            self.observer.on_decision(outcome)
        return evaluation.skipped(outcome)

    def consider(self, evaluation: Evaluation, ticket: int = 0) -> Evaluation | None:
        """The evaluation to write now (with the skip reason), or None when it was queued;
        ``drain`` hands it back later with ``ticket``. A raise in sampling, the cache or the
        estimate (a bug of ours) costs the trace its verdict, not its line: it is written
        with ``error:internal``, counted as a judge error and logged once."""
        try:
            return self._consider(evaluation, ticket)
        except Exception:  # nothing was queued, nothing is held of the budget
            self._crashed("judge_stage_failed")
            return self._errored(evaluation, "internal")

    def _crashed(self, event: str) -> None:
        """A bug of ours (``internal``): the first is logged with its traceback (call inside
        ``except``), the others are only counted."""
        if not self._crash_logged:
            self._crash_logged = True
            self.log.exception(event)

    def _errored(self, evaluation: Evaluation, kind: str) -> Evaluation:
        """``evaluation`` without a verdict for the judge error ``kind``, counted."""
        if self.observer is not None:
            self.observer.on_judge_error(kind)
            self.observer.on_decision("error")
        return replace(evaluation, judge_skipped=f"error:{kind}")

    def _consider(self, evaluation: Evaluation, ticket: int) -> Evaluation | None:
        if not judgeable(evaluation.trace):
            return self._skip(evaluation, "not_judgeable")
        decision = self.sampler.decide(evaluation)
        if not decision.sampled:
            return self._skip(evaluation, "not_sampled")
        self._check_family(evaluation.trace)
        if self.cache is not None:
            cached = self.cache.get(VerdictCache.key(self.judge.model, evaluation.trace))
            if cached is not None:
                # this trace's weight; no new spend
                verdict = cached.model_copy(update={"weight": decision.weight, **_NO_USAGE})
                if self.observer is not None:
                    self.observer.on_decision("cached")
                    self.observer.on_verdict(verdict)
                return replace(evaluation, judge=verdict)
        if self.paused:
            return self._skip(evaluation, "paused")
        if not self.breaker.allow():
            return self._skip(evaluation, "circuit_open")
        tokens, usd = self.estimate(evaluation.trace)
        if not self.budget.try_acquire(tokens, usd):
            return self._skip(evaluation, "over_budget")
        try:
            return self._enqueue(Pending(evaluation, ticket, decision.weight, usd))
        except Exception:  # the batch outbox's disk, say: what was acquired goes back
            self.budget.settle(usd, 0.0)
            raise

    def _enqueue(self, item: Pending) -> Evaluation | None:
        """Hand a sampled trace to the workers: None, or the evaluation to write now."""
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self.budget.settle(item.estimated_usd, 0.0)
            return self._skip(item.evaluation, "queue_full")
        with self._lock:
            self._in_flight += 1
        return None

    def checkpoint(self) -> None:
        """The sinks have flushed and offsets are about to be committed: nothing the online
        judge must persist (a trace with the judge keeps its records open)."""

    def _check_family(self, trace: RagTrace) -> None:
        """A judge grading its own family's answers tends to prefer them: flag it once."""
        if self.same_family_seen or not self._families:
            return
        family = model_family(trace.model)
        if family is not None and family in self._families:
            self.same_family_seen = True
            self.log.warning("judge_same_family", family=family, generator=trace.model)
            if self.observer is not None:
                self.observer.on_same_family(family)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                result = self._judged(item)
            except Exception:  # a bug in the bookkeeping: the worker lives, the record is let go
                self._crashed("judge_worker_failed")
                result = self._errored(item.evaluation, "internal")
            self._done.put((item, result))

    def _judged(self, item: Pending) -> Evaluation:
        """``item``'s evaluation with its verdict, or with why it has none."""
        trace = item.evaluation.trace
        if self.paused or not self.breaker.allow():
            # queued before the judge failed: do not hammer it, pass the trace on
            self.budget.settle(item.estimated_usd, 0.0)
            return self._skip(item.evaluation, "paused" if self.paused else "circuit_open")
        try:
            # judges see the trace only; the stage alone knows the sampling weight
            verdict = self.judge.judge(trace).fitted(len(trace.context), item.weight)
        except JudgeConfigError as exc:
            self.paused = True
            self.log.error("judge_paused", kind=exc.kind, error=str(exc)[:300])
            return self._failed(item, exc.kind)
        except JudgeError as exc:
            if exc.kind == "internal" and not self._crash_logged:  # a bug in a child process
                self._crash_logged = True
                self.log.error("judge_crashed", error=str(exc))  # with the child's traceback
            return self._failed(item, exc.kind)
        except Exception:  # a judge bug: count it as "internal", keep the trace
            self._crashed("judge_crashed")
            return self._failed(item, "internal")
        self.breaker.record(True)
        self.budget.settle(item.estimated_usd, verdict.cost_usd)
        if self.cache is not None:
            self.cache.put(VerdictCache.key(self.judge.model, trace), verdict)
        if self.observer is not None:
            self.observer.on_decision("judged")
            self.observer.on_verdict(verdict)
        result = replace(item.evaluation, judge=verdict)
        if self.shadow is not None:
            result = self.shadow.ask(result, item.weight)
        return result

    def _failed(self, item: Pending, kind: str) -> Evaluation:
        self.breaker.record(False)
        self.budget.settle(item.estimated_usd, 0.0)
        return self._errored(item.evaluation, kind)

    def drain(self, wait: float = 0.0) -> list[tuple[int, Evaluation]]:
        """Finished evaluations with their tickets; waits up to ``wait`` s for the first."""
        out: list[tuple[int, Evaluation]] = []
        try:
            item, evaluation = self._done.get(timeout=wait) if wait > 0 else self._done.get_nowait()
            out.append((item.ticket, evaluation))
            while True:
                item, evaluation = self._done.get_nowait()
                out.append((item.ticket, evaluation))
        except queue.Empty:
            pass
        if out:
            with self._lock:
                self._in_flight -= len(out)
        if self.observer is not None:
            self.observer.on_judge_state(self._queue.qsize(), self.paused)
        return out

    def close(self) -> None:
        """Stop the workers and close the judge and the cache."""
        if self.cache is not None:
            self.cache.close()
        for _ in self._workers:
            try:
                self._queue.put_nowait(None)
            except queue.Full:
                break
        self.judge.close()  # a judge process (possibly behind RedactingJudge) stops
        if self.shadow is not None:
            self.shadow.judge.close()
