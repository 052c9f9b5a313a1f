"""The source and sink contracts (tests/unit/test_source_contract.py and
test_sink_contract.py) for the Kafka source and the Kafka dead-letter sink, on the real
broker."""

from __future__ import annotations

import time

import pytest
from kafka import KafkaConsumer, TopicPartition

from monitor.core.errors import SinkClosed
from monitor.core.model import DeadLetter, KafkaConnection
from monitor.sources import Partition, SourceRecord
from monitor.sources import kafka as kafka_mod
from monitor.sources.kafka import KafkaSource
from monitor.sources.kafka_config import KafkaSourceConfig
from sinks.kafka_sink import KafkaDeadLetterSink
from tests.integration.kafka_support import bootstrap, create_topic, produce
from tests.unit.test_source_contract import Listener


def test_kafka_source_lifecycle() -> None:
    """listen, start, ready after the assignment was polled, positions, commit, close."""
    topic = create_topic(2)
    produce(topic, 20)
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=f"g-{topic}"),
        KafkaConnection(bootstrap_servers=[bootstrap()]),
    )
    listener = Listener()
    source.listen(listener)
    assert source.progress() is None  # not started
    source.start()
    try:
        assert not source.ready()  # not assigned yet
        records = source.poll(1, 0.5)
        deadline = time.monotonic() + 30
        while not records and time.monotonic() < deadline:
            records += source.poll(1, 0.5)
        # one record returned of ten per partition: a partition with records left is behind
        progress = source.progress()
        assert progress is not None and progress.assigned == {(topic, 0), (topic, 1)}
        assert (records[0].position.source, records[0].position.partition) in progress.behind
        while len(records) < 20 and time.monotonic() < deadline:
            records += source.poll(100, 0.5)
        assert len(records) == 20
        assert source.ready()
        source.poll(100, 0.5)  # a fetch after the last record: the ends are known
        progress = source.progress()
        assert progress is not None and progress.behind == frozenset()  # read to the end
        last: dict[Partition, int] = {}
        for r in records:
            key = (r.position.source, r.position.partition)
            assert r.position.offset > last.get(key, -1)
            last[key] = r.position.offset
        commit_as_owner(source, listener, {k: v + 1 for k, v in last.items()})
    finally:
        source.close()
        source.close()
    # the group's committed offsets are what was committed
    consumer = KafkaConsumer(bootstrap_servers=bootstrap(), group_id=f"g-{topic}")
    for (t, p), offset in last.items():
        assert consumer.committed(TopicPartition(t, p)) == offset + 1
    consumer.close()


