"""Kafka outputs: dead letters, and golden rows keyed by row id and writer.

Both use an idempotent producer with ``acks=all`` and the same rule: ``flush`` raises if
anything is undelivered, so the pipeline never commits offsets past records whose output did
not reach the topic; undelivered messages are sent again on the next flush.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, Unpack

from monitor.core.lines import GoldenRow
from monitor.core.model import DeadLetter, Evaluation, KafkaConnection
from sinks import SinkBase

if TYPE_CHECKING:
    from kafka import KafkaProducer

    from monitor.telemetry import Metrics


@dataclass(frozen=True)
class DeadLetterTopic:
    """The Kafka dead-letter sink's configuration: ``output.dead_letters_topic`` on the
    shared ``kafka`` connection."""

    topic: str
    connection: KafkaConnection


class _OutputOptions(TypedDict, total=False):
    """A Kafka output's options beyond its topic and connection."""

    flush_timeout_seconds: float
    producer_factory: Callable[..., KafkaProducer] | None


class _KafkaOutput:
    """A topic and the producer that writes to it."""

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        flush_timeout_seconds: float = 30.0,
        producer_factory: Callable[..., KafkaProducer] | None = None,
    ) -> None:
        from sinks.kafka_producer import Producer  # the Kafka client, only when built

        self.topic = topic
        self._producer = Producer(topic, connection, flush_timeout_seconds, producer_factory)

    def start(self) -> None:
        self._producer.start()

    def close(self) -> None:
        self._producer.close()


class KafkaDeadLetterSink(_KafkaOutput, SinkBase):
    """Dead letters exactly as they were read: the value is the original bytes and the key
    the original key, so a fixed record can be re-produced as it is; why it failed and where
    it came from travel in headers."""

    name = "kafka_dead_letters"

    @classmethod
    def from_config(
        cls, config: DeadLetterTopic, metrics: Metrics | None = None
    ) -> KafkaDeadLetterSink:
        """The dead-letter topic of ``config``."""
        return cls(config.topic, config.connection)

    def write(self, evaluation: Evaluation) -> None:
        """Evaluations do not go here."""
        self._check_open()

    def write_dead_letter(self, letter: DeadLetter) -> None:
        """Produce the dead letter: its original bytes and key, why and where in headers."""
        self._check_open()
        headers = [
            ("ragmon.dlq.reason", letter.reason.encode()),
            ("ragmon.dlq.detail", letter.detail[:1000].encode("utf-8", "replace")),
            ("ragmon.source.topic", letter.source.encode("utf-8", "replace")),
            ("ragmon.source.partition", str(letter.partition).encode()),
            ("ragmon.source.offset", str(letter.offset).encode()),
        ]
        key = letter.key
        if key is None:
            key = f"{letter.source}:{letter.partition}:{letter.offset}".encode()
        self._producer.send((letter.raw, key, headers))

    def flush(self) -> None:
        """Wait until the broker acknowledged every dead letter (raises ``SinkError`` when it did
        not)."""
        self._check_open()
        self._producer.flush()

    def close(self) -> None:
        """Deliver what is left and release the sink; a second call does nothing."""
        if self._closing():
            super().close()


def writer_identity(clock: Callable[[], float] = time.time) -> str:
    """This process's name on ``golden.topic``: host, process id and start time in
    milliseconds, so that no two processes — replicas, workers, a process and its restart —
    share a record key."""
    return f"{socket.gethostname()}-{os.getpid()}-{int(clock() * 1000)}"


class KafkaRowWriter(_KafkaOutput):
    """Golden rows to a compacted topic, one key a row and writer: ``<row id>/<writer>``.

    Each writing process (a replica of the group, a worker, a process started again) counts
    only the occurrences it saw, so the key carries the writer: on one key per row, the
    compaction would keep one writer's partial count and drop the others' (and a restarted
    process, counting from zero, would overwrite its predecessor's higher count). A reader
    takes the latest record of each key and, per row id, sums the writers' counts
    (``monitor.golden.stored.topic_rows``). Rows put between flushes are sent once, in their
    last state."""

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        writer: str,
        **options: Unpack[_OutputOptions],
    ) -> None:
        super().__init__(topic, connection, **options)
        if "/" in writer:
            raise ValueError(f"a golden.topic writer has no '/' (the key's separator): {writer!r}")
        self.writer = writer
        self._rows: dict[str, GoldenRow] = {}
        # rows read back from golden.dir at start, and their count then: earlier processes
        # counted those occurrences, on keys of their own; this writer's count starts there.
        # Held by the row's ragmon block itself: a row evicted and made again is a new block,
        # counted from its own start.
        self._before: dict[str, tuple[object, int]] = {}

    def resume(self, rows: Iterable[GoldenRow]) -> None:
        """The rows the sink read back at start: their occurrences so far are not this
        writer's (they are on the keys of the processes that counted them)."""
        self._before = {row["id"]: (row["ragmon"], row["ragmon"]["count"]) for row in rows}

    def put(self, row: GoldenRow) -> None:
        """Take the row's latest state, produced at the next flush."""
        self._rows[row["id"]] = row

    def value(self, row: GoldenRow) -> dict[str, object]:
        """The record's value: the row naming its writer, with this writer's own count."""
        count = row["ragmon"]["count"]
        before = self._before.get(row["id"])
        if before is not None and before[0] is row["ragmon"]:
            count -= before[1]
        elif before is not None:  # evicted and made again: counted from its new start
            del self._before[row["id"]]
        meta = {**row["ragmon"], "count": count, "writer": self.writer}
        return {**row, "ragmon": meta}

    def flush(self) -> None:
        """Wait until the broker acknowledged every row."""
        for rid, row in self._rows.items():
            value = json.dumps(self.value(row), ensure_ascii=False).encode("utf-8")
            key = f"{rid}/{self.writer}".encode()
            self._producer.send((value, key, [("ragmon.schema", b"ragmon.golden/v1")]))
        self._rows = {}
        self._producer.flush()
