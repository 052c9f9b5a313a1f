"""Orchestration only: source → decode → checks → sinks → commit.

The pipeline knows offsets; nothing downstream does. Every record is opened in the
``Checkpoint`` when read and finished when the sinks have it; a commit happens only after
every sink has flushed, and commits the watermark (lowest still-open offset) per partition.
A crash therefore replays and never loses. One lock serialises batch processing, the
periodic checkpoint and the rebalance handler (which kafka-python calls on its IO thread).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog

from monitor.checkpoint import Checkpoint
from monitor.checks import CheckSuite
from monitor.checks.shadow import ShadowSuite
from monitor.core.errors import SinkError, SinkFailure, SourceError, StartupError, describe
from monitor.core.model import (
    DeadLetter,
    Evaluation,
    Followup,
    RagTrace,
    SessionOutcome,
    error_text,
)
from monitor.ingest.decoder import Decoded, OneItemPerRecord, RecordDecoder
from monitor.ingest.native import EVALUATION_FAILED
from monitor.judge.stage import JudgeStage
from monitor.segments import Segmenter, SegmentsConfig
from monitor.sources import (
    Partition,
    Position,
    ReplayNote,
    Source,
    SourceRecord,
    name_unfinished,
)
from sinks import Sink

Decoder = Callable[[SourceRecord], RagTrace | DeadLetter]


_NO_SEGMENTS = SegmentsConfig(enabled=False)  # a pipeline built without a segmenter


class PipelineObserver(Protocol):
    """Receives per-batch and per-commit figures (the Prometheus metrics implement it)."""

    def on_batch(self, source: str, records: int, seconds: float) -> None:
        """One batch: its source, records and the time it took."""

    def on_commit(self, outcome: str) -> None:
        """One commit attempt: ok or failed."""


@dataclass
class PipelineStats:
    """Counts of one run: records, traces, dead letters, commits."""

    records: int = 0
    traces: int = 0
    dead_letters: int = 0
    followups: int = 0
    sessions: int = 0  # closed sessions' outcomes written
    commits: int = 0
    failed_commits: int = 0


class Pipeline:
    """Runs records through decoding, the check suite and the sinks, then commits."""

    def __init__(
        self,
        source: Source,
        decoder: Decoder | RecordDecoder,
        suite: CheckSuite,
        sinks: Sequence[Sink],
        observer: PipelineObserver | None = None,
        batch_size: int = 500,
        poll_timeout: float = 0.2,
        commit_interval: float = 1.0,
        flush_attempts: int = 3,
        flush_backoff: float = 0.5,
        judge_stage: JudgeStage | None = None,
        judge_drain_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        segmenter: Segmenter | None = None,
        evaluators: Mapping[str, str] | None = None,
        shadow: ShadowSuite | None = None,
    ) -> None:
        self.source = source
        self.decoder: RecordDecoder = OneItemPerRecord(decoder) if callable(decoder) else decoder
        # Records that are part of several items (OTLP messages): items still unfinished.
        self._refs: dict[Position, int] = {}
        # traces with the judge, by ticket: the records they came from (the judge never sees
        # them) and the trace's id (a replay note names it as unfinished)
        self._judging: dict[int, tuple[tuple[Position, ...], str]] = {}
        self._noted: dict[Partition, ReplayNote] = {}  # the notes last committed
        self._held: frozenset[Partition] = frozenset()  # partitions the source holds back
        self._tickets = itertools.count(1)
        self.suite = suite
        self.segmenter = segmenter if segmenter is not None else Segmenter(_NO_SEGMENTS)
        self.evaluators: Mapping[str, str] = evaluators or {}
        self.shadow = shadow  # a candidate's checks on the same traces (the same view)
        self.sinks = list(sinks)
        self.observer = observer
        self.batch_size = batch_size
        self.poll_timeout = poll_timeout
        self.commit_interval = commit_interval
        self.flush_attempts = flush_attempts
        self.flush_backoff = flush_backoff
        self.judge_stage = judge_stage
        self.judge_drain_seconds = judge_drain_seconds
        self._clock = clock
        self._sleep = sleep
        self.checkpoint_state = Checkpoint()
        self._lock = threading.RLock()
        self._last_commit = clock()
        # why a flush failed, wherever it failed (the rebalance handler runs on the consumer's
        # IO thread): ``run`` raises it on its own thread, so the run ends the documented way
        self._failure: SinkFailure | None = None
        self.stats = PipelineStats()
        self._failed_kinds: set[str] = set()  # exception types an evaluation raised, logged
        self.log = structlog.get_logger("ragmon.pipeline")
        # told this replica's share of the partitions besides the judge's budget, and asked
        # what the replica has to say on /readyz (the conversations' stage in a group)
        self.share_listeners: list[Callable[[float], None]] = []
        self.notices: list[Callable[[], str | None]] = []
        source.listen(self)  # partition moves (Kafka rebalances) come to on_revoked etc.

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start downstream first: sinks, then the source. Whatever a start raises (a file
        or socket that cannot be opened, a library's own error such as ``sqlite3.Error``)
        is a ``SinkError`` / ``SourceError`` with one line for people, never a traceback;
        a ``StartupError`` of the component's own passes as it is. The source's checks come
        before all (every missing topic named at once, not the first output's)."""
        self.source.check()
        for sink in self.sinks:
            try:
                sink.start()
            except StartupError:
                raise
            except Exception as exc:
                raise SinkError(f"cannot start the {sink.name} sink: {_one_line(exc)}") from exc
        if self.judge_stage is not None:
            self.judge_stage.start()
        try:
            self.source.start()
        except StartupError:
            raise
        except Exception as exc:
            raise SourceError(
                f"cannot start the {self.source.name} source: {_one_line(exc)}"
            ) from exc

    def run(self, stop: threading.Event) -> PipelineStats:
        """Poll until ``stop`` is set or a finite source is exhausted, then commit."""
        stage = self.judge_stage
        while not stop.is_set():
            if self._failure is not None:  # a flush failed on another thread: stop here
                raise self._failure
            records = self.source.poll(self.batch_size, self.poll_timeout)
            if records:
                self.process(records)
            end = self.source.exhausted and not records
            # the end of input is flushed only with nothing at the judge: a verdict written
            # after the flush would be a turn after its session's last (see ``_ended``)
            flushed = end and (stage is None or stage.in_flight == 0)
            released = self._handle_due(flush=flushed)
            self._align()
            if stage is not None:
                self._write_judged(stage.drain())
            if self._clock() - self._last_commit >= self.commit_interval:
                self.checkpoint()
            if end:
                if flushed and not released:
                    break
                if stage is not None and stage.in_flight:
                    self._write_judged(stage.drain(wait=0.1))
        # Bounded: verdicts still missing then stay uncommitted and are judged again after a
        # restart.
        deadline = self._clock() + self.judge_drain_seconds
        if not self.source.replays_unfinished:
            self._finish_accepted(deadline)
        if stage is not None:
            while stage.in_flight and self._clock() < deadline:
                self._write_judged(stage.drain(wait=0.1))
        self.checkpoint()
        return self.stats

    def _finish_accepted(self, deadline: float) -> None:
        """A stop of a source that cannot replay (OTLP/HTTP answered 200): take nothing new,
        then evaluate everything accepted — queued requests, and every buffered trace as it
        is (one without its root is marked incomplete). The shutdown budget bounds it."""
        self.source.stop_intake()
        while records := self.source.poll(self.batch_size, 0.0):
            self.process(records)
        self._ended(deadline)
        self.log.info("accepted_work_finished", traces=self.stats.traces)

    def _ended(self, deadline: float) -> None:
        """Everything read: flush the decoder until it releases no more traces, each flush
        once the judge has handed back every verdict (past ``deadline``, once more without
        waiting). A flush lets go of what waits for more input — the last turn of a
        conversation among them — so it must come after every trace that could still add to
        it was written."""
        stage = self.judge_stage
        while True:
            waiting = stage is not None and stage.in_flight > 0
            if stage is not None and waiting and self._clock() < deadline:
                self._write_judged(stage.drain(wait=0.1))
            elif not self._handle_due(flush=True) or waiting:
                return

    def _write_judged(self, finished: list[tuple[int, Evaluation]]) -> None:
        """Write judged evaluations (from the judge workers) and close their records."""
        if not finished:
            return
        with self._lock:
            for ticket, evaluation in finished:
                self._write(evaluation)
                positions, _ = self._judging.pop(ticket, ((), ""))
                self._release(positions)

    def close(self) -> None:
        """Stop upstream first: the source (leaves the group), the judge, then the sinks."""
        try:
            self.source.close()
            if self.judge_stage is not None:
                self.judge_stage.close()
        finally:
            for sink in self.sinks:
                try:
                    sink.close()
                except Exception:  # close the others, then report
                    self.log.exception("sink_close_failed", sink=sink.name)

    # --- processing -----------------------------------------------------------------------

    def process(self, records: Sequence[SourceRecord]) -> None:
        """Decode, check and write one batch; each record is finished once the sinks have
        every item it is part of (one for native records; OTLP messages may wait for the
        assembly of their traces). Nothing of a trace is kept once the sinks have it: the
        next one reuses its memory while it is still in the CPU's caches."""
        t0 = time.perf_counter()
        state = self.checkpoint_state
        with self._lock:
            # every record of the poll is open before the first is finished: no commit can
            # come between (it takes this lock), and the checkpoint's lock is taken once
            state.open_all(
                ((p.source, p.partition), p.offset) for p in (r.position for r in records)
            )
            for record in records:
                pos = record.position
                key = (pos.source, pos.partition)
                items, refs = self.decoder.feed(record)
                if refs:
                    self._refs[(key, pos.offset)] = refs
                else:  # nothing in it to evaluate (e.g. only ragmon's own spans)
                    state.done(key, pos.offset)
                for decoded in items:
                    self._handle(decoded)
            self.stats.records += len(records)
        if self.observer is not None:
            self.observer.on_batch(self.source.name, len(records), time.perf_counter() - t0)

    def _handle_due(self, flush: bool = False) -> int:
        """Items the decoder releases with time (assembled traces), or all at end of input;
        how many of them were traces."""
        traces = 0
        with self._lock:
            for decoded in self.decoder.due(flush, self.source.progress):
                traces += isinstance(decoded.item, RagTrace)
                self._handle(decoded)
        return traces

    def _align(self) -> None:
        """Hold the partitions the decoder finds too far ahead (see ``RecordDecoder.ahead``);
        asked after every poll, passed on when it changed or while something is held (a
        rebalance clears a consumer's pauses)."""
        with self._lock:
            held = self.decoder.ahead(self.source.progress)
        if held or self._held:
            self.source.hold(held)
            self._held = held

    def _handle(self, decoded: Decoded) -> None:
        """Check, judge or queue, and write one decoded item."""
        item = decoded.item
        if isinstance(item, RagTrace):
            try:
                evaluation = evaluate(item, self.suite, self.segmenter, self.shadow,
                                      self.evaluators)  # fmt: skip
            except Exception as exc:  # a bug of ours must not stop the daemon: a dead letter
                item = self._unevaluated(item, decoded.positions, exc)
            else:
                self.stats.traces += 1
                if self.judge_stage is not None:
                    ticket = next(self._tickets)
                    now = self.judge_stage.consider(evaluation, ticket)
                    if now is None:  # queued for the judge: its records stay open till back
                        self._judging[ticket] = (decoded.positions, item.trace_id)
                        return
                    evaluation = now
                self._write(evaluation)
        if isinstance(item, DeadLetter):
            self.stats.dead_letters += 1
            for sink in self.sinks:
                sink.write_dead_letter(item)
        elif isinstance(item, Followup):
            self.stats.followups += 1
            for sink in self.sinks:
                sink.write_followup(item)
        elif isinstance(item, SessionOutcome):
            self.stats.sessions += 1
            for sink in self.sinks:
                sink.write_session(item)
        self._release(decoded.positions)

    def _unevaluated(
        self, trace: RagTrace, positions: tuple[Position, ...], exc: Exception
    ) -> DeadLetter:
        """A trace whose evaluation raised (a bug of ragmon's: the checks' and the risk's own
        errors are caught inside the suite) as a dead letter at its first record, the trace
        as its record's JSON in ``raw`` (``ragmon replay`` reads it again once fixed); the
        first failure of each exception type is logged with its traceback."""
        kind = type(exc).__name__
        if kind not in self._failed_kinds:
            self._failed_kinds.add(kind)
            self.log.error("evaluation_failed", trace_id=trace.trace_id, exc_info=exc)
        (source, partition), offset = positions[0] if positions else ((self.source.name, 0), 0)
        raw = trace.to_json().encode()
        return DeadLetter(reason=EVALUATION_FAILED, detail=error_text(exc), source=source,
                          partition=partition, offset=offset, raw=raw)  # fmt: skip

    def _release(self, positions: tuple[Position, ...]) -> None:
        """One item of each record is finished; a record with none left is done."""
        for pos in positions:
            left = self._refs.get(pos)
            if left is None:
                continue  # its partition was revoked meanwhile: the new owner replays it
            if left > 1:
                self._refs[pos] = left - 1
            else:
                del self._refs[pos]
                self.checkpoint_state.done(*pos)

    def _write(self, evaluation: Evaluation) -> None:
        for sink in self.sinks:
            sink.write(evaluation)

    # --- checkpointing --------------------------------------------------------------------

    def _flush(self) -> None:
        """Flush every sink, retrying with backoff; raise SinkFailure when a sink still fails.
        After that nothing more is committed by this process (the crash-replay contract)."""
        for sink in self.sinks:
            for attempt in range(1, self.flush_attempts + 1):
                try:
                    sink.flush()
                    break
                except Exception as exc:
                    if attempt == self.flush_attempts:
                        failure = SinkFailure(f"sink {sink.name} failed to flush: {exc}")
                        self._failure = failure
                        raise failure from exc
                    self.log.warning("sink_flush_retry", sink=sink.name, attempt=attempt,
                                     error=str(exc))  # fmt: skip
                    self._sleep(self.flush_backoff * 2 ** (attempt - 1))
        if self.judge_stage is not None:
            self.judge_stage.checkpoint()  # the batch outbox is durable before offsets move

    def checkpoint(self) -> None:
        """Flush every sink, then commit the watermarks. The commit runs outside the lock:
        kafka-python completes it on the IO thread, which may be waiting for the lock in a
        rebalance callback."""
        if self._failure is not None:
            raise self._failure  # nothing more is committed; the run ends as failed
        with self._lock:
            self._flush()
            offsets = self.checkpoint_state.committable()
            marks = self.checkpoint_state.positions()
            notes = self._notes(marks)
            changed = {p: n for p, n in notes.items() if self._noted.get(p) != n}
            for part in changed:  # progress past the watermark is committed too
                offsets.setdefault(part, marks[part][0])
            notes = {p: n for p, n in notes.items() if p in offsets}
        self._last_commit = self._clock()
        if not offsets:
            return
        try:
            self.source.commit(offsets, notes)
        except Exception as exc:
            self.stats.failed_commits += 1
            self.log.warning("commit_failed", error=str(exc))
            if self.observer is not None:
                self.observer.on_commit("failed")
            return
        self.checkpoint_state.mark_committed(offsets)
        with self._lock:
            self._noted.update(notes)
            self.decoder.committed(offsets)
        self.stats.commits += 1
        if self.observer is not None:
            self.observer.on_commit("ok")

    def _notes(self, marks: dict[Partition, tuple[int, int]]) -> dict[Partition, ReplayNote]:
        """The replay note of each partition of ``marks`` (``Checkpoint.positions``): how far
        it was read and which traces are unfinished — still assembling, or with the judge.
        Empty when the decoder's records are whole traces."""
        pending = self.decoder.pending(marks)
        if pending is None:
            return {}
        for positions, trace_id in self._judging.values():
            name_unfinished(pending, trace_id, positions)
        return self.decoder.notes(marks, pending)

    # --- rebalance handler (called on the consumer's IO thread) ---------------------------

    def on_revoked(
        self, partitions: list[Partition]
    ) -> tuple[dict[Partition, int], dict[Partition, ReplayNote]]:
        """Flush, return what is safe to commit for ``partitions`` and the notes to commit
        with it, and drop their state."""
        with self._lock:
            offsets: dict[Partition, int] = {}
            notes: dict[Partition, ReplayNote] = {}
            if self._failure is None:
                try:
                    self._flush()
                    mine = set(partitions)
                    marks = {p: m for p, m in self.checkpoint_state.positions().items()
                             if p in mine}  # fmt: skip
                    notes = self._notes(marks)
                    offsets = {p: marks[p][0] for p in notes}
                    offsets.update(
                        (k, v) for k, v in self.checkpoint_state.committable().items() if k in mine
                    )
                except SinkFailure:
                    self.log.exception("flush_on_revoke_failed")
            self._forget(partitions)
            return offsets, notes

    def on_resumed(self, notes: dict[Partition, ReplayNote]) -> None:
        """Partitions given to this process, with the notes committed with them."""
        with self._lock:
            self.decoder.resume(notes)

    def resume_positions(self, partitions: list[Partition]) -> dict[Partition, int]:
        """Where the source must read ``partitions`` from if they come straight back: the
        lowest offset whose spans wait in the assembly buffer, which revocation drops
        (kafka-python keeps the fetch position of a re-assigned partition). Records in the
        judge queue need no re-reading: their verdicts are still written."""
        with self._lock:
            return self.decoder.buffered_from(partitions)

    def on_share(self, share: float) -> None:
        """The judge's budget is the group's: this replica spends ``share`` of it; and
        whoever else listens (``share_listeners``) hears it."""
        if self.judge_stage is not None:
            self.judge_stage.budget.set_share(share)
        for listener in self.share_listeners:
            listener(share)

    def notice(self) -> list[str]:
        """What the parts of this replica say about it now (``/readyz`` shows it)."""
        return [said for ask in self.notices if (said := ask()) is not None]

    def on_lost(self, partitions: list[Partition]) -> None:
        """``partitions`` were lost without a chance to commit: forget what came from them."""
        with self._lock:
            self._forget(partitions)

    def _forget(self, partitions: list[Partition]) -> None:
        gone = set(partitions)
        for part in gone:
            self._noted.pop(part, None)
        self.checkpoint_state.revoke(partitions)
        self.decoder.revoke(partitions)
        for pos in [p for p in self._refs if p[0] in gone]:
            del self._refs[pos]


def evaluate(
    trace: RagTrace,
    suite: CheckSuite,
    segmenter: Segmenter,
    shadow: ShadowSuite | None = None,
    evaluators: Mapping[str, str] | None = None,
) -> Evaluation:
    """``trace``'s evaluation: its segments and inputs, the checks on its view (and the shadow
    candidate's, when given), the risk. The daemon's pipeline and ``ragmon check`` both make
    it here. A check or the risk that raises is an error on the line (the suite's guard);
    anything else that raises is a bug of ragmon's, which the pipeline dead-letters."""
    segments, inputs = segmenter(trace)
    view = suite.view(trace)
    shadowed = shadow(view) if shadow is not None else None
    checks = suite(trace, view)
    risk, risk_error = suite.risk(checks, view)
    return Evaluation(trace, checks, segments=segments, inputs=inputs, evaluators=evaluators or {},
                      shadow=shadowed, risk=risk, risk_error=risk_error)  # fmt: skip


def _one_line(exc: Exception) -> str:
    """An exception for people, on one line: an OS error as ``describe`` says it, any other
    as its type and the first line of its message."""
    if isinstance(exc, OSError):
        return describe(exc)
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
