"""``PrometheusSink``: evaluations into the check counters of ``monitor.telemetry``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from prometheus_client import Histogram

from monitor.checks.risk import RISK
from monitor.checks.shadow import check_pairs, verdict_pair
from monitor.core.evidence import Evidence
from monitor.core.model import (
    AGENT_TOOLS,
    FOLLOWUP_READER,
    DeadLetter,
    Evaluation,
    Followup,
    SessionOutcome,
    error_type,
)
from monitor.telemetry import LabelLimiter, Metrics
from sinks import SinkBase

if TYPE_CHECKING:
    from monitor.core.model import MetricsConfig


# the evidence of a check without metrics of its own: asked nothing at write
_NOTHING_MEASURED = Evidence.measured

# The label sets a trace is counted under — its (app, route), or each of its (dimension,
# segment) pairs — and its checks' outcomes, as (check, outcome) pairs: one count per
# distinct shape and flush, expanded into the series at flush (one dict increment per trace,
# not one per check and label set).
Shape = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]
# per shape: what its traces sampled upstream add over their counts to the weight and to the
# squared weight (adjusted count - 1 and its square - 1, summed): none for the unsampled
Extra = tuple[float, float]


class PrometheusSink(SinkBase):
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
        # Pending counts since the last flush: traces by their (app, route) and outcomes
        self._shaped: dict[Shape, int] = {}
        self._shaped_extra: dict[Shape, Extra] = {}
        self._exemplars: dict[tuple[str, str, str, str], str] = {}
        self._measured: dict[tuple[str, str, str], list[float]] = {}  # metric, app, route
        # and by their segments and outcomes
        self._segmented: dict[Shape, int] = {}
        self._segmented_extra: dict[Shape, Extra] = {}
        self._segment_verdicts: dict[tuple[str, str, str], float] = {}
        self._inputs: list[Mapping[str, float]] = []
        self._risks: list[float] = []  # each trace's risk (monitor.checks.risk)
        self._errors: dict[tuple[str, str], int] = {}  # check, exception type: it raised
        self._shadow: dict[tuple[str, str, str], int] = {}  # check, live, shadow outcome
        self._shadow_judged: dict[tuple[str, str], int] = {}  # live, shadow verdict
        self._shadow_cost = 0.0
        self._followup_pairs: dict[tuple[str, str], int] = {}  # after, language
        self._followups: dict[tuple[str, str, str], int] = {}  # signal, after, language
        # closed sessions: by outcome, what closed them and route; by language and outcome;
        # their seconds to the outcome and their turns, by outcome and route
        self._sessions: dict[tuple[str, str, str], int] = {}
        self._session_languages: dict[tuple[str, str], int] = {}
        self._session_seconds: dict[tuple[str, str], list[float]] = {}
        self._session_turns: dict[tuple[str, str], int] = {}
        self._tools: dict[str, list[float]] = {}  # tool: calls, errors, seconds, repeats

    def write(self, evaluation: Evaluation) -> None:
        """Count the evaluation's check outcomes (published on flush); a judge-only line
        (batch mode) was counted when its checks ran, and its verdict by the judge stage."""
        self._check_open()
        if evaluation.judge_only:
            return
        app = self._apps(evaluation.trace.app)
        route = self._routes(evaluation.trace.route)
        extra = evaluation.trace.adjusted_count - 1.0
        squared = (1.0 + extra) ** 2 - 1.0 if extra else 0.0  # what its square adds over 1
        outcomes = []
        trace_id = evaluation.trace_id
        for name, result in evaluation.checks.items():
            outcome = result.outcome
            outcomes.append((name, outcome))
            if result.error is not None:  # it raised: a bug, counted apart
                raised = (name, result.error_type or "")
                self._errors[raised] = self._errors.get(raised, 0) + 1
            if result.flagged:
                # the trace behind a flagged count, for a click from Grafana to the trace
                self._exemplars[(name, outcome, app, route)] = trace_id
            evidence = result.evidence
            if type(evidence).measured is not _NOTHING_MEASURED:  # the check's own metrics
                for metric, value in evidence.measured().items():
                    self._measured.setdefault((metric, app, route), []).append(value)
        checked = tuple(outcomes)
        _count(self._shaped, self._shaped_extra, (((app, route),), checked), extra, squared)
        if evaluation.segments:
            shape = (tuple(evaluation.segments.items()), checked)
            _count(self._segmented, self._segmented_extra, shape, extra, squared)
            verdict = evaluation.judge
            if verdict is not None:
                for dimension, segment in evaluation.segments.items():
                    vkey = (dimension, segment, verdict.verdict)
                    self._segment_verdicts[vkey] = (
                        self._segment_verdicts.get(vkey, 0.0) + verdict.weight
                    )
        if evaluation.inputs:
            self._inputs.append(evaluation.inputs)
        tools = evaluation.trace.attributes.get(AGENT_TOOLS)
        if tools:
            self._add_tools(tools)
        if evaluation.risk is not None:
            self._risks.append(evaluation.risk)
        elif evaluation.risk_error is not None:  # computing it raised: counted as a check's error
            raised = (RISK, error_type(evaluation.risk_error))
            self._errors[raised] = self._errors.get(raised, 0) + 1
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
        for raised, n in self._errors.items():
            m.check_errors.labels(*raised).inc(n)
        self._errors = {}
        traces, results = _expanded(self._shaped, self._shaped_extra)
        for where, (count, more, squares) in traces.items():
            m.traces.labels(*where).inc(count)
            m.traces_weight.labels(*where).inc(count + more)
            m.traces_weight_squares.labels(*where).inc(count + squares)
        for (where, check, outcome), (count, more) in results.items():
            key = (check, outcome, *where)
            trace_id = self._exemplars.get(key)
            exemplar = {"trace_id": trace_id} if trace_id is not None else None
            m.check_results.labels(*key).inc(count, exemplar=exemplar)
            m.check_results_weight.labels(*key).inc(count + more)
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
        self._shaped, self._shaped_extra, self._exemplars, self._measured = {}, {}, {}, {}
        self._shadow = {}
        for where, n in self._followup_pairs.items():
            m.followup_pairs.labels(*where).inc(n)
        for signalled, n in self._followups.items():
            m.followups.labels(*signalled).inc(n)
        self._followup_pairs, self._followups = {}, {}
        self._publish_sessions()
        m.add_tools(self._tools)
        self._tools = {}
        self._publish_segments()

    def _add_tools(self, tools: object) -> None:
        """An agent's tool calls, per tool name (``AGENT_TOOLS``: a native record may carry
        the attribute too, so anything but counts is skipped)."""
        if not isinstance(tools, dict):
            return
        for name, counts in tools.items():
            if not isinstance(counts, dict):
                continue
            values = [counts.get(k, 0) for k in ("calls", "errors", "seconds", "repeats")]
            if all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < 1e12
                   for v in values) and max(values[1], values[3]) <= values[0]:  # fmt: skip
                pending = self._tools.setdefault(str(name), [0, 0, 0.0, 0])
                for i, v in enumerate(values):
                    pending[i] += v

    def _publish_segments(self) -> None:
        m = self.metrics
        traces, results = _expanded(self._segmented, self._segmented_extra)
        for labels, (count, more, squares) in traces.items():
            m.segment_traces.labels(*labels).inc(count)
            m.segment_traces_weight.labels(*labels).inc(count + more)
            m.segment_traces_weight_squares.labels(*labels).inc(count + squares)
        for (labels, check, outcome), (count, more) in results.items():
            key = (*labels, check, outcome)
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
        if followup.error is not None:  # the signals unread: counted as a check that raised
            raised = (FOLLOWUP_READER, followup.error)
            self._errors[raised] = self._errors.get(raised, 0) + 1
        if followup.signals:
            signals = self._followups
            for signal in followup.signals:
                key = (signal, *where)
                signals[key] = signals.get(key, 0) + 1

    def write_session(self, outcome: SessionOutcome) -> None:
        """Count the closed session by outcome, what closed it, route and language, its
        time to the outcome and its turns; published on flush, as the follow-ups are (a
        labelled series' increment takes a lock: plain counts here, one increment per label
        set at flush)."""
        self._check_open()
        route = self._routes(outcome.route)
        ended = outcome.outcome
        key = (ended, outcome.closed_by, route)
        self._sessions[key] = self._sessions.get(key, 0) + 1
        spoken = (outcome.language, ended)
        self._session_languages[spoken] = self._session_languages.get(spoken, 0) + 1
        where = (ended, route)
        self._session_seconds.setdefault(where, []).append(outcome.seconds_to_outcome)
        self._session_turns[where] = self._session_turns.get(where, 0) + outcome.turns

    def _publish_sessions(self) -> None:
        m = self.metrics
        for key, n in self._sessions.items():
            m.session_outcomes.labels(*key).inc(n)
        for (language, ended), n in self._session_languages.items():
            m.segment_session_outcomes.labels("language", language, ended).inc(n)
        for where, seconds in self._session_seconds.items():
            child = m.session_seconds_to_outcome.labels(*where)
            for value in seconds:
                child.observe(value)
        for where, n in self._session_turns.items():
            m.session_outcome_turns.labels(*where).inc(n)
        self._sessions, self._session_languages = {}, {}
        self._session_seconds, self._session_turns = {}, {}

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


def _count(counts: dict[Shape, int], extras: dict[Shape, Extra], shape: Shape, extra: float,
           squared: float) -> None:  # fmt: skip
    """One trace of ``shape``, sampled upstream when ``extra`` (see ``Extra``)."""
    counts[shape] = counts.get(shape, 0) + 1
    if extra:
        w, w2 = extras.get(shape, (0.0, 0.0))
        extras[shape] = (w + extra, w2 + squared)


def _expanded(
    counts: dict[Shape, int], extras: dict[Shape, Extra]
) -> tuple[dict[tuple[str, str], list[float]], dict[tuple[tuple[str, str], str, str], list[float]]]:
    """The shapes as series: per label set its traces' count, weight excess and squares
    excess; per (label set, check, outcome) the count and weight excess."""
    traces: dict[tuple[str, str], list[float]] = {}
    results: dict[tuple[tuple[str, str], str, str], list[float]] = {}
    for shape, n in counts.items():
        label_sets, outcomes = shape
        w, w2 = extras.get(shape, (0.0, 0.0))
        for labels in label_sets:
            t = traces.setdefault(labels, [0.0, 0.0, 0.0])
            t[0] += n
            t[1] += w
            t[2] += w2
            for check, outcome in outcomes:
                r = results.setdefault((labels, check, outcome), [0.0, 0.0])
                r[0] += n
                r[1] += w
    return traces, results
