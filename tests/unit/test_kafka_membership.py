"""A replica's share of the traces' partitions, which divides the judge's budget and tells
the in-memory conversations whether they may pair: told only once the topics' partitions
are known. The broker side of the same path runs in
``tests/integration/test_sessions.py`` (two replicas without a turns topic)."""

from __future__ import annotations

from kafka import TopicPartition

from monitor.core.model import KafkaConnection
from monitor.sources.kafka import KafkaSource
from monitor.sources.kafka_config import KafkaSourceConfig


class Consumer:
    """The calls the source makes of kafka-python's ``KafkaConsumer`` on this path; the
    metadata answers ``None`` for a topic it has not fetched yet, as kafka-python's
    ``partitions_for_topic`` documents ("None if topic not in metadata")."""

    def __init__(self) -> None:
        self.known: dict[str, set[int]] = {}
        self.listener: object = None

    def topics(self) -> set[str]:
        return {"traces", "more"}

    def subscribe(self, topics: list[str], listener: object) -> None:
        self.listener = listener

    def poll(self, timeout_ms: int, max_records: int) -> dict[object, list[object]]:
        return {}

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.known.get(topic)

    def committed(self, partition: object, metadata: bool, timeout_ms: int) -> None:
        return None  # "None if there was no prior commit" (kafka-python's docstring)


class Heard:
    def __init__(self) -> None:
        self.shares: list[float] = []

    def on_share(self, share: float) -> None:
        self.shares.append(share)

    def on_resumed(self, notes: object) -> None:
        pass


def _source(consumer: Consumer) -> KafkaSource:
    source = KafkaSource(
        KafkaSourceConfig(topics=["traces", "more"]),
        KafkaConnection(),
        consumer_factory=lambda **_: consumer,
    )
    return source


def test_the_share_waits_for_every_topics_partitions_instead_of_guessing_all() -> None:
    consumer = Consumer()
    source = _source(consumer)
    heard = Heard()
    source.listen(heard)  # type: ignore[arg-type]  # only on_share is reached here
    source.start()
    source._assigned([("traces", 0), ("traces", 1)])  # the listener's call (IO thread)
    source.poll(10, 0.0)
    assert heard.shares == []  # nothing known: not "all of them"
    consumer.known["traces"] = {0, 1, 2, 3}
    source.poll(10, 0.0)
    assert heard.shares == []  # "more" still unknown
    consumer.known["more"] = {0, 1, 2, 3}
    source.poll(10, 0.0)
    assert heard.shares == [0.25]
    source.poll(10, 0.0)
    assert heard.shares == [0.25]  # told once per assignment


class Revoking(Heard):
    def on_revoked(self, partitions: object) -> tuple[dict[object, int], dict[object, object]]:
        return {}, {}

    def resume_positions(self, partitions: object) -> dict[object, int]:
        return {}

    def on_lost(self, partitions: object) -> None:
        pass


def test_a_replica_is_not_ready_from_a_revocation_until_it_is_assigned_again() -> None:
    """``/readyz`` of a replica that a rebalance left out of the group: it said "ready" on
    the first poll after the revocation, since it had joined once (seen on a CI run: a
    replica never assigned again answered ready for 33 s)."""
    consumer = Consumer()
    consumer.known = {"traces": {0, 1}, "more": {0, 1}}
    source = _source(consumer)
    source.listen(Revoking())  # type: ignore[arg-type]
    source.start()
    assert not source.ready()
    source._assigned([("traces", 0)])
    source.poll(10, 0.0)
    assert source.ready()
    for leave in (source._revoked, source._lost):
        leave([("traces", 0)])  # a rebalance starts (eager: every partition goes)
        source.poll(10, 0.0)
        assert not source.ready()
        source.poll(10, 0.0)
        assert not source.ready()
        source._assigned([])  # an empty assignment is a member's too: ready
        source.poll(10, 0.0)
        assert source.ready()
        source._assigned([("traces", 0)])


class Coordinator:
    """What the source reads of kafka-python 3.0.12's group coordinator: the join it holds
    (``_join_task``, cleared by every way out of a join but a poll's timeout) and whether
    it says a rejoin is needed (asked, or the leader's metadata changed since it assigned)."""

    def __init__(self) -> None:
        self._join_task: object = None
        self.rejoin_needed = False
        self.metadata_changed = False
        self.asked = 0

    def need_rejoin(self) -> bool:
        return self.rejoin_needed or self.metadata_changed

    def request_rejoin(self) -> None:
        self.asked += 1
        self.rejoin_needed = True


class Joining(Consumer):
    """A consumer whose poll takes up the join it holds only when a rejoin is needed, as
    kafka-python's ``coordinator.poll`` does, and then assigns what the join brought."""

    def __init__(self) -> None:
        super().__init__()
        self._coordinator = Coordinator()

    def poll(self, timeout_ms: int, max_records: int) -> dict[object, list[object]]:
        coordinator = self._coordinator
        if coordinator.need_rejoin() and coordinator._join_task is not None:
            coordinator._join_task = None
            coordinator.rejoin_needed = coordinator.metadata_changed = False
            self.listener.on_partitions_assigned([TopicPartition("traces", 0)])  # type: ignore[attr-defined]
        return {}


def test_a_join_that_ended_between_two_polls_is_taken_up_by_the_next() -> None:
    """The leader rejoined for a metadata change; the join performed the assignment (which
    takes the change as assigned: no rejoin needed any more) and ended while no poll
    waited: kafka-python never took it up, and the replica stayed out of the group for
    good (seen on a CI run). The next poll asks for the rejoin, and takes the join up."""
    consumer = Joining()
    consumer.known = {"traces": {0, 1}, "more": {0, 1}}
    source = _source(consumer)
    source.listen(Revoking())  # type: ignore[arg-type]
    source.start()
    source._assigned([("traces", 0)])
    source.poll(10, 0.0)
    assert source.ready()
    coordinator = consumer._coordinator
    source.poll(10, 0.0)
    assert coordinator.asked == 0  # joined, no join held: never asked
    source._revoked([("traces", 0)])  # the metadata changed: a rebalance starts
    coordinator._join_task = object()  # the poll gave up on the join
    coordinator.metadata_changed = True
    source.poll(10, 0.0)  # still needed: the poll takes it up without being asked
    assert coordinator.asked == 0 and coordinator._join_task is None
    source._revoked([("traces", 0)])  # again; this time the join performs the assignment
    coordinator._join_task = object()  # before a poll waits for it
    source.poll(10, 0.0)
    assert coordinator.asked == 1
    assert coordinator._join_task is None  # taken up
    source.poll(10, 0.0)
    assert source.ready() and coordinator.asked == 1
