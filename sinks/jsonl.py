"""``JsonlSink``: appends evaluation lines (and, separately, dead letters) to files."""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from monitor.core.lines import EvaluationLine, WrittenLine
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
            line = written_line(evaluation, self._redactor).line
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


def made_line(evaluation: Evaluation, redactor: Redactor | None) -> WrittenLine | None:
    """The line ``written_line`` made of the evaluation for ``redactor`` (or one of the same
    detectors) when a sink before has made it, else None (nothing is made)."""
    written = evaluation.written
    if written is not None:
        made_by = written[0]
        if made_by is redactor or (
            made_by is not None and redactor is not None and made_by.detectors == redactor.detectors
        ):
            return written[1]
    return None


def written_line(evaluation: Evaluation, redactor: Redactor | None) -> WrittenLine:
    """The evaluation's line, PII-redacted by ``redactor`` (None: as it is), with the trace's
    question and answer likewise; made once for every sink that writes it: the evaluation
    carries the last one made (``Evaluation.written``), which a sink asking with a redactor
    of the same detectors takes."""
    made = made_line(evaluation, redactor)
    if made is not None:
        return made
    trace = evaluation.trace
    line = evaluation.to_line()
    if redactor is None:
        made = WrittenLine(line, trace.query, trace.answer)
    else:
        line, (answer, query) = redacted(line, redactor, (trace.answer, trace.query))
        made = WrittenLine(line, query, answer)
    # kept on the (frozen) evaluation as a cache: what it concluded is unchanged
    object.__setattr__(evaluation, "written", (redactor, made))
    return made


def redact_line(
    line: EvaluationLine, redactor: Redactor, sources: tuple[str, ...] = ()
) -> EvaluationLine:
    """The evaluation line with PII redacted wherever trace text is quoted: check evidence
    (strings, and strings in lists) and the judge's claims. Ids, counts and labels stay.
    Evidence can quote a piece of an item (a figure "4111" read out of a card number): a
    quoted piece that occurs in ``sources`` (the answer, the question) but no longer once
    their PII is redacted came only from inside an item, and is redacted as that item."""
    return redacted(line, redactor, sources)[0]


def redacted(
    line: EvaluationLine, redactor: Redactor, sources: tuple[str, ...]
) -> tuple[EvaluationLine, list[str]]:
    """``redact_line``'s line, and each of ``sources`` redacted."""
    clean_sources = [redactor.redact(t) for t in sources]
    # the sources redaction changed: only a piece of one of those can be inside an item
    changed = [(t, c) for t, c in zip(sources, clean_sources, strict=True) if t != c]
    items: list[tuple[str, str]] | None = None
    short = _short_strings(redactor)

    def clean(value: str) -> str:
        nonlocal items
        piece = value.strip()
        if changed and piece and any(piece in t and piece not in c for t, c in changed):
            if items is None:
                items = [found for t, _ in changed for found in redactor.found(t)]
            kind = next((kind for kind, item in items if piece in item), None)
            if kind:
                return f"[REDACTED:{kind}]"
        if len(value) > _SHORT:
            return redactor.redact(value)
        done = short.get(value)
        if done is None:
            if len(short) >= _SHORT_KEPT:
                short.clear()
            done = short[value] = redactor.redact(value)
        return done

    def walk(value: object) -> object:  # map_strings's walk, its common cases inlined
        if isinstance(value, str):
            return clean(value)
        if isinstance(value, list):
            return [clean(v) if isinstance(v, str) else walk(v)
                    if isinstance(v, list | dict) else v for v in value]  # fmt: skip
        if isinstance(value, dict):
            return walk_object(value)
        return value

    def walk_object(value: dict[str, object]) -> dict[str, object]:
        return {k: clean(v) if isinstance(v, str) else walk(v)
                if isinstance(v, list | dict) else v for k, v in value.items()}  # fmt: skip

    out = line.copy()
    out["checks"] = {
        name: {**result, "evidence": walk_object(result.get("evidence", {}))}
        for name, result in line["checks"].items()
    }
    judge = line.get("judge")
    if isinstance(judge, dict) and "claims" in judge:
        out["judge"] = {**judge, "claims": [{**c, "text": redactor.redact(c.get("text", ""))}
                                            for c in judge["claims"]]}  # fmt: skip
    return out, clean_sources


# Evidence quotes short pieces (a figure, a word, a chunk's id) that recur from trace to trace:
# their redaction is kept, per redactor, up to _SHORT_KEPT of them (then forgotten at once).
_SHORT = 64
_SHORT_KEPT = 4096
_short_done: dict[int, tuple[Redactor, dict[str, str]]] = {}


def _short_strings(redactor: Redactor) -> dict[str, str]:
    """The short strings ``redactor`` redacted, with their redaction."""
    kept = _short_done.get(id(redactor))
    if kept is None or kept[0] is not redactor:
        if len(_short_done) >= 16:
            _short_done.clear()
        kept = _short_done[id(redactor)] = (redactor, {})
    return kept[1]
