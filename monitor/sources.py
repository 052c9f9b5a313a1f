"""Where records come from. A source yields ``SourceRecord``s with a ``SourcePosition``.

Only the pipeline knows about positions and commits. Finite sources (files, lists) report
``exhausted``; the demo source, Kafka and the OTLP/HTTP receiver never do. A source whose
partitions can move to another process (Kafka) tells its ``SourceListener`` (the pipeline)
before and after they move; the others never call it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol


@dataclass(frozen=True, slots=True)
class SourcePosition:
    """Where a record was read: topic or file, partition, offset (line number for files)."""

    source: str
    partition: int
    offset: int

    def __str__(self) -> str:
        return f"{self.source}:{self.partition}:{self.offset}"


@dataclass(frozen=True, slots=True)
class SourceRecord:
    position: SourcePosition
    value: bytes
    key: bytes | None = None
    headers: tuple[tuple[str, bytes], ...] = ()
    # When the record was written (Unix seconds; Kafka's record timestamp), if known: a
    # record read again after a restart keeps its time, so deadlines do not start again.
    timestamp: float | None = None


Partition = tuple[str, int]  # (topic or file, partition)
Position = tuple[Partition, int]  # a record: its partition and offset


class SourceListener(Protocol):
    """What a source tells the pipeline when partitions move. Called on the source's own
    thread (Kafka: the consumer's IO thread, inside a rebalance)."""

    def on_revoked(self, partitions: list[Partition]) -> dict[Partition, int]:
        """Flush, then return the offsets of ``partitions`` that are safe to commit."""
        ...

    def on_lost(self, partitions: list[Partition]) -> None:
        """``partitions`` are gone without a chance to commit (a missed heartbeat)."""
        ...

    def resume_positions(self, partitions: list[Partition]) -> dict[Partition, int]:
        """Lowest offset of each partition whose records revocation drops unfinished (read
        again if the partition comes straight back)."""
        ...


class Source(Protocol):
    """What the pipeline consumes. The lifecycle: ``listen`` (before ``start``), ``start``,
    then ``poll``/``commit`` until ``exhausted`` or stopped, then ``close``."""

    name: str

    def listen(self, listener: SourceListener) -> None:
        """Who hears about partitions moving (sources without partitions ignore it)."""
        ...

    def start(self) -> None:
        """Connect or open; raises ``SourceError`` (or ``OSError``) when it cannot."""
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

    def commit(self, offsets: dict[tuple[str, int], int]) -> None:
        """Everything before ``offsets[(source, partition)]`` is finished."""
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

    def close(self) -> None: ...


class _IteratorSource:
    """Shared plumbing of finite, in-process sources."""

    name = "iterator"

    def __init__(self) -> None:
        self._it: Iterator[SourceRecord] | None = None
        self._done = False
        self.committed: dict[tuple[str, int], int] = {}

    def _records(self) -> Iterator[SourceRecord]:
        raise NotImplementedError

    def listen(self, listener: SourceListener) -> None:
        """No partitions move: nothing to tell."""

    def start(self) -> None:
        self._it = self._records()

    def ready(self) -> bool:
        return True

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        if self._it is None:
            self.start()
        assert self._it is not None
        out: list[SourceRecord] = []
        for rec in self._it:
            out.append(rec)
            if len(out) >= max_records:
                break
        else:
            self._done = True
        return out

    @property
    def exhausted(self) -> bool:
        return self._done

    def commit(self, offsets: dict[tuple[str, int], int]) -> None:
        self.committed.update(offsets)

    replays_unfinished = True  # the file is still there: a replay reads it again

    def stop_intake(self) -> None:
        """Nothing is accepted ahead of ``poll``: nothing to stop."""

    def close(self) -> None:
        self._it = None


class ListSource(_IteratorSource):
    """Records from a list of byte strings: the test double for every pipeline test."""

    name = "list"

    def __init__(self, values: Iterable[bytes], source: str = "list") -> None:
        super().__init__()
        self._values = list(values)
        self._source = source

    def _records(self) -> Iterator[SourceRecord]:
        for i, v in enumerate(self._values):
            yield SourceRecord(SourcePosition(self._source, 0, i), v)


class JsonlSource(_IteratorSource):
    """Native records, one per line, from files; the offset is the 1-based line number.

    Blank lines are skipped. ``on_progress`` receives bytes read so far (for progress bars).
    """

    name = "jsonl"

    def __init__(
        self, paths: Iterable[Path | str], on_progress: Callable[[int], None] | None = None
    ) -> None:
        super().__init__()
        self.paths = [Path(p) for p in paths]
        self._on_progress = on_progress

    def start(self) -> None:
        """Every file must be there and readable before the first record is read."""
        for path in self.paths:
            if path.is_dir():
                raise IsADirectoryError(21, "Is a directory", str(path))
            with path.open("rb"):
                pass
        super().start()

    def _records(self) -> Iterator[SourceRecord]:
        done = 0
        for path in self.paths:
            with path.open("rb") as fh:
                yield from self._lines(fh, str(path), done)
            done += path.stat().st_size

    def _lines(self, fh: BinaryIO, name: str, base: int) -> Iterator[SourceRecord]:
        for lineno, line in enumerate(fh, start=1):
            if self._on_progress is not None:
                self._on_progress(base + fh.tell())
            stripped = line.strip()
            if stripped:
                yield SourceRecord(SourcePosition(name, 0, lineno), stripped)


class OtlpFileSource(_IteratorSource):
    """OTLP trace messages from files (``otlp-json``: one request per line; ``otlp-proto``:
    4-byte big-endian length + request); the offset is the 1-based message number."""

    name = "otlp_file"

    def __init__(self, paths: Iterable[Path | str], fmt: str) -> None:
        super().__init__()
        self.paths = [Path(p) for p in paths]
        self.fmt = fmt

    def _records(self) -> Iterator[SourceRecord]:
        from monitor.otlp import read_messages

        for path in self.paths:
            for i, raw in enumerate(read_messages(path.read_bytes(), self.fmt), 1):
                yield SourceRecord(SourcePosition(str(path), 0, i), raw)


class DemoSource:
    """The built-in synthetic traffic at a fixed rate: the embedded default of ``ragmon run``."""

    name = "demo"

    def __init__(
        self,
        generate: Callable[[int], bytes],
        rate_per_second: float,
        limit: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._generate = generate
        self._interval = 1.0 / rate_per_second
        self._limit = limit
        self._clock = clock
        self._sleep = sleep
        self._next = 0
        self._t0: float | None = None

    def listen(self, listener: SourceListener) -> None:
        """No partitions move: nothing to tell."""

    def start(self) -> None:
        self._t0 = self._clock()

    def ready(self) -> bool:
        return self._t0 is not None

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        if self._t0 is None:
            self.start()
        assert self._t0 is not None
        due = int((self._clock() - self._t0) / self._interval) + 1
        if self._limit is not None:
            due = min(due, self._limit)
        if due <= self._next:
            wait = self._t0 + self._next * self._interval - self._clock()
            self._sleep(max(0.0, min(timeout, wait)))
            return []
        out: list[SourceRecord] = []
        while self._next < due and len(out) < max_records:
            out.append(
                SourceRecord(SourcePosition("demo", 0, self._next), self._generate(self._next))
            )
            self._next += 1
        return out

    @property
    def exhausted(self) -> bool:
        return self._limit is not None and self._next >= self._limit

    def commit(self, offsets: dict[tuple[str, int], int]) -> None:
        """Synthetic traffic is not replayed; nothing to commit."""

    replays_unfinished = True  # synthetic: what a stop leaves unfinished matters to no one

    def stop_intake(self) -> None:
        """Records are made in ``poll``: nothing to stop."""

    def close(self) -> None:
        """Nothing to release."""
