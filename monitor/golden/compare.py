"""``ragmon compare``: two releases on the same golden probes, paired.

Traces (native records) with a ``golden_id`` and a ``release`` are checked and scored as the
daemon scores probes (``monitor.golden.probes``); a probe answered under both releases is a pair
(several answers under one release are averaged). Per metric: both means, the mean paired
difference B − A with a 95 % percentile bootstrap interval over the pairs (resampled with a
fixed seed), and an exact two-sided sign test; and the probes whose stage flipped between
``ok`` and a miss. Besides the retrieval metrics, ``flagged`` (any check flagged the answer)
and ``flagged:<check>`` are per-probe shares, so a gate (``monitor.golden.gate``) can hold a
check's failures at zero on the rows that matter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from monitor.checks import CheckSuite
from monitor.core.lines import GoldenItem, JsonObject
from monitor.core.model import Evaluation, RagTrace
from monitor.core.stats import bootstrap_interval, sign_test
from monitor.golden.probes import retrieval_scores, stage_of

if TYPE_CHECKING:
    from monitor.judge.pairwise import Ask

__all__ = ["Comparison", "MetricComparison", "Pairwise", "bootstrap_interval", "compare",
           "compare_values", "metrics_of", "pairwise", "sign_test"]  # fmt: skip

GOOD_STAGES = ("ok", "abstained")  # the probe got what it should: an answer, or a refusal
METRICS = (
    "answered_ok", "recall@retrieved", "recall@context", "ndcg@retrieved", "mrr@retrieved",
    "precision@retrieved", "precision@context",
)  # fmt: skip
Pair = tuple[str, float, float]  # golden id, release A's value, release B's value


def metrics_of(suite: CheckSuite) -> tuple[str, ...]:
    """Every metric ``compare`` computes with ``suite``: the retrieval and stage metrics,
    then ``flagged`` and ``flagged:<check>`` per check."""
    return (*METRICS, "flagged", *(f"flagged:{c.name}" for c in suite.checks))


@dataclass
class MetricComparison:
    """One metric of two releases on the same probes: the paired difference and its interval."""

    metric: str
    pairs: int
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    better: int
    worse: int
    p_value: float


@dataclass
class Comparison:
    """Two releases compared on the golden probes both answered."""

    release_a: str
    release_b: str
    metrics: list[MetricComparison] = field(default_factory=list)
    flipped: list[dict[str, str]] = field(default_factory=list)
    unpaired: int = 0
    pairs: dict[str, list[Pair]] = field(default_factory=dict)  # metric -> paired values

    def as_dict(self) -> JsonObject:
        """The comparison as JSON-ready data."""
        return {
            "release_a": self.release_a,
            "release_b": self.release_b,
            "metrics": [vars(m) for m in self.metrics],
            "flipped": self.flipped,
            "unpaired_probes": self.unpaired,
        }

    def table(self) -> str:
        """The comparison as a fixed-width table."""
        w = max([len("metric"), *(len(m.metric) for m in self.metrics)])  # the widest name
        head = f"{'metric':<{w}} {'pairs':>5} {self.release_a[:10]:>10} {self.release_b[:10]:>10} {'B - A':>7}  95% interval     better/worse  sign p"  # noqa: E501
        rows = [head]
        for m in self.metrics:
            rows.append(
                f"{m.metric:<{w}} {m.pairs:>5} {m.mean_a:>10.3f} {m.mean_b:>10.3f} {m.diff:>+7.3f}"
                f"  {m.low:+.3f} .. {m.high:+.3f}  {m.better:>5}/{m.worse:<5}  {m.p_value:.3g}"
            )
        for f in self.flipped:
            rows.append(f"flipped: {f['golden_id']}  {f['a']} -> {f['b']}")
        return "\n".join(rows)


def _scores(item: GoldenItem, evaluation: Evaluation, stage: str) -> dict[str, float]:
    out = {"answered_ok": float(stage in GOOD_STAGES)}
    for (metric, depth), value in retrieval_scores(item, evaluation).items():
        out[f"{metric}@{depth}"] = value
    flagged = {name: float(r.flagged) for name, r in evaluation.checks.items() if r.applicable}
    out["flagged"] = float(any(flagged.values()))
    out.update({f"flagged:{name}": v for name, v in flagged.items()})
    return out


def compare_values(metric: str, pairs: list[Pair]) -> MetricComparison:
    """Both means of ``pairs`` (at least one), the mean paired difference B - A with its
    95 % bootstrap interval, the probes better and worse, and the exact sign test."""
    a_vals = [a for _, a, _ in pairs]
    b_vals = [b for _, _, b in pairs]
    diffs = [b - a for a, b in zip(a_vals, b_vals, strict=True)]
    low, high = bootstrap_interval(diffs)
    better, worse = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return MetricComparison(
        metric, len(diffs), sum(a_vals) / len(a_vals), sum(b_vals) / len(b_vals),
        sum(diffs) / len(diffs), low, high, better, worse, sign_test(better, worse),
    )  # fmt: skip


def compare(
    traces: Iterable[RagTrace], items: dict[str, GoldenItem], release_a: str, release_b: str,
    suite: CheckSuite | None = None,
) -> Comparison:  # fmt: skip
    """Compare releases ``a`` and ``b`` on the probes both answered, paired by golden id.
    The table shows ``METRICS``; every metric's pairs (``metrics_of``) are kept for a gate."""
    suite = suite or CheckSuite()
    per: dict[str, dict[str, list[dict[str, float]]]] = {release_a: {}, release_b: {}}
    stages: dict[str, dict[str, str]] = {release_a: {}, release_b: {}}
    for trace in traces:
        if trace.release not in per or not trace.golden_id or trace.golden_id not in items:
            continue
        evaluation = Evaluation(trace, suite(trace))
        item = items[trace.golden_id]
        stage = stage_of(item, evaluation)
        per[trace.release].setdefault(trace.golden_id, []).append(_scores(item, evaluation, stage))
        stages[trace.release][trace.golden_id] = stage
    paired = sorted(per[release_a].keys() & per[release_b].keys())
    result = Comparison(release_a, release_b)
    result.unpaired = len(per[release_a].keys() ^ per[release_b].keys())

    def mean_of(release: str, gid: str, metric: str) -> float | None:
        values = [s[metric] for s in per[release][gid] if metric in s]
        return sum(values) / len(values) if values else None

    for metric in metrics_of(suite):
        pairs = []
        for gid in paired:
            a, b = mean_of(release_a, gid, metric), mean_of(release_b, gid, metric)
            if a is not None and b is not None:
                pairs.append((gid, a, b))
        if pairs:
            result.pairs[metric] = pairs
            if metric in METRICS:
                result.metrics.append(compare_values(metric, pairs))
    for gid in paired:
        stage_a, stage_b = stages[release_a][gid], stages[release_b][gid]
        if (stage_a in GOOD_STAGES) != (stage_b in GOOD_STAGES):
            result.flipped.append({"golden_id": gid, "a": stage_a, "b": stage_b})
    return result


