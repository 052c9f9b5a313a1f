"""``JsonlSink``: appends evaluation lines (and, separately, dead letters) to files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO

from monitor.model import DeadLetter, Evaluation
from sinks import Closable


class JsonlSink(Closable):
    """One JSON object per line; ``flush`` writes through to disk (fsync).

    ``evaluations`` receives the evaluation-line contract; ``dead_letters`` receives
    ``{"reason", "detail", "source", "partition", "offset", "raw"}``. Either path may be None.
    ``stream`` (instead of ``evaluations``) writes the evaluation lines to an open text
    stream such as stdout; it is flushed, not synced, and not closed.
    """

    name = "jsonl"

    def __init__(
        self,
        evaluations: Path | None = None,
        dead_letters: Path | None = None,
        stream: IO[str] | None = None,
    ) -> None:
        if stream is not None and evaluations is not None:
            raise ValueError("evaluations go to a file or to a stream, not both")
        self._paths = (evaluations, dead_letters)
        self._stream = stream
        self._eval: IO[str] | None = stream
        self._dead: IO[str] | None = None

    def start(self) -> None:
        evaluations, dead_letters = self._paths
        if evaluations is not None:
            evaluations.parent.mkdir(parents=True, exist_ok=True)
            self._eval = evaluations.open("a", encoding="utf-8")
        if dead_letters is not None:
            dead_letters.parent.mkdir(parents=True, exist_ok=True)
            self._dead = dead_letters.open("a", encoding="utf-8")

    def write(self, evaluation: Evaluation) -> None:
        self._check_open()
        if self._eval is not None:
            self._eval.write(json.dumps(evaluation.to_line(), ensure_ascii=False) + "\n")

    def write_dead_letter(self, letter: DeadLetter) -> None:
        self._check_open()
        if self._dead is not None:
            self._dead.write(json.dumps(letter.to_line(), ensure_ascii=False) + "\n")

    def flush(self) -> None:
        self._check_open()
        for fh in (self._eval, self._dead):
            if fh is not None:
                fh.flush()
                if fh is not self._stream:
                    os.fsync(fh.fileno())

    def close(self) -> None:
        if not self._closing():
            return
        for fh in (self._eval, self._dead):
            if fh is not None and not fh.closed:
                fh.flush()
                if fh is not self._stream:
                    fh.close()
