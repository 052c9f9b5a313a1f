"""Batch mode: judged traces through a provider's batch API (half price), via a durable outbox.

(Anthropic Message Batches, ``anthropic_batches``; OpenAI's Batch API, ``openai_batches``.)
A sampled trace's request goes to the ``Outbox`` and its evaluation line is written at once,
with ``judge: {"skipped": "batched"}``: its records are committed once the outbox is fsync'd
at the next checkpoint, so offsets never wait for a batch (which may take up to 24 hours).
A thread submits a batch at ``max_requests`` requests or ``max_wait_seconds`` after the oldest
waiting one, polls the batches it submitted, and hands each result back to the pipeline as a
judge-only evaluation line (``"judge_only": true``, the verdict or ``error:<kind>``), counted
in the judge metrics like an online verdict. The thread makes its provider calls through
``Batches``: ``InProcess`` over the provider's ``BatchApi``, or ``ProcessBatches`` in a child
process (``judge.isolate``; ``monitor.judge.batch_process``).

Restart-safe by the outbox's log: a batch with a provider id is polled, never created again;
a batch whose create call may or may not have reached the provider (a crash right after the
call, an answer lost on the way back) is looked for among the provider's batches created
since, by the outbox's own batch key (OpenAI: in the batch's ``metadata``; Anthropic keeps
no metadata on a batch, so there by its request count, which its create answer already
holds), and adopted, or created if there is none. The SDK never retries a create: a retry
of a create the provider recorded would pay for the batch twice; the next cycle's
reconciliation is the retry; a batch whose results were fetched but not yet written
has them fetched again. Results are written at least once: a crash between the sinks'
flush and the ``written`` line writes a batch's lines a second time after the restart.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from monitor.core.errors import ConfigError, JudgeError
from monitor.core.model import Evaluation, RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.outbox import BatchState, Outbox, RequestEntry, RequestLine
from monitor.judge.stage import Judge, JudgeStage, Pending, RedactingJudge

# What a batch request can end as (the Anthropic names; OpenAI's map onto them).
SUCCEEDED, ERRORED, CANCELED, EXPIRED = "succeeded", "errored", "canceled", "expired"


class BatchApi(Protocol):
    """A provider's batch API, as the batch stage uses it."""

    name: str

    def submit(self, requests: list[tuple[str, RagTrace]], key: str) -> str:
        """Create one batch of (request id, trace) requests, tagged with the outbox's batch
        ``key`` where the provider keeps it, without retrying: the provider's batch id."""

    def ended(self, provider_id: str) -> bool:
        """Whether the batch finished processing (every request succeeded, errored, was
        canceled or expired)."""

    def results(self, provider_id: str) -> Iterator[tuple[str, str, object]]:
        """(request id, outcome, the answer or the error) of each request of an ended batch."""

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """Ids of the provider's batches created at ``since`` or later for the outbox's batch
        ``key`` (where the provider keeps no tag: with ``count`` requests)."""

    def verdict(self, answer: object, trace: RagTrace) -> Verdict:
        """The verdict in the succeeded answer to ``trace``'s request (raises ``ValueError``
        or ``JudgeError`` when it holds none)."""


def batch_api(judge: Judge, discount: float) -> BatchApi:
    """The batch API of ``judge``'s provider (its SDK imported only now); a judge with none
    (any other backend) is a configuration error, never another provider's API."""
    if judge.name == "openai":
        from monitor.judge.openai_batches import OpenAIBatches
        from monitor.judge.openai_judge import OpenAIJudge

        if isinstance(judge, OpenAIJudge):
            return OpenAIBatches(judge, discount)
    elif judge.name == "anthropic":
        from monitor.judge.anthropic_batches import AnthropicBatches
        from monitor.judge.anthropic_judge import AnthropicJudge

        if isinstance(judge, AnthropicJudge):
            return AnthropicBatches(judge, discount)
    raise ConfigError(f"judge.batch needs the anthropic or openai backend, not {judge.name!r}")


@dataclass(frozen=True, slots=True)
class Request:
    """One outbox request as the batch calls see it: its id and its ``request`` line."""

    id: str
    line: RequestLine

    def trace(self) -> RagTrace:
        """The trace: held since this process added it, else parsed from the line."""
        held = self.line.get("held")
        if isinstance(held, RagTrace):
            return held
        raw = self.line["trace"]
        if isinstance(raw, str):
            return RagTrace.from_json(raw)
        return RagTrace.from_data(raw)

    def text(self) -> str:
        """The trace as JSON text: as appended, or written again from the line read back."""
        raw = self.line["trace"]
        return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


# A request's outcome: its verdict, or what it ended as instead (errored, canceled, expired,
# invalid_output, a judge error's kind).
Outcome = Verdict | str


