"""The golden loop's metrics: the daemon's own probe requests, the scores of golden probes
(``ProbeMetrics``, which the probe sink owns an instance of) and the checks' reviewed
precision (``PrecisionCollector``, read from the review log on each scrape)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Summary
from prometheus_client.core import GaugeMetricFamily

from monitor.golden.review import Precision, ReviewLog, precision
from monitor.stats import wilson
from monitor.telemetry.labels import LabelLimiter


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


class PrecisionCollector:
    """Exports each check's reviewed precision from the decision log on every scrape (the
    log is re-read only when it changed): ``ragmon_check_review_precision{check, route,
    bound}`` (bound: estimate, low, high; the 95 % Wilson interval) and
    ``ragmon_check_reviews{check, route, label}`` (right, wrong). Routes go through the same
    label limit as the other route metrics."""

    def __init__(self, log: ReviewLog, routes: LabelLimiter) -> None:
        self.log = log
        self._routes = routes
        self._stamp: tuple[int, int] | None = None
        self._cached: list[Precision] = []

    def _current(self) -> list[Precision]:
        try:
            st = self.log.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            return []
        if stamp != self._stamp:
            self._cached = precision(self.log.read().decisions)
            self._stamp = stamp
        return self._cached

    def collect(self) -> Iterator[Any]:
        """The precision and review counts, from the log as it is now."""
        prec = GaugeMetricFamily(
            "ragmon_check_review_precision",
            "Share of a check's flagged rows that reviewers accepted (rejected as "
            "check_wrong = a false positive), with its 95% Wilson interval.",
            labels=["check", "route", "bound"],
        )
        counts = GaugeMetricFamily(
            "ragmon_check_reviews",
            "Reviewed flagged rows per check: right (accepted) and wrong (check_wrong).",
            labels=["check", "route", "label"],
        )
        merged: dict[tuple[str, str], list[int]] = {}
        for p in self._current():
            c = merged.setdefault((p.check, self._routes(p.route or None)), [0, 0])
            c[0] += p.right
            c[1] += p.wrong
        for (check, route), (right, wrong) in sorted(merged.items()):
            low, high = wilson(right, right + wrong)
            prec.add_metric([check, route, "estimate"], right / (right + wrong))
            prec.add_metric([check, route, "low"], low)
            prec.add_metric([check, route, "high"], high)
            counts.add_metric([check, route, "right"], right)
            counts.add_metric([check, route, "wrong"], wrong)
        yield prec
        yield counts

    def describe(self) -> list[Any]:
        """Nothing: the metrics are described when collected."""
        return []  # registered without describing: collected on each scrape
