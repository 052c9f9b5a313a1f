"""Causes across dimensions: which segments account for a rate's move, and which only stand
in for another (``ragmon explain``'s first answer).

Each dimension is decomposed alone (``explain``), so a cause that lives in one dimension
leaks into every dimension correlated with it: when Spanish queries start to refuse and every
Spanish query is of medium length, ``query_length=medium`` moves too — sometimes first. The
candidates are the significant segments of every dimension with more than one value (a
dimension with one value is all traffic: never a cause), each with its kind: ``rate`` (its
own rate moved), ``mix`` (its share of the traffic moved) or ``applicability`` (the share of
its traces a check applied to moved, and with it its share of the checked traces: billing
cut to one passage leaves the conflict check's traces while it is still 40 % of the
traffic), the larger of its two significant terms.

Two candidates of different dimensions are tested against each other by holding one's
dimension fixed (stratification, Mantel–Haenszel style):

* a ``rate`` candidate X, within each stratum k of the other dimension: the change of X's
  rate minus the change of the rest's rate, ``(r1[X,k] - r0[X,k]) - (r1[¬X,k] - r0[¬X,k])``
  — the move X has of its own, beyond what the stratum did;
* a ``mix`` candidate X, within each stratum k: the change of X's share of the stratum,
  ``q1[X|k] - q0[X|k]``;
* an ``applicability`` candidate X: as a ``rate`` candidate, of the share of its traces the
  check applied to (over every trace that carried the check).

The strata's differences are pooled with weights ``1 / sum(1/n)`` over their cells (the
Mantel–Haenszel weight of a difference; a stratum where a cell is empty has no contrast and
is left out; a cell's variance read as Agresti and Caffo do, one success and one failure
added, so a cell all flagged is not certain) into an adjusted effect with a normal
interval, Bonferroni-widened over the
report's segments times its dimensions (every candidate against every dimension, the raw
effect included: at most that many tests). X **stands in** for Y when X's move vanishes
with Y's dimension held fixed (its adjusted interval includes 0 and it keeps under half of
its raw effect, or under a quarter whatever its interval) while Y's move persists with X's
dimension held fixed (its adjusted interval excludes 0 and it keeps at least half of its raw
effect, in the same direction). A
stand-in is reported as explained by the strongest such Y, after the causes; two candidates
that both persist given the other are both causes. A candidate whose dimension never shares
a stratum with another's (no contrast left) is left a cause: unknown beats a guess; so is
one whose strata with a contrast hold under half of its traces (``COVERED``) among the
strata seen in both periods beside other traffic: billing's traces, mixed sources before
and one source after, are compared on the few that were of one source before, which says
nothing of the rest.

The shares of one dimension add up to one, so one share's move is every other segment's
move too: per dimension, the share move (``mix`` or ``applicability``) that contributes most
is the cause and every other ``mix`` candidate of that dimension is its **counterpart** (the
old release's shrinking share beside the new one's; help-center's rise beside faq's, both
taking billing's traces from mixed), never a second cause.

A segment counts as a cause only with a move of its own: its raw effect (the same statistic
over all traffic) has an interval that excludes 0. Every segment of an unrelated dimension
(both releases, every route) is significant when the whole rate rises, but moves only as the
rest does: such a segment is the stand-in of the cause that persists with its dimension held
fixed, and is left out when there is none (the move is across the traffic, not in a segment).

Each follower carries its ``relation``: ``stand_in`` (a move of its own that vanishes with
the named segment's dimension held fixed), ``counterpart``, or ``with_all`` (no move of its
own: explained by the cause at the end of the chain).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from monitor.core.lines import JsonObject
from monitor.segments.changes import Observation, SegmentChange

VANISHED = 0.25  # an adjusted effect below this share of the raw one has vanished
KEPT = 0.5  # an adjusted effect keeps at least this share of the raw one to persist
# the strata with a contrast must hold at least this share of the candidate's traces in each
# period for its adjusted effect to speak for it (else: no contrast, nothing decided)
COVERED = 0.5


@dataclass(frozen=True, slots=True)
class Cause:
    """A segment that accounts for a rate's move (or stands in for one that does)."""

    dimension: str
    segment: str
    kind: str  # "rate" or "mix"
    contribution: float
    interval: tuple[float, float]
    significant: bool
    rate_before: float | None
    rate_after: float | None
    share_before: float
    share_after: float
    explained_by: str | None = None  # "<dimension>=<segment>" of the cause it follows
    # how it follows it: "stand_in" (its move vanishes with the cause's dimension held
    # fixed), "counterpart" (the other side of the cause's share move in one dimension) or
    # "with_all" (no move of its own: it moved as all traffic did)
    relation: str | None = None
    # kind "applicability": the share of the segment's traces the check applied to
    checkable_before: float | None = None
    checkable_after: float | None = None

    @property
    def name(self) -> str:
        """``dimension=segment``."""
        return f"{self.dimension}={self.segment}"

    def as_dict(self) -> JsonObject:
        """The JSON form (``checks.<check>.causes`` of ``ragmon explain --output-json``)."""
        out: JsonObject = {
            "dimension": self.dimension, "segment": self.segment, "kind": self.kind,
            "contribution": self.contribution, "interval": list(self.interval),
            "significant": self.significant,
        }  # fmt: skip
        if self.kind == "applicability":
            out["checkable_before"] = self.checkable_before
            out["checkable_after"] = self.checkable_after
        if self.explained_by is not None:
            out["explained_by"] = self.explained_by
            out["relation"] = self.relation
        return out


