"""``VerdictCache``: verdicts by a hash of what the judge sees, in memory and optionally in
an append-only file that a restarted daemon reads back (identical content is judged once)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import IO

import structlog

from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.rubric import RUBRIC_ID


class VerdictCache:
    """Verdicts by content hash of (rubric, judge model, passages, answer): identical traffic
    and replays are not judged — or paid for — twice. Bounded LRU in memory; with ``path``
    every new verdict is also appended to a JSONL file that is read back at start, so a
    restarted daemon or a second replay does not pay again either."""

    def __init__(self, max_entries: int = 10_000, path: Path | None = None) -> None:
        self.max_entries = max_entries
        self.path = path
        self._items: OrderedDict[str, Verdict] = OrderedDict()
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self.write_errors = 0  # verdicts the file could not take (kept in memory all the same)
        if path is not None:
            self._load(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")

    def _load(self, path: Path) -> None:
        if not path.exists():
            return
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                    self._remember(entry["key"], Verdict.model_validate(entry["verdict"]))
                except (ValueError, KeyError):
                    continue  # a line torn by a crash: that verdict is simply paid again

    def _remember(self, key: str, verdict: Verdict) -> None:
        self._items[key] = verdict
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    @staticmethod
    def key(judge_model: str, trace: RagTrace) -> str:
        """The cache key of ``trace`` for ``judge_model``: a hash of what the judge sees."""
        h = hashlib.sha256()
        for part in (
            RUBRIC_ID,
            judge_model,
            trace.query,
            trace.answer,
            *(p.text for p in trace.context),
        ):
            h.update(part.encode("utf-8", "replace"))
            h.update(b"\x1f")
        return h.hexdigest()

    def get(self, key: str) -> Verdict | None:
        """The cached verdict, or None."""
        with self._lock:
            v = self._items.get(key)
            if v is not None:
                self._items.move_to_end(key)
            return v

    def put(self, key: str, verdict: Verdict) -> None:
        """Keep ``verdict`` (and append it to the cache file, if any)."""
        with self._lock:
            self._remember(key, verdict)
            if self._file is not None:
                entry = {"key": key, "verdict": verdict.model_dump(mode="json")}
                try:
                    self._file.write(json.dumps(entry) + "\n")
                    self._file.flush()
                except OSError as exc:  # a full disk must not lose the verdict it just paid for
                    self._write_failed(exc)

    def _write_failed(self, exc: OSError) -> None:
        """The verdict stays in memory (the running daemon does not pay for it again; a
        restarted one would); the first failure is logged, each is counted. Writing is
        tried again on the next verdict: a disk that frees up persists the rest."""
        self.write_errors += 1
        if self.write_errors == 1:
            structlog.get_logger("ragmon.judge").error(
                "verdict_cache_write_failed", path=str(self.path), error=str(exc)
            )

    def close(self) -> None:
        """Close the cache file."""
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()  # flushes what a full disk refused before
                except OSError as exc:
                    self._write_failed(exc)
                self._file = None
