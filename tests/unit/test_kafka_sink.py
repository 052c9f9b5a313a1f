"""Kafka sinks with a stand-in producer: undelivered output blocks the commit."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from monitor.checks import CheckSuite
from monitor.core.errors import SinkFailure
from monitor.core.model import KafkaConnection
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, demo
from sinks.golden import GoldenRowSink
from sinks.kafka_sink import KafkaDeadLetterSink, KafkaRowWriter


class _Future:
    def __init__(self, ok: bool) -> None:
        self.is_done = True
        self.ok = ok

    def succeeded(self) -> bool:
        return self.ok


class FakeProducer:
    """Records sends; delivers only while ``up`` is true."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.sent: list[tuple[str, bytes, bytes, list[tuple[str, bytes]]]] = []
        self.up = True

    def send(
        self, topic: str, value: bytes, key: bytes, headers: list[tuple[str, bytes]]
    ) -> _Future:
        self.sent.append((topic, value, key, headers))
        return _Future(self.up)

    def flush(self, timeout: float | None = None) -> None:
        """Nothing buffered."""

    def close(self, timeout: float | None = None) -> None:
        self.close_timeout = timeout


def test_producer_is_idempotent_with_acks_all() -> None:
    """The durable producers ask for acks=all and idempotence."""
    made: list[FakeProducer] = []
    sink = KafkaDeadLetterSink(
        "dlq",
        KafkaConnection(),
        producer_factory=lambda **kw: made.append(FakeProducer(**kw)) or made[-1],
    )
    sink.start()
    assert made[0].kwargs["acks"] == "all" and made[0].kwargs["enable_idempotence"] is True


def test_undelivered_rows_block_the_commit_and_are_resent() -> None:
    """Broker down: the row writer's flush fails, the pipeline commits nothing and stops;
    the rows are sent again on the next flush."""
    producer = FakeProducer()
    writer = KafkaRowWriter("rows", KafkaConnection(), "w", producer_factory=lambda **kw: producer)
    golden = GoldenRowSink(None, extra_writers=[writer])
    values = [demo.generate_bytes(i) for i in range(60)]
    source = ListSource(values)
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [golden], sleep=lambda _: None)
    pipeline.start()
    producer.up = False
    with pytest.raises(SinkFailure, match="not delivered"):
        pipeline.run(threading.Event())
    assert source.committed == {}
    failed = len(producer.sent)
    assert failed > 0
    producer.up = True
    golden.flush()  # what a restarted process would do with the same rows
    keys = {key for _, _, key, _ in producer.sent[failed:]}
    assert keys == {key for _, _, key, _ in producer.sent[:failed]}


def test_close_waits_only_for_messages_sent_since_the_last_good_flush() -> None:
    """What a failed flush could not deliver was not committed and is sent again after a
    restart, and what a good flush delivered needs no wait: close() then gives the producer
    no time to wait for a broker that may be down (the daemon exits within its shutdown
    budget, also when another sink's failure stopped the flushes); only messages sent since
    the last flush, with no failure, are waited for."""
    from monitor.core.model import DeadLetter

    made: list[FakeProducer] = []
    letter = DeadLetter(reason="invalid_json", detail="x", source="t", partition=0, offset=1,
                        raw=b"{")  # fmt: skip
    for case, want in (("failed", 0), ("flushed", 0), ("unflushed", 30.0)):
        sink = KafkaDeadLetterSink("dlq", KafkaConnection(), flush_timeout_seconds=30.0,
                                   producer_factory=lambda **kw: made.append(FakeProducer(**kw))
                                   or made[-1])  # fmt: skip
        sink.start()
        made[-1].up = case != "failed"
        sink.write_dead_letter(letter)
        if case == "flushed":
            sink.flush()
        elif case == "failed":
            with pytest.raises(Exception, match="not delivered"):
                sink.flush()
        sink.close()
        assert made[-1].close_timeout == want, case
    # golden rows are produced at the flush: rows put after the last one (the pipeline
    # failed in another sink, so no flush came) leave nothing to wait for
    writer = KafkaRowWriter("golden", KafkaConnection(), "w", flush_timeout_seconds=30.0,
                            producer_factory=lambda **kw: made.append(FakeProducer(**kw))
                            or made[-1])  # fmt: skip
    writer.start()
    writer.put({"id": "r1"})
    writer.close()
    assert made[-1].close_timeout == 0