class Batches(Protocol):
    """The batch calls the stage makes, in this process (``InProcess``) or in a child
    (``monitor.judge.batch_process.ProcessBatches``)."""

    def submit(self, requests: list[Request], key: str) -> str:
        """Create one batch of the requests for the outbox's batch ``key``: the provider's
        batch id."""

    def ended(self, provider_id: str) -> bool:
        """Whether the batch finished processing."""

    def outcomes(self, provider_id: str, requests: list[Request]) -> list[tuple[str, Outcome]]:
        """Each answered request's outcome; ``requests``: the batch's (whose traces a
        provider's verdict may need). Requests the provider does not answer are missing."""

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """Ids of the provider's batches created at ``since`` or later for ``key``."""

    def close(self) -> None:
        """Release what the calls hold (a child process)."""


class InProcess:
    """``Batches`` through a provider's ``BatchApi`` in this process."""

    def __init__(self, api: BatchApi) -> None:
        self.api = api

    def submit(self, requests: list[Request], key: str) -> str:
        """One batch of the requests' traces."""
        return self.api.submit([(r.id, r.trace()) for r in requests], key)

    def ended(self, provider_id: str) -> bool:
        """Whether the batch ended."""
        return self.api.ended(provider_id)

    def outcomes(self, provider_id: str, requests: list[Request]) -> list[tuple[str, Outcome]]:
        """The verdict read from each succeeded answer, else the request's end; answers to
        ids the batch never had are left out."""
        by_id = {r.id: r for r in requests}
        out: list[tuple[str, Outcome]] = []
        for rid, outcome, answer in self.api.results(provider_id):
            if rid not in by_id:  # not a request of this batch: nothing to say of it
                continue
            if outcome != SUCCEEDED:
                out.append((rid, outcome))
                continue
            try:
                out.append((rid, self.api.verdict(answer, by_id[rid].trace())))
            except JudgeError as exc:
                out.append((rid, exc.kind))
            except ValueError:
                out.append((rid, "invalid_output"))
        return out

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """The provider's batches created since ``since`` for ``key``."""
        return self.api.created_since(since, key, count)

    def close(self) -> None:
        """Nothing held: the judge's client is closed with the judge."""


