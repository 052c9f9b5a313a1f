"""The golden loop's metrics: the daemon's own probe requests and the scores of golden probes
(``ProbeMetrics``, which the probe sink owns an instance of). The checks' reviewed precision
is read from the review log by the golden wing (``monitor.golden.precision``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Summary


class GoldenMetrics:
    """The probe loop's half of ``Metrics``."""

    def _define_golden(self, registry: CollectorRegistry) -> None:
        self.probe_requests = Counter(
            "ragmon_probe_requests",
            "Golden probe requests the daemon sent, by outcome.",
            ["outcome"],
            registry=registry,
        )

    def on_probe_requests(self, outcome: str, n: int) -> None:
        """``n`` golden probe requests of the daemon's probe loop ended with ``outcome``."""
        self.probe_requests.labels(outcome).inc(n)


class ProbeMetrics:
    """Golden probes scored: by the stage that lost the answer, and their retrieval metrics
    (a summary and the sum of squares, for the interval of the mean)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ["golden_version", "route", "category", "stage"]
        self.traces = Counter(
            "ragmon_probe_traces",
            "Golden probes scored, by the stage that lost the answer (ok when none).",
            labels,
            registry=registry,
        )
        rlabels = ["golden_version", "route", "metric", "depth"]
        self.scores = Summary(
            "ragmon_probe_retrieval",
            "Retrieval metric of each golden probe (recall, ndcg, mrr) at the retriever's "
            "depth (retrieved) and at the packed context's (context).",
            rlabels,
            registry=registry,
        )
        self.squares = Counter(
            "ragmon_probe_retrieval_squares",
            "Sum of squared probe metric values (for the interval of the mean).",
            rlabels,
            registry=registry,
        )
