"""``PrometheusSink``: evaluations into the check counters of ``monitor.telemetry``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from prometheus_client import Histogram

from monitor.checks.shadow import check_pairs, verdict_pair
from monitor.core.evidence import Evidence
from monitor.core.model import DeadLetter, Evaluation, Followup
from monitor.telemetry import LabelLimiter, Metrics
from sinks import Closable

if TYPE_CHECKING:
    from monitor.core.model import MetricsConfig


# the evidence of a check without metrics of its own: asked nothing at write
_NOTHING_MEASURED = Evidence.measured

# a trace's segments and its checks' outcomes, each as (name, value) pairs
Shape = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


class PrometheusSink(Closable):
    """Turns evaluations and dead letters into metric updates.

    Evaluations are counted in plain dicts and added to the metrics in one increment per
    label set at ``flush`` (the pipeline flushes at every checkpoint, at least once per
    commit interval), rather than seven lock-taking increments per trace. A flagged count
    carries the last flagged trace of its label set as exemplar.
    """

    name = "prometheus"

    @classmethod
    def from_config(cls, config: MetricsConfig, metrics: Metrics | None) -> PrometheusSink:
        """The daemon's metrics, app and route labels bounded by ``metrics`` (always on)."""
        if metrics is None:
            raise ValueError("the Prometheus sink counts into the daemon's metrics")
        bound = config.max_label_values
        return cls(metrics, routes=LabelLimiter(config.routes, bound),
                   apps=LabelLimiter(config.apps, bound))  # fmt: skip

    def __init__(
        self, metrics: Metrics, routes: LabelLimiter | None = None, apps: LabelLimiter | None = None
    ) -> None:
        self.metrics = metrics
        self._routes = routes or LabelLimiter()
        self._apps = apps or LabelLimiter()
        # Pending counts since the last flush, by label values.
        self._traces: dict[tuple[str, str], int] = {}
        # (app, route) and the check outcomes of a trace -> traces of that shape
        self._shaped: dict[tuple[tuple[str, str], tuple[tuple[str, str], ...]], int] = {}
        # what the traces sampled upstream add to their counts in the weight counters
        # (adjusted count - 1 each): nothing to do for the unsampled, the usual case
        self._traces_extra: dict[tuple[str, str], float] = {}
        self._traces_squares_extra: dict[tuple[str, str], float] = {}  # w^2 - 1 each
        self._shaped_extra: dict[tuple[tuple[str, str], tuple[tuple[str, str], ...]], float] = {}
        self._exemplars: dict[tuple[str, str, str, str], str] = {}
        self._measured: dict[tuple[str, str, str], list[float]] = {}  # metric, app, route
        # per segment: one count per distinct (segments, outcomes) of a trace, expanded into
        # the per-dimension series at flush (one dict increment per trace, not D x C)
        self._segmented: dict[Shape, int] = {}
        self._segmented_extra: dict[Shape, tuple[float, float]] = {}  # w - 1, w^2 - 1 summed
        self._segment_verdicts: dict[tuple[str, str, str], float] = {}
        self._inputs: list[Mapping[str, float]] = []
        self._risks: list[float] = []  # each trace's risk (monitor.checks.risk)
        self._shadow: dict[tuple[str, str, str], int] = {}  # check, live, shadow outcome
        self._shadow_judged: dict[tuple[str, str], int] = {}  # live, shadow verdict
        self._shadow_cost = 0.0
        self._followup_pairs: dict[tuple[str, str], int] = {}  # after, language
        self._followups: dict[tuple[str, str, str], int] = {}  # signal, after, language

    def start(self) -> None:
        """Metrics need no setup."""

    def write(self, evaluation: Evaluation) -> None:
        """Count the evaluation's check outcomes (published on flush); a judge-only line
        (batch mode) was counted when its checks ran, and its verdict by the judge stage."""
        self._check_open()
        if evaluation.judge_only:
            return
        app = self._apps(evaluation.trace.app)
        route = self._routes(evaluation.trace.route)
        where = (app, route)
        self._traces[where] = self._traces.get(where, 0) + 1
        extra = evaluation.trace.adjusted_count - 1.0
        squared = (1.0 + extra) ** 2 - 1.0 if extra else 0.0  # what its square adds over 1
        if extra:
            self._traces_extra[where] = self._traces_extra.get(where, 0.0) + extra
            self._traces_squares_extra[where] = self._traces_squares_extra.get(where, 0.0) + squared
        outcomes = []
        trace_id = evaluation.trace_id
        for name, result in evaluation.checks.items():
            outcome = result.outcome
            outcomes.append((name, outcome))
            if result.flagged:
                # the trace behind a flagged count, for a click from Grafana to the trace
                self._exemplars[(name, outcome, app, route)] = trace_id
            evidence = result.evidence
            if type(evidence).measured is not _NOTHING_MEASURED:  # the check's own metrics
                for metric, value in evidence.measured().items():
                    self._measured.setdefault((metric, app, route), []).append(value)
        # one count per trace for its label set and all its outcomes: the check counters'
        # label sets are made from it at flush (most traces share a few such shapes)
        shaped = (where, tuple(outcomes))
        self._shaped[shaped] = self._shaped.get(shaped, 0) + 1
        if extra:
            self._shaped_extra[shaped] = self._shaped_extra.get(shaped, 0.0) + extra
        if evaluation.segments:
            shape = (tuple(evaluation.segments.items()), shaped[1])
            self._segmented[shape] = self._segmented.get(shape, 0) + 1
            if extra:
                w, w2 = self._segmented_extra.get(shape, (0.0, 0.0))
                self._segmented_extra[shape] = (w + extra, w2 + squared)
            verdict = evaluation.judge
            if verdict is not None:
                for dimension, segment in evaluation.segments.items():
                    vkey = (dimension, segment, verdict.verdict)
                    self._segment_verdicts[vkey] = (
                        self._segment_verdicts.get(vkey, 0.0) + verdict.weight
                    )
        if evaluation.inputs:
            self._inputs.append(evaluation.inputs)
        if evaluation.risk is not None:
            self._risks.append(evaluation.risk)
        for pair in check_pairs(evaluation):
            self._shadow[pair] = self._shadow.get(pair, 0) + 1
        verdicts = verdict_pair(evaluation)
        if verdicts is not None:
            self._shadow_judged[verdicts] = self._shadow_judged.get(verdicts, 0) + 1
            if evaluation.shadow is not None and evaluation.shadow.judge is not None:
                self._shadow_cost += evaluation.shadow.judge.cost_usd

    def _publish(self) -> None:
        m = self.metrics
        for value in self._risks:
            m.trace_risk.observe(value)
        self._risks.clear()
        for labels, n in self._traces.items():
            m.traces.labels(*labels).inc(n)
            m.traces_weight.labels(*labels).inc(n + self._traces_extra.get(labels, 0.0))
            m.traces_weight_squares.labels(*labels).inc(
                n + self._traces_squares_extra.get(labels, 0.0)
            )
        results: dict[tuple[str, str, str, str], int] = {}
        results_extra: dict[tuple[str, str, str, str], float] = {}
        for (where, outcomes), n in self._shaped.items():
            extra = self._shaped_extra.get((where, outcomes), 0.0)
            for name, outcome in outcomes:
                key = (name, outcome, *where)
                results[key] = results.get(key, 0) + n
                if extra:
                    results_extra[key] = results_extra.get(key, 0.0) + extra
        for key, n in results.items():
            trace_id = self._exemplars.get(key)
            exemplar = {"trace_id": trace_id} if trace_id is not None else None
            m.check_results.labels(*key).inc(n, exemplar=exemplar)
            m.check_results_weight.labels(*key).inc(n + results_extra.get(key, 0.0))
        for (metric, app, route), values in self._measured.items():
            own = m.check_measures.get(metric)
            if own is None:  # a measure Metrics was not built with: nothing to add it to
                continue
            child = own.labels(app, route)
            if isinstance(child, Histogram):
                for value in values:
                    child.observe(value)
            else:
                child.inc(sum(values))
        for pair, n in self._shadow.items():
            m.shadow_results.labels(*pair).inc(n)
        for verdicts, n in self._shadow_judged.items():
            m.shadow_judge_verdicts.labels(*verdicts).inc(n)
        if self._shadow_cost:
            m.shadow_judge_cost.inc(self._shadow_cost)
        self._shadow_judged, self._shadow_cost = {}, 0.0
        self._traces, self._shaped, self._exemplars, self._measured = {}, {}, {}, {}
        self._traces_extra, self._shaped_extra, self._traces_squares_extra = {}, {}, {}
        self._shadow = {}
        for where, n in self._followup_pairs.items():
            m.followup_pairs.labels(*where).inc(n)
        for signalled, n in self._followups.items():
            m.followups.labels(*signalled).inc(n)
        self._followup_pairs, self._followups = {}, {}
        self._publish_segments()

    def _publish_segments(self) -> None:
        m = self.metrics
        # per series: the count, the weight's and the squares' excess over it (0 unsampled)
        traces: dict[tuple[str, str], list[float]] = {}
        results: dict[tuple[str, str, str, str], list[float]] = {}
        for shape, n in self._segmented.items():
            segments, outcomes = shape
            w, w2 = self._segmented_extra.get(shape, (0.0, 0.0))
            for dimension, segment in segments:
                t = traces.setdefault((dimension, segment), [0.0, 0.0, 0.0])
                t[0] += n
                t[1] += w
                t[2] += w2
                for check, outcome in outcomes:
                    r = results.setdefault((dimension, segment, check, outcome), [0.0, 0.0])
                    r[0] += n
                    r[1] += w
        for labels, (count, more, squares) in traces.items():
            m.segment_traces.labels(*labels).inc(count)
            m.segment_traces_weight.labels(*labels).inc(count + more)
            m.segment_traces_weight_squares.labels(*labels).inc(count + squares)
        for key, (count, more) in results.items():
            m.segment_check_results.labels(*key).inc(count)
            m.segment_check_results_weight.labels(*key).inc(count + more)
        for vkey, weight in self._segment_verdicts.items():
            m.segment_judge_verdict_weight.labels(*vkey).inc(weight)
        m.inputs.observe(self._inputs)
        self._segmented, self._segment_verdicts, self._inputs = {}, {}, []
        self._segmented_extra = {}

    def write_followup(self, followup: Followup) -> None:
        """Count the pair and each signal of it, by the first turn's outcome and language
        (its language segment: bounded); published on flush, as the evaluations are."""
        self._check_open()
        where = (followup.turn.outcome, followup.turn.language)
        pairs = self._followup_pairs
        pairs[where] = pairs.get(where, 0) + 1
        if followup.signals:
            signals = self._followups
            for signal in followup.signals:
                key = (signal, *where)
                signals[key] = signals.get(key, 0) + 1

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Count the dead letter by reason."""
        self._check_open()
        self.metrics.dead_letters.labels(letter.reason).inc()

    def flush(self) -> None:
        """Add the counts gathered since the last flush to the metrics."""
        self._check_open()
        self._publish()

    def close(self) -> None:
        """Publish what is pending; the registry outlives the sink."""
        if self._closing():
            self._publish()
