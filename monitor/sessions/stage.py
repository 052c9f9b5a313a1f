"""Conversations on the pipeline's path.

Every evaluated trace with a session id becomes a ``Turn`` (``TurnSink``, among the sinks).
Where the turns meet depends on how many processes read the traces:

* **In memory** (one process: files, the demo, OTLP/HTTP, ``replay``, a Kafka group of one):
  the sink hands the turn to ``Sessions``, stamped with this machine's clock; a batch's
  turns are added together when the pipeline next asks what is due (``Sessions.hold``).
  A Kafka replica pairing in memory pairs only while it holds every partition of the
  traces' topics (``WithSessions.on_share``): with a share, the next turn of a session may
  be another replica's, and a pair of what it saw may not be consecutive. It then says so
  and drops every turn, counted ``shared``; a rebalance drops the turns held (``revoked``).
* **Through a repartition topic** (``sessions.topic``, the Kafka source): the sink produces
  the turn keyed by its session id (kafka-python's default partitioner: murmur2 of the key,
  as Kafka Streams' repartition topics), and the source, subscribed to that topic in the
  same consumer group, hands the turn records of the partitions this replica owns to
  ``WithSessions``, which holds them on the partition's record clock. Every session so has
  one owner, however the traces were spread. A turn record stays uncommitted while its turn
  is held (the pipeline's watermark rule), and its replay note names the held turns: after a
  crash or a rebalance the next owner reads the held turns again from the committed offset
  and writes no line twice that the note rules out (docs, "Conversations").

The turn producer is flushed with the sinks before any offset is committed, so a trace's
offset is never committed before its turn reached the topic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import structlog

from monitor.core.model import (
    MAX_QUERY,
    MAX_ROUTE,
    Evaluation,
    Followup,
    Outcome,
    RagTrace,
    SessionOutcome,
    Turn,
)
from monitor.ingest.decoder import Decoded, Progress, RecordDecoder
from monitor.sessions.join import Sessions
from monitor.sessions.outcomes import Outcomes
from monitor.sources import Partition, ReadProgress, ReplayNote, SourceRecord
from sinks import SinkBase

if TYPE_CHECKING:
    from sinks.kafka_producer import Producer

REFUSAL = "refusal"  # the refusal check's name: a refused answer's outcome


def turn_of(evaluation: Evaluation, end_attribute: str | None = None) -> Turn | None:
    """The turn an evaluated trace is, or None when it has no session id, or no time to be
    ordered by (a turn is never ordered by its arrival). It ends its session when the trace
    carries ``end_attribute`` with a value other than false, 0, "" or "false"."""
    trace = evaluation.trace
    if trace.session_id is None:
        return None
    started = trace.attributes.get("ragmon.started")
    if isinstance(started, int | float) and not isinstance(started, bool):
        at = float(started)
    elif trace.timestamp is not None:
        at = trace.timestamp.timestamp()
    else:
        return None
    refusal = evaluation.checks.get(REFUSAL)
    outcome: Outcome
    judged_failing = evaluation.judge is not None and evaluation.judge.verdict in (
        "fail",
        "hard_fail",
    )
    if refusal is not None and refusal.flagged:
        outcome = "refusal"
    elif evaluation.any_flagged or judged_failing:
        outcome = "flagged"
    else:
        outcome = "clean"
    ends = end_attribute is not None and trace.attributes.get(end_attribute) not in _NOT_ENDED
    failed = outcome != "clean" and (
        outcome == "refusal"
        or judged_failing
        or any(evaluation.checks[c].flagged for c in UNGROUNDED if c in evaluation.checks)
    )
    return Turn(trace.session_id, trace.trace_id, at, trace.query[:MAX_QUERY], outcome,
                evaluation.segments.get("language", "unknown"),
                trace.route[:MAX_ROUTE] if trace.route else None, ends, failed)  # fmt: skip


_NOT_ENDED = (None, False, 0, "", "false")  # an end attribute's values that end nothing
# the checks whose flag says the answer is not grounded in its context (a session's failure;
# a missing citation is not one)
UNGROUNDED = (
    "unsupported_numbers", "unsupported_names", "grounding_overlap", "context_conflict",
    "empty_context",
)  # fmt: skip


class TurnSink(SinkBase):
    """Takes every evaluated turn to where the turns meet: ``Sessions`` in memory, or the
    repartition topic through ``producer``."""

    name = "session_turns"

    def __init__(
        self,
        sessions: Sessions,
        producer: Producer | None = None,
        observe: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
        end_attribute: str | None = None,
    ) -> None:
        self.sessions = sessions
        self._producer = producer
        self._end = end_attribute
        self._observe = observe
        self._clock = clock

    def start(self) -> None:
        """Connect the producer, if the turns go through a topic."""
        if self._producer is not None:
            self._producer.start()

    def write(self, evaluation: Evaluation) -> None:
        """The trace's turn, held or sent (a trace without a session id is no turn; one
        without a time is counted ``untimed``)."""
        self._check_open()
        if evaluation.judge_only or evaluation.trace.session_id is None:
            return
        turn = turn_of(evaluation, self._end)
        if turn is None:
            if self._observe is not None:
                self._observe("untimed")
            return
        if self._producer is not None:
            self._producer.send((turn.to_record(), turn.session.encode(), []))
        else:
            self.sessions.hold(turn, self._clock())  # added with the batch's others

    def flush(self) -> None:
        """Every turn sent has reached the topic (raises ``SinkError`` when not)."""
        self._check_open()
        if self._producer is not None:
            self._producer.flush()

    def close(self) -> None:
        """Release the producer."""
        if self._closing() and self._producer is not None:
            self._producer.close()


def _without(progress: ReadProgress | None, topic: str) -> ReadProgress | None:
    """``progress`` without the partitions of ``topic``."""
    if progress is None:
        return None
    return ReadProgress(
        frozenset(p for p in progress.assigned if p[0] != topic),
        frozenset(p for p in progress.behind if p[0] != topic),
        {p: t for p, t in progress.read_to.items() if p[0] != topic},
    )


class WithSessions:
    """A ``RecordDecoder``: the pipeline's own decoder for the traces, and ``Sessions`` for
    the follow-ups — the turn records of the repartition topic (``topic``; None: turns are
    held in memory by ``TurnSink`` and only released here), and the sessions that closed
    (``outcomes``, fed what ``Sessions`` releases; on the newest turn's time when
    ``record_time``, the end of a finite input's, else on the turns' clock)."""

    def __init__(
        self,
        inner: RecordDecoder,
        sessions: Sessions,
        topic: str | None = None,
        observe: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
        outcomes: Outcomes | None = None,
        record_time: bool = False,
        group: bool = False,
    ) -> None:
        self.inner = inner
        self.sessions = sessions
        # turns paired in memory by a member of a consumer group: only while it is alone
        self.group = group and topic is None
        self.share = 1.0  # of the traces' partitions this replica holds (``on_share``)
        self.turn_records = 0  # records of the repartition topic read
        self.outcomes = outcomes
        self._record_time = record_time
        self.topic = topic
        self._observe = observe
        self._clock = clock
        self._newest: dict[Partition, float] = {}  # newest turn record time per partition

    def _mine(self, part: Partition) -> bool:
        return part[0] == self.topic

    def feed(self, record: SourceRecord) -> tuple[list[Decoded], int]:
        """A trace record to the inner decoder; a turn record held (one item: the turn,
        finished when it leaves ``Sessions``)."""
        pos = record.position
        if self.topic is None or pos.source != self.topic:
            return self.inner.feed(record)
        part = (pos.source, pos.partition)
        at = record.timestamp if record.timestamp is not None else self._clock()
        self._newest[part] = max(self._newest.get(part, at), at)
        self.turn_records += 1  # read back from the topic (ragmon_records_total counts them)
        turn = Turn.from_record(record.value)
        if turn is None:  # not ours to read: finished, counted
            self.sessions.skip((part, pos.offset))
            if self._observe is not None:
                self._observe("invalid")
            return [], 0
        gone = self.sessions.add(turn, at, (part, pos.offset))
        return [Decoded(None, r.positions) for r in gone], 1

    def due(self, flush: bool = False, progress: Progress = None) -> list[Decoded]:
        """The traces the inner decoder releases, then every follow-up made final. A
        ``flush`` lets the held turns go only once the inner decoder released no trace: the
        turns of the traces it releases now are yet to come (the pipeline flushes again)."""
        topic = self.topic
        if topic is None or progress is None:
            read = None
            out = self.inner.due(flush, progress)
        else:  # asked once: the turns' clocks need it, the inner decoder sees it filtered
            read = progress()
            trace_parts = _without(read, topic)
            out = self.inner.due(flush, lambda: trace_parts)
        wall = self._clock()

        def clock(part: Partition | None) -> float:
            if part is None:
                return wall
            newest = self._newest.get(part, float("-inf"))
            return max(newest, read.read_to.get(part, newest)) if read is not None else newest

        if flush and any(isinstance(d.item, RagTrace) for d in out):
            flush = False
        if self.share < 1.0:  # the next turn of a session may be another replica's
            self.sessions.drop_all("shared")
            if self.outcomes is not None and len(self.outcomes):
                self.outcomes.drop_all("shared")
        outcomes = self.outcomes
        closed: list[SessionOutcome] = []
        for released in self.sessions.due(clock, flush):
            out.append(Decoded(released.followup, released.positions))
            if outcomes is not None:
                part = released.positions[0][0] if released.positions else None
                if released.followup is not None:
                    at = released.followup.by.time if self._record_time else clock(part)
                    outcomes.pair(released.followup, part, at, closed)
                elif released.turn is not None:
                    if self._record_time:
                        at = released.turn.time
                    elif released.last:  # it arrived window + lateness ago, or just before
                        at = clock(part) - self.sessions.window - self.sessions.lateness
                    else:
                        at = clock(part)
                    outcomes.lone(released.turn, part, at, closed)
        if outcomes is not None:
            if self._record_time:
                newest = outcomes.newest
                closed += outcomes.due(lambda _: newest, flush)
            else:
                closed += outcomes.due(clock, flush)
            out.extend(Decoded(done, ()) for done in closed)
        return out

    def ahead(self, progress: Progress = None) -> frozenset[Partition]:
        """The inner decoder's, on the trace partitions only."""
        topic = self.topic
        if topic is None or progress is None:
            return self.inner.ahead(progress)
        asked = progress
        return self.inner.ahead(lambda: _without(asked(), topic))

    def on_share(self, share: float) -> None:
        """This replica now holds ``share`` of the traces' partitions (a member of a group
        pairing in memory): below all of them it writes no pair, and says so once."""
        if not self.group:
            return
        was, self.share = self.share, share
        log = structlog.get_logger("ragmon.sessions")
        if share < 1.0 <= was:
            log.warning("sessions_shared", share=round(share, 3), detail=self.notice())
        elif was < 1.0 <= share:
            log.info("sessions_alone", detail="this replica holds every partition: pairing")

    def notice(self) -> str | None:
        """What ``/readyz`` says while this replica cannot pair (None: it can)."""
        if self.share >= 1.0:
            return None
        return (f"sessions: this replica holds {self.share:.0%} of the traces' partitions and "
                "pairs in memory: no follow-up line is written (another replica reads the "
                "other turns); set sessions.topic")  # fmt: skip

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget what came from ``partitions``; in memory, a member of a group forgets every
        turn held (the turns after them may have gone to another replica meanwhile)."""
        parts = list(partitions)
        if self.group and parts:
            self.sessions.drop_all("revoked")
        self.inner.revoke([p for p in parts if not self._mine(p)])
        self.sessions.revoke(p for p in parts if self._mine(p))
        if self.outcomes is not None:
            self.outcomes.revoke(p for p in parts if self._mine(p))
        for part in parts:
            self._newest.pop(part, None)

    def buffered_from(self, partitions: Iterable[Partition]) -> dict[Partition, int]:
        """The inner decoder's, and the lowest held turn record of each turn partition."""
        parts = list(partitions)
        low = self.inner.buffered_from([p for p in parts if not self._mine(p)])
        low.update(self.sessions.held_from(p for p in parts if self._mine(p)))
        return low

    def committed(self, partitions: Iterable[Partition]) -> None:
        """Told to the inner decoder."""
        self.inner.committed([p for p in partitions if not self._mine(p)])

    def pending(self, partitions: Iterable[Partition]) -> dict[Partition, set[str]] | None:
        """The inner decoder's, and per turn partition the held turns' traces."""
        parts = list(partitions)
        inner = self.inner.pending([p for p in parts if not self._mine(p)])
        mine = [p for p in parts if self._mine(p)]
        if not mine:
            return inner
        held = self.sessions.pending(mine)
        return held if inner is None else {**inner, **held}

    def notes(
        self, marks: Mapping[Partition, tuple[int, int]], unfinished: Mapping[Partition, set[str]]
    ) -> dict[Partition, ReplayNote]:
        """The inner decoder's notes of the trace partitions, ``Sessions``' of the turn
        partitions."""
        out = self.inner.notes(marks, {p: u for p, u in unfinished.items() if not self._mine(p)})
        mine = {p: u for p, u in unfinished.items() if self._mine(p)}
        if mine:
            out.update(self.sessions.notes(marks, mine))
        return out

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """Notes of trace partitions to the inner decoder, of turn partitions to
        ``Sessions``."""
        self.inner.resume({p: n for p, n in notes.items() if not self._mine(p)})
        self.sessions.resume({p: n for p, n in notes.items() if self._mine(p)})


__all__ = ["Followup", "TurnSink", "WithSessions", "turn_of"]
