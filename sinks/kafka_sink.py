"""Kafka outputs: dead letters, and golden rows keyed by row id.

Both use an idempotent producer with ``acks=all`` and the same rule: ``flush`` raises if
anything is undelivered, so the pipeline never commits offsets past records whose output did
not reach the topic; undelivered messages are sent again on the next flush.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kafka import KafkaProducer
from kafka.errors import KafkaError
from kafka.producer.future import FutureRecordMetadata

from monitor.config import KafkaConnection

if TYPE_CHECKING:
    from monitor.config import Settings
    from monitor.telemetry import Metrics
from monitor.errors import ConfigError, SinkError
from monitor.lines import GoldenRow
from monitor.model import DeadLetter, Evaluation
from sinks import Closable

Message = tuple[bytes, bytes, list[tuple[str, bytes]]]  # value, key, headers


class _Producer:
    """A producer that remembers what it sent until the broker has acknowledged it."""

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        flush_timeout_seconds: float,
        factory: Callable[..., KafkaProducer],
    ) -> None:
        self.topic = topic
        self.connection = connection
        self.flush_timeout_seconds = flush_timeout_seconds
        self._factory = factory
        self._producer: Any = None
        self._pending: list[tuple[Message, FutureRecordMetadata | None]] = []
        self._retry: list[Message] = []

    def start(self) -> None:
        try:
            self._producer = self._factory(
                **self.connection.client_kwargs(),
                acks="all",
                enable_idempotence=True,
                linger_ms=20,
                max_block_ms=10_000,
                bootstrap_timeout_ms=int(self.connection.bootstrap_timeout_seconds * 1000),
            )
        except KafkaError as exc:
            raise SinkError(f"producer for {self.topic} cannot reach Kafka: {exc}") from exc

    def send(self, message: Message) -> None:
        self._pending.append((message, self._send(message)))

    def _send(self, message: Message) -> FutureRecordMetadata | None:
        value, key, headers = message
        try:
            return self._producer.send(self.topic, value=value, key=key, headers=headers)
        except KafkaError:
            return None  # no metadata within max_block_ms (broker down): resent by flush()

    def flush(self) -> None:
        # What failed last time is sent again first, then everything is waited for.
        self._pending += [(msg, self._send(msg)) for msg in self._retry]
        self._retry = []
        if not self._pending:
            return
        with contextlib.suppress(KafkaError):  # judged per message below
            self._producer.flush(timeout=self.flush_timeout_seconds)
        failed = [msg for msg, fut in self._pending if fut is None or not fut.succeeded()]
        self._pending = []
        if failed:
            self._retry = failed
            raise SinkError(f"{len(failed)} messages not delivered to {self.topic}")

    def close(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            # Only messages sent since the last flush are worth waiting for. After a failed
            # flush (this output's or another sink's: the pipeline then flushes no more)
            # nothing undelivered was committed, so a restart sends it again: waiting for a
            # broker that is down would only delay the exit.
            wait = self._pending and not self._retry
            producer.close(timeout=self.flush_timeout_seconds if wait else 0)


class _KafkaOutput:
    """A topic and the producer that writes to it."""

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        flush_timeout_seconds: float = 30.0,
        producer_factory: Callable[..., KafkaProducer] = KafkaProducer,
    ) -> None:
        self.topic = topic
        self._producer = _Producer(topic, connection, flush_timeout_seconds, producer_factory)

    def start(self) -> None:
        self._producer.start()

    def close(self) -> None:
        self._producer.close()


class KafkaDeadLetterSink(_KafkaOutput, Closable):
    """Dead letters exactly as they were read: the value is the original bytes and the key
    the original key, so a fixed record can be re-produced as it is; why it failed and where
    it came from travel in headers."""

    name = "kafka_dead_letters"

    @classmethod
    def from_config(cls, settings: Settings, metrics: Metrics | None = None) -> KafkaDeadLetterSink:
        """``output.dead_letters_topic`` on the ``kafka`` connection."""
        topic = settings.output.dead_letters_topic
        if topic is None:
            raise ConfigError("the Kafka dead-letter sink needs output.dead_letters_topic")
        return cls(topic, settings.kafka)

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

    def __init__(self, topic: str, connection: KafkaConnection, **kwargs: Any) -> None:
        super().__init__(topic, connection, **kwargs)
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
