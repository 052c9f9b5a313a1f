"""The conversations' metrics: what each next turn said about the answer before it, and what
became of every turn (``monitor.sessions``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from monitor.core.model import FOLLOWUP_SIGNALS, OUTCOMES, TURN_OUTCOMES


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


class SessionsCollector:
    """The open sessions' count and the bytes they hold, read at scrape time."""

    def __init__(self, size: Callable[[], tuple[int, int]]) -> None:
        self._size = size

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

    def describe(self) -> Iterator[Metric]:
        """Nothing up front (collected at scrape time)."""
        return iter(())