def commit_as_owner(source: KafkaSource, listener: Listener, offsets: dict[Partition, int]) -> None:
    """Commit ``offsets`` as the owner of their partitions. A group may rebalance at any
    moment: kafka-python's KafkaConsumer.subscribe says the consumer "will trigger a
    rebalance operation" when, among others, the "number of partitions change for any of
    the subscribed topics" or a "topic is created" (these tests' topics are seconds old; a
    clean-clone run saw one a second after the assignment). A source commits only the
    partitions it owns at the time, by design: a revoked partition's offset is its next
    owner's. So the commit waits, polling, until the source owns every partition again,
    and is repeated when a revocation came during it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        progress = source.progress()
        if progress is None or not offsets.keys() <= progress.assigned:
            source.poll(100, 0.5)
            continue
        seen = listener.calls.count("revoked")
        source.commit(offsets)
        if listener.calls.count("revoked") == seen:
            return
    raise AssertionError("the source never owned every partition long enough to commit")


def _read_all(source: KafkaSource, want: int, seconds: float = 30) -> list[SourceRecord]:
    records: list[SourceRecord] = []
    deadline = time.monotonic() + seconds
    while len(records) < want and time.monotonic() < deadline:
        records += source.poll(100, 0.5)
    return records


def test_a_restart_after_a_commit_rereads_exactly_the_uncommitted_part() -> None:
    """A source that re-reads its input (Kafka): commit part of what was read, close, start
    again in the same group: it hands every uncommitted record once and nothing committed."""
    topic = create_topic(2)
    produce(topic, 30)

    def source() -> KafkaSource:
        return KafkaSource(
            KafkaSourceConfig(topics=[topic], group_id=f"g-{topic}"),
            KafkaConnection(bootstrap_servers=[bootstrap()]),
        )

    first = source()
    listener = Listener()
    first.listen(listener)
    first.start()
    try:
        records = _read_all(first, 30)
        assert len(records) == 30
        committed = {(topic, 0): 4, (topic, 1): 11}  # p0: 0-3 finished; p1: 0-10 finished
        commit_as_owner(first, listener, committed)
    finally:
        first.close()
    per_partition = {p: [r.position.offset for r in records if (r.position.source,
                     r.position.partition) == p] for p in committed}  # fmt: skip
    expected = sorted((p, o) for p, offsets in per_partition.items()
                      for o in offsets if o >= committed[p])  # fmt: skip
    second = source()
    second.listen(Listener())
    second.start()
    try:
        again = _read_all(second, len(expected))
        time.sleep(1.0)
        again += second.poll(100, 0.5)  # nothing more: no committed record comes back
    finally:
        second.close()
    got = sorted(((r.position.source, r.position.partition), r.position.offset) for r in again)
    assert got == expected


def test_a_held_partition_gives_every_record_once_released() -> None:
    """``hold`` pauses a partition while its fetched records are in line, then releases it:
    nothing of it comes while held, and every record comes once after (kafka-python 3.0.12
    parks such records and, unaided, never gives them back nor fetches the partition
    again: 972 of these 2,000 records never came)."""
    topic = create_topic(2)
    produced = produce(topic, 2000)  # keyed: about 1,000 per partition
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=f"g-{topic}"),
        KafkaConnection(bootstrap_servers=[bootstrap()]),
    )
    source.listen(Listener())
    source.start()
    try:
        records: list[SourceRecord] = []
        deadline = time.monotonic() + 30
        while not records and time.monotonic() < deadline:
            records += source.poll(50, 0.5)
        first = records[0].position
        held = (first.source, first.partition)
        source.hold(frozenset({held}))
        at_hold = len(records)

        def other() -> int:
            return sum(r.position.partition != held[1] for r in records)

        others = sum(partition != held[1] for partition, _ in produced.valid.values())
        while other() < others and time.monotonic() < deadline:  # the other partition, whole
            records += source.poll(50, 0.5)
        assert all(r.position.partition != held[1] for r in records[at_hold:]), "held, yet read"
        source.hold(frozenset())
        records += _read_all(source, 2000 - len(records))
    finally:
        source.close()
    positions = [(r.position.partition, r.position.offset) for r in records]
    assert len(positions) == len(set(positions)) == 2000


def test_kafka_dead_letter_sink_contract() -> None:
    topic = create_topic(1)
    sink = KafkaDeadLetterSink(topic, KafkaConnection(bootstrap_servers=[bootstrap()]))
    sink.start()
    letter = DeadLetter(reason="invalid_json", detail="line 1", source="t", partition=0,
                        offset=3, raw=b"{nope", key=b"k1")  # fmt: skip
    sink.write_dead_letter(letter)
    sink.flush()  # delivered when it returns
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap(), auto_offset_reset="earliest",
                             consumer_timeout_ms=10_000)  # fmt: skip
    got = [(m.value, m.key) for m in consumer]
    consumer.close()
    assert got == [(b"{nope", b"k1")]
    sink.close()
    sink.close()
    with pytest.raises(SinkClosed):
        sink.flush()
    with pytest.raises(SinkClosed):
        sink.write_dead_letter(letter)


def test_a_partition_counts_read_to_its_end_only_on_a_fresh_end_offset() -> None:
    """kafka-python's ``highwater()``: "Highwater offsets are returned in FetchResponse
    messages" — as old as the last fetch. Records written after it are not fetched yet, so a
    position equal to it is no evidence that a partition is read to its end. ``progress``
    says so: after more records are written (nothing polled since), the partition is behind
    and the time it is known read to (``read_to``) stays before the write."""
    topic = create_topic(1)
    produce(topic, 10)
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=f"g-{topic}"),
        KafkaConnection(bootstrap_servers=[bootstrap()]),
    )
    source.start()
    part = (topic, 0)
    try:
        records: list[SourceRecord] = []
        deadline = time.monotonic() + 30
        while len(records) < 10 and time.monotonic() < deadline:
            records += source.poll(100, 0.5)
        source.poll(100, 0.5)  # a fetch after the last record: its end is known
        progress = source.progress()
        assert progress is not None and progress.behind == frozenset()
        first = progress.read_to[part]
        assert first <= time.time() - kafka_mod.PRODUCER_SLACK_SECONDS
        time.sleep(kafka_mod.END_CHECK_SECONDS)
        written = time.time()
        produce(topic, 5, start=10)
        assert source._consumer.highwater(TopicPartition(*part)) == 10  # the last fetch's
        time.sleep(kafka_mod.END_CHECK_SECONDS)
        progress = source.progress()
        assert progress is not None and part in progress.behind  # the fresh end says 15
        assert progress.read_to[part] == first < written
        while len(records) < 15 and time.monotonic() < deadline:
            records += source.poll(100, 0.5)
        time.sleep(kafka_mod.END_CHECK_SECONDS)
        progress = source.progress()
        assert progress is not None and progress.behind == frozenset()
        assert progress.read_to[part] >= written - kafka_mod.PRODUCER_SLACK_SECONDS
    finally:
        source.close()