@dataclass(frozen=True, slots=True)
class _Effect:
    raw: float
    raw_half_width: float
    adjusted: float | None  # None: no stratum with a contrast
    half_width: float

    def own(self) -> bool:
        """The candidate moved apart from the rest of the traffic (its raw interval excludes
        0): a segment that only moved with everything is no cause of its own."""
        return abs(self.raw) > self.raw_half_width

    def vanishes(self) -> bool:
        if self.adjusted is None or self.raw == 0:
            return False
        kept = abs(self.adjusted) / abs(self.raw)
        includes_zero = abs(self.adjusted) <= self.half_width
        return kept < VANISHED or (includes_zero and kept < KEPT)

    def persists(self) -> bool:
        if self.adjusted is None or self.raw == 0:
            return False
        same_way = self.adjusted * self.raw > 0
        return (
            same_way
            and abs(self.adjusted) > self.half_width
            and (abs(self.adjusted) >= KEPT * abs(self.raw))
        )


# Per period: (traces, weight, weighted flagged) of the traces of one combination of segments.
_Cell = tuple[int, float, float]
_EMPTY: _Cell = (0, 0.0, 0.0)


def _add(a: _Cell, b: _Cell) -> _Cell:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _rate(cell: _Cell) -> float:
    return cell[2] / cell[1] if cell[1] else 0.0


def _spread(p: float, n: int) -> float:
    """The variance of a proportion ``p`` of ``n``, read as Agresti and Caffo do (one success
    and one failure added): a cell all flagged or none is not certain."""
    q = (p * n + 1) / (n + 2)
    return q * (1 - q) / n


@dataclass(frozen=True, slots=True)
class _Table:
    """The observations of both periods counted per combination of segments (one pass over
    them; every effect then reads the few combinations, not the traces)."""

    rows: list[tuple[dict[str, str], _Cell, _Cell]]  # segments, before, after

    @classmethod
    def of(cls, before: Sequence[Observation], after: Sequence[Observation]) -> _Table:
        counts: dict[tuple[tuple[str, str], ...], list[_Cell]] = {}
        for period, obs in ((0, before), (1, after)):
            for o in obs:
                key = tuple(sorted(o.segments.items()))
                cells = counts.setdefault(key, [_EMPTY, _EMPTY])
                cells[period] = _add(cells[period], (1, o.weight, o.weight if o.flagged else 0.0))
        return cls([(dict(k), c[0], c[1]) for k, c in counts.items()])


def _diff(kind: str, cells: dict[tuple[bool, int], _Cell]) -> tuple[float, float, float]:
    """A stratum's (or all traffic's) difference, its variance and its weight; weight 0 when
    a cell it needs is empty (no contrast). ``cells[(inside, period)]``."""
    if kind == "rate":
        four = [cells.get((x, t), _EMPTY) for t in (0, 1) for x in (True, False)]
        if min(c[0] for c in four) == 0:
            return (0.0, 0.0, 0.0)
        bx, bn, ax, an = four
        d = (_rate(ax) - _rate(bx)) - (_rate(an) - _rate(bn))
        var = sum(_spread(_rate(c), c[0]) for c in four)
        return (d, var, 1 / sum(1 / c[0] for c in four))
    sides = []
    for t in (0, 1):
        x, rest = cells.get((True, t), _EMPTY), cells.get((False, t), _EMPTY)
        total = _add(x, rest)
        if total[0] == 0 or total[1] == 0:
            return (0.0, 0.0, 0.0)
        sides.append((x[1] / total[1], total[0]))
    (q0, n0), (q1, n1) = sides
    return (q1 - q0, _spread(q0, n0) + _spread(q1, n1), 1 / (1 / n0 + 1 / n1))


def _effect(cand: Cause, held: str, table: _Table, z: float, stat: str) -> _Effect:
    """``cand``'s own move (by statistic ``stat``: ``rate`` or ``mix``), raw and with
    dimension ``held`` fixed (see the module doc)."""
    whole: dict[tuple[bool, int], _Cell] = {}
    strata: dict[str, dict[tuple[bool, int], _Cell]] = {}
    for segments, before, after in table.rows:
        x = segments.get(cand.dimension, "unknown") == cand.segment
        k = strata.setdefault(segments.get(held, "unknown"), {})
        for t, cell in ((0, before), (1, after)):
            whole[x, t] = _add(whole.get((x, t), _EMPTY), cell)
            k[x, t] = _add(k.get((x, t), _EMPTY), cell)
    raw, raw_var, _ = _diff(stat, whole)
    raw_half = z * math.sqrt(raw_var)
    total = pooled = var = 0.0
    covered = [0, 0]  # the candidate's traces in the strata with a contrast, per period
    mine = [0, 0]  # ... and in the strata it could be compared in
    for cells in strata.values():
        d, v, w = _diff(stat, cells)
        if w:
            total += w
            pooled += w * d
            var += w * w * v
        n = {key: cell[0] for key, cell in cells.items()}
        seen = all(n.get((True, t), 0) + n.get((False, t), 0) for t in (0, 1))
        if seen and (n.get((False, 0), 0) or n.get((False, 1), 0)):
            for t in (0, 1):
                mine[t] += n.get((True, t), 0)
                covered[t] += n.get((True, t), 0) if w else 0
    if not total or any(covered[t] < COVERED * mine[t] for t in (0, 1)):
        # no stratum, or too few of its traces, to compare: the strata speak for others
        return _Effect(raw, raw_half, None, 0.0)
    return _Effect(raw, raw_half, pooled / total, z * math.sqrt(var) / total)


