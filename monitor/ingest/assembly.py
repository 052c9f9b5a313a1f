"""The decoding stage: records in, traces (or dead letters) out, possibly later.

A native record is one trace. OTLP messages are not: the spans of one trace can arrive in
several messages (several exporter batches, several services), and one message can hold
spans of many traces (``kafkaexporter`` without ``partition_traces_by_id``). The
``OtlpAssembler`` buffers spans per trace id and emits a trace when its root span has
arrived (spans are exported when they end; a span whose parent is remote — an upstream
service that does not export here — counts as the root) and no span came for
``quiet_seconds``, or when ``max_wait_seconds`` passed since its first span.

Record time. A source that reads history (Kafka) gives each record the time it was written,
and says how far it has read (``ReadProgress``). There both waits count in record time
against a stream clock: per assigned partition, the later of its newest record time read and
the time it was last known read to its end on fresh evidence (``ReadProgress.read_to``: an
end offset asked then and already reached), the lowest of them. Never this machine's clock,
and never the end offset of the last fetch response, which is seconds old while a consumer
catches up into live traffic (a rolling deploy): records written since are not fetched yet,
and a trace whose root was read would be cut before its next part. A trace is quiet once
every partition that could still hold its spans has been read ``quiet_seconds`` past its last
record, and overdue once it has been read ``max_wait_seconds`` past its first. So a consumer
catching up over a backlog, which reads partitions unevenly, never cuts a trace whose other
spans sit on a partition not yet read that far (the kafkaexporter spreads one trace over
every partition unless ``partition_traces_by_id``); and a record read again after a restart
keeps its time, so a trace whose root never came is emitted as soon as the stream is read
past its max wait, not ``max_wait_seconds`` after every restart (which, in a crash loop
shorter than that, would hold the commit for good). The max wait in arrival time stays a
ceiling: a partition that stays behind (a stalled fetch) delays a trace by at most that.
Sources without record time (files, the OTLP/HTTP receiver) count in arrival time only. The
buffer is bounded by trace count and bytes; the oldest trace is evicted first and still
evaluated, marked incomplete.

Replays: after a restart a source that re-reads (Kafka) delivers again what was not
committed. The commit carries a ``ReplayNote`` per partition (``monitor.sources.notes``: how
far this process had read, and of every trace in each record past the committed offset
whether it was still unfinished), so the next reader knows: below the note's end, spans of
a finished trace belong to a trace evaluated before, and are counted ``replay_fragment``
(outcome ``late``) and dropped, whatever they carry — a root span too; only the unfinished
traces are assembled again. The partition stays read against its note until this process
has read past the note's end, whenever it commits; a note it commits before then carries
the rest of the note it was given. A trace met first past the bits of a note cut short to
fit is assembled (never dropped) and its line marked ``ragmon.replay: unsure``: it may have
been evaluated before. Where no note can tell — a commit without one (an older ragmon, a
note that could not be read) — a trace first read before this process committed its
partition that has no root span, or whose spans map to ``unrecognised`` or
``content_missing`` (a root re-read without the rest), is counted as ``replay_fragment``,
not as an instrumentation problem, and is not evaluated. Past a note's end (records a
process killed after that commit read on; a partition never committed has a note ending at
0), a trace with neither a root span nor a model call is counted so.

Offsets: every emitted item carries the positions of the records it was built from, and
``feed`` says how many items a record will be part of. The pipeline keeps a record open
until all of them are finished, so the offset of a message whose spans are still buffered
is never committed and a crash replays it.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from monitor.core.errors import OtlpDecodeError
from monitor.core.model import DeadLetter, error_text
from monitor.ingest.conventions import (
    CONTENT_MISSING,
    MAPPING_FAILED,
    OUTCOMES,
    OWN,
    REPLAY_FRAGMENT,
    UNRECOGNISED,
    has_model_call,
    map_spans,
)
from monitor.ingest.decoder import Decoded, Progress
from monitor.ingest.native import DECODE_FAILED, dead_letter
from monitor.ingest.otlp import Span, decode_json, decode_proto, is_own
from monitor.sources import (
    Partition,
    Position,
    ReadProgress,
    ReplayNote,
    SourceRecord,
    name_unfinished,
)
from monitor.sources.notes import OLD, UNSURE, Notebook

# Bounded labels of ragmon_assembly_traces_total{outcome=...}.
COMPLETE = "complete"  # root span seen, then quiet
MAX_WAIT = "max_wait"  # still incomplete or still changing at the max wait
EVICTED = "evicted"  # pushed out by the trace-count or byte bound
END_OF_INPUT = "end_of_input"  # a finite input ended before the root span came
LATE = "late"  # spans of a trace already emitted (counted, not evaluated again)
# a record with no spans: an empty export request, valid OTLP ("If the server receives an
# empty request ... the server SHOULD respond with success", the OTLP specification), so no
# dead letter; counted, as late spans are, under convention "-"
EMPTY = "empty"
ASSEMBLY_OUTCOMES = (COMPLETE, MAX_WAIT, EVICTED, END_OF_INPUT, LATE, EMPTY)


NEVER = float("-inf")

# How a record may be a replay of what a process before this one read (``_replay_of``).
NO_REPLAY, NARROW, BROAD = 0, 1, 2


class AssemblyObserver(Protocol):
    def on_assembled(
        self,
        convention: str,
        outcome: str,
        instrumentation: tuple[str, str] = ("", ""),
        unresolved_ids: int = 0,
    ) -> None: ...

    def on_assembly_buffer(self, traces: int, nbytes: int) -> None: ...

    def on_replay_unsure(self) -> None: ...


def instrumentation(spans: list[Span]) -> tuple[str, str]:
    """(scope name, version) of the instrumentation that produced most of a trace's spans:
    what to look at when an upgrade stops a convention from being understood."""
    tally: dict[tuple[str, str], int] = {}
    for s in spans:
        if s.scope:
            key = (s.scope[:80], s.scope_version[:40])
            tally[key] = tally.get(key, 0) + 1
    return max(tally, key=lambda k: tally[k]) if tally else ("", "")


@dataclass(frozen=True)
class AssemblyLimits:
    quiet_seconds: float = 2.0
    max_wait_seconds: float = 30.0
    max_traces: int = 10_000
    max_bytes: int = 256 << 20


@dataclass
class _Buffered:
    first: float  # arrival (monotonic clock)
    last: float
    first_time: float | None = None  # record time of its first record (Unix seconds)
    last_time: float | None = None  # record time of its newest record
    replay_window: int = 0  # NO_REPLAY, NARROW or BROAD (see ``OtlpAssembler._replay_of``)
    unsure: bool = False  # met first past the bits of a note cut short: perhaps seen before
    spans: list[Span] = field(default_factory=list)
    positions: dict[Position, None] = field(default_factory=dict)  # ordered set
    root: bool = False
    nbytes: int = 0


CONTENT_TYPES = {"application/x-protobuf": "otlp_proto", "application/json": "otlp_json"}


class OtlpAssembler:
    """Buffers OTLP spans per trace id and emits mapped ``RagTrace``s (see module doc)."""

    def __init__(
        self,
        fmt: str = "otlp_proto",
        limits: AssemblyLimits = AssemblyLimits(),
        observer: AssemblyObserver | None = None,
        max_message_bytes: int = 16 << 20,
        recent: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        replays: bool = False,
    ) -> None:
        if fmt not in ("otlp_proto", "otlp_json"):
            raise ValueError(f"unknown OTLP format {fmt!r}")
        self.fmt = fmt
        self.limits = limits
        self.observer = observer
        self.max_message_bytes = max_message_bytes
        self._clock = clock
        self._wall = wall
        self._replays = replays  # the source re-reads what was not committed (Kafka)
        # committed by this process since assigned, after it read past the note's end
        self._settled: set[Partition] = set()
        self._book = Notebook()  # the notes given, and what the next notes will say
        self._stream_time: dict[Partition, float] = {}  # newest record time read, per partition
        self._buf: OrderedDict[str, _Buffered] = OrderedDict()  # first-seen order
        self._bytes = 0
        self._recent: OrderedDict[str, None] = OrderedDict()  # emitted trace ids
        self._recent_max = recent
        self._last_scan = float("-inf")
        self._scan_every = min(0.1, limits.quiet_seconds / 2)
        self.counts: dict[tuple[str, str], int] = {}  # (convention, outcome) -> traces
        self.unresolved_ids = 0  # passages and documents whose id the spans do not tell
        self.unsure = 0  # traces evaluated that a note cut short could not rule out as seen
        self._logged: set[str] = set()

    @property
    def buffered(self) -> int:
        """Traces waiting in the buffer."""
        return len(self._buf)

    def _decode(self, record: SourceRecord) -> list[Span]:
        fmt = self.fmt
        for name, value in record.headers:
            if str(name).lower() == "content-type" and isinstance(value, bytes):
                fmt = CONTENT_TYPES.get(value.decode("latin-1").split(";")[0].strip(), fmt)
        return decode_json(record.value) if fmt == "otlp_json" else decode_proto(record.value)

    def feed(self, record: SourceRecord) -> tuple[list[Decoded], int]:
        """Decode a message and buffer its spans; traces ready now, and how many items the record
        is part of."""
        p = record.position
        pos: Position = ((p.source, p.partition), p.offset)
        raw = record.value
        try:
            if len(raw) > self.max_message_bytes:
                raise OtlpDecodeError("too_large", f"{len(raw)} bytes > {self.max_message_bytes}")
            spans = self._decode(record)
        except OtlpDecodeError as exc:
            self._noted(pos, ())
            return [Decoded(dead_letter(record, exc.reason, str(exc)), (pos,))], 1
        except Exception as exc:  # a decoder bug: the record is a dead letter, never a crash
            self._log_once("decode_failed", exc)
            self._noted(pos, ())
            detail = error_text(exc)
            return [Decoded(dead_letter(record, DECODE_FAILED, detail), (pos,))], 1
        if not spans:
            self._count("-", EMPTY)
        now = self._clock()
        when = self._record_time(record)
        verdicts = self._noted(pos, spans)
        replay_window = NO_REPLAY if verdicts is not None else self._replay_of(pos)
        share = len(raw) // max(len(spans), 1)
        touched: set[str] = set()
        replayed: set[str] = set()
        for s in spans:
            verdict = None if verdicts is None else verdicts.get(s.trace_id)
            if verdict == OLD:
                replayed.add(s.trace_id)  # re-read below the note's end, finished before
                continue
            if s.trace_id in self._recent:
                self._count("-", LATE)
                continue
            b = self._buf.get(s.trace_id)
            if b is None:
                b = self._buf[s.trace_id] = _Buffered(now, now, when, when, replay_window,
                                                      verdict == UNSURE)  # fmt: skip
            elif when is not None:
                b.first_time = when if b.first_time is None else min(b.first_time, when)
                b.last_time = when if b.last_time is None else max(b.last_time, when)
            b.spans.append(s)
            b.positions[pos] = None
            b.last = now
            b.root = b.root or not s.parent_span_id or s.remote_parent
            b.nbytes += share
            self._bytes += share
            touched.add(s.trace_id)
        for _ in replayed:  # one per trace and record, as a trace is counted
            self._count(REPLAY_FRAGMENT, LATE)
        out = []
        lim = self.limits
        while self._buf and (len(self._buf) > lim.max_traces or self._bytes > lim.max_bytes):
            trace_id = next(iter(self._buf))
            out.append(self._emit(trace_id, EVICTED))
        self._report()
        return out, len(touched)

    def _noted(self, pos: Position, spans: Iterable[Span]) -> dict[str, int] | None:
        """The record's traces kept for the next note (a source that re-reads only), and,
        when the note given with its partition speaks of it, the verdict on each (see
        ``notes.Notebook.read``)."""
        if not self._replays:
            return None
        ids = list(dict.fromkeys(s.trace_id for s in spans))
        verdicts = self._book.read(pos[0], pos[1], ids)
        return None if verdicts is None else dict(zip(ids, verdicts, strict=True))

    def _replay_of(self, pos: Position) -> int:
        """How a record that no note speaks of may be a replay. Past a note's end (records a
        process killed after that commit read on; a partition never committed has a note
        ending at 0), until this process commits the partition after reading past that end:
        ``NARROW`` — a trace with neither a root nor a model call is a fragment. At a
        committed offset without a note (an older ragmon, a note that could not be read):
        ``BROAD`` — a trace without a root, or that maps to nothing, is a fragment."""
        if not self._replays or pos[0] in self._settled:
            return NO_REPLAY
        return BROAD if self._book.noted(pos[0]) is None else NARROW

    def _record_time(self, record: SourceRecord) -> float | None:
        """The record's time, never ahead of this machine's clock (a producer's clock may
        be); it moves its partition's stream time on."""
        if record.timestamp is None:
            return None
        when = min(record.timestamp, self._wall())
        part = (record.position.source, record.position.partition)
        if when > self._stream_time.get(part, float("-inf")):
            self._stream_time[part] = when
        return when

    def _stream_clock(self, progress: ReadProgress | None) -> float | None:
        """The record time up to which every assigned partition is known to be read: per
        partition the later of its newest record time read and the time it was last known
        read to its end (``ReadProgress.read_to``), the lowest of them; minus infinity while
        a partition has neither. Never this machine's clock: a partition without lag by the
        last fetch response can still have records written since (seconds of them after a
        catch-up into live traffic). None when the source keeps no record time."""
        if progress is None or not progress.assigned:
            return None
        read_to = progress.read_to
        clock = self._wall()
        for part in progress.assigned:
            known = max(self._stream_time.get(part, NEVER), read_to.get(part, NEVER))
            clock = min(clock, known)
        return clock

    def due(self, flush: bool = False, progress: Progress = None) -> list[Decoded]:
        """Traces whose time has come (quiet, max wait); with ``flush``, every buffered trace.
        ``progress`` is asked how far the source has read (see the module doc)."""
        now = self._clock()
        if not flush and now - self._last_scan < self._scan_every and not self._pressed():
            return []  # a scan per poll while the buffer is past half its bound
        self._last_scan = now
        lim = self.limits
        stream = None if flush or progress is None else self._stream_clock(progress())
        ready: list[tuple[str, str]] = []
        for trace_id, b in self._buf.items():
            if flush:
                ready.append((trace_id, COMPLETE if b.root else END_OF_INPUT))
            elif stream is not None and b.first_time is not None and b.last_time is not None:
                if b.root and stream - b.last_time >= lim.quiet_seconds:
                    ready.append((trace_id, COMPLETE))
                elif max(stream - b.first_time, now - b.first) >= lim.max_wait_seconds:
                    ready.append((trace_id, MAX_WAIT))
            elif b.root and now - b.last >= lim.quiet_seconds:
                ready.append((trace_id, COMPLETE))
            elif now - b.first >= lim.max_wait_seconds:
                ready.append((trace_id, MAX_WAIT))
        out = [self._emit(trace_id, outcome) for trace_id, outcome in ready]
        if out:
            self._report()
        return out

    def ahead(self, progress: Progress = None) -> frozenset[Partition]:
        """Partitions to stop reading for now (watermark alignment). While the buffer is past
        half its bound (traces or bytes), a partition still behind whose newest record time
        is more than ``quiet_seconds`` past the slowest partition still behind is held: its
        traces wait for that partition anyway, and reading on would only fill the buffer
        until traces are evicted before their spans on the slow partition are read. The
        slowest partition is never held, so reading always goes on; below half the bound
        nothing is held."""
        lim = self.limits
        if progress is None or not self._pressed():
            return frozenset()
        read = progress()
        if read is None or not read.behind:
            return frozenset()
        times = {p: self._stream_time.get(p, float("-inf")) for p in read.behind}
        slowest = min(times.values())
        return frozenset(p for p, t in times.items() if t > slowest + lim.quiet_seconds)

    def _pressed(self) -> bool:
        """The buffer is past half its bound, in traces or bytes."""
        lim = self.limits
        return len(self._buf) * 2 > lim.max_traces or self._bytes * 2 > lim.max_bytes

    def buffered_from(self, partitions: Iterable[Partition]) -> dict[Partition, int]:
        """Lowest offset per partition of a record whose spans are still buffered."""
        wanted = set(partitions)
        out: dict[Partition, int] = {}
        for b in self._buf.values():
            for part, offset in b.positions:
                if part in wanted and offset < out.get(part, offset + 1):
                    out[part] = offset
        return out

    def committed(self, partitions: Iterable[Partition]) -> None:
        """``partitions`` were committed: those read past the end of the note they were
        given with are settled (later records of theirs are no replay); the others are still
        read against their note."""
        self._settled.update(p for p in partitions if self._book.passed(p))

    def pending(self, partitions: Iterable[Partition]) -> dict[Partition, set[str]] | None:
        """Per partition, the traces buffered with spans from its records; None when the
        source does not re-read (nothing to note)."""
        if not self._replays:
            return None
        out: dict[Partition, set[str]] = {p: set() for p in partitions}
        for trace_id, b in self._buf.items():
            name_unfinished(out, trace_id, b.positions)
        return out

    def notes(
        self, marks: Mapping[Partition, tuple[int, int]], unfinished: Mapping[Partition, set[str]]
    ) -> dict[Partition, ReplayNote]:
        """The note of each partition of ``unfinished``, committed at ``marks[p][0]`` having
        read up to ``marks[p][1]`` (see ``notes.Notebook.note``)."""
        book = self._book
        return {p: book.note(p, marks[p][0], marks[p][1], ids) for p, ids in unfinished.items()}

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """The notes committed with partitions just given (see ``ReplayNote``)."""
        self._settled -= set(notes)
        self._book.resume(notes)

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Drop the buffered spans of partitions this process no longer owns."""
        gone = set(partitions)
        self._settled -= gone  # given back later, they are re-read from the committed offset
        self._book.revoke(gone)
        for part in gone:
            self._stream_time.pop(part, None)
        for trace_id in list(self._buf):
            b = self._buf[trace_id]
            for pos in [q for q in b.positions if q[0] in gone]:
                del b.positions[pos]
            if not b.positions:  # the new owner replays every message of it
                del self._buf[trace_id]
                self._bytes -= b.nbytes
        self._report()

    def _emit(self, trace_id: str, outcome: str) -> Decoded:
        b = self._buf.pop(trace_id)
        self._bytes -= b.nbytes
        self._recent[trace_id] = None
        if len(self._recent) > self._recent_max:
            self._recent.popitem(last=False)
        positions = tuple(b.positions)
        if is_own(b.spans):
            self._count(OWN, outcome)
            return Decoded(None, positions)
        if (
            b.replay_window
            and not b.root
            and (b.replay_window == BROAD or not has_model_call(b.spans))
        ):
            self._count(REPLAY_FRAGMENT, outcome)
            return Decoded(None, positions)
        source = instrumentation(b.spans)
        extra: dict[str, str] = {} if outcome == COMPLETE else {"ragmon.incomplete": outcome}
        if b.unsure:  # re-read past what a note could say: perhaps evaluated before
            extra["ragmon.replay"] = "unsure"
            self.unsure += 1
            if self.observer is not None:
                self.observer.on_replay_unsure()
        try:
            mapped = map_spans(b.spans, extra)
        except Exception as exc:  # a mapping bug must not stop the daemon: a dead letter
            self._log_once(MAPPING_FAILED, exc)
            self._count(MAPPING_FAILED, outcome, source)
            return Decoded(_unmappable(b.spans, positions, exc), positions)
        if b.replay_window == BROAD and mapped.convention in (UNRECOGNISED, CONTENT_MISSING):
            self._count(REPLAY_FRAGMENT, outcome)  # a root re-read without the rest
            return Decoded(None, positions)
        self._count(mapped.convention, outcome, source, mapped.unresolved_ids)
        return Decoded(mapped.trace, positions)

    def _log_once(self, event: str, exc: Exception) -> None:
        """The first failure of each kind with its traceback; the rest are counted."""
        if event not in self._logged:
            self._logged.add(event)
            structlog.get_logger("ragmon.assembly").error(event, exc_info=exc)

    def _count(
        self, convention: str, outcome: str, source: tuple[str, str] = ("", ""), ids: int = 0
    ) -> None:
        key = (convention, outcome)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.unresolved_ids += ids
        if self.observer is not None:
            self.observer.on_assembled(convention, outcome, source, ids)

    def _report(self) -> None:
        if self.observer is not None:
            self.observer.on_assembly_buffer(len(self._buf), self._bytes)


def _unmappable(spans: list[Span], positions: tuple[Position, ...], exc: Exception) -> DeadLetter:
    """A trace whose mapping raised, as a dead letter at its first record: the spans it was
    assembled from (as JSON, bounded) and the error."""
    (source, partition), offset = positions[0] if positions else (("otlp", 0), 0)
    raw = json.dumps([dataclasses.asdict(s) for s in spans], default=str).encode()
    return DeadLetter(
        reason=MAPPING_FAILED,
        detail=error_text(exc),
        source=source,
        partition=partition,
        offset=offset,
        raw=raw[:_MAX_DEAD_SPANS_BYTES],
    )


_MAX_DEAD_SPANS_BYTES = 1 << 20


__all__ = ["ASSEMBLY_OUTCOMES", "OUTCOMES", "OtlpAssembler"]
