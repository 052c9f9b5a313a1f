"""What the evaluation store takes of an evaluation, a follow-up and a session outcome, in
the daemon's pipeline: cheap (no redaction of the trace's text, no JSON of its record), and
sent as it is to the store's writer process when there is one (``sinks.store_writer``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import msgspec

from monitor.checks.evidence import (
    CitationEvidence,
    ConflictEvidence,
    EmptyContextEvidence,
    NumbersEvidence,
    OverlapEvidence,
    RefusalEvidence,
)
from monitor.core.evidence import Evidence, NotApplicable
from monitor.core.lines import CheckLine, check_line
from monitor.core.model import Evaluation, Followup, SessionOutcome
from monitor.core.store import check_outcome
from sinks.jsonl import WrittenLine

Row = tuple[Any, ...]
Segments = tuple[tuple[str, str], ...]


class Captured(msgspec.Struct, array_like=True, frozen=True):
    """What the store keeps of an evaluation, taken from it in the daemon's pipeline (cheap:
    no redaction, no JSON) and made into its rows by ``StoreSink.take`` (in the writer
    process, or in the daemon's when the store is written inline). Its text as the trace has
    it unless the caller says it is redacted."""

    trace_id: str
    timestamp: float | None  # the trace's own time (POSIX), or None
    iso: str | None  # the same as ISO 8601, as the record shows it (the line's)
    session_id: str | None
    app: str | None
    route: str | None
    release: str | None
    model: str | None
    golden_id: str | None
    query: str
    answer: str
    line: dict[str, Any]
    context: list[tuple[str | None, str | None, str | None, str]]  # doc, chunk, source, text
    retrieved: list[tuple[str | None, str | None, float | None, int | None]]
    attributes: dict[str, Any]  # ragmon's own (an agent's steps)
    segments: Segments
    outcomes: list[tuple[str, str]]  # the checks that flagged or failed, with which
    flagged: bool
    risk: float | None
    judge_only: bool
    now: float  # when the daemon took it
    redacted: bool = False  # its line, question and answer are redacted (the sinks' line)
    # the check results as msgspec encodes them (their fields), when the line's "checks" is
    # left for the writer to make (``checks_line``): encoded in C, not made in Python
    checks: dict[str, Any] | None = None


def capture(evaluation: Evaluation, now: float, written: WrittenLine | None = None) -> Captured:
    """The evaluation as the store takes it, its line and texts from ``written`` (the line
    the sinks write, redacted as they write it: ``redacted``) or, when None, as they are (to
    be redacted by the writer)."""
    t = evaluation.trace
    outcomes = []
    plain = written is None  # every result's evidence one of ours (``_PLAIN``)
    for name, r in evaluation.checks.items():
        plain = plain and type(r.evidence) in _PLAIN
        outcome = check_outcome(r.flagged, r.error is not None)
        if outcome is not None:
            outcomes.append((name, outcome))
    results: dict[str, Any] | None = None
    if written is not None:
        line, query, answer = written.line, written.query, written.answer
    elif plain:
        line, query, answer = evaluation.to_line(checks={}), t.query, t.answer
        results = cast("dict[str, Any]", evaluation.checks)
    else:  # an evidence type of a plugin's (its own to_line, maybe): the line as it makes it
        line, query, answer = evaluation.to_line(), t.query, t.answer
    stamp = t.timestamp
    return Captured(
        t.trace_id, None if stamp is None else stamp.timestamp(),
        line.get("timestamp"), t.session_id, t.app, t.route, t.release,
        t.model, t.golden_id, query, answer, cast("dict[str, Any]", line),
        [(p.doc_id, p.chunk_id, p.data_source, p.text) for p in t.context],
        [(d.doc_id, d.chunk_id, d.score, d.rank) for d in t.retrieved],
        {k: v for k, v in t.attributes.items() if k.startswith("ragmon.")},
        tuple(evaluation.segments.items()), outcomes, evaluation.any_flagged, evaluation.risk,
        evaluation.judge_only, now, written is not None, results,
    )  # fmt: skip


# The evidence types whose line is their fields, None left out at every level, tuples as
# lists (``Evidence.to_line``), with no field holding a mapping: what msgspec encodes of them
# makes the same line (``checks_line``; tests/unit/test_store_writer.py holds it to that).
_PLAIN = frozenset({NotApplicable, CitationEvidence, EmptyContextEvidence, ConflictEvidence,
                    OverlapEvidence, RefusalEvidence, NumbersEvidence, Evidence})  # fmt: skip


def checks_line(results: Mapping[str, Mapping[str, object]]) -> dict[str, CheckLine]:
    """The line's "checks" (each ``CheckResult.to_line``) from the results as msgspec encoded
    them (``Captured.checks``)."""
    return {
        name: check_line(cast("bool", r["flagged"]), cast("bool", r["applicable"]),
                         cast("dict[str, object]", _without_none(r["evidence"])),
                         cast("float | None", r["score"]), cast("str | None", r["error"]))
        for name, r in results.items()
    }  # fmt: skip


def _without_none(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def followup_row(followup: Followup, now: float) -> Row:
    """A follow-up's row (ids and signals: no text of the turns)."""
    a = followup.turn
    return (a.trace_id, a.session, a.time, json_text(followup.to_line()), now)


def session_row(outcome: SessionOutcome, now: float) -> Row:
    """A session outcome's row (ids and counts: no text of the turns)."""
    stamp = outcome.kept[-1].time if outcome.kept else now
    return (outcome.session, outcome.first_trace, stamp, outcome.outcome,
            json_text(outcome.to_line()), now)  # fmt: skip


_ENCODE = msgspec.json.Encoder()


def json_text(value: object) -> str:
    """``value`` as compact JSON text, as the store's rows keep it."""
    return _ENCODE.encode(value).decode()
