"""The checks' reviewed precision: every accept of a flagged row says its check was right,
every reject as ``check_wrong`` that it was wrong (``precision``, per check and route, with
its Wilson interval); on ``/metrics``, ``PrecisionCollector`` reads the review log on each
scrape (re-read only when it changed); the daemon and the review page register it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric

from monitor.core.stats import wilson
from monitor.golden.review import Decision, ReviewLog, latest_of
from monitor.telemetry.labels import LabelLimiter


@dataclass(frozen=True)
class Precision:
    """Reviewed precision of one check on one route: rows right and wrong."""

    check: str
    route: str
    right: int
    wrong: int

    @property
    def reviewed(self) -> int:
        """Rows reviewed."""
        return self.right + self.wrong

    @property
    def estimate(self) -> float:
        """Share of the reviewed rows the check was right on (NaN when none)."""
        return self.right / self.reviewed if self.reviewed else math.nan

    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of the estimate."""
        return wilson(self.right, self.reviewed)


def precision(decisions: Iterable[Decision]) -> list[Precision]:
    """Reviewed precision per (check, route) from each row's latest decision."""
    counts: dict[tuple[str, str], list[int]] = {}
    for d in latest_of(decisions).values():
        label = d.label()
        if label is None or not d.check:
            continue
        c = counts.setdefault((d.check, d.route or ""), [0, 0])
        c[0 if label else 1] += 1
    return [Precision(k[0], k[1], r, w) for k, (r, w) in sorted(counts.items())]


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

    def collect(self) -> Iterator[Metric]:
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

    def describe(self) -> list[Metric]:
        """Nothing: the metrics are described when collected."""
        return []  # registered without describing: collected on each scrape
