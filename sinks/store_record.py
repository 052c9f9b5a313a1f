"""What the evaluation store takes of an evaluation, a follow-up and a session outcome, in
the daemon's pipeline: cheap (no redaction of the trace's text, no JSON of its record), and
sent as it is to the store's writer process when there is one (``sinks.store_writer``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from types import UnionType
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints

import msgspec

from monitor.core.evidence import Evidence
from monitor.core.lines import CheckLine, EvaluationLine, JsonObject, WrittenLine, check_line
from monitor.core.model import Evaluation, Followup, RagTrace, SessionOutcome, Timestamp
from monitor.core.record import parse_timestamp
from monitor.core.store import check_outcome

Row = tuple[Any, ...]


class Members(msgspec.Struct, array_like=True, frozen=True):
    """An evaluation's members besides its trace and checks, when the writer makes its line
    (``line_of``): an evaluation with no verdict nor shadow results (whose members msgspec
    encodes, in C); the line is still made by ``Evaluation.to_line``, in the writer."""

    segments: dict[str, str]
    inputs: dict[str, float]
    evaluators: dict[str, str]
    judge_skipped: str | None
    judge_only: bool
    risk: float | None
    risk_error: str | None


class Captured(msgspec.Struct, array_like=True, frozen=True):
    """What the store keeps of an evaluation, taken from it in the daemon's pipeline (cheap:
    the trace and the results as they are, encoded by msgspec in C when sent; no redaction,
    no JSON) and made into its rows by ``StoreSink.take`` (in the writer process, or in the
    daemon's when the store is written inline). Its line is made in the daemon (``line``)
    or, from its members, by the writer (``line_of``); what the rows need besides the trace
    (the check outcomes, the segments, the risk) is read from the line there."""

    trace: RagTrace
    now: float  # when the daemon took it
    line: dict[str, Any] | None = None  # the line made in the daemon (None: ``members``)
    members: Members | None = None  # what the writer makes the line of, when not made
    # the check results as msgspec encodes them (their fields), when the line's "checks" is
    # left for the writer to make (``checks_line``): encoded in C, not made in Python
    checks: dict[str, Any] | None = None
    # the question and answer as the sinks write them, when ``line`` is the sinks' line
    # (redacted as they write it); None: the line and the trace's texts are as they are
    redacted: tuple[str, str] | None = None


def capture(evaluation: Evaluation, now: float, written: WrittenLine | None = None) -> Captured:
    """The evaluation as the store takes it, its line and texts from ``written`` (the line
    the sinks write, redacted as they write it) or, when None, as they are (to be redacted
    by the writer)."""
    e = evaluation
    if written is not None:
        line = cast("dict[str, Any]", written.line)
        return Captured(e.trace, now, line, redacted=(written.query, written.answer))
    for result in e.checks.values():
        kind = type(result.evidence)
        if not (_LINE_IS_FIELDS.get(kind) or line_is_fields(kind)):  # its line its own
            return Captured(e.trace, now, cast("dict[str, Any]", e.to_line()))
    checks = cast("dict[str, Any]", e.checks)
    if e.judge is not None or e.shadow is not None:  # their lines made here (pydantic's)
        return Captured(e.trace, now, cast("dict[str, Any]", e.to_line(checks={})), None, checks)
    members = Members(cast("dict[str, str]", e.segments), cast("dict[str, float]", e.inputs),
                      cast("dict[str, str]", e.evaluators), e.judge_skipped, e.judge_only,
                      e.risk, e.risk_error)  # fmt: skip
    return Captured(e.trace, now, None, members, checks)


def line_of(c: Captured) -> EvaluationLine:
    """The evaluation's line: as the daemon made it, or made here of its members, with its
    checks' part made here when the daemon left it."""
    if c.line is not None:
        line = cast("EvaluationLine", c.line)
    else:
        m = c.members
        assert m is not None
        line = Evaluation(c.trace, {}, None, m.judge_skipped, m.judge_only, m.segments,
                          m.inputs, m.evaluators, None, m.risk,
                          m.risk_error).to_line(checks={})  # fmt: skip
    if c.checks is not None:
        line["checks"] = checks_line(c.checks)
    return line


def encode_hook(value: object) -> object:
    """How the store's writer is sent what msgspec does not encode itself: a trace's time
    (a ``Timestamp``) as the record reads it back (``decode_hook``), a mapping of another
    type (an evaluation's segments) as a dict; a source's attribute of a type of its own as
    its text (only ragmon's own attributes are stored)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return dict(value)
    return str(value)


def decode_hook(kind: type, value: object) -> object:
    """A trace's time as ``encode_hook`` sent it, read by the record's rule."""
    if kind is Timestamp and isinstance(value, str):
        return parse_timestamp(value, Timestamp)
    raise NotImplementedError(kind)


def line_is_fields(kind: type) -> bool:
    """Whether the line of an evidence type is its fields as msgspec encodes them with None
    left out at every level (what ``checks_line`` makes of them): it makes its line as
    ``Evidence.to_line`` does (fields in order, None left out, tuples as lists), not its own,
    and each field holds only scalars, tuples and lists of them and evidence of the same
    kind: never a mapping (whose None values its line keeps) nor anything else. Derived from
    the type's fields once a type."""
    known = _LINE_IS_FIELDS.get(kind)
    if known is not None:
        return known
    _LINE_IS_FIELDS[kind] = False  # while its fields are read (a type naming itself)
    try:
        hints = get_type_hints(kind)
        plain = (dataclasses.is_dataclass(kind) and issubclass(kind, Evidence)
                 and kind.to_line is Evidence.to_line
                 and all(_plain_hint(hints[f.name]) for f in dataclasses.fields(kind)))  # fmt: skip
    except (NameError, TypeError, KeyError):  # a field's type not read: its own line
        plain = False
    _LINE_IS_FIELDS[kind] = plain
    return plain


_LINE_IS_FIELDS: dict[type, bool] = {}
_SCALARS = (str, int, float, bool, type(None))


def _plain_hint(hint: object) -> bool:
    """Whether a field of type ``hint`` encodes as its evidence line has it (``line_is_fields``)."""
    if hint in _SCALARS:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return all(isinstance(a, _SCALARS) for a in get_args(hint))
    if origin in (tuple, list, Union, UnionType):
        return all(a is Ellipsis or _plain_hint(a) for a in get_args(hint))
    return isinstance(hint, type) and issubclass(hint, Evidence) and line_is_fields(hint)


def trace_record(
    t: RagTrace, iso: str | None, query: str, answer: str, hashes: list[str]
) -> JsonObject:
    """The trace's record as the store keeps it: its question and answer as given (redacted
    or not), each packed passage by its ids and the hash its text is stored under
    (``hashes``), ragmon's own attributes (an agent's steps); ``iso``: its time as its line
    has it."""
    return {
        "trace_id": t.trace_id, "timestamp": iso,
        "app": t.app, "route": t.route, "release": t.release, "model": t.model,
        "session_id": t.session_id, "golden_id": t.golden_id,
        "query": query, "answer": answer,
        "context": [{"doc_id": p.doc_id, "chunk_id": p.chunk_id, "data_source": p.data_source,
                     "hash": h} for p, h in zip(t.context, hashes, strict=True)],
        "retrieved": [{"doc_id": d.doc_id, "chunk_id": d.chunk_id, "score": d.score,
                       "rank": d.rank} for d in t.retrieved],
        "attributes": {k: v for k, v in t.attributes.items() if k.startswith("ragmon.")},
    }  # fmt: skip


def outcomes(checks: Mapping[str, CheckLine]) -> tuple[list[tuple[str, str]], bool]:
    """The checks of an evaluation line that flagged or failed, with which
    (``check_outcome``), and whether one flagged."""
    found = []
    for name, result in checks.items():
        outcome = check_outcome(result["flagged"], "error" in result)
        if outcome is not None:
            found.append((name, outcome))
    return found, any(result["flagged"] for result in checks.values())


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
    # a scalar is taken as it is, not by a call of its own (most of an evidence's values)
    if isinstance(value, dict):
        return {k: _without_none(v) if isinstance(v, _NESTED) else v
                for k, v in value.items() if v is not None}  # fmt: skip
    if isinstance(value, list):
        return [_without_none(v) if isinstance(v, _NESTED) else v for v in value]
    return value


_NESTED = (dict, list)


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
