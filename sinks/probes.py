"""``ProbeSink``: golden probes (traces that carry a ``golden_id``) scored against the
published golden set into Prometheus metrics; the scoring itself is ``monitor.golden.probes``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry

from monitor.core.errors import ConfigError
from monitor.core.model import Evaluation
from monitor.golden import review
from monitor.golden.probes import LoadedSet, load_set, retrieval_scores, stage_of
from monitor.telemetry import LabelLimiter, ProbeMetrics
from sinks import SinkBase

if TYPE_CHECKING:
    from monitor.telemetry import Metrics


@dataclass(frozen=True)
class ProbeScoring:
    """The probe sink's configuration: the published golden set (``golden.set_path``) and
    the route label's bounds (``metrics.routes``, ``metrics.max_label_values``)."""

    set_path: Path
    routes: list[str]
    max_label_values: int


class ProbeSink(SinkBase):
    """Scores golden probes (traces with a golden_id) into Prometheus metrics."""

    name = "probe_scores"

    @classmethod
    def from_config(cls, config: ProbeScoring, metrics: Metrics | None) -> ProbeSink:
        """Scores against ``config.set_path``, into the daemon's registry (a registry of its
        own without metrics)."""
        registry = metrics.registry if metrics is not None else CollectorRegistry()
        return cls(config.set_path, registry, LabelLimiter(config.routes, config.max_label_values))

    def __init__(
        self,
        path: Path,
        registry: CollectorRegistry,
        routes: LabelLimiter,
        reload_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self._routes = routes
        self._reload = reload_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self.golden: LoadedSet | None = None
        self._checked = 0.0
        self.metrics = ProbeMetrics(registry)

    def start(self) -> None:
        """Load the golden set (a missing or bad set is a startup error)."""
        try:
            self.golden = load_set(self.path)
        except (OSError, ValueError, review.ReviewError) as exc:
            raise ConfigError(f"golden.set_path: cannot read the golden set: {exc}") from exc
        self._checked = self._clock()

    def _maybe_reload(self) -> None:
        now = self._clock()
        if now - self._checked < self._reload:
            return
        self._checked = now
        try:
            fresh = load_set(self.path)
        except (OSError, ValueError, review.ReviewError):
            return  # keep scoring against the set loaded before
        self.golden = fresh

    def write(self, evaluation: Evaluation) -> None:
        """Score a golden probe (a trace with a golden_id) against its golden item."""
        self._check_open()
        gid = evaluation.trace.golden_id
        if not gid or evaluation.judge_only:  # a judge-only line was scored with its checks
            return
        with self._lock:
            self._maybe_reload()
            golden = self.golden
        assert golden is not None
        route = self._routes(evaluation.trace.route)
        item = golden.items.get(gid)
        if item is None:
            self.metrics.traces.labels(golden.version, route, "unknown", "unknown_golden_id").inc()
            return
        category = str(item.get("category") or "none")
        if category not in review.TRAP_CATEGORIES:
            category = "none"
        self.metrics.traces.labels(
            golden.version, route, category, stage_of(item, evaluation)
        ).inc()
        for (metric, depth), value in retrieval_scores(item, evaluation).items():
            self.metrics.scores.labels(golden.version, route, metric, depth).observe(value)
            self.metrics.squares.labels(golden.version, route, metric, depth).inc(value * value)