def _kind(change: SegmentChange) -> str | None:
    """``rate``, ``mix`` or ``applicability``: the segment's significant term (the larger
    when both are)."""
    cause = change.cause
    if cause == "both":
        return "rate" if abs(change.rate) >= abs(change.mix) else change.share_kind
    return cause


def _counterparts(candidates: Sequence[Cause]) -> dict[str, Cause]:
    """The shares of one dimension add up to one: when a segment's share moves, the others'
    move too. Per dimension, the share move (``mix`` or ``applicability``) that contributes
    most is the cause; every other ``mix`` candidate of the same dimension is its
    counterpart (the same move seen from another segment: the old release's shrinking share,
    or help-center's rise beside faq's when both took billing's traces from mixed)."""
    out: dict[str, Cause] = {}
    primaries: dict[str, Cause] = {}
    for c in candidates:  # most contributing first
        if c.kind in ("mix", "applicability"):
            primaries.setdefault(c.dimension, c)
    for c in candidates:
        first = primaries.get(c.dimension)
        if first is not None and c is not first and c.kind == "mix":
            out[c.name] = first
    return out


def rank_causes(
    dimensions: Mapping[str, Sequence[SegmentChange]],
    before: Sequence[Observation],
    after: Sequence[Observation],
    z: float,
    coverage: tuple[Sequence[Observation], Sequence[Observation]] | None = None,
) -> list[Cause]:
    """The causes of a rate's move across ``dimensions`` (each decomposed alone), most
    important first, then the stand-ins, each with ``explained_by`` and ``relation`` (see
    the module doc). ``coverage``: a check's every result before and after, ``flagged``
    meaning it applied (the ``applicability`` candidates' own statistic)."""
    candidates = []
    for dimension, segments in dimensions.items():
        if len(segments) < 2:
            continue  # one value: all traffic
        for s in segments:
            kind = _kind(s)
            if not s.significant or kind is None:
                continue
            candidates.append(Cause(dimension, s.segment, kind, s.contribution,
                                    s.contribution_interval, True, s.rate_before,
                                    s.rate_after, s.share_before, s.share_after,
                                    checkable_before=s.checkable_before,
                                    checkable_after=s.checkable_after))  # fmt: skip
    candidates.sort(key=lambda c: (-abs(c.contribution), c.name))
    if not candidates:
        return []
    table = _Table.of(before, after)
    checked = _Table.of(*coverage) if coverage is not None else table
    effects: dict[tuple[str, str], _Effect] = {}

    def effect(c: Cause, held: str) -> _Effect:
        key = (c.name, held)
        if key not in effects:
            if c.kind == "applicability":  # its checkable share, beside the rest's
                effects[key] = _effect(c, held, checked, z, "rate")
            else:
                effects[key] = _effect(c, held, table, z, c.kind)
        return effects[key]

    any_dim = next(iter(dimensions), "")
    own = {x.name: effect(x, any_dim).own() for x in candidates}
    other_side = _counterparts(candidates)
    follows = {
        x.name: [other_side[x.name]] if x.name in other_side else
                [y for y in candidates if y.dimension != x.dimension and own[y.name]
                 and y.name not in other_side
                 and (not own[x.name] or effect(x, y.dimension).vanishes())
                 and effect(y, x.dimension).persists()]
        for x in candidates
    }  # fmt: skip
    # a segment with no move of its own and no cause to follow: the move is everywhere
    candidates = [x for x in candidates if own[x.name] or follows[x.name]]
    causes = [x for x in candidates if not follows[x.name]]
    roots = {c.name for c in causes}
    stand_ins = []
    for x in candidates:
        if not follows[x.name]:
            continue
        how = ("counterpart" if x.name in other_side else
               "stand_in" if own[x.name] else "with_all")  # fmt: skip
        y, seen = follows[x.name][0], {x.name}
        # with no move of its own, it follows the cause at the end of the chain; a stand-in
        # or a counterpart names the segment it was measured against
        while how == "with_all" and y.name not in roots and follows[y.name] and y.name not in seen:
            seen.add(y.name)
            y = follows[y.name][0]
        stand_ins.append(replace(x, explained_by=y.name, relation=how))
    return causes + stand_ins
