"""Kafka outputs: dead letters, and golden rows keyed by row id.

Both use an idempotent producer with ``acks=all`` and the same rule: ``flush`` raises if
anything is undelivered, so the pipeline never commits offsets past records whose output did
not reach the topic; undelivered messages are sent again on the next flush.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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


class KafkaRowWriter(_KafkaOutput):
    """Golden rows to a topic keyed by row id (use a compacted topic: the latest state of
    each row is what remains). Rows put between flushes are sent once, in their last state."""

    def __init__(
        self, topic: str, connection: KafkaConnection, **options: Unpack[_OutputOptions]
    ) -> None:
        super().__init__(topic, connection, **options)
        self._rows: dict[str, GoldenRow] = {}

    def put(self, row: GoldenRow) -> None:
        """Produce the row, keyed by its id (the topic is compacted)."""
        self._rows[row["id"]] = row

    def flush(self) -> None:
        """Wait until the broker acknowledged every row."""
        for rid, row in self._rows.items():
            value = json.dumps(row, ensure_ascii=False).encode("utf-8")
            self._producer.send((value, rid.encode(), [("ragmon.schema", b"ragmon.golden/v1")]))
        self._rows = {}
        self._producer.flush()
