"""Replay notes: what a commit tells the next reader of a partition about the records past
its committed offset, and what each reader keeps to write its own.

A note says, record by record from the committed offset (``start``) up to where its writer
had read (``read_end``), which of the traces in each record were still unfinished: one bit
per trace of each record, the traces of a record in the order their spans first appear in
it (for a conversation's turn record: its one turn). A reader that reads the same records
again in the same order knows, of every trace it meets below ``read_end``, whether its
spans are news (unfinished: assembled again) or a replay (finished before: dropped). The
first record a trace is met in decides for the whole re-read.

It names every unfinished trace, however many there are: one bit per trace and record
(what a partition's backlog holds between a commit and its reader's position: thousands of
traces fit in a few hundred bytes once compressed). A note cut short to fit its medium
(Kafka keeps a commit's metadata up to the broker's ``offset.metadata.max.bytes``) says
nothing of the traces past its last bit: those are news, and a trace met there first may
have been evaluated before (a duplicate, marked; never a loss). A note written before its
writer re-read the whole of the note it was given carries that note's remaining bits
forward, so a quick rebalance never forgets what the note before it knew.

``Notebook`` keeps, per partition, both halves: the records read since the committed offset
and their traces (to write the next note), and the note the partition was given with the
reader's place in it (to read the records again).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from monitor.sources.base import Partition, ReplayNote, trace_key

NEWS, OLD, UNSURE = 0, 1, 2  # a trace met again below a note's end: unfinished, done, unknown


@dataclass(slots=True)
class _Reading:
    """A note given with a partition, and the reader's place in it."""

    note: ReplayNote
    cursor: int = 0  # the next bit to read
    decided: dict[str, int] = field(default_factory=dict)  # trace id -> its first verdict


class Notebook:
    """Per partition: the traces of each record read since the last note's start (to write
    the next note) and the note given with the partition (to read records again)."""

    def __init__(self) -> None:
        self._read: dict[Partition, deque[tuple[int, tuple[str, ...]]]] = {}
        self._next: dict[Partition, int] = {}  # one past the last offset read
        self._given: dict[Partition, _Reading] = {}

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """Partitions given with their notes: records re-read below a note's end are read
        against it."""
        for part, note in notes.items():
            self._given[part] = _Reading(note)
            self._read.pop(part, None)
            self._next.pop(part, None)

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget partitions this process no longer owns."""
        for part in partitions:
            self._given.pop(part, None)
            self._read.pop(part, None)
            self._next.pop(part, None)

    def noted(self, part: Partition) -> ReplayNote | None:
        """The note ``part`` was given with, if any."""
        given = self._given.get(part)
        return None if given is None else given.note

    def passed(self, part: Partition) -> bool:
        """This process has read ``part`` past the end of the note it was given with (or it
        was given none): no record it reads from now on is a replay."""
        given = self._given.get(part)
        return given is None or self._next.get(part, 0) >= given.note.read_end

    def read(self, part: Partition, offset: int, traces: Sequence[str]) -> list[int] | None:
        """A record of ``part`` at ``offset`` holding spans of ``traces`` (each once, in
        the order their spans first appear in it) was read: kept for the next note. When
        the note given with ``part`` speaks of it (below its end), the verdict on each trace
        (``NEWS``, ``OLD``, ``UNSURE``), else None."""
        self._read.setdefault(part, deque()).append((offset, tuple(traces)))
        if offset >= self._next.get(part, 0):
            self._next[part] = offset + 1
        given = self._given.get(part)
        if given is None or offset >= given.note.read_end:
            return None
        note, decided = given.note, given.decided
        out = []
        for trace_id in traces:
            if note.keys is not None:  # a note of ragmon/1: the unfinished traces' keys
                verdict = NEWS if trace_key(trace_id) in note.keys else OLD
            elif given.cursor < len(note.bits):
                verdict = NEWS if note.bits[given.cursor] == "1" else OLD
                given.cursor += 1
            else:
                verdict = UNSURE
            out.append(decided.setdefault(trace_id, verdict))
        return out

    def note(self, part: Partition, start: int, end: int, unfinished: set[str]) -> ReplayNote:
        """The note to commit ``part`` with at ``start`` (the lowest offset still open),
        read up to ``end``: a bit per trace of each record read in between, 1 for those in
        ``unfinished``. Records below ``start`` are forgotten. When this process has not
        yet read past the end of the note it was given, that note's bits for the records
        not re-read yet follow (and its end is kept)."""
        kept = self._read.get(part)
        bits: list[str] = []
        if kept is not None:
            while kept and kept[0][0] < start:
                kept.popleft()
            for offset, traces in kept:
                if offset < end:
                    bits.extend("1" if t in unfinished else "0" for t in traces)
        own = "".join(bits)
        given = self._given.get(part)
        if given is not None and end < given.note.read_end:
            old = given.note
            rest = "" if old.keys is not None else old.bits[given.cursor :]
            return ReplayNote(old.read_end, start=start, bits=own + rest)
        return ReplayNote(end, start=start, bits=own)


__all__ = ["NEWS", "OLD", "UNSURE", "Notebook"]
