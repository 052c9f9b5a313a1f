"""Orchestration only: source → decode → checks → sinks → commit.

The pipeline knows offsets; nothing downstream does. Offsets are committed only after every
sink has flushed the records behind them, so a crash replays and never loses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from monitor.checks import CheckSuite
from monitor.model import DeadLetter, Evaluation, RagTrace
from monitor.sources import Source, SourceRecord
from sinks import Sink

Decoder = Callable[[SourceRecord], RagTrace | DeadLetter]


class PipelineObserver(Protocol):
    """Receives per-batch figures (the Prometheus metrics implement it)."""

    def on_batch(self, source: str, records: int, seconds: float) -> None: ...


@dataclass
class PipelineStats:
    records: int = 0
    traces: int = 0
    dead_letters: int = 0
    commits: int = 0
    flagged: dict[str, int] = field(default_factory=dict)


class Pipeline:
    """Runs records through decoding, the check suite and the sinks, then commits."""

    def __init__(
        self,
        source: Source,
        decoder: Decoder,
        suite: CheckSuite,
        sinks: Sequence[Sink],
        observer: PipelineObserver | None = None,
        batch_size: int = 500,
        poll_timeout: float = 0.2,
        commit_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.decoder = decoder
        self.suite = suite
        self.sinks = list(sinks)
        self.observer = observer
        self.batch_size = batch_size
        self.poll_timeout = poll_timeout
        self.commit_interval = commit_interval
        self._clock = clock
        self._pending: dict[tuple[str, int], int] = {}
        self._last_commit = clock()
        self.stats = PipelineStats()
        self.log = structlog.get_logger("ragmon.pipeline")

    def start(self) -> None:
        """Start downstream first: sinks, then the source."""
        for sink in self.sinks:
            sink.start()
        self.source.start()

    def run(self, stop: threading.Event) -> PipelineStats:
        """Poll until ``stop`` is set or a finite source is exhausted, then commit."""
        while not stop.is_set():
            records = self.source.poll(self.batch_size, self.poll_timeout)
            if records:
                self.process(records)
            if self._clock() - self._last_commit >= self.commit_interval:
                self.checkpoint()
            if self.source.exhausted and not records:
                break
        self.checkpoint()
        return self.stats

    def process(self, records: Sequence[SourceRecord]) -> list[Evaluation]:
        """Decode, check and write one batch; remembers the offsets to commit."""
        t0 = time.perf_counter()
        out: list[Evaluation] = []
        for record in records:
            item = self.decoder(record)
            if isinstance(item, DeadLetter):
                self.stats.dead_letters += 1
                for sink in self.sinks:
                    sink.write_dead_letter(item)
            else:
                evaluation = Evaluation(trace=item, checks=self.suite(item))
                self.stats.traces += 1
                for name in evaluation.flagged:
                    self.stats.flagged[name] = self.stats.flagged.get(name, 0) + 1
                for sink in self.sinks:
                    sink.write(evaluation)
                out.append(evaluation)
            pos = record.position
            key = (pos.source, pos.partition)
            self._pending[key] = max(self._pending.get(key, -1), pos.offset + 1)
        self.stats.records += len(records)
        if self.observer is not None:
            self.observer.on_batch(self.source.name, len(records), time.perf_counter() - t0)
        return out

    def checkpoint(self) -> None:
        """Flush every sink, then commit what they now hold. A flush that raises stops here:
        nothing is committed past records a durable sink has not persisted."""
        for sink in self.sinks:
            sink.flush()
        if self._pending:
            self.source.commit(dict(self._pending))
            self._pending.clear()
            self.stats.commits += 1
        self._last_commit = self._clock()

    def close(self) -> None:
        """Stop upstream first: the source, then the sinks. Safe to call twice."""
        try:
            self.source.close()
        finally:
            for sink in self.sinks:
                try:
                    sink.close()
                except Exception:
                    self.log.exception("sink_close_failed", sink=sink.name)
