"""Where finished evaluations and dead letters go.

Every sink implements ``Sink``: ``start`` before the first write, ``write`` per evaluation,
``write_dead_letter`` per bad record, ``write_followup`` per follow-up of a conversation's
turn, ``write_session`` per closed conversation, ``flush`` before offsets are committed (a
durable sink must have persisted everything written so far when it returns, or raise),
``close`` once, idempotently; a write or flush after ``close`` is a bug and raises
``SinkClosed``. Sinks never see the consumer and never commit.
A sink subclasses ``SinkBase``, which defaults every method but ``write``.
``tests/unit/test_sink_contract.py`` holds every sink to this, and a sink that writes trace
text (lines, rows) to redact its PII when the output asks for it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from monitor.core.errors import SinkClosed
from monitor.core.model import DeadLetter, Evaluation, Followup, SessionOutcome


class Sink(Protocol):
    """What the pipeline writes to: evaluations and dead letters in, delivered by ``flush``,
    released by ``close``.

    Threads: ``write`` and ``write_dead_letter`` come from the pipeline's thread (and the
    judge's results, handed to it); ``flush`` also from the Kafka consumer's IO thread, inside
    a rebalance (``Pipeline.on_revoked``). The pipeline's lock serialises every call, so a
    sink is never called twice at once, but it must not hold state tied to one thread. A
    ``flush`` that raises, on whichever thread, ends the run as failed: nothing more is
    committed."""

    name: str

    def start(self) -> None:
        """Open what the sink writes to; raise on a setup failure (the daemon does not
        start): a ``SinkError`` with its own one-line message, or any other exception (an
        ``OSError``, a library's own error), which the pipeline turns into one line naming
        the sink. Called once, on the pipeline's thread."""

    def write(self, evaluation: Evaluation) -> None:
        """Take one evaluation; it is delivered by the next ``flush``."""

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Take one dead letter."""

    def write_followup(self, followup: Followup) -> None:
        """Take one follow-up: what a conversation's next turn said about a turn's answer
        (``monitor.sessions``); a sink with nothing to do with it says so in its own."""

    def write_session(self, outcome: SessionOutcome) -> None:
        """Take one closed session's outcome (``monitor.sessions.outcomes``); ``SinkBase``
        takes it and does nothing, which is what a sink without a use for it inherits."""

    def flush(self) -> None:
        """Deliver everything taken so far (raises ``SinkError`` when it cannot)."""

    def close(self) -> None:
        """Deliver what is left and release the sink; a second call does nothing."""


class SinkBase(ABC):
    """What a sink must do — ``write``, and have it delivered by ``flush``, until ``close`` —
    with the rest defaulted, so that a new sink is a class with ``write`` and what it needs.

    The defaults: ``start`` opens nothing; ``write_dead_letter``, ``write_followup`` and
    ``write_session`` take the record and do nothing with it; ``flush`` delivers nothing more
    (right for a sink whose ``write`` delivers); ``close`` refuses every call after it. A
    sink that overrides ``close`` calls ``_closing()`` (True on the first call only); every
    override of a write or ``flush`` calls ``_check_open()`` first (raises ``SinkClosed``
    after ``close``)."""

    name: str
    _closed = False

    def start(self) -> None:  # noqa: B027 (a default, not a stub: nothing to open)
        """Nothing to open."""

    @abstractmethod
    def write(self, evaluation: Evaluation) -> None:
        """Take one evaluation; it is delivered by the next ``flush``."""

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """A dead letter: nothing to do with it."""
        self._check_open()

    def write_followup(self, followup: Followup) -> None:
        """A follow-up: nothing to do with it."""
        self._check_open()

    def write_session(self, outcome: SessionOutcome) -> None:
        """A closed session's outcome: nothing to do with it."""
        self._check_open()

    def flush(self) -> None:
        """Nothing held back: ``write`` delivered it."""
        self._check_open()

    def close(self) -> None:
        """Refuse every call from now on; a second call does nothing."""
        self._closing()

    def _closing(self) -> bool:
        first, self._closed = not self._closed, True
        return first

    def _check_open(self) -> None:
        if self._closed:
            raise SinkClosed(f"sink {self.name} is closed")