@dataclass
class Pairwise:
    """Pairwise judgements of the two releases' answers, both orders each: B's wins, A's
    wins and ties per probe, the mean outcome (B win +1, tie 0, A win -1) with its 95 %
    paired bootstrap interval and sign test, and the probes whose preference changed with
    the order (position bias)."""

    pairs: int = 0
    b_wins: int = 0
    a_wins: int = 0
    ties: int = 0
    mean: float = 0.0
    low: float = 0.0
    high: float = 0.0
    p_value: float = 1.0
    calls: int = 0
    flipped: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> JsonObject:
        """The pairwise judgement as JSON-ready data."""
        return vars(self) | {"position_bias_rate": self.bias_rate}

    @property
    def bias_rate(self) -> float:
        """Share of pairs whose winner changed with the order the judge saw them in."""
        return len(self.flipped) / self.pairs if self.pairs else 0.0

    def table(self, a: str, b: str) -> str:
        """The pairwise judgement of releases ``a`` and ``b`` as a table."""
        if not self.pairs:
            return "pairwise: no probe answered under both releases"
        n = self.pairs
        return "\n".join([
            f"pairwise judge, both orders ({self.calls} calls for {n} pairs):",
            f"  {b} wins {self.b_wins} ({self.b_wins / n:.0%}), {a} wins {self.a_wins} "
            f"({self.a_wins / n:.0%}), ties {self.ties} ({self.ties / n:.0%})",
            f"  mean outcome (B +1, A -1) {self.mean:+.3f}, 95% interval {self.low:+.3f} .. "
            f"{self.high:+.3f}, sign p {self.p_value:.3g}",
            f"  order changed the preference on {len(self.flipped)} of {n} pairs "
            f"(position bias {self.bias_rate:.0%}): counted as ties",
        ])  # fmt: skip


def pairwise(
    traces: Iterable[RagTrace], items: dict[str, GoldenItem], release_a: str,
    release_b: str, ask: Ask,
) -> Pairwise:  # fmt: skip
    """Each golden probe answered under both releases, judged pairwise in both orders on
    the same passages: the item's gold passages, else release A's packed context."""
    from monitor.judge.pairwise import judge_pair

    first: dict[str, dict[str, RagTrace]] = {release_a: {}, release_b: {}}
    for trace in traces:
        if trace.release in first and trace.golden_id in items:
            first[trace.release].setdefault(str(trace.golden_id), trace)
    out = Pairwise()
    outcomes: list[float] = []
    for gid in sorted(first[release_a].keys() & first[release_b].keys()):
        a, b = first[release_a][gid], first[release_b][gid]
        gold = [str(p.get("text") or "") for p in items[gid].get("gold_passages") or []]
        passages = gold or [p.text for p in a.context]
        result = judge_pair(ask, a.query, passages, a.answer, b.answer)
        out.calls += 2
        winner = result.winner
        out.b_wins += winner == "b"
        out.a_wins += winner == "a"
        out.ties += winner == "tie"
        outcomes.append({"b": 1.0, "a": -1.0, "tie": 0.0}[winner])
        if result.flipped:
            out.flipped.append({"golden_id": gid, "a_first": result.first_order,
                                "b_first": result.second_order})  # fmt: skip
    out.pairs = len(outcomes)
    if outcomes:
        out.mean = sum(outcomes) / len(outcomes)
        out.low, out.high = bootstrap_interval(outcomes)
        out.p_value = sign_test(out.b_wins, out.a_wins)
    return out
