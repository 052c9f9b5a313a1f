"""``KafkaDeadLetterSink``: dead letters to a Kafka topic, exactly as they were read.

The value is the original bytes and the key the original key, so a fixed record can be
re-produced to the source topic as it is; why it failed and where it came from travel in
headers. Idempotent producer, ``acks=all``. ``flush`` raises if anything is undelivered, so
the pipeline never commits past a dead letter that did not reach the topic; undelivered
letters are sent again on the next flush.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from kafka import KafkaProducer
from kafka.errors import KafkaError

from monitor.config import KafkaConnection
from monitor.kafka_source import connection_kwargs
from monitor.model import DeadLetter, Evaluation


class SinkError(Exception):
    """A sink could not persist what it was given."""


class KafkaDeadLetterSink:
    name = "kafka_dead_letters"

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        flush_timeout_seconds: float = 30.0,
        producer_factory: Callable[..., Any] = KafkaProducer,
    ) -> None:
        self.topic = topic
        self.connection = connection
        self.flush_timeout_seconds = flush_timeout_seconds
        self._factory = producer_factory
        self._producer: Any = None
        self._pending: list[tuple[DeadLetter, Any]] = []

    def start(self) -> None:
        try:
            self._producer = self._factory(
                **connection_kwargs(self.connection),
                acks="all",
                enable_idempotence=True,
                linger_ms=20,
                max_block_ms=10_000,
                bootstrap_timeout_ms=int(self.connection.bootstrap_timeout_seconds * 1000),
            )
        except KafkaError as exc:
            raise SinkError(f"dead-letter producer cannot reach Kafka: {exc}") from exc

    def write(self, evaluation: Evaluation) -> None:
        """Evaluations do not go here."""

    def write_dead_letter(self, letter: DeadLetter) -> None:
        self._pending.append((letter, self._send(letter)))

    def _send(self, letter: DeadLetter) -> Any:
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
        try:
            return self._producer.send(self.topic, value=letter.raw, key=key, headers=headers)
        except KafkaError:
            return None  # no metadata within max_block_ms (broker down): resent by flush()

    def flush(self) -> None:
        if not self._pending:
            return
        with contextlib.suppress(KafkaError):  # judged per record below
            self._producer.flush(timeout=self.flush_timeout_seconds)
        failed = [letter for letter, fut in self._pending if fut is None or not fut.succeeded()]
        self._pending = []
        if failed:
            self._pending = [(letter, self._send(letter)) for letter in failed]
            raise SinkError(f"{len(failed)} dead letters not delivered to {self.topic}")

    def close(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            producer.close(timeout=self.flush_timeout_seconds)
