"""A replica that a rebalance must not leave out of its group (a real broker).

kafka-python 3.0.12 gives up waiting for a join when a poll runs out of time and takes it up
at the next poll only while its coordinator still says a rejoin is needed; a leader that
rejoins because the topics' metadata changed stops saying so once the join has performed
the assignment. A join that ends while no poll waits for it was never taken up: the replica
stayed out of the group for good, polling on (seen in CI: two replicas, one left without
partitions after the rebalance that follows a leader's first assignment)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from kafka import KafkaAdminClient, KafkaConsumer
from kafka.admin import NewPartitions

from monitor.core.model import KafkaConnection
from monitor.sources import Partition, ReplayNote
from monitor.sources.kafka import KafkaSource
from monitor.sources.kafka_config import KafkaSourceConfig
from tests.integration.kafka_support import bootstrap, create_topic

pytestmark = pytest.mark.integration

SESSION_MS = 10_000
POLL_SECONDS = 0.2  # the pipeline's poll timeout


class SlowRevocation:
    """The pipeline's part of a revocation, once armed slower than a poll's timeout (a
    flush, or a wait for the lock the loop holds), as on a loaded machine."""

    def __init__(self) -> None:
        self.armed = False
        self.revoked: list[list[Partition]] = []

    def on_revoked(
        self, partitions: list[Partition]
    ) -> tuple[dict[Partition, int], dict[Partition, ReplayNote]]:
        if self.armed and partitions:
            self.revoked.append(partitions)
            time.sleep(2.5 * POLL_SECONDS)
        return {}, {}

    def on_resumed(self, notes: dict[Partition, ReplayNote]) -> None:
        pass

    def on_lost(self, partitions: list[Partition]) -> None:
        pass

    def resume_positions(self, partitions: list[Partition]) -> dict[Partition, int]:
        return {}

    def on_share(self, share: float) -> None:
        pass


def _assigned(source: KafkaSource) -> int:
    progress = source.progress()
    return len(progress.assigned) if progress is not None and source.ready() else 0


def _poll_until(source: KafkaSource, done: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        source.poll(100, POLL_SECONDS)
        if done():
            return True
    return False


def test_a_leader_whose_join_ends_between_two_polls_joins_the_group_again() -> None:
    """Partitions added to the topic make the lone replica (the leader) rejoin; its
    revocation outlasts the poll, and the loop is busy for a second after it (a batch):
    the join ends meanwhile. The replica is assigned every partition again well within
    the session timeout (before: nothing assigned 20 s later, its session expired)."""
    topic = create_topic(4)
    revocation = SlowRevocation()

    def consumer(**settings: Any) -> KafkaConsumer:
        return KafkaConsumer(**settings, metadata_max_age_ms=1_000)  # sees added partitions

    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=f"stall-{topic}", session_timeout_ms=SESSION_MS),
        KafkaConnection(bootstrap_servers=[bootstrap()]),
        consumer_factory=consumer,
    )
    source.listen(revocation)
    source.start()
    try:
        assert _poll_until(source, lambda: _assigned(source) == 4, 30), "never assigned"
        # the rebalance a leader often makes right after its first assignment, over
        _poll_until(source, lambda: False, 2.0)
        assert _assigned(source) == 4
        revocation.armed = True
        admin = KafkaAdminClient(bootstrap_servers=bootstrap())
        admin.create_partitions({topic: NewPartitions(6)})
        admin.close()
        assert _poll_until(source, lambda: bool(revocation.revoked), 30), "no rebalance"
        time.sleep(1.0)  # the loop busy with a batch while the join ends
        start = time.monotonic()
        rejoined = _poll_until(source, lambda: _assigned(source) == 6, SESSION_MS / 1000 + 10)
        waited = time.monotonic() - start
        print(f"\nrejoined: {rejoined} after {waited:.1f} s")
        assert rejoined, f"out of the group {waited:.0f} s after the revocation"
        assert waited < SESSION_MS / 1000  # took the join up, not a session's expiry
    finally:
        source.close()
