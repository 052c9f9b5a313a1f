"""Where finished evaluations and dead letters go.

Every sink implements ``Sink``: ``start`` before the first write, ``write`` per evaluation,
``write_dead_letter`` per bad record, ``write_followup`` per follow-up of a conversation's
turn, ``write_session`` per closed conversation, ``flush`` before offsets are committed (a
durable sink must have persisted everything written so far when it returns, or raise),
``close`` once, idempotently; a write or flush after ``close`` is a bug and raises
``SinkClosed``. Sinks never see the consumer and never commit.
``tests/unit/test_sink_contract.py`` holds every sink to this.
"""

from __future__ import annotations

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
        """Take one closed session's outcome (``monitor.sessions.outcomes``); ``Closable``
        takes it and does nothing, which is what a sink without a use for it inherits."""

    def flush(self) -> None:
        """Deliver everything taken so far (raises ``SinkError`` when it cannot)."""

    def close(self) -> None:
        """Deliver what is left and release the sink; a second call does nothing."""


class Closable:
    """The close-once part of the contract: ``_closing()`` is True on the first ``close``
    only; ``_check_open()`` raises ``SinkClosed`` afterwards."""

    name: str
    _closed = False

    def _closing(self) -> bool:
        first, self._closed = not self._closed, True
        return first

    def _check_open(self) -> None:
        if self._closed:
            raise SinkClosed(f"sink {self.name} is closed")

    def write_session(self, outcome: SessionOutcome) -> None:
        """A closed session's outcome: nothing to do with it (a sink that has overrides)."""
        self._check_open()
