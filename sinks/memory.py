"""``InMemorySink``: keeps everything in lists. The test double for pipeline tests."""

from __future__ import annotations

from monitor.core.model import DeadLetter, Evaluation, Followup, SessionOutcome
from sinks import SinkBase


class InMemorySink(SinkBase):
    """Records evaluations and dead letters; counts flushes and closes."""

    name = "memory"

    def __init__(self) -> None:
        self.evaluations: list[Evaluation] = []
        self.dead_letters: list[DeadLetter] = []
        self.followups: list[Followup] = []
        self.sessions: list[SessionOutcome] = []
        self.flushes = 0
        self.started = False

    def start(self) -> None:
        """Nothing to open."""
        self.started = True

    def write(self, evaluation: Evaluation) -> None:
        """Keep the evaluation."""
        self._check_open()
        self.evaluations.append(evaluation)

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Keep the dead letter."""
        self._check_open()
        self.dead_letters.append(letter)

    def write_followup(self, followup: Followup) -> None:
        """Keep the follow-up."""
        self._check_open()
        self.followups.append(followup)

    def write_session(self, outcome: SessionOutcome) -> None:
        """Keep the closed session's outcome."""
        self._check_open()
        self.sessions.append(outcome)

    def flush(self) -> None:
        """Count the flush (everything kept is delivered)."""
        self._check_open()
        self.flushes += 1

    @property
    def closed(self) -> bool:
        """Whether it was closed."""
        return self._closed
