"""What moved, and why: a rate's change between two sets of evaluation lines, split per
segment dimension into **mix** (the traffic's composition changed) and **rate** (a segment's
own rate changed), and the inputs whose distributions moved most.

For one dimension with segments s, shares p and rates r before (0) and after (1), the change
of the overall rate is exactly (Kitagawa's symmetric decomposition)::

    sum_s p1 r1 - p0 r0 = sum_s (p1 - p0)(r0 + r1)/2   [mix]
                        + sum_s (r1 - r0)(p0 + p1)/2   [rate]

and a segment's contribution, its mix term plus its rate term, is p1 r1 - p0 r0: the change of
its share of all flagged traces (a segment seen in one period only has no rate change: all of
it is mix). Each contribution, each rate change and each share change gets a Newcombe interval
(the difference of two independent proportions, from their Wilson intervals); the intervals
are Bonferroni-widened over every segment of every dimension and rate in the report, so
"significant" (an interval that excludes 0) holds for the whole table at 95 %, and unchanged
traffic marks nothing. The judge's hard-fail rate is weighted by 1/p as the daemon's counters
are; its intervals use the number of judged traces.

The inputs that shifted: ``monitor.segments.shifts``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from monitor.core.lines import FollowupLine, JsonObject, Line
from monitor.core.model import FOLLOWUP_SIGNALS
from monitor.core.stats import wilson
from monitor.segments.causes import Cause, rank_causes
from monitor.segments.changes import Observation, SegmentChange

JUDGE = "judge_hard_fail"  # the judge's hard-fail rate, beside the checks' flagged rates
_Z95 = 1.959963984540054


FOLLOWUP = "followup_"  # a follow-up rate's name: this, then the signal


def observations(lines: Iterable[Line]) -> dict[str, list[Observation]]:
    """Rate name -> the observations of ``lines`` (evaluation lines): each flag-output
    check's applicable results, the judge's verdicts (not ``not_applicable``), and per
    follow-up signal, the pairs of a conversation's turns (``followup_rephrase``, ...: the
    share of pairs whose next turn carried it, in the first turn's segments, read from its
    evaluation line earlier in the same set)."""
    return _read(lines)[0]


def _read(
    lines: Iterable[Line],
) -> tuple[dict[str, list[Observation]], dict[str, list[Observation]]]:
    """``observations`` and, per flag-output check, its coverage: every result of it,
    applicable or not, as an observation whose ``flagged`` says it applied."""
    out: dict[str, list[Observation]] = {}
    coverage: dict[str, list[Observation]] = {}
    turns: dict[str, Mapping[str, str]] = {}  # turns' segments until their follow-up line
    for each in lines:
        if "followup" in each:
            follow = cast(FollowupLine, each)["followup"]  # checked: it has the key
            segments = turns.pop(each["trace_id"], {})
            said = follow.get("signals") or []
            for signal in FOLLOWUP_SIGNALS:
                out.setdefault(FOLLOWUP + signal, []).append(Observation(segments, signal in said))
            continue
        line = each  # not a follow-up line: an evaluation line
        if line.get("judge_only"):
            continue
        if "session_id" in line:
            turns[line["trace_id"]] = line.get("segments") or {}
        segments = line.get("segments") or {}
        # sampled upstream: the trace stands for this many (1 when nothing says)
        adjusted = float(line.get("adjusted_count") or 1.0)
        for name, result in (line.get("checks") or {}).items():
            if "score" in result:
                continue
            applies = bool(result.get("applicable"))
            coverage.setdefault(name, []).append(Observation(segments, applies, adjusted))
            if applies:
                flagged = bool(result["flagged"])
                out.setdefault(name, []).append(Observation(segments, flagged, adjusted))
        judge = line.get("judge") or {}
        verdict = judge.get("verdict")
        if verdict in ("pass", "fail", "hard_fail"):
            weight = float(judge.get("weight") or 1.0) * adjusted
            out.setdefault(JUDGE, []).append(Observation(segments, verdict == "hard_fail", weight))
    return out, coverage


def _newcombe(f1: float, n1: int, f0: float, n0: int, z: float) -> tuple[float, float]:
    """Interval of p1 - p0 (Newcombe's hybrid score method from two Wilson intervals);
    ``f`` are (possibly weighted) successes scaled to ``n`` trials."""
    p1 = f1 / n1 if n1 else 0.0
    p0 = f0 / n0 if n0 else 0.0
    l1, u1 = _wilson(p1, n1, z)
    l0, u0 = _wilson(p0, n0, z)
    d = p1 - p0
    return (d - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2))  # fmt: skip


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    if n <= 0:
        return (0.0, 1.0)  # nothing observed: anything is possible
    k = round(min(max(p, 0.0), 1.0) * n)
    return wilson(k, n, z)


@dataclass(frozen=True, slots=True)
class _Side:
    n: int  # traces
    weight: float  # their weight (= n without weights)
    flagged: float  # weighted flagged

    @property
    def rate(self) -> float:
        return self.flagged / self.weight if self.weight else 0.0


def _side(obs: Sequence[Observation]) -> _Side:
    return _Side(len(obs), sum(o.weight for o in obs), sum(o.weight for o in obs if o.flagged))


@dataclass(slots=True)
class RateChange:
    """One rate (a check's flagged share, or the judge's hard-fail share) before and after,
    decomposed per dimension."""

    name: str
    before: _Side
    after: _Side
    dimensions: dict[str, list[SegmentChange]] = field(default_factory=dict)
    # across dimensions: the causes, most important first, then their stand-ins
    causes: list[Cause] = field(default_factory=list)
    # a check's: the traces that carried it, applicable or not, before and after
    carried: tuple[int, int] | None = None

    @property
    def change(self) -> float:
        """After minus before."""
        return self.after.rate - self.before.rate

    def interval(self, z: float = _Z95) -> tuple[float, float]:
        """Interval of ``change`` (judged traces count once each, whatever their weight)."""
        b, a = self.before, self.after
        return _newcombe(a.rate * a.n, a.n, b.rate * b.n, b.n, z)

    def parts(self, dimension: str) -> tuple[float, float]:
        """(mix, rate) of ``dimension``: they add up to ``change``."""
        segs = self.dimensions[dimension]
        return sum(s.mix for s in segs), sum(s.rate for s in segs)

    def as_dict(self) -> JsonObject:
        """The JSON form."""

        def side(s: _Side, carried: int | None) -> JsonObject:
            out: JsonObject = {"n": s.n, "flagged": s.flagged, "rate": s.rate}
            if carried is not None:  # n of these: the traces the check applied to
                out["traces"] = carried
            return out

        dims = {}
        for d, segs in self.dimensions.items():
            mix, rate = self.parts(d)
            dims[d] = {"mix": mix, "rate": rate, "segments": [s.as_dict() for s in segs]}
        b, a = self.carried or (None, None)
        return {"before": side(self.before, b), "after": side(self.after, a),
                "change": self.change,
                "causes": [c.as_dict() for c in self.causes], "dimensions": dims}  # fmt: skip


def _groups(
    before: Sequence[Observation], after: Sequence[Observation], dimension: str
) -> dict[str, tuple[list[Observation], list[Observation]]]:
    groups: dict[str, tuple[list[Observation], list[Observation]]] = {}
    for obs, i in ((before, 0), (after, 1)):
        for o in obs:
            groups.setdefault(o.segments.get(dimension, "unknown"), ([], []))[i].append(o)
    return groups


def _decompose(
    before: Sequence[Observation],
    after: Sequence[Observation],
    dimension: str,
    z: float,
    coverage: tuple[Sequence[Observation], Sequence[Observation]] | None = None,
) -> list[SegmentChange]:
    b_all, a_all = _side(before), _side(after)
    groups = _groups(before, after, dimension)
    checkable = _checkable(coverage, dimension, z) if coverage is not None else {}
    out = []
    for segment, (b, a) in groups.items():
        sb, sa = _side(b), _side(a)
        p0 = sb.weight / b_all.weight if b_all.weight else 0.0
        p1 = sa.weight / a_all.weight if a_all.weight else 0.0
        r0 = sb.rate if sb.n else None
        r1 = sa.rate if sa.n else None
        r0v = r0 if r0 is not None else (r1 or 0.0)  # seen once: no rate change, all mix
        r1v = r1 if r1 is not None else r0v
        mix = (p1 - p0) * (r0v + r1v) / 2
        rate = (r1v - r0v) * (p0 + p1) / 2
        # the segment's flagged share of all traces, before and after: p r = flagged / N
        f1 = sa.flagged / a_all.weight * a_all.n if a_all.weight else 0.0
        f0 = sb.flagged / b_all.weight * b_all.n if b_all.weight else 0.0
        contribution = _newcombe(f1, a_all.n, f0, b_all.n, z)
        rate_iv = None
        if sb.n and sa.n:
            rate_iv = _newcombe(sa.rate * sa.n, sa.n, sb.rate * sb.n, sb.n, z)
        share_iv = _newcombe(p1 * a_all.n, a_all.n, p0 * b_all.n, b_all.n, z)
        change = SegmentChange(segment, p0, p1, r0, r1, mix, rate, contribution, rate_iv, share_iv)
        if segment in checkable:
            ch = checkable[segment]
            change.checkable_before, change.checkable_after = ch.before, ch.after
            change.checkable_interval, change.checkable_part = ch.interval, ch.part
        out.append(change)
    out.sort(key=lambda s: (-abs(s.contribution), s.segment))
    return out


@dataclass(frozen=True, slots=True)
class _Checkable:
    before: float | None  # the share of the segment's traces the check applied to
    after: float | None
    interval: tuple[float, float] | None  # of after - before
    part: float  # the part of the segment's share of the checked traces it moved


def _checkable(
    coverage: tuple[Sequence[Observation], Sequence[Observation]], dimension: str, z: float
) -> dict[str, _Checkable]:
    """Per segment of ``dimension``: the share of its traces a check applied to, before and
    after, and how much of the move of its share of the checked traces that accounts for.
    The share of the checked traces is p = t a / sum(t a) (t its share of the traffic, a the
    share of its traces checked); its move is split between t and a symmetrically (the mean
    of the two orders of changing one, then the other), so the two parts add up to it."""
    groups = _groups(*coverage, dimension)
    sides = {s: (_side(b), _side(a)) for s, (b, a) in groups.items()}
    total_b, total_a = _side(coverage[0]).weight, _side(coverage[1]).weight
    t: dict[str, tuple[float, float]] = {}
    a: dict[str, tuple[float, float]] = {}
    for s, (sb, sa) in sides.items():
        t[s] = (sb.weight / total_b if total_b else 0.0, sa.weight / total_a if total_a else 0.0)
        a0 = sb.rate if sb.n else sa.rate  # seen in one period: no change of its own
        a1 = sa.rate if sa.n else a0
        a[s] = (a0, a1)

    def share(s: str, ti: int, ai: int) -> float:
        whole = sum(t[u][ti] * a[u][ai] for u in t)
        return t[s][ti] * a[s][ai] / whole if whole else 0.0

    out = {}
    for s, (sb, sa) in sides.items():
        part = ((share(s, 0, 1) - share(s, 0, 0)) + (share(s, 1, 1) - share(s, 1, 0))) / 2
        iv = _newcombe(sa.rate * sa.n, sa.n, sb.rate * sb.n, sb.n, z) if sb.n and sa.n else None
        out[s] = _Checkable(sb.rate if sb.n else None, sa.rate if sa.n else None, iv, part)
    return out


def _z(tests: int) -> float:
    """The normal quantile of a two-sided 95 % interval, Bonferroni-widened over ``tests``."""
    alpha = 0.05 / max(1, tests)
    return statistics.NormalDist().inv_cdf(1 - alpha / 2)


def explain_rates(
    before: Iterable[Line],
    after: Iterable[Line],
    only: Sequence[str] = (),
) -> dict[str, RateChange]:
    """Every rate of both sets (or ``only`` those), decomposed per segment dimension."""
    (b, cover_b), (a, cover_a) = _read(before), _read(after)
    names = [n for n in sorted(b.keys() & a.keys()) if not only or n in only]
    dimensions = sorted({d for obs in (*b.values(), *a.values()) for o in obs
                         for d in o.segments})  # fmt: skip
    tests = 0
    for n in names:
        for d in dimensions:
            values = {o.segments.get(d, "unknown") for o in (*b[n], *a[n])}
            tests += len(values)
    z = _z(tests)
    # the causes' tests (a candidate's own move, and its move with each other dimension held
    # fixed): at most every segment against every dimension, one family with the rest
    z_causes = _z(tests * (1 + len(dimensions)))
    out = {}
    for n in names:
        change = RateChange(n, _side(b[n]), _side(a[n]))
        coverage = (cover_b[n], cover_a[n]) if n in cover_b and n in cover_a else None
        if coverage is not None:
            change.carried = (len(coverage[0]), len(coverage[1]))
        for d in dimensions:
            change.dimensions[d] = _decompose(b[n], a[n], d, z, coverage)
        change.causes = rank_causes(change.dimensions, b[n], a[n], z_causes, coverage)
        out[n] = change
    return out
