"""Where finished evaluations and dead letters go.

Every sink implements ``Sink``: ``start`` before the first write, ``write`` per evaluation,
``write_dead_letter`` per bad record, ``flush`` before offsets are committed (a durable sink
must have persisted everything written so far when it returns, or raise), ``close`` once,
idempotently; a write or flush after ``close`` is a bug and raises ``SinkClosed``. Sinks
never see the consumer and never commit. ``tests/unit/test_sink_contract.py`` holds every
sink to this.
"""

from __future__ import annotations

from typing import Protocol

from monitor.errors import SinkClosed
from monitor.model import DeadLetter, Evaluation


class Sink(Protocol):
    name: str

    def start(self) -> None: ...

    def write(self, evaluation: Evaluation) -> None: ...

    def write_dead_letter(self, letter: DeadLetter) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


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