class BatchStage(JudgeStage):
    """The judge stage of batch mode: sampling, budget and cache as online, then the outbox
    instead of the worker queue, and one thread that submits, polls and collects."""

    def __init__(
        self,
        api: Batches,
        outbox: Outbox,
        *args: Any,
        max_requests: int = 1000,
        max_wait_seconds: float = 300.0,
        poll_seconds: float = 30.0,
        wall: Callable[[], float] = time.time,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.api = api
        self.outbox = outbox
        self.max_requests = max_requests
        self.max_wait_seconds = max_wait_seconds
        self.poll_seconds = poll_seconds
        self._wall = wall
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._results: list[tuple[str, Evaluation]] = []  # (batch, evaluation), not drained
        self._remaining: dict[str, int] = {}  # batch -> results not drained yet
        self._drained: list[str] = []  # batches whose every result went to the sinks
        self._collected: set[str] = set()  # batches whose results are with the pipeline
        self._unknown_told: set[str] = set()  # batches whose unknown requests were counted
        self._thread = threading.Thread(target=self._run, name="ragmon-judge-batch", daemon=True)

    def start(self) -> None:
        """Read the outbox and start the batch thread (no worker threads in batch mode)."""
        self.outbox.open()
        self._thread.start()

    def _enqueue(self, item: Pending) -> Evaluation | None:
        trace = item.evaluation.trace
        if isinstance(self.judge, RedactingJudge):  # what is sent is what is stored
            trace = self.judge.redact(trace)
        entry: RequestEntry = {"weight": item.weight, "usd": item.estimated_usd,
                               "at": self._wall()}  # fmt: skip
        if not self.outbox.add(trace.trace_id, entry, trace.to_json(), trace):
            self.budget.settle(item.estimated_usd, 0.0)  # read again: already waiting
        if self.observer is not None:
            self.observer.on_decision("batched")
        if self.outbox.pending_count() >= self.max_requests:
            self._wake.set()
        return replace(item.evaluation, judge_skipped="batched")

    def checkpoint(self) -> None:
        """Before offsets are committed: the requests appended so far are made durable, and
        each batch whose results the sinks just flushed is marked written."""
        self.outbox.sync()
        with self._lock:
            done, self._drained = self._drained, []
        for batch in done:
            self.outbox.written(batch)

    def drain(self, wait: float = 0.0) -> list[tuple[int, Evaluation]]:
        """Judge-only evaluations of collected results (ticket 0: their records were
        committed long ago)."""
        if wait > 0 and not self._results:
            time.sleep(min(wait, 0.05))
        with self._lock:
            taken, self._results = self._results, []
            for batch, _ in taken:
                self._remaining[batch] -= 1
                if self._remaining[batch] == 0:
                    del self._remaining[batch]
                    self._drained.append(batch)
        return [(0, evaluation) for _, evaluation in taken]

    @property
    def in_flight(self) -> int:
        """Nothing for the pipeline to wait for: batches outlive the process by design."""
        return 0

    def close(self) -> None:
        """Stop the batch thread and close the outbox (requests and batches stay in it). The
        provider calls are closed first: a call in a child process ends at once, so the
        thread is not waited for (a call in this process may hold it up to 10 s)."""
        self._stop.set()
        self._wake.set()
        self.api.close()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        waiting, batches = self.outbox.pending_count(), len(self.outbox.open_batches())
        if waiting or batches:  # they outlive the process by design: say so
            self.log.info("batch_outbox_waiting", requests=waiting, open_batches=batches,
                          hint="submitted, polled and written at the next start")  # fmt: skip
        self.outbox.close()
        self.judge.close()
        if self.cache is not None:
            self.cache.close()

    # --- the batch thread -----------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._reconcile()
                self._submit_due()
                self._collect_ended()
            except Exception:  # the API down, a bug: log, keep the outbox, try again later
                self.log.exception("batch_cycle_failed")
            self._wake.wait(self.poll_seconds)
            self._wake.clear()

    def _reconcile(self) -> None:
        """Batches being created when the process stopped or the create call failed."""
        known = {b.provider for b in self.outbox.open_batches() if b.provider}
        for b in self.outbox.open_batches():
            if b.provider is not None:
                continue
            try:
                found = self.api.created_since(b.at - 5, b.batch, len(b.ids))
                found = [p for p in found if p not in known]
            except Exception:
                self.log.exception("batch_reconcile_failed", batch=b.batch)
                continue
            if found:
                self.outbox.submitted(b.batch, found[0])
                known.add(found[0])
                self.log.info("batch_adopted", batch=b.batch, provider=found[0])
            else:
                self._create(b)

    def _submit_due(self) -> None:
        pending = self.outbox.pending()
        while pending:
            first = self.outbox.get(pending[0])
            oldest = first.get("at", 0.0) if first is not None else 0.0
            full = len(pending) >= self.max_requests
            if not full and self._wall() - oldest < self.max_wait_seconds:
                return
            ids, pending = pending[: self.max_requests], pending[self.max_requests :]
            self._create(self.outbox.submitting(uuid.uuid4().hex[:16], ids, self._wall()))

    def _create(self, b: BatchState) -> None:
        provider = self.api.submit(self._requests(b), b.batch)
        self.outbox.submitted(b.batch, provider)
        self.log.info("batch_submitted", batch=b.batch, provider=provider, requests=len(b.ids))

    def _requests(self, b: BatchState) -> list[Request]:
        """The batch's requests the outbox holds. One it does not (its line was lost: a torn
        tail) gets no verdict and no line: counted once per batch, never an exception that
        would stop every later cycle."""
        out, unknown = [], 0
        for i in b.ids:
            line = self.outbox.get(i)
            if line is None:
                unknown += 1
            else:
                out.append(Request(i, line))
        if unknown and b.batch not in self._unknown_told:
            self._unknown_told.add(b.batch)
            self.log.warning("batch_requests_unknown", batch=b.batch, requests=unknown)
            if self.observer is not None:
                for _ in range(unknown):
                    self.observer.on_judge_error("unknown_request")
        return out

    def _collect_ended(self) -> None:
        for b in self.outbox.open_batches():
            if b.provider is None or b.batch in self._collected or not self.api.ended(b.provider):
                continue
            requests = {r.id: r for r in self._requests(b)}
            outcomes = dict(self.api.outcomes(b.provider, list(requests.values())))
            out = [(b.batch, self._result(r, outcomes.get(r.id, EXPIRED)))
                   for r in requests.values()]  # fmt: skip
            with self._lock:
                self._collected.add(b.batch)
                self._remaining[b.batch] = len(out)
                self._results.extend(out)
            self.log.info("batch_collected", batch=b.batch, provider=b.provider, results=len(out))

    def _result(self, request: Request, outcome: Outcome) -> Evaluation:
        usd = float(request.line.get("usd", 0.0))
        evaluation = Evaluation(trace=request.trace(), checks={}, judge_only=True)
        if isinstance(outcome, str):
            return self._batch_failed(evaluation, usd, outcome)
        verdict = outcome.fitted(len(evaluation.trace.context),
                                 float(request.line.get("weight", 1.0)))  # fmt: skip
        self.budget.settle(usd, verdict.cost_usd)
        if self.observer is not None:
            self.observer.on_decision("judged")
            self.observer.on_verdict(verdict)
        return replace(evaluation, judge=verdict)

    def _batch_failed(self, evaluation: Evaluation, usd: float, kind: str) -> Evaluation:
        self.budget.settle(usd, 0.0)
        return self._errored(evaluation, kind)
