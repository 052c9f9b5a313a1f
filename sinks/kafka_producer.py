"""The Kafka producer behind the Kafka outputs (``sinks.kafka_sink``), in a module of its own
so that the Kafka client is imported only when a Kafka output is built."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from kafka import KafkaConsumer, KafkaProducer
from kafka.errors import KafkaError, KafkaTimeoutError
from kafka.producer.future import FutureRecordMetadata

from monitor.core.errors import SinkError
from monitor.core.log import held_logs
from monitor.core.model import KafkaConnection

Message = tuple[bytes, bytes, list[tuple[str, bytes]]]  # value, key, headers
_SLICE_SECONDS = 0.5  # a flush looks at the topic's metadata this often while it waits


class Producer:
    """A producer that remembers what it sent until the broker has acknowledged it."""

    def __init__(
        self,
        topic: str,
        connection: KafkaConnection,
        flush_timeout_seconds: float,
        factory: Callable[..., KafkaProducer] | None = None,
        topics: Callable[[], set[str]] | None = None,
    ) -> None:
        self.topic = topic
        self.connection = connection
        self.flush_timeout_seconds = flush_timeout_seconds
        self._factory = factory if factory is not None else KafkaProducer
        # the cluster's topics, asked at start; the real cluster's with the real producer
        self._topics = topics if topics is not None or factory is not None else self._listed
        self._producer: KafkaProducer | None = None
        self._pending: list[tuple[Message, FutureRecordMetadata | None]] = []
        self._retry: list[Message] = []
        # a send found no metadata for the topic (deleted, or the broker gone): the rest of
        # the batch is kept for the next flush instead of each waiting max_block_ms in turn
        self._no_metadata = False
        self._gone = False  # the topic was deleted while running (``_vanished``)

    def _listed(self) -> set[str]:
        """The cluster's topics, through a consumer in no group."""
        consumer = KafkaConsumer(
            **self.connection.client_kwargs(),
            bootstrap_timeout_ms=int(self.connection.bootstrap_timeout_seconds * 1000),
            request_timeout_ms=self.connection.request_timeout_ms,
        )
        try:
            return set(consumer.topics())
        finally:
            consumer.close(autocommit=False)

    def start(self) -> None:
        """Connect and check the topic exists (an unreachable broker or a missing topic is a
        ``SinkError``: a producer would otherwise wait on the topic's metadata at each send)."""
        try:
            with held_logs("kafka"):  # its retries, while the reason is not known yet
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
        if self._topics is None:
            return
        try:
            with held_logs("kafka"):
                existing = self._topics()
        except KafkaError as exc:
            self.close()
            raise SinkError(f"producer for {self.topic} cannot list topics: {exc}") from exc
        if self.topic not in existing:
            self.close()
            raise SinkError(
                f"topic {self.topic} does not exist on "
                f"{', '.join(self.connection.bootstrap_servers)} (ragmon does not create topics)"
            )

    def _client(self) -> KafkaProducer:
        if self._producer is None:
            raise SinkError(f"the producer for {self.topic} is not started")
        return self._producer

    def send(self, message: Message) -> None:
        """Send ``message``; it is judged delivered or not by the next ``flush``."""
        self._pending.append((message, self._send(message)))

    def _send(self, message: Message) -> FutureRecordMetadata | None:
        value, key, headers = message
        if self._no_metadata or (self._gone and self._vanished()):
            return None  # resent by the next flush, which tries once more
        self._gone = False
        try:
            return self._client().send(self.topic, value=value, key=key, headers=headers)
        except KafkaTimeoutError:
            self._no_metadata = True  # no metadata within max_block_ms: deleted, broker down
            return None
        except KafkaError:
            return None  # resent by flush()

    def _vanished(self) -> bool:
        """The topic is no longer in the cluster's metadata as the client last read it
        (deleted while running): what is sent to it would be retried until the producer's
        delivery timeout, two minutes, past any stop's budget."""
        metadata = getattr(self._producer, "_metadata", None)  # kafka-python's ClusterMetadata
        return metadata is not None and metadata.partitions_for_topic(self.topic) is None

    def flush(self) -> None:
        """Wait for every message sent (and resend what failed before); raise ``SinkError``
        when any is undelivered."""
        # what was never sent (no metadata) is sent now, with what failed last time; one
        # send of this flush may wait for the topic's metadata again
        unsent = [msg for msg, fut in self._pending if fut is None]
        self._pending = [(msg, fut) for msg, fut in self._pending if fut is not None]
        self._no_metadata = False
        self._pending += [(msg, self._send(msg)) for msg in [*self._retry, *unsent]]
        self._retry = []
        if not self._pending:
            return
        self._wait()
        failed = [msg for msg, fut in self._pending if fut is None or not fut.succeeded()]
        self._pending = []
        if failed:
            self._retry = failed
            why = (" (no metadata for the topic: deleted, or the broker unreachable)"
                   if self._no_metadata else
                   f": the topic no longer exists on {', '.join(self.connection.bootstrap_servers)}"
                   if self._gone else "")  # fmt: skip
            raise SinkError(f"{len(failed)} messages not delivered to {self.topic}{why}")

    def _wait(self) -> None:
        """Wait for the messages sent, up to ``flush_timeout_seconds``, in slices: a topic
        deleted meanwhile ends the wait at once (``_gone``) instead of at the timeout."""
        deadline = time.monotonic() + self.flush_timeout_seconds
        while any(fut is not None and not fut.is_done for _, fut in self._pending):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            with contextlib.suppress(KafkaError):  # judged per message by the caller
                self._client().flush(timeout=min(_SLICE_SECONDS, left))
            if self._vanished():
                self._gone = True
                return

    def close(self) -> None:
        """Release the producer, waiting only for what is worth waiting for."""
        if self._producer is not None:
            producer, self._producer = self._producer, None
            # Only messages sent since the last flush are worth waiting for. After a failed
            # flush (this output's or another sink's: the pipeline then flushes no more)
            # nothing undelivered was committed, so a restart sends it again: waiting for a
            # broker that is down would only delay the exit.
            wait = self._pending and not self._retry and not self._no_metadata and not self._gone
            try:
                producer.close(timeout=self.flush_timeout_seconds if wait else 0)
            except KafkaError:
                _force_closed(producer)


def _force_closed(producer: KafkaProducer) -> None:
    """What kafka-python's close does after its flush, when that flush timed out (it raises
    before it stops its sender thread, and closes again, with a traceback, when collected):
    the sender stopped at once, the producer marked closed. What was not delivered was not
    committed either: a restart sends it again."""
    sender = getattr(producer, "_sender", None)
    if sender is not None:
        sender.force_close()
    producer._closed = True  # its own close's last step
