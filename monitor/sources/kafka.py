"""``KafkaSource``: a consumer-group member with manual commits (kafka-python 3).

At-least-once: auto-commit is off; the pipeline commits the watermark of finished records
(``monitor.checkpoint``). On a rebalance the pipeline's handler flushes the sinks and says
which offsets of the revoked partitions are safe; they are committed before the partitions
move, and the partitions' in-flight state is dropped. Lost partitions (the member was kicked
out) are dropped without a commit: their new owner replays them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata, TopicPartition
from kafka.errors import KafkaError

from monitor.config import KafkaConnection
from monitor.errors import SourceError
from monitor.sources import Partition, ReadProgress, SourceListener, SourcePosition, SourceRecord
from monitor.sources.config import KafkaSourceConfig

if TYPE_CHECKING:
    from monitor.config import Settings
    from monitor.telemetry import Metrics


class SourceObserver(Protocol):
    """Receives consumer events (the Prometheus metrics implement it)."""

    def on_rebalance(self, kind: str, partitions: list[Partition]) -> None:
        """Partitions assigned, revoked or lost."""

    def on_commit(self, outcome: str) -> None:
        """One commit attempt: ok or failed."""

    def on_partition_offsets(self, partition: Partition, committed: int, lag: int) -> None:
        """The committed offset and lag of an assigned partition."""

    def on_held(self, partitions: int) -> None:
        """How many assigned partitions are paused to let the others catch up."""


def _unpark(consumer: KafkaConsumer) -> None:
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


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, source: KafkaSource) -> None:
        self.source = source

    def on_partitions_revoked(self, revoked: Iterable[TopicPartition]) -> None:
        self.source._revoked([(tp.topic, tp.partition) for tp in revoked])

    def on_partitions_assigned(self, assigned: Iterable[TopicPartition]) -> None:
        self.source._assigned([(tp.topic, tp.partition) for tp in assigned])

    def on_partitions_lost(self, lost: Iterable[TopicPartition]) -> None:
        self.source._lost([(tp.topic, tp.partition) for tp in lost])


class KafkaSource:
    """Consumes native records from the configured topics as one member of a group."""

    name = "kafka"

    @classmethod
    def from_config(cls, settings: Settings, metrics: Metrics | None = None) -> KafkaSource:
        """``source.kafka`` and the ``kafka`` connection; ``metrics`` hears commits and lag."""
        return cls(settings.source.of(KafkaSourceConfig), settings.kafka, observer=metrics)

    def __init__(
        self,
        config: KafkaSourceConfig,
        connection: KafkaConnection,
        observer: SourceObserver | None = None,
        consumer_factory: Callable[..., KafkaConsumer] = KafkaConsumer,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.connection = connection
        self.observer = observer
        self._factory = consumer_factory
        self._clock = clock
        self._consumer: Any = None
        self._handler: SourceListener | None = None
        self._assigned_parts: set[Partition] = set()
        self._joined = False
        self._settled = False  # joined, and polled since the last assignment
        self._last_poll = 0.0
        self._committed: dict[Partition, int] = {}
        self._resume: dict[Partition, int] = {}  # revoked partition -> lowest buffered offset
        self._held = 0  # partitions paused by ``hold``, as last reported
        self._lock = threading.Lock()
        # the listener hears this replica's share of all partitions after each assignment
        self._share_dirty = False
        self.log = structlog.get_logger("ragmon.kafka")

    # --- lifecycle ------------------------------------------------------------------------

    def listen(self, listener: SourceListener) -> None:
        """The listener told of partitions moving and of this replica's share."""
        self._handler = listener

    def start(self) -> None:
        """Connect, check the topics exist, and join the consumer group."""
        cfg, conn = self.config, self.connection
        try:
            self._consumer = self._factory(
                **conn.client_kwargs(),
                group_id=cfg.group_id,
                group_instance_id=cfg.group_instance_id,
                enable_auto_commit=False,
                auto_offset_reset=cfg.auto_offset_reset,
                max_poll_records=cfg.max_poll_records,
                max_partition_fetch_bytes=cfg.max_partition_fetch_bytes,
                fetch_max_bytes=cfg.fetch_max_bytes,
                session_timeout_ms=cfg.session_timeout_ms,
                max_poll_interval_ms=cfg.max_poll_interval_ms,
                bootstrap_timeout_ms=int(conn.bootstrap_timeout_seconds * 1000),
                request_timeout_ms=conn.request_timeout_ms,
            )
        except KafkaError as exc:
            raise SourceError(
                f"cannot reach Kafka at {', '.join(conn.bootstrap_servers)} within "
                f"{conn.bootstrap_timeout_seconds:g}s: {exc}"
            ) from exc
        try:
            existing = self._consumer.topics()
        except KafkaError as exc:
            self._consumer.close(autocommit=False)
            raise SourceError(f"cannot list topics: {exc}") from exc
        missing = [t for t in cfg.topics if t not in existing]
        if missing:
            self._consumer.close(autocommit=False)
            raise SourceError(
                f"topic(s) {', '.join(missing)} do not exist on "
                f"{', '.join(conn.bootstrap_servers)} (ragmon does not create topics)"
            )
        self._consumer.subscribe(topics=list(cfg.topics), listener=_Listener(self))
        self.log.info("subscribed", topics=list(cfg.topics), group_id=cfg.group_id)

    replays_unfinished = True  # uncommitted records are read again from the committed offsets

    def stop_intake(self) -> None:
        """Records arrive through ``poll`` only: the loop stops polling, nothing else to do."""

    def close(self) -> None:
        """Leave the group. Offsets were committed by the pipeline; nothing is auto-committed."""
        if self._consumer is not None:
            consumer, self._consumer = self._consumer, None
            try:
                consumer.close(autocommit=False, timeout_ms=self.config.close_timeout_ms)
            except KafkaError as exc:
                self.log.warning("close_failed", error=str(exc))

    # --- consuming ------------------------------------------------------------------------

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        """The next records, at most ``max_records``, waiting up to ``timeout`` seconds."""
        _unpark(self._consumer)
        batch = self._consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_records)
        self._last_poll = self._clock()
        with self._lock:
            # a poll after the assignment has fetched the partitions' positions
            self._settled = self._joined
        if self._share_dirty and self._handler is not None:
            self._share_dirty = False
            self._handler.on_share(self._share())
        out: list[SourceRecord] = []
        for records in batch.values():
            for r in records:
                out.append(
                    SourceRecord(
                        SourcePosition(r.topic, r.partition, r.offset),
                        r.value if r.value is not None else b"",
                        key=r.key,
                        headers=tuple(r.headers or ()),
                        timestamp=r.timestamp / 1000 if r.timestamp and r.timestamp > 0 else None,
                    )
                )
        return out

    @property
    def exhausted(self) -> bool:
        """Never: a topic has no end."""
        return False

    def progress(self) -> ReadProgress | None:
        """The assigned partitions and those behind: records fetched by the consumer but
        not returned by ``poll`` yet, or the end offset (known from a fetch response) or the
        position (known once the assignment was polled) still unknown. Nothing waits: the
        position is asked with a zero timeout (unknown then, so behind)."""
        consumer = self._consumer
        if consumer is None:
            return None
        with self._lock:
            parts = frozenset(self._assigned_parts)
        behind = set()
        for part in parts:
            tp = TopicPartition(*part)
            try:
                high = consumer.highwater(tp)
                at = None if high is None else consumer.position(tp, timeout_ms=0)
            except KafkaError:  # revoked meanwhile: unknown
                high = at = None
            if high is None or at is None or at < high:
                behind.add(part)
        return ReadProgress(parts, frozenset(behind))

    def ready(self) -> bool:
        """Assigned partitions, polled since (so their positions are known), and polling on
        time. Not ready during a rebalance. An empty assignment is ready: more replicas
        than partitions is a normal state of a scaled-out group."""
        stale = self._clock() - self._last_poll > self.config.max_poll_interval_ms / 1000 / 2
        return self._settled and not stale

    # --- commits --------------------------------------------------------------------------

    def commit(self, offsets: dict[Partition, int]) -> None:
        """Commit synchronously; raises KafkaError on failure (the pipeline counts it and
        tries again at the next interval)."""
        with self._lock:
            owned = {k: v for k, v in offsets.items() if k in self._assigned_parts}
        if not owned:
            return
        self._consumer.commit(
            {TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in owned.items()},
            timeout_ms=self.config.commit_timeout_ms,
        )
        self._committed.update(owned)
        self._report_offsets()

    def hold(self, partitions: frozenset[Partition]) -> None:
        """Pause the assigned ``partitions`` and resume the others. kafka-python keeps what
        it fetched of a paused partition and returns it once resumed; a rebalance clears
        the pause state, so the assignment is reconciled on every call."""
        consumer = self._consumer
        if consumer is None:
            return
        with self._lock:
            wanted = {TopicPartition(*p) for p in partitions if p in self._assigned_parts}
        paused = set(consumer.paused())
        if paused - wanted:
            consumer.resume(*(paused - wanted))
        if wanted - paused:
            consumer.pause(*(wanted - paused))
        if self.observer is not None and len(wanted) != self._held:
            self.observer.on_held(len(wanted))
        self._held = len(wanted)

    def _report_offsets(self) -> None:
        if self.observer is None or self._consumer is None:
            return
        with self._lock:
            parts = list(self._assigned_parts)
        for topic, partition in parts:
            try:
                high = self._consumer.highwater(TopicPartition(topic, partition))
            except KafkaError:
                continue
            committed = self._committed.get((topic, partition), -1)
            if high is not None and committed >= 0:
                self.observer.on_partition_offsets((topic, partition), committed, high - committed)

    # --- rebalance callbacks (consumer IO thread) -----------------------------------------

    def _assigned(self, partitions: list[Partition]) -> None:
        self._seek_back(partitions)
        with self._lock:
            self._assigned_parts |= set(partitions)
            self._joined = True
            self._settled = False
        self.log.info("partitions_assigned", partitions=sorted(partitions))
        # The share needs topic metadata, a blocking call: never on this IO-loop callback
        # (it stalled the rebalance by seconds). The poll thread computes it next poll.
        self._share_dirty = True
        if self.observer is not None:
            self.observer.on_rebalance("assigned", partitions)

    def _share(self) -> float:
        """Assigned partitions / all partitions of the subscribed topics (from metadata)."""
        total = 0
        for topic in self.config.topics:
            parts = self._consumer.partitions_for_topic(topic) if self._consumer else None
            total += len(parts or ())
        with self._lock:
            mine = len(self._assigned_parts)
        return mine / total if total else 1.0

    def _revoked(self, partitions: list[Partition]) -> None:
        self._remember_positions(partitions)
        offsets = self._handler.on_revoked(partitions) if self._handler else {}
        if offsets and self._consumer is not None:
            # A blocking commit would stall the IO loop this callback runs on; the async
            # commit is sent before the group re-forms. If it loses the race, the new
            # owner re-reads at most the records since the last interval commit.
            self._consumer.commit_async(
                {
                    TopicPartition(t, p): OffsetAndMetadata(o, "", -1)
                    for (t, p), o in offsets.items()
                },
                callback=self._on_async_commit,
            )
        self._forget(partitions)
        self.log.info("partitions_revoked", partitions=sorted(partitions))
        if self.observer is not None:
            self.observer.on_rebalance("revoked", partitions)

    def _remember_positions(self, partitions: list[Partition]) -> None:
        """kafka-python 3 keeps the fetch position of a partition that is revoked and
        assigned straight back, but the pipeline drops buffered OTLP spans on revocation:
        such a partition is sought back to the lowest offset they came from."""
        if self._handler is not None:
            with self._lock:
                self._resume.update(self._handler.resume_positions(partitions))

    def _seek_back(self, partitions: list[Partition]) -> None:
        with self._lock:
            resume, self._resume = self._resume, {}
        for key in partitions:
            if key in resume and self._consumer is not None:
                self._consumer.seek(TopicPartition(*key), resume[key])
                self.log.info("partition_sought_back", partition=key, offset=resume[key])

    def _lost(self, partitions: list[Partition]) -> None:
        self._remember_positions(partitions)
        if self._handler is not None:
            self._handler.on_lost(partitions)
        self._forget(partitions)
        self.log.warning("partitions_lost", partitions=sorted(partitions))
        if self.observer is not None:
            self.observer.on_rebalance("lost", partitions)

    def _forget(self, partitions: list[Partition]) -> None:
        with self._lock:
            self._settled = False  # until the next assignment has been polled
            self._assigned_parts -= set(partitions)
            for key in partitions:
                self._committed.pop(key, None)

    def _on_async_commit(self, offsets: object, response: object) -> None:
        outcome = "failed" if isinstance(response, Exception) else "ok"
        if self.observer is not None:
            self.observer.on_commit(outcome)
