"""Finite, in-process sources: a list of byte strings (the test double), native JSONL files
and OTLP files. Each reports ``exhausted`` at its end; offsets are list indexes, line numbers
or message numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from monitor.sources.base import (
    Partition,
    ReplayNote,
    SourceDefaults,
    SourcePosition,
    SourceRecord,
)
from monitor.sources.framing import stream_messages
from monitor.sources.inputs import STDIN, Input

if TYPE_CHECKING:
    from monitor.sources.files_config import JsonlSourceConfig  # pydantic: not for `--help`
    from monitor.telemetry import Metrics


class _IteratorSource(SourceDefaults):
    """Shared plumbing of finite, in-process sources."""

    name = "iterator"

    def __init__(self) -> None:
        self._it: Iterator[SourceRecord] | None = None
        self._done = False
        self.committed: dict[tuple[str, int], int] = {}
        self.notes: dict[Partition, ReplayNote] = {}  # what a re-reading source would keep

    def _records(self) -> Iterator[SourceRecord]:
        raise NotImplementedError

    def start(self) -> None:
        self._it = self._records()

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

    def commit(
        self,
        offsets: dict[tuple[str, int], int],
        notes: Mapping[Partition, ReplayNote] | None = None,
    ) -> None:
        """Kept, for tests to read."""
        self.committed.update(offsets)
        self.notes.update(notes or {})

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


def _input(item: Path | str | Input) -> Input:
    return item if isinstance(item, Input) else Input(item)


class _InputSource(_IteratorSource):
    """Records from inputs (paths, ``-`` for stdin, or inputs already opened to tell their
    format), read one after the other, each once and front to back (``monitor.sources.inputs``).
    An input that fails part-way (a cut gzip stream, a read error) ends there: the records
    before it are kept, the failure is kept in ``read_errors`` and logged, unless the caller
    says it reports them itself (``log_read_errors``: replay prints them, once). ``on_progress``
    receives the bytes read so far at each record (for progress bars)."""

    log_read_errors = True

    def __init__(
        self,
        paths: Iterable[Path | str | Input],
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__()
        self.inputs = list(paths)
        self.read_errors: list[str] = []
        self._on_progress = on_progress

    def start(self) -> None:
        """Every input must be there and readable before the first record is read."""
        for item in self.inputs:
            if not isinstance(item, Input) and str(item) != STDIN:
                if Path(item).is_dir():
                    raise IsADirectoryError(21, "Is a directory", str(item))
                with Path(item).open("rb"):
                    pass
        super().start()

    def _records(self) -> Iterator[SourceRecord]:
        done = 0
        for item in self.inputs:
            inp = _input(item)
            count = 0
            try:
                for record in self._read(inp):
                    count += 1
                    if self._on_progress is not None:
                        self._on_progress(done + inp.done)
                    yield record
                if inp.failed is not None:
                    raise EOFError(inp.failed)
            except (OSError, EOFError, ValueError) as exc:
                what = f"{inp.name}: reading stopped after {count} records: {exc}"
                self.read_errors.append(what)
                if self.log_read_errors:
                    structlog.get_logger("ragmon").warning("input_read_failed", detail=what)
            finally:
                done += inp.done
                inp.close()

    def _read(self, inp: Input) -> Iterator[SourceRecord]:
        raise NotImplementedError


class JsonlSource(_InputSource):
    """Native records, one per line, from files (gzip or not, ``-`` for stdin); the offset
    is the 1-based line number. Blank lines are skipped."""

    name = "jsonl"

    @classmethod
    def from_config(cls, config: JsonlSourceConfig, metrics: Metrics | None = None) -> JsonlSource:
        """``source.jsonl``: the files, in order."""
        return cls(config.paths)

    def _read(self, inp: Input) -> Iterator[SourceRecord]:
        for lineno, line in enumerate(inp.stream, start=1):
            stripped = line.strip()
            if stripped:
                yield SourceRecord(SourcePosition(inp.name, 0, lineno), stripped)


class OtlpFileSource(_InputSource):
    """OTLP trace messages from files (gzip or not, ``-`` for stdin; ``otlp-json``: one
    request per line; ``otlp-proto``: 4-byte big-endian length + request); the offset is the
    1-based message number."""

    name = "otlp_file"

    def __init__(
        self,
        paths: Iterable[Path | str | Input],
        fmt: str,
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(paths, on_progress)
        self.fmt = fmt

    def _read(self, inp: Input) -> Iterator[SourceRecord]:
        for i, raw in enumerate(stream_messages(inp.stream, self.fmt), 1):
            yield SourceRecord(SourcePosition(inp.name, 0, i), raw)
