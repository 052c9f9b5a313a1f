"""Finite, in-process sources: a list of byte strings (the test double), native JSONL files
and OTLP files. Each reports ``exhausted`` at its end; offsets are list indexes, line numbers
or message numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from monitor.sources.base import ReadProgress, SourceListener, SourcePosition, SourceRecord

if TYPE_CHECKING:
    from monitor.config import Settings
    from monitor.telemetry import Metrics


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

    def progress(self) -> ReadProgress | None:
        """Its records carry no record time: nothing to tell."""
        return None

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

    @classmethod
    def from_config(cls, settings: Settings, metrics: Metrics | None = None) -> JsonlSource:
        """``source.jsonl``: the files, in order."""
        return cls(settings.source.jsonl.paths)

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
        from monitor.ingest.otlp import read_messages

        for path in self.paths:
            for i, raw in enumerate(read_messages(path.read_bytes(), self.fmt), 1):
                yield SourceRecord(SourcePosition(str(path), 0, i), raw)
