"""Where finished evaluations and dead letters go.

Every sink implements ``Sink``: ``start`` before the first write, ``write`` per evaluation,
``write_dead_letter`` per bad record, ``flush`` before offsets are committed (a durable sink
must have persisted everything written so far when it returns, or raise), ``close`` once,
idempotently. Sinks never see the consumer and never commit.
"""

from __future__ import annotations

from typing import Protocol

from monitor.model import DeadLetter, Evaluation


class Sink(Protocol):
    name: str

    def start(self) -> None: ...

    def write(self, evaluation: Evaluation) -> None: ...

    def write_dead_letter(self, letter: DeadLetter) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...
