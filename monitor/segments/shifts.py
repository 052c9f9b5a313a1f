"""The measured inputs whose distributions moved most between two sets of evaluation lines
(``ragmon explain``'s last part).

Inputs: each measured input's distributions compared over bins cut at the deciles of the
earlier period (its distinct values when there are at most ten; below the earlier minimum is
a bin of its own), half a count added to every bin. Ranked by the Jensen-Shannon distance
(bounded: 0 the same, 1 disjoint, so a count of passages and a number of characters rank on
one scale); the level is the population stability index's conventional reading: under 0.1
no shift, 0.1-0.25 moderate, over 0.25 major.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from monitor.core.lines import JsonObject, Line


@dataclass(frozen=True, slots=True)
class InputShift:
    """How far one measured input's distribution moved."""

    input: str
    shift: float  # Jensen-Shannon distance: the ranking
    psi: float  # population stability index: the level
    before: float  # median
    after: float
    n_before: int
    n_after: int

    @property
    def level(self) -> str:
        """By the PSI's conventional reading: ``none`` (< 0.1), ``moderate`` (< 0.25) or
        ``major``."""
        return "none" if self.psi < 0.1 else "moderate" if self.psi < 0.25 else "major"

    def as_dict(self) -> JsonObject:
        """The JSON form."""
        return {"input": self.input, "shift": self.shift, "psi": self.psi, "level": self.level,
                "before": self.before, "after": self.after,
                "n_before": self.n_before, "n_after": self.n_after}  # fmt: skip


def _bins(before: Sequence[float]) -> list[float]:
    """Bin edges from the earlier period: each distinct value when there are at most ten,
    else the deciles; the earlier minimum is an edge too, so values below everything seen
    before fall in a bin of their own."""
    ordered = sorted(before)
    distinct = sorted(set(ordered))
    if len(distinct) <= 10:
        return distinct
    return sorted({ordered[0], *(ordered[int(len(ordered) * q / 10)] for q in range(1, 10))})


def _shares(values: Sequence[float], edges: Sequence[float]) -> list[float]:
    counts = [0.5] * (len(edges) + 1)  # half a count in every bin: no empty bin
    for v in values:
        counts[bisect.bisect_right(edges, v)] += 1
    total = sum(counts)
    return [c / total for c in counts]


def _distributions(
    before: Sequence[float], after: Sequence[float]
) -> tuple[list[float], list[float]]:
    """The shares of ``before`` and ``after`` over the same bins (``_bins``)."""
    edges = _bins(before)
    return _shares(before, edges), _shares(after, edges)


def _psi(b: Sequence[float], a: Sequence[float]) -> float:
    return sum((x - y) * math.log(x / y) for x, y in zip(a, b, strict=True))


def _js(b: Sequence[float], a: Sequence[float]) -> float:
    m = [(x + y) / 2 for x, y in zip(a, b, strict=True)]
    div = sum(x * math.log2(x / z) + y * math.log2(y / z) for x, y, z in zip(a, b, m, strict=True))
    return math.sqrt(max(0.0, div / 2))


def psi(before: Sequence[float], after: Sequence[float]) -> float:
    """Population stability index of ``after`` against ``before`` (``_bins``)."""
    return _psi(*_distributions(before, after))


def js_distance(before: Sequence[float], after: Sequence[float]) -> float:
    """Jensen-Shannon distance (base 2: 0 the same, 1 disjoint) over the same bins: bounded,
    so inputs of few distinct values and continuous ones rank on one scale."""
    return _js(*_distributions(before, after))


def input_shifts(before: Iterable[Line], after: Iterable[Line]) -> list[InputShift]:
    """Each input both sets measured, most-moved first."""

    def values(lines: Iterable[Line]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for each in lines:
            if "followup" in each:
                continue
            line = each  # not a follow-up line: an evaluation line
            if line.get("judge_only"):
                continue
            for k, v in (line.get("inputs") or {}).items():
                if isinstance(v, int | float) and not isinstance(v, bool):
                    out.setdefault(k, []).append(float(v))
        return out

    b, a = values(before), values(after)
    shifts = []
    for k in sorted(b.keys() & a.keys()):
        shares = _distributions(b[k], a[k])  # binned once for both measures
        shifts.append(InputShift(k, _js(*shares), _psi(*shares), statistics.median(b[k]),
                                 statistics.median(a[k]), len(b[k]), len(a[k])))  # fmt: skip
    shifts.sort(key=lambda s: (-s.shift, s.input))
    return shifts
