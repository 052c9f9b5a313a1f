"""ragmon's own telemetry: every metric the daemon exports, in one injected registry.

``Metrics`` is owned by the core. The source, the OTLP assembler, the judge stage and the
pipeline report to it through the observer protocols they declare (``on_batch``,
``on_rebalance``, ``on_verdict``, ...); the Prometheus sink (``sinks.prometheus``) turns
evaluations into the check counters, and the metrics a check declares of its own
(``measures``: every check's, ``monitor.checks.MEASURES``, by default). Labels are bounded
(``LabelLimiter``); trace ids appear only in exemplars.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Info

from monitor.checks import MEASURES, native
from monitor.core.evidence import CheckMeasure
from monitor.telemetry.agents import AgentMetrics
from monitor.telemetry.golden import GoldenMetrics, ProbeMetrics
from monitor.telemetry.judge import JudgeMetrics
from monitor.telemetry.labels import OTHER, UNKNOWN, LabelLimiter
from monitor.telemetry.pipeline import MemoCollector, PipelineMetrics
from monitor.telemetry.segments import FoldedCollector, SegmentMetrics
from monitor.telemetry.sessions import OutcomesCollector, SessionMetrics, SessionsCollector
from monitor.telemetry.store import StoreMetrics

__all__ = [
    "OTHER", "UNKNOWN", "FoldedCollector", "LabelLimiter", "MemoCollector", "Metrics",
    "OutcomesCollector", "ProbeMetrics", "SessionsCollector",
]  # fmt: skip


class Metrics(
    PipelineMetrics,
    JudgeMetrics,
    GoldenMetrics,
    SegmentMetrics,
    SessionMetrics,
    AgentMetrics,
    StoreMetrics,
):
    """Every metric ragmon exports, registered on ``registry`` (never the global one)."""

    def __init__(
        self,
        registry: CollectorRegistry,
        version: str = "0",
        measures: Sequence[CheckMeasure] = MEASURES,
    ) -> None:
        self.registry = registry
        self.build_info = Info(
            "ragmon_build",
            "ragmon version, and whether its checks run compiled.",
            registry=registry,
        )
        self.build_info.info({"version": version, "checks": native.BUILD})
        self._define_evaluation(registry, measures)
        self._define_consumer(registry)
        self._define_judge(registry)
        self._define_judge_cost(registry)
        self._define_otlp(registry)
        self._define_golden(registry)
        self._define_segments(registry)
        self._define_sessions(registry)
        self._define_agents(registry)
        self._define_store(registry)
        self.evaluator_info = Gauge(
            "ragmon_evaluator_info",
            "1 for the definition each evaluator runs (check name or judge -> its version), "
            "live or shadow (the candidate of the shadow config).",
            ["evaluator", "version", "variant"], registry=registry,
        )  # fmt: skip
        self.shadow_results = Counter(
            "ragmon_shadow_results_total",
            "Traces the shadow candidate ran on, per check: the live and the shadow outcome "
            "(flagged, passed, not_applicable, absent) of the same trace.",
            ["check", "live", "shadow"], registry=registry,
        )  # fmt: skip

        self.shadow_judge_verdicts = Counter(
            "ragmon_shadow_judge_verdicts_total",
            "Traces the live judge judged, by its verdict and the shadow judge's on the same "
            "trace (or why there is none: over_budget, circuit_open, error).",
            ["live", "shadow"], registry=registry,
        )  # fmt: skip
        self.shadow_judge_cost = Counter(
            "ragmon_shadow_judge_cost_usd_total",
            "Estimated USD the shadow judge spent (its own budget).",
            registry=registry,
        )

    def set_evaluators(self, versions: Mapping[str, str], variant: str = "live") -> None:
        """Export the versions of the running definitions (``ragmon_evaluator_info``)."""
        for evaluator, version in versions.items():
            self.evaluator_info.labels(evaluator, version, variant).set(1)
