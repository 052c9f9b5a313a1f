"""What the pipeline feeds records to: a ``RecordDecoder`` turns records into ``Decoded``
items (a trace, a dead letter, or nothing) that remember the records they came from.
``OneItemPerRecord`` is the native decoder's; OTLP's is ``assembly.OtlpAssembler``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from monitor.core.model import DeadLetter, Followup, RagTrace, SessionOutcome
from monitor.sources import Partition, Position, ReadProgress, ReplayNote, SourceRecord


@dataclass(slots=True)
class Decoded:
    """A trace, a dead letter, a follow-up of a conversation's turn or a closed session's
    outcome (``monitor.sessions``), or nothing to evaluate (unrecognised, own spans), with
    the positions of the records it came from (none for an outcome)."""

    item: RagTrace | DeadLetter | Followup | SessionOutcome | None
    positions: tuple[Position, ...]


# How far the source has read, asked only when a decoder needs it (``Source.progress``).
Progress = Callable[[], ReadProgress | None] | None


class RecordDecoder(Protocol):
    """What the pipeline uses to turn records into traces."""

    def feed(self, record: SourceRecord) -> tuple[list[Decoded], int]:
        """Items ready now, and how many items (now or later) this record is part of."""
        ...

    def due(self, flush: bool = False, progress: Progress = None) -> list[Decoded]:
        """Items whose time has come; ``flush`` (end of a finite input) emits everything.
        ``progress`` tells, when asked, how far the source has read (deadlines kept in
        record time need it)."""
        ...

    def ahead(self, progress: Progress = None) -> frozenset[Partition]:
        """Partitions the source should stop reading for now: read so far ahead of the others
        that more of them would only fill a buffer (asked after each poll; the set replaces
        the previous one)."""
        ...

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget what came from partitions this process no longer owns."""
        ...

    def buffered_from(self, partitions: Iterable[Partition]) -> dict[Partition, int]:
        """Lowest offset per partition of a record whose content is still buffered."""
        ...

    def committed(self, partitions: Iterable[Partition]) -> None:
        """This process has committed ``partitions`` (since it was given them)."""
        ...

    def pending(self, partitions: Iterable[Partition]) -> dict[Partition, set[str]] | None:
        """Per partition, every trace still assembling from its records (what a
        ``ReplayNote`` names); None for a decoder whose records are whole traces, which needs
        no note."""
        ...

    def notes(
        self, marks: Mapping[Partition, tuple[int, int]], unfinished: Mapping[Partition, set[str]]
    ) -> dict[Partition, ReplayNote]:
        """The note to commit each partition of ``unfinished`` with (the traces unfinished
        there: ``pending``'s and the pipeline's own), at ``marks[p][0]``, having read up to
        ``marks[p][1]`` (``Checkpoint.positions``)."""
        ...

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """Partitions given to this process, with the notes committed with them: a record
        re-read below a note's ``read_end`` is a replay (see ``ReplayNote``)."""
        ...


class OneItemPerRecord:
    """One record, one item: the native JSON decoder as a ``RecordDecoder``."""

    def __init__(self, decode: Callable[[SourceRecord], RagTrace | DeadLetter]) -> None:
        self.decode = decode

    def feed(self, record: SourceRecord) -> tuple[list[Decoded], int]:
        """The record's one item, now."""
        p = record.position
        return [Decoded(self.decode(record), (((p.source, p.partition), p.offset),))], 1

    def due(self, flush: bool = False, progress: Progress = None) -> list[Decoded]:
        """Nothing waits: always empty."""
        return []

    def ahead(self, progress: Progress = None) -> frozenset[Partition]:
        """Nothing waits for another partition: always empty."""
        return frozenset()

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Nothing is buffered."""

    def buffered_from(self, partitions: Iterable[Partition]) -> dict[Partition, int]:
        """Nothing is buffered: always empty."""
        return {}

    def committed(self, partitions: Iterable[Partition]) -> None:
        """Nothing depends on it."""

    def pending(self, partitions: Iterable[Partition]) -> dict[Partition, set[str]] | None:
        """Records are whole traces: no note needed."""
        return None

    def notes(
        self, marks: Mapping[Partition, tuple[int, int]], unfinished: Mapping[Partition, set[str]]
    ) -> dict[Partition, ReplayNote]:
        """No note needed: none."""
        return {}

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """A record read again is evaluated again (at-least-once); nothing to note."""
