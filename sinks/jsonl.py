"""``JsonlSink``: appends evaluation lines (and, separately, dead letters) to files."""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from monitor.core.lines import EvaluationLine, map_strings
from monitor.core.model import DeadLetter, Evaluation, Followup, SessionOutcome
from monitor.core.pii import Redactor
from sinks import SinkBase

if TYPE_CHECKING:
    from monitor.telemetry import Metrics


@dataclass(frozen=True)
class JsonlOutput:
    """The JSONL sink's configuration: ``output.evaluations_jsonl`` (``-``: standard output)
    and ``dead_letters_jsonl`` (one at least), and the redactor of what is written (None: as
    it is)."""

    evaluations: Path | None
    dead_letters: Path | None
    redactor: Redactor | None = None


class JsonlSink(SinkBase):
    """One JSON object per line; ``flush`` writes through to disk (fsync).

    ``evaluations`` receives the evaluation-line contract; ``dead_letters`` receives
    ``{"reason", "detail", "source", "partition", "offset", "raw"}``. Either path may be None.
    ``stream`` (instead of ``evaluations``) writes the evaluation lines to an open text
    stream such as stdout; it is flushed, not synced, and not closed.
    """

    name = "jsonl"

    @classmethod
    def from_config(cls, config: JsonlOutput, metrics: Metrics | None = None) -> JsonlSink:
        """The files of ``config`` (evaluations at ``-``: standard output), written through
        its redactor."""
        if config.evaluations is not None and str(config.evaluations) == "-":
            return cls(None, config.dead_letters, stream=sys.stdout, redactor=config.redactor)
        return cls(config.evaluations, config.dead_letters, redactor=config.redactor)

    def __init__(
        self,
        evaluations: Path | None = None,
        dead_letters: Path | None = None,
        stream: IO[str] | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        if stream is not None and evaluations is not None:
            raise ValueError("evaluations go to a file or to a stream, not both")
        self._paths = (evaluations, dead_letters)
        self._stream = stream
        self._redactor = redactor
        self._eval: IO[str] | None = stream
        self._dead: IO[str] | None = None
        self._synced: set[int] = set()  # ids of the files fsync applies to (regular files)

    def start(self) -> None:
        """Open (append) the files; their directories are created."""
        evaluations, dead_letters = self._paths
        if evaluations is not None:
            evaluations.parent.mkdir(parents=True, exist_ok=True)
            self._eval = self._opened(evaluations)
        if dead_letters is not None:
            dead_letters.parent.mkdir(parents=True, exist_ok=True)
            self._dead = self._opened(dead_letters)

    def _opened(self, path: Path) -> IO[str]:
        """``path`` opened to append. fsync only applies to a regular file: /dev/null, a pipe
        or a terminal (``>(…)``, /dev/stdout) are written and flushed, never fsync'd (which
        fails on them)."""
        fh = path.open("a", encoding="utf-8")
        if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            self._synced.add(id(fh))
        return fh

    def write(self, evaluation: Evaluation) -> None:
        """Write the evaluation line (PII redacted when configured)."""
        self._check_open()
        if self._eval is not None:
            line = evaluation.to_line()
            if self._redactor is not None:
                trace = evaluation.trace
                line = redact_line(line, self._redactor, (trace.answer, trace.query))
            self._eval.write(json.dumps(line, ensure_ascii=False) + "\n")

    def write_followup(self, followup: Followup) -> None:
        """Write the follow-up line among the evaluation lines (ids and signals only: no
        text of the turns)."""
        self._check_open()
        if self._eval is not None:
            self._eval.write(json.dumps(followup.to_line(), ensure_ascii=False) + "\n")

    def write_session(self, outcome: SessionOutcome) -> None:
        """Write the session's outcome line among the evaluation lines (ids and counts
        only: no text of the turns)."""
        self._check_open()
        if self._eval is not None:
            self._eval.write(json.dumps(outcome.to_line(), ensure_ascii=False) + "\n")

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Write the dead-letter line."""
        self._check_open()
        if self._dead is not None:
            self._dead.write(json.dumps(letter.to_line(), ensure_ascii=False) + "\n")

    def flush(self) -> None:
        """Flush and fsync the files (raises ``SinkError`` when it cannot)."""
        self._check_open()
        for fh in (self._eval, self._dead):
            if fh is not None:
                fh.flush()
                if id(fh) in self._synced:
                    os.fsync(fh.fileno())

    def close(self) -> None:
        """Deliver what is left and release the sink; a second call does nothing."""
        if not self._closing():
            return
        for fh in (self._eval, self._dead):
            if fh is not None and not fh.closed:
                fh.flush()
                if fh is not self._stream:
                    fh.close()


def redact_line(
    line: EvaluationLine, redactor: Redactor, sources: tuple[str, ...] = ()
) -> EvaluationLine:
    """The evaluation line with PII redacted wherever trace text is quoted: check evidence
    (strings, and strings in lists) and the judge's claims. Ids, counts and labels stay.
    Evidence can quote a piece of an item (a figure "4111" read out of a card number): a
    quoted piece that occurs in ``sources`` (the answer, the question) but no longer once
    their PII is redacted came only from inside an item, and is redacted as that item."""
    texts = [t for t in sources if t]
    clean_texts = [redactor.redact(t) for t in texts]
    items = [found for t in texts for found in redactor.found(t)]

    def inside_item(piece: str) -> str | None:
        if not piece or not any(
            piece in t and piece not in c for t, c in zip(texts, clean_texts, strict=True)
        ):
            return None
        return next((kind for kind, item in items if piece in item), None)

    def clean(value: str) -> str:
        kind = inside_item(value.strip())
        return f"[REDACTED:{kind}]" if kind else redactor.redact(value)

    out = line.copy()
    out["checks"] = {
        name: {**result, "evidence": map_strings(result.get("evidence", {}), clean)}
        for name, result in line["checks"].items()
    }
    judge = line.get("judge")
    if isinstance(judge, dict) and "claims" in judge:
        out["judge"] = {**judge, "claims": [{**c, "text": redactor.redact(c.get("text", ""))}
                                            for c in judge["claims"]]}  # fmt: skip
    return out
