"""What a check saw, typed: the base of every check's evidence (``Evidence``), the answer
pieces it points at (``Highlight``), what a check's result is (``CheckOutput``) and the
metrics a check exports of its own (``CheckMeasure``). Imports nothing of ours; each check's
own evidence type is in ``monitor.checks.evidence``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Literal, Self


@dataclass(frozen=True, slots=True)
class Highlight:
    """A piece of the answer a check's evidence points at (``why``: number, name,
    citation, refusal), which the review page marks where it occurs."""

    text: str
    why: str


# What a check's result is: a verdict (``flag``: flagged or passed, counted as a rate), a
# continuous signal (``score``: never flags, reported as its mean), or both.
CheckOutput = Literal["flag", "score", "both"]


@dataclass(frozen=True, slots=True)
class CheckMeasure:
    """A metric a check exports of its own, per app and route (declared on the check as
    ``measures``; its evidence gives the values, ``Evidence.measured``): a ``histogram``
    observes each value, a ``counter`` adds it."""

    metric: str  # the Prometheus name, e.g. ragmon_grounding_overlap_ratio
    help: str
    kind: Literal["histogram", "counter"]
    buckets: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a check saw, typed. Each check has its own frozen subclass, which owns the one-line
    reason (``explain``), the answer pieces to mark (``highlights``) and the passages it names
    (``passages_named``); consumers call these instead of reading keys. ``to_line`` is the JSON
    of the evaluation line (fields in order, ``None`` left out, tuples as lists) and
    ``from_line`` reads it back (a stored row, a replayed line); unknown keys are ignored."""

    def to_line(self) -> dict[str, object]:
        """The evidence as it is written in evaluation lines."""
        out: dict[str, object] = {}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[name] = _plain(value)
        return out

    @classmethod
    def from_line(cls, line: Mapping[str, object]) -> Self:
        """The evidence of a stored line; fields it lacks take their defaults."""
        names = _field_names(cls)
        return cls(**{k: _frozen(v) for k, v in line.items() if k in names})

    def explain(self) -> str:
        """A short human-readable reason (OTel evaluation events, candidate rows)."""
        return json.dumps(self.to_line(), ensure_ascii=False)[:300]

    def highlights(self) -> tuple[Highlight, ...]:
        """Pieces of the answer this evidence points at."""
        return ()

    def measured(self) -> Mapping[str, float]:
        """Values of the check's own metrics (``CheckMeasure.metric`` -> value) on this
        trace; none by default."""
        return {}

    def passages_named(self) -> frozenset[int]:
        """1-based passage positions this evidence points at."""
        return frozenset()


@dataclass(frozen=True, slots=True)
class NotApplicable(Evidence):
    """Why a check had nothing to judge (an empty answer, a single passage, an error)."""

    reason: str = ""


NO_EVIDENCE = Evidence()


def _plain(value: object) -> object:
    if isinstance(value, Evidence):
        return value.to_line()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _frozen(value: object) -> object:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type[Evidence]) -> tuple[str, ...]:
    """An evidence type's fields in order, read once a type (``fields`` builds them anew on
    every call: most of what an evaluation line's evidence cost to make)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names
