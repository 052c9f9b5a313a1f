"""Where records come from. A source yields ``SourceRecord``s with a ``SourcePosition``.

Only the pipeline knows about positions and commits. Finite sources (files, lists) report
``exhausted``; the demo source, Kafka and the OTLP/HTTP receiver never do. A source whose
partitions can move to another process (Kafka) tells its ``SourceListener`` (the pipeline)
before and after they move; the others never call it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import msgspec


class SourcePosition(msgspec.Struct, frozen=True):
    """Where a record was read: topic or file, partition, offset (line number for files).

    This and ``SourceRecord`` are msgspec structs rather than frozen dataclasses: one of each
    is made per record read, and a struct is made in ~0.15 µs where the dataclass took ~1.2
    (``bench/kafka_e2e.py``'s poll)."""

    source: str
    partition: int
    offset: int

    def __str__(self) -> str:
        return f"{self.source}:{self.partition}:{self.offset}"


class SourceRecord(msgspec.Struct, frozen=True):
    """One record: where it came from, its bytes, key, headers and record time."""

    position: SourcePosition
    value: bytes
    key: bytes | None = None
    headers: tuple[tuple[str, bytes], ...] = ()
    # When the record was written (Unix seconds; Kafka's record timestamp), if known: a
    # record read again after a restart keeps its time, so deadlines do not start again.
    timestamp: float | None = None


Partition = tuple[str, int]  # (topic or file, partition)
Position = tuple[Partition, int]  # a record: its partition and offset


@dataclass(frozen=True, slots=True)
class ReadProgress:
    """How far a source that reads history (Kafka) has read, as of its last poll: the
    partitions it reads, those of them with records it has not returned yet (lag, or an end
    or a position not known yet), and, per partition, the time up to which it is known to
    be read to its end on evidence that cannot be stale (``read_to``).

    A deadline kept in record time may only count a partition's newest record time once that
    partition can hold nothing older unread: while a consumer catches up it reads partitions
    unevenly, and a trace's spans on a partition still behind are yet to come. Neither the
    absence of lag nor this machine's clock is such evidence: a consumer's lag is measured
    against the end offset the last fetch response carried, seconds old on a busy machine,
    and records written since are not fetched yet. ``read_to[p] = t`` says: every record
    written to ``p`` before ``t`` (Unix seconds) has been returned by ``poll`` — learnt from
    an end offset asked at ``t`` and already reached."""

    assigned: frozenset[Partition]
    behind: frozenset[Partition]
    read_to: Mapping[Partition, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReplayNote:
    """What the next reader of a partition must know of the records past its committed
    offset, committed with it (Kafka: the commit's metadata; ``monitor.sources.notes``):
    its writer read up to ``read_end`` (exclusive), and of the traces in the records from
    ``start`` (the committed offset) there, which were unfinished: ``bits``, a "1" or "0"
    per trace of each record in turn (see ``notes.Notebook``). A trace met in a record
    past the last bit is unknown: news, and perhaps evaluated before. A record re-read below
    ``read_end`` is a replay: its spans of a finished trace belong to a trace already
    evaluated. Finished records above the committed offset are the progress made while
    traces assemble (as Confluent's parallel consumer commits the offsets it finished past
    the lowest open one), so a restart re-evaluates none of them.

    ``keys``: a note of ragmon/1, which named the unfinished traces by ``trace_key`` instead
    (read, never written)."""

    read_end: int
    keys: frozenset[int] | None = None
    start: int = 0
    bits: str = ""


def trace_key(trace_id: str) -> int:
    """A trace id's 32-bit key in a note of ragmon/1 (``ReplayNote.keys``: a hash, so ids
    that share a prefix, such as sequential ones, still differ)."""
    return int.from_bytes(hashlib.blake2b(trace_id.encode(), digest_size=4).digest(), "big")


def name_unfinished(
    pending: Mapping[Partition, set[str]], trace_id: str, positions: Iterable[Position]
) -> None:
    """Add ``trace_id`` to the unfinished traces of each partition (of ``pending``) its
    records came from."""
    for part, _ in positions:
        ids = pending.get(part)
        if ids is not None:
            ids.add(trace_id)


class SourceListener(Protocol):
    """What a source tells the pipeline when partitions move. Called on the source's own
    thread (Kafka: the consumer's IO thread, inside a rebalance)."""

    def on_revoked(
        self, partitions: list[Partition]
    ) -> tuple[dict[Partition, int], dict[Partition, ReplayNote]]:
        """Flush, then return the offsets of ``partitions`` that are safe to commit and the
        notes to commit with them."""
        ...

    def on_resumed(self, notes: dict[Partition, ReplayNote]) -> None:
        """Partitions just assigned were committed with ``notes`` (by this process or one
        before it). Called on the polling thread, before any record of them is returned."""
        ...

    def on_lost(self, partitions: list[Partition]) -> None:
        """``partitions`` are gone without a chance to commit (a missed heartbeat)."""
        ...

    def resume_positions(self, partitions: list[Partition]) -> dict[Partition, int]:
        """Lowest offset of each partition whose records revocation drops unfinished (read
        again if the partition comes straight back)."""
        ...

    def on_share(self, share: float) -> None:
        """This replica now holds ``share`` of all partitions (after an assignment; called on
        the polling thread). Limits meant for the whole group scale by it."""
        ...


class Source(Protocol):
    """What the pipeline consumes. The lifecycle: ``listen`` (before ``start``), ``start``,
    then ``poll``/``commit`` until ``exhausted`` or stopped, then ``close``."""

    name: str

    def listen(self, listener: SourceListener) -> None:
        """Who hears about partitions moving (sources without partitions ignore it)."""
        ...

    def start(self) -> None:
        """Connect or open, once, on the pipeline's thread; raises ``SourceError`` with its
        own one-line message when it cannot, or any other exception (an ``OSError``, a
        library's own error), which the pipeline turns into one line naming the source."""
        ...

    def check(self) -> None:
        """What can be checked before anything starts (Kafka: the cluster reached, every
        topic the daemon reads or writes there), so that the outputs do not start first and
        fail one at a time; raises ``SourceError`` as ``start`` does."""
        ...

    def ready(self) -> bool:
        """Records can flow: for Kafka, partitions assigned and their positions known."""
        ...

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        """Up to ``max_records`` records, waiting at most ``timeout`` seconds for the first."""
        ...

    @property
    def exhausted(self) -> bool:
        """True when a finite source has nothing more to give."""
        ...

    def progress(self) -> ReadProgress | None:
        """How far reading has come (see ``ReadProgress``); None for a source whose records
        carry no record time (files, the demo, the OTLP/HTTP receiver)."""
        ...

    def commit(
        self,
        offsets: dict[tuple[str, int], int],
        notes: Mapping[Partition, ReplayNote] | None = None,
    ) -> None:
        """Everything before ``offsets[(source, partition)]`` is finished; ``notes`` (the
        decoder's, where it keeps some) are committed with them by a source that re-reads
        (Kafka), and ignored by the others."""
        ...

    def hold(self, partitions: frozenset[Partition]) -> None:
        """Return no records of ``partitions`` until a later call leaves them out (the set
        replaces the previous one; Kafka pauses them, keeping what it fetched). Called on
        the polling thread. A source without partitions to hold ignores it."""
        ...

    @property
    def replays_unfinished(self) -> bool:
        """True when a record not committed is read again after a restart (Kafka, files, the
        demo): a stop may leave work unfinished. False when what was accepted exists only in
        this process (the OTLP/HTTP receiver answered 200): a stop must finish it."""
        ...

    def stop_intake(self) -> None:
        """Take no new records (a graceful stop began); ``poll`` still returns what was
        already accepted, then nothing."""
        ...

    def close(self) -> None:
        """Release the source (leave the consumer group, stop listening)."""


class SourceDefaults:
    """The protocol's defaults, to inherit from, so a new source writes only what it does:
    no partitions to tell about (``listen``), always ``ready``, never ``exhausted``, no
    record time (``progress``), nothing to ``commit`` or to stop taking, re-read after a
    restart (``replays_unfinished``), nothing to ``check``, ``hold`` or ``close``. ``name``,
    ``start`` and ``poll`` are the source's own."""

    name: str
    replays_unfinished = True

    def listen(self, listener: SourceListener) -> None:
        """No partitions move: nothing to tell."""

    def check(self) -> None:
        """Nothing to check before the start."""

    def ready(self) -> bool:
        """Records can flow as soon as it started."""
        return True

    @property
    def exhausted(self) -> bool:
        """A stream has no end."""
        return False

    def progress(self) -> ReadProgress | None:
        """Its records carry no record time: nothing to tell."""
        return None

    def commit(
        self,
        offsets: dict[tuple[str, int], int],
        notes: Mapping[Partition, ReplayNote] | None = None,
    ) -> None:
        """Nothing to confirm to."""

    def hold(self, partitions: frozenset[Partition]) -> None:
        """One stream, read in order: nothing to hold."""

    def stop_intake(self) -> None:
        """Nothing is accepted ahead of ``poll``: nothing to stop."""

    def close(self) -> None:
        """Nothing to release."""
