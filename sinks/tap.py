"""``TapSink``: every evaluation handed to a reader in this process (a command's own reading
of the stream, such as ``rescore --dry-run``'s judge estimate); nothing written out."""

from __future__ import annotations

from typing import Protocol

from monitor.core.model import Evaluation
from sinks import SinkBase


class Reader(Protocol):
    """What a tap hands each evaluation to."""

    def take(self, evaluation: Evaluation) -> None:
        """Read one evaluation."""


class TapSink(SinkBase):
    """Hands each evaluation to ``reader`` as it is written (delivered at once: the default
    ``flush``)."""

    name = "tap"

    def __init__(self, reader: Reader) -> None:
        self.reader = reader

    def write(self, evaluation: Evaluation) -> None:
        """Hand the evaluation to the reader."""
        self._check_open()
        self.reader.take(evaluation)
