"""The Kafka producer behind the Kafka outputs, with a stand-in client: a missing topic is a
start-up error, and a topic that vanishes while running costs one wait per flush, not one
per message (each send used to wait max_block_ms in turn, so a graceful stop overran its
budget)."""

from __future__ import annotations

from typing import Any

import pytest
from kafka.errors import KafkaTimeoutError

from monitor.core.errors import SinkError
from monitor.core.model import KafkaConnection
from sinks.kafka_producer import Producer


class _NoMetadata:
    """A client whose topic has no metadata: every send waits, then times out."""

    def __init__(self, **kwargs: Any) -> None:
        self.sends = 0
        self.closed_with: float | None = None

    def send(self, topic: str, **message: Any) -> None:
        self.sends += 1
        raise KafkaTimeoutError("Failed to update metadata after 10.0 secs.")

    def flush(self, timeout: float | None = None) -> None:
        """Nothing buffered."""

    def close(self, timeout: float | None = None) -> None:
        self.closed_with = timeout


def test_a_missing_topic_is_a_startup_error_naming_it() -> None:
    """The cluster lacks the topic: start raises one line naming it and the broker."""
    client = _NoMetadata()
    producer = Producer("dlq", KafkaConnection(), 5.0, factory=lambda **kw: client,
                        topics=lambda: {"traces"})  # fmt: skip
    with pytest.raises(SinkError, match=r"^topic dlq does not exist on 127.0.0.1:9092 "):
        producer.start()
    assert client.closed_with is not None  # the client was released


def test_a_vanished_topic_costs_one_wait_per_flush() -> None:
    """Fifty messages to a topic with no metadata: one send waits (and fails), the others
    are kept for the next flush without waiting; the flush names the topic and why; the
    next flush tries once more; close does not wait."""
    client = _NoMetadata()
    producer = Producer("rows", KafkaConnection(), 5.0, factory=lambda **kw: client,
                        topics=lambda: {"rows"})  # fmt: skip
    producer.start()
    for i in range(50):
        producer.send((b"v", str(i).encode(), []))
    assert client.sends == 1
    with pytest.raises(SinkError, match=r"50 messages not delivered to rows \(no metadata"):
        producer.flush()
    assert client.sends == 2  # the flush tried once again, then kept the rest
    with pytest.raises(SinkError, match="50 messages not delivered"):
        producer.flush()
    assert client.sends == 3
    producer.close()
    assert client.closed_with == 0


class _Pending:
    is_done = False

    def succeeded(self) -> bool:
        return False


class _Metadata:
    def __init__(self) -> None:
        self.known = True

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return {0} if self.known else None


class _Deleted:
    """A client whose messages never complete (the broker retries them for minutes) and
    whose metadata loses the topic at the first flush."""

    def __init__(self) -> None:
        self._metadata = _Metadata()
        self.flushes = 0

    def send(self, topic: str, **message: Any) -> _Pending:
        return _Pending()

    def flush(self, timeout: float | None = None) -> None:
        self.flushes += 1
        self._metadata.known = False
        raise KafkaTimeoutError("Timeout waiting for future")

    def close(self, timeout: float | None = None) -> None:
        raise KafkaTimeoutError("Timeout waiting for future")  # kafka-python 3 flushes first


def test_a_deleted_topic_ends_the_flush_at_once() -> None:
    """The topic leaves the cluster's metadata while the flush waits: it stops waiting
    after one slice (not its whole timeout), names the topic gone, sends nothing more to it
    while it stays gone, and close does not raise."""
    client = _Deleted()
    producer = Producer("dlq", KafkaConnection(), 60.0, factory=lambda **kw: client,
                        topics=lambda: {"dlq"})  # fmt: skip
    producer.start()
    producer.send((b"v", b"k", []))
    with pytest.raises(SinkError, match="1 messages not delivered to dlq: the topic no longer"):
        producer.flush()
    assert client.flushes == 1
    with pytest.raises(SinkError, match="no longer exists"):
        producer.flush()
    assert client.flushes == 1  # nothing sent: nothing waited for
    producer.close()
