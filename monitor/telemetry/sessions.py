"""The conversations' metrics: what each next turn said about the answer before it, and what
became of every turn (``monitor.sessions``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from monitor.core.model import (
    FOLLOWUP_SIGNALS,
    OUTCOMES,
    TURN_OUTCOMES,
)

# seconds from a session's first turn to the turn its outcome was decided on
TO_OUTCOME_BUCKETS = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 86400.0)


class SessionMetrics:
    """The follow-up counters of ``Metrics``."""

    def _define_sessions(self, registry: CollectorRegistry) -> None:
        self.followup_pairs = Counter(
            "ragmon_followup_pairs_total",
            "Consecutive turns of a session paired (a follow-up line written), by what the "
            "checks made of the first turn's answer (after: refusal, flagged, clean) and its "
            "language segment: the denominator of the follow-up rates.",
            ["after", "language"], registry=registry,
        )  # fmt: skip
        self.followups = Counter(
            "ragmon_followups_total",
            "Follow-up signals: what the next turn of a session said about the answer before "
            "it (signal: rephrase, escalation, negative_feedback, positive_feedback), by what "
            "the checks made of that answer (after) and its language segment.",
            ["signal", "after", "language"], registry=registry,
        )  # fmt: skip
        # what became of each turn: plain counts on the hot path (a turn and a pair each
        # count one), read at scrape time by ``TurnsCollector``
        self.turn_outcomes = dict.fromkeys(TURN_OUTCOMES, 0)
        registry.register(TurnsCollector(self.turn_outcomes))
        for after in OUTCOMES:
            self.followup_pairs.labels(after, "unknown")
            for signal in FOLLOWUP_SIGNALS:
                self.followups.labels(signal, after, "unknown")
        self._define_outcomes(registry)

    def _define_outcomes(self, registry: CollectorRegistry) -> None:
        self.session_outcomes = Counter(
            "ragmon_session_outcomes",
            "Sessions closed, by outcome (resolved, escalated, abandoned, unresolved), what "
            "closed them (closed_by: idle, end, max_age, input_end) and their last turn's "
            "route (bounded as every route label).",
            ["outcome", "closed_by", "route"], registry=registry,
        )  # fmt: skip
        self.segment_session_outcomes = Counter(
            "ragmon_segment_session_outcomes",
            "Sessions closed, by outcome, per segment of their last turn (dimension: "
            "language).",
            ["dimension", "segment", "outcome"], registry=registry,
        )  # fmt: skip
        self.session_seconds_to_outcome = Histogram(
            "ragmon_session_to_outcome_seconds",
            "Seconds from a session's first turn to the turn its outcome was decided on (the "
            "first asking for a person when escalated, else the last), by outcome and route.",
            ["outcome", "route"], buckets=TO_OUTCOME_BUCKETS, registry=registry,
        )  # fmt: skip
        self.session_outcome_turns = Counter(
            "ragmon_session_outcome_turns",
            "Turns of the sessions closed, by outcome and route (over ragmon_session_outcomes: "
            "the mean turns of a session).",
            ["outcome", "route"], registry=registry,
        )  # fmt: skip
        self.session_outcomes_dropped = Counter(
            "ragmon_session_outcomes_dropped",
            "Open sessions dropped without an outcome: evicted (sessions.outcomes_max_bytes), "
            "revoked (their turn partition moved to another replica), shared (a replica "
            "pairing in memory that is no longer alone in its group).",
            ["reason"], registry=registry,
        )  # fmt: skip
        for reason in ("evicted", "revoked", "shared"):
            self.session_outcomes_dropped.labels(reason)

    def on_session_dropped(self, reason: str) -> None:
        """An open session was dropped without an outcome, for ``reason``."""
        self.session_outcomes_dropped.labels(reason).inc()

    def on_turn(self, outcome: str) -> None:
        """One turn left the open sessions (or never entered them) for ``outcome``."""
        counts = self.turn_outcomes
        counts[outcome] = counts.get(outcome, 0) + 1


class TurnsCollector:
    """``ragmon_session_turns_total{outcome}``, from the plain counts ``on_turn`` keeps."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[Metric]:
        """The counts as they are now (a copy: the pipeline's thread adds to them)."""
        family = CounterMetricFamily(
            "ragmon_session_turns",
            "Turns of conversations by what became of them: paired (first of a follow-up "
            "pair), last (nothing followed within the window), outside_window, late (arrived "
            "after its pair was final), duplicate (its trace evaluated twice), evicted "
            "(sessions.max_bytes), replayed (re-read after a restart, its line already "
            "written), invalid (a repartition record not a turn), untimed (no time to order "
            "it by).",
            labels=["outcome"],
        )
        for outcome, n in dict(self._counts).items():
            family.add_metric([outcome], n)
        yield family


class OutcomesCollector:
    """The sessions waiting to close and the bytes they hold, read at scrape time."""

    def __init__(self, size: Callable[[], tuple[int, int]]) -> None:
        self._size = size

    def collect(self) -> Iterator[Metric]:
        """``ragmon_sessions_closing`` and ``ragmon_sessions_closing_bytes``."""
        sessions, held = self._size()
        yield GaugeMetricFamily(
            "ragmon_sessions_closing",
            "Sessions open for their outcome: a turn seen, not closed yet.",
            value=sessions,
        )
        yield GaugeMetricFamily(
            "ragmon_sessions_closing_bytes",
            "Memory the sessions open for their outcome take, as counted against "
            "sessions.outcomes_max_bytes.",
            value=held,
        )

    def describe(self) -> Iterator[Metric]:
        """Nothing up front (collected at scrape time)."""
        return iter(())


class SessionsCollector:
    """The open sessions' count and the bytes they hold, read at scrape time; and, for a
    member of a group pairing in memory, whether it cannot pair (``shared``)."""

    def __init__(
        self,
        size: Callable[[], tuple[int, int]],
        shared: Callable[[], bool] | None = None,
        records: Callable[[], int] | None = None,
    ) -> None:
        self._size = size
        self._shared = shared
        self._records = records  # the repartition topic's records read (sessions.topic)

    def collect(self) -> Iterator[Metric]:
        """``ragmon_sessions_open`` and ``ragmon_sessions_bytes``."""
        sessions, held = self._size()
        yield GaugeMetricFamily(
            "ragmon_sessions_open",
            "Sessions with a turn held, waiting for the next turn or for its pair to be final.",
            value=sessions,
        )
        yield GaugeMetricFamily(
            "ragmon_sessions_bytes",
            "Memory the held turns take, as counted against sessions.max_bytes.",
            value=held,
        )
        if self._shared is not None:
            yield GaugeMetricFamily(
                "ragmon_sessions_shared",
                "1 while this replica pairs turns in memory (no sessions.topic) but holds only "
                "part of the traces' partitions: it writes no follow-up line, and counts every "
                'turn ragmon_session_turns_total{outcome="shared"}.',
                value=int(self._shared()),
            )
        if self._records is not None:
            yield CounterMetricFamily(
                "ragmon_session_turn_records",
                "Records read back from the conversations' repartition topic "
                "(sessions.topic): ragmon_records_total counts them too, beside the traces' "
                "records (subtract these for the traces' alone).",
                value=self._records(),
            )

    def describe(self) -> Iterator[Metric]:
        """Nothing up front (collected at scrape time)."""
        return iter(())
