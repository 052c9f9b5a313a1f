"""The judge's metrics: sampling decisions, verdicts and their weights, claims, what judging
costs, how the judge runs, the jury's agreement and the calibration record."""

from __future__ import annotations

from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from monitor.core.verdict import Verdict
from monitor.telemetry.labels import LabelLimiter


class CalibrationFigures(Protocol):
    """What the metrics read of a calibration record (``Calibration`` has these): the core's
    metrics name the figures, not the judge wing's type."""

    judge: str
    rubric_version: str
    n: int
    agreement: float
    kappa: float
    sensitivity: float | None
    specificity: float | None


class JudgeMetrics:
    """The ``JudgeObserver`` half of ``Metrics``."""

    def _define_judge(self, registry: CollectorRegistry) -> None:
        """The judge's findings: sampling decisions, verdicts and their weights, claims."""
        self.judge_decisions = Counter(
            "ragmon_judge_decisions_total",
            "Judge funnel: judged, not_sampled, over_budget, queue_full, not_judgeable, "
            "circuit_open, paused, cached, batched, error.",
            ["outcome"],
            registry=registry,
        )
        self._decisions: dict[str, Counter] = {}  # outcome -> its counter
        self.judge_verdicts = Counter(
            "ragmon_judge_verdicts_total",
            "Judged traces by verdict (pass, fail, hard_fail, not_applicable).",
            ["judge", "verdict", "rubric"],
            registry=registry,
        )
        self.judge_verdict_weight = Counter(
            "ragmon_judge_verdict_weight_total",
            "Sum of 1/p over judged traces by verdict: unbiased population counts.",
            ["judge", "verdict", "rubric"],
            registry=registry,
        )
        self.judge_claims = Counter(
            "ragmon_judge_claims_total",
            "Claims by label (SUPPORTED, ABSENT, CONTRADICTED).",
            ["judge", "label"],
            registry=registry,
        )
        self.judge_answer_relevance = Counter(
            "ragmon_judge_answer_relevance",
            "Judged traces by answer relevance (relevant, partial, irrelevant).",
            ["judge", "relevance"], registry=registry,
        )  # fmt: skip
        self.judge_answer_relevance_weight = Counter(
            "ragmon_judge_answer_relevance_weight",
            "Sum of 1/p over judged traces by answer relevance: unbiased population counts.",
            ["judge", "relevance"], registry=registry,
        )  # fmt: skip
        self.judge_context_passages = Counter(
            "ragmon_judge_context_passages",
            "Packed passages of judged traces by relevance to the question (relevant, "
            "irrelevant): relevant / all is the context precision.",
            ["judge", "relevance"], registry=registry,
        )  # fmt: skip
        self.judge_context_passages_weight = Counter(
            "ragmon_judge_context_passages_weight",
            "The same passages, each counted 1/p times: the population's context precision.",
            ["judge", "relevance"], registry=registry,
        )  # fmt: skip
        self.judge_false_refusals = Counter(
            "ragmon_judge_false_refusals_total",
            "Refusals where the judge found the answer in the context.",
            ["judge"],
            registry=registry,
        )

    def _define_judge_cost(self, registry: CollectorRegistry) -> None:
        """What judging costs and how the judge runs: tokens, USD, latency, errors, state."""
        self.judge_tokens = Counter(
            "ragmon_judge_tokens_total",
            "Judge tokens by kind (input, output, cache_read, cache_write).",
            ["kind"],
            registry=registry,
        )
        self.judge_cost = Counter(
            "ragmon_judge_cost_usd_total",
            "Estimated judge cost from the configured price table.",
            registry=registry,
        )
        self.judge_latency = Histogram(
            "ragmon_judge_latency_seconds",
            "Time to judge one trace, retries included.",
            ["judge"],
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64),
            registry=registry,
        )
        self.judge_errors = Counter(
            "ragmon_judge_errors_total",
            "Judge failures by kind (timeout, rate_limited, server_error, invalid_output, "
            "http_4xx, ...).",
            ["kind"],
            registry=registry,
        )
        self.judge_queue = Gauge(
            "ragmon_judge_queue_depth", "Traces waiting for a judge worker.", registry=registry
        )
        self.judge_paused = Gauge(
            "ragmon_judge_paused",
            "1 when the judge stopped after a configuration error (bad key, unknown model).",
            registry=registry,
        )
        self.judge_output_repairs = Counter(
            "ragmon_judge_output_repairs",
            "Verdicts read only after a repair of the reply: kind reasoning_block (a <think> "
            "block before the JSON: give the server a reasoning parser), fenced, prose_wrapped.",
            ["judge", "kind"],
            registry=registry,
        )
        self.judge_usage_estimated = Counter(
            "ragmon_judge_usage_estimated",
            "Verdicts whose server reported no token usage: the budget was charged an "
            "estimate (about four characters a token) instead.",
            ["judge"],
            registry=registry,
        )
        self.jury_pairs = Counter(
            "ragmon_judge_jury_pairs",
            "Traces both judges of the jury graded, per route, by whether their verdicts "
            'agreed (the disagreement rate: agreed="false" over all).',
            ["route", "agreed"],
            registry=registry,
        )
        self._jury_routes = LabelLimiter()
        self.judge_same_family = Gauge(
            "ragmon_judge_same_family",
            "1 when judge and generator models come from one family (self-preference risk).",
            registry=registry,
        )
        self.calibration = Gauge(
            "ragmon_judge_calibration",
            "Judge calibration against human labels (kappa, agreement, labelled_traces, "
            "hard_fail_sensitivity, hard_fail_specificity), from `ragmon calibrate`.",
            ["measure", "judge", "rubric"],
            registry=registry,
        )

    def on_decision(self, outcome: str) -> None:
        """One sampling/judging decision: judged, not_sampled, over_budget, queue_full, ...
        (the counter of each outcome looked up once: this runs for every trace)."""
        child = self._decisions.get(outcome)
        if child is None:
            child = self._decisions[outcome] = self.judge_decisions.labels(outcome)
        child.inc()

    def on_verdict(self, verdict: Verdict) -> None:
        """Count one verdict: its label, weight, claims, tokens, cost and latency."""
        v = verdict
        self.judge_verdicts.labels(v.judge, v.verdict, v.rubric_version).inc()
        # Horvitz–Thompson: the sum of 1/p over judged traces estimates population counts.
        self.judge_verdict_weight.labels(v.judge, v.verdict, v.rubric_version).inc(v.weight)
        for claim in v.claims:
            self.judge_claims.labels(v.judge, claim.label).inc()
        if v.context_has_answer is True:
            self.judge_false_refusals.labels(v.judge).inc()
        if v.answer_relevance is not None:
            self.judge_answer_relevance.labels(v.judge, v.answer_relevance).inc()
            self.judge_answer_relevance_weight.labels(v.judge, v.answer_relevance).inc(v.weight)
        if v.context_relevance:
            relevant = sum(r == "relevant" for r in v.context_relevance)
            for label, n in (("relevant", relevant),
                             ("irrelevant", len(v.context_relevance) - relevant)):  # fmt: skip
                self.judge_context_passages.labels(v.judge, label).inc(n)
                self.judge_context_passages_weight.labels(v.judge, label).inc(n * v.weight)
        if v.usage_estimated:
            self.judge_usage_estimated.labels(v.judge).inc()
        for kind in v.output_repairs:
            self.judge_output_repairs.labels(v.judge, kind).inc()
        usage = {
            "input": v.input_tokens,
            "output": v.output_tokens,
            "cache_read": v.cache_read_tokens,
            "cache_write": v.cache_write_tokens,
        }
        for kind, n in usage.items():
            if n:
                self.judge_tokens.labels(kind).inc(n)
        if v.cost_usd:
            self.judge_cost.inc(v.cost_usd)
        self.judge_latency.labels(v.judge).observe(v.latency_seconds)

    def set_calibration(self, cal: CalibrationFigures) -> None:
        """Export a calibration record (``monitor.judge.calibration.Calibration``): how far
        the judge agrees with human labels."""
        labels = (cal.judge, cal.rubric_version)
        self.calibration.labels("kappa", *labels).set(cal.kappa)
        self.calibration.labels("agreement", *labels).set(cal.agreement)
        self.calibration.labels("labelled_traces", *labels).set(cal.n)
        if cal.sensitivity is not None:
            self.calibration.labels("hard_fail_sensitivity", *labels).set(cal.sensitivity)
        if cal.specificity is not None:
            self.calibration.labels("hard_fail_specificity", *labels).set(cal.specificity)

    def on_jury_pair(self, route: str | None, agreed: bool) -> None:
        """Both jury judges graded a trace of ``route``; ``agreed``: the same verdict."""
        self.jury_pairs.labels(self._jury_routes(route), "true" if agreed else "false").inc()

    def on_same_family(self, family: str) -> None:
        """The judge and the answering model are of one family."""
        self.judge_same_family.set(1)

    def on_judge_error(self, kind: str) -> None:
        """Count one failed judge call, by kind."""
        self.judge_errors.labels(kind).inc()

    def on_judge_state(self, queued: int, paused: bool) -> None:
        """The queue depth and whether the judge is paused."""
        self.judge_queue.set(queued)
        self.judge_paused.set(1 if paused else 0)
