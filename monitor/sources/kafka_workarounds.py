"""Work-arounds for kafka-python 3.0.12, each called by ``KafkaSource`` before every poll,
on the polling thread. Each reaches into the consumer's private state (read with
``getattr``: a consumer without it, a test double or a later kafka-python, is left alone)
and says what it works around and what was measured without it."""

from __future__ import annotations

from typing import Any

from kafka import KafkaConsumer


def unpark(consumer: KafkaConsumer) -> None:
    """Work around kafka-python 3.0.12: records of a partition paused while they were in
    line are parked, and given back on resume only when nothing is in line — but a drained
    in-line batch still counts, and a partition with parked records is never fetched again,
    so a resumed partition stalls for good (measured on a real broker: 950 of 1,000 records
    never returned). Clearing the drained batch, which the fetcher treats as none, lets the
    parked records back in, one partition per poll. Called before every poll, on the
    polling thread (the fetcher's own)."""
    fetcher = getattr(consumer, "_fetcher", None)
    in_line = getattr(fetcher, "_next_partition_records", None)
    if in_line is not None and not in_line:
        fetcher._next_partition_records = None  # type: ignore[union-attr]


def resume_join(consumer: KafkaConsumer) -> bool:
    """Work around kafka-python 3.0.12: a join given up on by a poll that ran out of time is
    taken up again by the next poll only while the coordinator still says a rejoin is
    needed. A leader that rejoins because the topics' metadata changed (often right after
    its first assignment, made from metadata not fetched yet; or partitions added) is told
    so by that change alone, and the join, performing the assignment, takes the new
    metadata as assigned: no rejoin is needed any more. When that join ends while no poll
    waits for it (a revocation callback that outlasted the poll's timeout, then the loop
    busy with a batch), no poll ever takes its result: the member stays rebalancing, its
    heartbeats off, nothing assigned, the broker expires its session, and it never joins
    again while the loop polls on (measured on a real broker, two replicas with a
    revocation of 0-0.4 s and 0-0.15 s of work between polls: in 8 of 16 groups one
    replica was out of the group 30 s on; none with this). A join still held while no
    rejoin is needed is that state (every other way out of a join clears it); asking for
    the rejoin makes the next poll take the join up: wait for it if it is in flight, else
    join again. Returns whether it asked. Called before every poll, on the polling thread
    (no join runs then)."""
    coordinator: Any = getattr(consumer, "_coordinator", None)
    if coordinator is None or getattr(coordinator, "_join_task", None) is None:
        return False
    if coordinator.need_rejoin():
        return False
    coordinator.request_rejoin()
    return True
