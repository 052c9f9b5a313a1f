"""What the store takes of an evaluation in the daemon's pipeline: which evidence types the
writer makes the line of from their fields (derived from the types, not listed), and the
line the sinks share, carried by the evaluation."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator, Mapping
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec

import monitor.checks.evidence
from monitor.checks.evidence import NumbersEvidence
from monitor.core.evidence import Evidence
from monitor.core.model import CheckResult, Evaluation
from monitor.core.pii import Redactor
from monitor.core.verdict import Claim, Verdict
from sinks.jsonl import made_line, written_line
from sinks.store_record import (
    Captured,
    capture,
    checks_line,
    decode_hook,
    encode_hook,
    line_is_fields,
    line_of,
)
from tests.unit.test_store import evaluate, trace

assert monitor.checks.evidence  # every evidence type of ragmon's is defined


def _ours() -> list[type[Evidence]]:
    """ragmon's evidence types (each class as its module names it)."""

    def under(kind: type[Evidence]) -> Iterator[type[Evidence]]:
        for sub in kind.__subclasses__():
            yield sub
            yield from under(sub)

    found: set[type[Evidence]] = {Evidence, *under(Evidence)}
    found = {k for k in found if k.__module__.startswith("monitor.")}
    return sorted((k for k in found if getattr(sys.modules[k.__module__], k.__name__, None) is k),
                  key=lambda k: k.__qualname__)  # fmt: skip


def _sample(hint: object, empty: bool) -> object:
    """A value of type ``hint``: None where the type allows it when ``empty``, else a value."""
    if hint is type(None):
        return None
    if hint in (str, int, float, bool):
        return {str: "a", int: 2, float: 0.5, bool: True}[hint]
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return args[0]
    if origin in (Union, UnionType):
        if empty and type(None) in args:
            return None
        return _sample(next(a for a in args if a is not type(None)), empty)
    if origin in (tuple, list):
        item = args[0]
        values = [_sample(item, empty=False), _sample(item, empty=True)]
        return tuple(values) if origin is tuple else values
    assert isinstance(hint, type) and issubclass(hint, Evidence), hint
    return _instance(hint, empty)


def _instance(kind: type[Evidence], empty: bool) -> Evidence:
    hints = get_type_hints(kind)
    return kind(**{f.name: _sample(hints[f.name], empty) for f in dataclasses.fields(kind)})


def _line_from_fields(evidence: Evidence) -> object:
    """The evidence's line as the writer makes it from what the daemon sent (its fields)."""
    result = CheckResult("x", False, evidence=evidence)
    sent = msgspec.msgpack.decode(msgspec.msgpack.encode({"x": result}))
    return checks_line(sent)["x"]["evidence"]


def test_the_writer_makes_the_line_of_every_evidence_type_of_ours_from_its_fields() -> None:
    """Each of ragmon's evidence types is sent as its fields (derived from the type), and
    what the writer makes of them is its line: each field filled and each left None (inside
    tuples too)."""
    kinds = _ours()
    assert len(kinds) >= 9, kinds  # the base, NotApplicable and the checks' (Conflict too)
    for kind in kinds:
        assert line_is_fields(kind), kind
        for empty in (False, True):
            evidence = _instance(kind, empty)
            assert _line_from_fields(evidence) == evidence.to_line(), (kind, empty)


@dataclasses.dataclass(frozen=True, slots=True)
class _WithMapping(NumbersEvidence):
    """One of ours with a field holding a mapping, whose None values its line keeps."""

    detail: dict[str, int | None] | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class _OwnLine(Evidence):
    """A plugin's evidence that makes its own line."""

    text: str = ""

    def to_line(self) -> dict[str, object]:
        return {"said": self.text.upper()}


@dataclasses.dataclass(frozen=True, slots=True)
class _Nested(Evidence):
    anything: Any = None
    named: tuple[_OwnLine, ...] = ()
    by_key: Mapping[str, str] | None = None


def test_an_evidence_type_whose_fields_are_not_its_line_is_sent_as_its_line() -> None:
    """A mapping in a field (even one added to a type of ours), an evidence type with its own
    line, a field of any type or holding such evidence: the daemon sends the line the type
    makes, and the writer stores exactly it."""
    mapping = _WithMapping(("12",), 1, detail={"kept": None, "two": 2})
    assert _line_from_fields(mapping) != mapping.to_line()  # why it must not be sent so
    for evidence in (mapping, _OwnLine("x"), _Nested(anything={"a": None}), _Nested(named=(
            _OwnLine("y"),)), _Nested(by_key={"a": "b"})):  # fmt: skip
        assert not line_is_fields(type(evidence)), type(evidence)
        ev = Evaluation(trace(1), {"numbers": CheckResult("numbers", True, evidence=evidence)})
        sent = msgspec.msgpack.encode(capture(ev, 0.0), enc_hook=encode_hook)
        c = msgspec.msgpack.decode(sent, type=Captured, dec_hook=decode_hook)
        assert c.checks is None and c.line is not None
        assert c.line["checks"] == msgspec.json.decode(msgspec.json.encode(ev.to_line()["checks"]))


def test_the_line_the_sinks_write_is_made_once_an_evaluation_and_carried_by_it() -> None:
    """The first sink that makes an evaluation's line leaves it on the evaluation for the
    others (a redactor of the same detectors), never on an evaluation made from it (a later
    verdict), and it changes nothing of what the evaluation is."""
    ev = evaluate(trace(1, query="Refund for jane.doe@example.com"))
    before = dataclasses.replace(ev)
    assert made_line(ev, Redactor()) is None  # nothing made yet
    made = written_line(ev, Redactor())
    assert made_line(ev, Redactor()) is made and written_line(ev, Redactor()) is made
    assert made_line(ev, None) is None  # made for another redactor (none): its own
    assert "jane.doe" not in made.query
    assert ev == before and "written" not in repr(ev)
    later = dataclasses.replace(ev, judge_skipped="batched")
    assert later.written is None and made_line(later, Redactor()) is None
    assert written_line(later, Redactor()).line["judge"] == {"skipped": "batched"}
    skipped = ev.skipped("off")
    assert skipped.written is None


def test_a_judged_evaluation_sends_its_line_and_the_writer_makes_its_checks() -> None:
    """A verdict (a pydantic model msgspec does not encode) is in the line the daemon makes;
    the checks' part is still the writer's, and the whole is the evaluation's line."""
    claim = Claim(text="The refund fee is 25 euros.", label="CONTRADICTED", passage=1)
    verdict = Verdict(judge="heuristic", model="h", rubric_version="1", verdict="hard_fail",
                      score=0.0, weight=1.0, claims=[claim])  # fmt: skip
    ev = dataclasses.replace(evaluate(trace(2)), judge=verdict)
    sent = msgspec.msgpack.encode(capture(ev, 0.0), enc_hook=encode_hook)
    c = msgspec.msgpack.decode(sent, type=Captured, dec_hook=decode_hook)
    assert c.line is not None and c.checks is not None and c.members is None
    assert line_of(c) == msgspec.json.decode(msgspec.json.encode(ev.to_line()))
