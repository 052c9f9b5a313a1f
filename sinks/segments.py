"""Crash-safe JSONL segments keyed by row id.

The current segment is rewritten on every flush: serialised to a temporary file in the same
directory, fsync'd, atomically renamed over the segment's name, and the directory fsync'd.
A crash therefore leaves each segment either at its previous or at its new complete state —
never a torn row — and a row rewritten under the same id replaces itself instead of
duplicating. Segments rotate by size and age; readers merge them by id, newest state wins.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from monitor.core.lines import GoldenRow
from monitor.golden.stored import TMP_PREFIX  # the one reader of segments: the golden wing


class SegmentWriter:
    """Rows into size- and age-bounded JSONL segment files, a newer version of a row superseding
    the older."""

    def __init__(
        self,
        directory: Path,
        prefix: str,
        max_bytes: int = 8 << 20,
        max_age_seconds: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = directory
        self.prefix = prefix
        self.max_bytes = max_bytes
        self.max_age_seconds = max_age_seconds
        self._clock = clock
        self._rows: dict[str, GoldenRow] = {}
        self._dirty = False
        self._name = ""
        self._opened = 0.0
        self._seq = 0

    def start(self) -> None:
        """Create the directory."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob(f"{TMP_PREFIX}*"):
            stale.unlink(missing_ok=True)  # a write cut short by a crash; never renamed
        self._new_segment()

    def _new_segment(self) -> None:
        """Name the next segment: a name no file in the directory holds, so a process that
        starts with the pid and the second of an earlier one (a container restarted as pid 1)
        writes beside that one's segments, never over them."""
        self._opened = self._clock()
        stamp = datetime.fromtimestamp(self._opened, UTC).strftime("%Y%m%dT%H%M%S")
        while True:
            self._seq += 1
            self._name = f"{self.prefix}-{stamp}-{os.getpid()}-{self._seq:04d}.jsonl"
            if not (self.directory / self._name).exists():
                break
        self._rows = {}

    def put(self, row: GoldenRow) -> None:
        """Take one row."""
        self._rows[row["id"]] = row
        self._dirty = True

    def close(self) -> None:
        """Nothing stays open between flushes."""

    def flush(self) -> None:
        """Write the rows taken to the current segment and fsync it; roll over when it is full or
        old."""
        if not self._dirty:
            return
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self._rows.values())
        encoded = data.encode("utf-8")
        final = self.directory / self._name
        tmp = self.directory / f"{TMP_PREFIX}{self._name}"
        with open(tmp, "wb") as fh:
            fh.write(encoded)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        dir_fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        self._dirty = False
        if len(encoded) >= self.max_bytes or self._clock() - self._opened >= self.max_age_seconds:
            self._new_segment()
