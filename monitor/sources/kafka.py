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
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata, TopicPartition
from kafka.errors import KafkaError, OffsetMetadataTooLargeError

from monitor.core.errors import SourceError
from monitor.core.log import held_logs
from monitor.core.model import KafkaConnection
from monitor.sources import (
    Partition,
    ReadProgress,
    ReplayNote,
    SourceListener,
    SourcePosition,
    SourceRecord,
)
from monitor.sources.kafka_config import KafkaSourceConfig, KafkaSourceSetup
from monitor.sources.kafka_notes import MAX_NOTE_BYTES, MIN_NOTE_BYTES, decode_note, encode_note
from monitor.sources.kafka_workarounds import resume_join, unpark

if TYPE_CHECKING:
    from monitor.telemetry import Metrics


# How often a partition that looks read to its end is confirmed with a fresh end offset
# (ListOffsets: one request for every such partition), and the bound on the wait for it.
END_CHECK_SECONDS = 0.25
END_CHECK_TIMEOUT_MS = 2_000
END_CHECK_BACKOFF_SECONDS = 5.0  # after a failed request (an outage)
# A record's time (CreateTime) is set by its producer before it is sent: batching (linger),
# retries and the trip to the broker can put a record created before an end-offset request
# after it in the log. Evidence from a request at t covers the records created before t
# minus this.
PRODUCER_SLACK_SECONDS = 1.0


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
    def from_config(cls, config: KafkaSourceSetup, metrics: Metrics | None = None) -> KafkaSource:
        """``source.kafka`` on the ``kafka`` connection, and the topics the group reads
        besides (the conversations' repartition topic); ``metrics`` hears commits and lag."""
        return cls(config.section, config.connection, observer=metrics, also=config.also,
                   written=config.written)  # fmt: skip

    def __init__(
        self,
        config: KafkaSourceConfig,
        connection: KafkaConnection,
        observer: SourceObserver | None = None,
        consumer_factory: Callable[..., KafkaConsumer] = KafkaConsumer,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        also: tuple[str, ...] = (),
        written: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.config = config
        # the topics read: the configured ones, then ragmon's own (the sessions' repartition
        # topic), read by the same group
        self.topics = [*config.topics, *(t for t in also if t not in config.topics)]
        # every topic checked at start, with the setting that names it: those read, and
        # those the daemon writes (dead letters, golden rows)
        self.settings_of: dict[str, str] = {t: "source.kafka.topics" for t in config.topics}
        self.settings_of |= {t: "sessions.topic" for t in also if t not in config.topics}
        for setting, topic in written:
            self.settings_of.setdefault(topic, setting)
        self.connection = connection
        self.observer = observer
        self._factory = consumer_factory
        self._clock = clock
        self._wall = wall
        self._consumer: Any = None
        self._handler: SourceListener | None = None
        self._assigned_parts: set[Partition] = set()
        self._joined = False
        self._settled = False  # joined, and polled since the last assignment
        self._last_poll = 0.0
        self._committed: dict[Partition, int] = {}
        # per partition: records written before this time (Unix s) were all returned
        self._read_to: dict[Partition, float] = {}
        self._next_end_check = float("-inf")
        self._unnoted: set[Partition] = set()  # assigned, their replay notes not read yet
        self._note_limit = MAX_NOTE_BYTES  # halved each time the broker refuses a note
        self._resume: dict[Partition, int] = {}  # revoked partition -> where to read it again
        # revoked partition -> the note committed with it, handed back with the partition
        # when it comes straight back (the commit, sent async, may not have landed yet)
        self._kept: dict[Partition, ReplayNote | None] = {}
        self._given: dict[Partition, ReplayNote | None] = {}  # assigned straight back
        self._reseek: set[Partition] = set()  # lost: read again from the committed offset
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
        cfg = self.config
        self._consumer = self._connect(
            group_id=cfg.group_id,
            group_instance_id=cfg.group_instance_id,
            enable_auto_commit=False,
            auto_offset_reset=cfg.auto_offset_reset,
            max_poll_records=cfg.max_poll_records,
            max_partition_fetch_bytes=cfg.max_partition_fetch_bytes,
            fetch_max_bytes=cfg.fetch_max_bytes,
            session_timeout_ms=cfg.session_timeout_ms,
            max_poll_interval_ms=cfg.max_poll_interval_ms,
        )
        self._consumer.subscribe(topics=list(self.topics), listener=_Listener(self))
        self.log.info("subscribed", topics=list(self.topics), group_id=cfg.group_id)

    def check(self) -> None:
        """What ``start`` checks (the cluster reached, the topics there), without joining
        the group: the parent of ``run --workers`` asks it before it starts any worker.
        Raises ``SourceError`` as ``start`` does."""
        self._connect(group_id=None).close(autocommit=False)

    def _connect(self, **group: object) -> KafkaConsumer:
        """A consumer on the cluster whose topics were found (``group``: its group's
        settings); ``SourceError`` naming the cluster or the missing topics."""
        conn = self.connection
        try:
            with held_logs("kafka"):  # its retries, while the reason is not known yet
                consumer = self._factory(
                    **conn.client_kwargs(),
                    **group,
                    bootstrap_timeout_ms=int(conn.bootstrap_timeout_seconds * 1000),
                    request_timeout_ms=conn.request_timeout_ms,
                )
        except KafkaError as exc:
            raise SourceError(
                f"cannot reach Kafka at {', '.join(conn.bootstrap_servers)} within "
                f"{conn.bootstrap_timeout_seconds:g}s: {exc}"
            ) from exc
        try:
            existing = consumer.topics()
        except KafkaError as exc:
            consumer.close(autocommit=False)
            raise SourceError(f"cannot list topics: {exc}") from exc
        # the source's own topics by name, the others with the setting that names them
        missing = [t if key == "source.kafka.topics" else f"{t} ({key})"
                   for t, key in self.settings_of.items() if t not in existing]  # fmt: skip
        if missing:
            consumer.close(autocommit=False)
            raise SourceError(
                f"topic(s) {', '.join(missing)} do not exist on "
                f"{', '.join(conn.bootstrap_servers)} (ragmon does not create topics)"
            )
        return consumer

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
        unpark(self._consumer)
        if resume_join(self._consumer):
            self.log.info("group_join_resumed", hint="a rebalance's join had no poll to finish it")
        batch = self._consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_records)
        self._last_poll = self._clock()
        with self._lock:
            # a poll after the assignment has fetched the partitions' positions
            self._settled = self._joined
        if self._share_dirty and self._handler is not None:
            share = self._share()
            if share is not None:  # else asked again next poll
                self._share_dirty = False
                self._handler.on_share(share)
        sought: set[Partition] = set()
        if self._unnoted:
            sought = self._resume_notes()
        out: list[SourceRecord] = []
        for tp, records in batch.items():
            if sought and (tp.topic, tp.partition) in sought:
                continue  # fetched before the seek: read again from the committed offset
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

    def _resume_notes(self) -> set[Partition]:
        """The notes committed with the partitions just assigned, read (one request each,
        on the polling thread, before any of their records is returned) and passed to the
        listener. A partition never committed in the group gets a note that ends at 0 (no
        reader before); one committed without a note (an older ragmon), or whose note cannot
        be read, gets none: the broad replay window applies (``OtlpAssembler``). A partition
        revoked and assigned straight back gets the note this process committed with it (it
        was sought back to that commit's offset); one lost and given back is sought back to
        the committed offset, where its note starts. Returns the partitions sought here."""
        with self._lock:
            parts, self._unnoted = self._unnoted & self._assigned_parts, set()
            given, self._given = self._given, {}
            reseek, self._reseek = self._reseek & parts, self._reseek - parts
        notes = {}
        sought = set()
        for part in sorted(parts):
            if part in given:
                kept = given[part]
                if kept is not None:
                    notes[part] = kept
                continue
            try:
                got = self._consumer.committed(
                    TopicPartition(*part), metadata=True, timeout_ms=self.config.commit_timeout_ms
                )
            except KafkaError as exc:
                self.log.warning("replay_note_unread", partition=part, error=str(exc))
                continue
            if got is None:  # never committed in this group: nothing was read before
                notes[part] = ReplayNote(0)
                continue
            if (note := decode_note(getattr(got, "metadata", None))) is not None:
                notes[part] = note
            if part in reseek and got.offset >= 0:
                self._consumer.seek(TopicPartition(*part), got.offset)
                sought.add(part)
                self.log.info("partition_sought_back", partition=part, offset=got.offset)
        if notes and self._handler is not None:
            self._handler.on_resumed(notes)
        return sought

    @property
    def exhausted(self) -> bool:
        """Never: a topic has no end."""
        return False

    def progress(self) -> ReadProgress | None:
        """The assigned partitions, those behind, and how far each is known read.

        Behind: records fetched by the consumer but not returned by ``poll`` yet, or the end
        offset (known from a fetch response) or the position (known once the assignment was
        polled) still unknown. The position is asked with a zero timeout (unknown then, so
        behind).

        Read to (``ReadProgress.read_to``): a partition that looks read to its end by the
        end offset of its last fetch response is confirmed with a fresh end offset (one
        ListOffsets request for all of them, at most every ``END_CHECK_SECONDS``): kafka-python
        says of ``highwater()`` that it is "returned in FetchResponse messages", so it is as
        old as the last fetch, seconds on a busy machine in the middle of a catch-up, and
        records written since are not fetched yet. When the position already reached the
        end asked at ``t``, every record written before ``t`` minus ``PRODUCER_SLACK_SECONDS``
        was returned; a partition whose position is short of it is behind."""
        consumer = self._consumer
        if consumer is None:
            return None
        with self._lock:
            parts = frozenset(self._assigned_parts)
        behind = set()
        looks_read: dict[Partition, int] = {}
        for part in parts:
            tp = TopicPartition(*part)
            try:
                high = consumer.highwater(tp)
                at = None if high is None else consumer.position(tp, timeout_ms=0)
            except KafkaError:  # revoked meanwhile: unknown
                high = at = None
            if high is None or at is None or at < high:
                behind.add(part)
            else:
                looks_read[part] = at
        behind |= self._confirm_ends(looks_read)
        with self._lock:
            read_to = {p: t for p, t in self._read_to.items() if p in parts}
        return ReadProgress(parts, frozenset(behind), read_to)

    def _confirm_ends(self, positions: dict[Partition, int]) -> set[Partition]:
        """Ask the end offsets of the partitions at ``positions`` (read, by their last fetch
        response) when the last answer is older than ``END_CHECK_SECONDS``; record the time
        of the request for those whose position reached the answer; return those that did
        not (behind after all). The positions were read before the request, so a record
        written before it has an offset below the answer."""
        now = self._clock()
        if not positions or now < self._next_end_check:
            return set()
        asked = self._wall()
        try:
            ends = self._consumer.end_offsets(
                [TopicPartition(*p) for p in positions], timeout_ms=END_CHECK_TIMEOUT_MS
            )
        except KafkaError as exc:  # an outage: no new evidence; the clock waits
            self._next_end_check = now + END_CHECK_BACKOFF_SECONDS
            self.log.debug("end_offsets_failed", error=str(exc))
            return set()
        self._next_end_check = now + END_CHECK_SECONDS
        short = set()
        with self._lock:
            for tp, end in ends.items():
                part = (tp.topic, tp.partition)
                if part not in self._assigned_parts:
                    continue
                if positions[part] >= end:
                    self._read_to[part] = asked - PRODUCER_SLACK_SECONDS
                else:
                    short.add(part)
        return short

    def ready(self) -> bool:
        """Assigned partitions, polled since (so their positions are known), and polling on
        time. Not ready during a rebalance. An empty assignment is ready: more replicas
        than partitions is a normal state of a scaled-out group."""
        stale = self._clock() - self._last_poll > self.config.max_poll_interval_ms / 1000 / 2
        return self._settled and not stale

    # --- commits --------------------------------------------------------------------------

    def commit(
        self, offsets: dict[Partition, int], notes: Mapping[Partition, ReplayNote] | None = None
    ) -> None:
        """Commit synchronously, each offset with its note as the commit's metadata; raises
        KafkaError on failure (the pipeline counts it and tries again at the next
        interval). A broker that refuses the metadata's size gets notes half as long from
        then on (cut short: see ``encode_note``), down to ``MIN_NOTE_BYTES``, then none (a
        restart then falls back to the replay window without them)."""
        with self._lock:
            owned = {k: v for k, v in offsets.items() if k in self._assigned_parts}
        if not owned:
            return
        while True:
            try:
                self._consumer.commit(self._with_notes(owned, notes),
                                      timeout_ms=self.config.commit_timeout_ms)  # fmt: skip
                break
            except OffsetMetadataTooLargeError:
                if self._note_limit == 0:
                    raise
                self._note_limit //= 2
                if self._note_limit < MIN_NOTE_BYTES:
                    self._note_limit = 0
                self.log.warning(
                    "replay_notes_refused",
                    limit_bytes=self._note_limit,
                    hint="the broker's offset.metadata.max.bytes is below it",
                )
        self._committed.update(owned)
        self._report_offsets()

    def _with_notes(
        self, offsets: Mapping[Partition, int], notes: Mapping[Partition, ReplayNote] | None
    ) -> dict[TopicPartition, OffsetAndMetadata]:
        limit = self._note_limit
        notes = {} if notes is None or not limit else notes
        return {
            TopicPartition(t, p): OffsetAndMetadata(o, encode_note(notes.get((t, p)), limit), -1)
            for (t, p), o in offsets.items()
        }

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
            self._unnoted |= set(partitions)
            self._joined = True
            self._settled = False
        self.log.info("partitions_assigned", partitions=sorted(partitions))
        # The share needs topic metadata, a blocking call: never on this IO-loop callback
        # (it stalled the rebalance by seconds). The poll thread computes it next poll.
        self._share_dirty = True
        if self.observer is not None:
            self.observer.on_rebalance("assigned", partitions)

    def _share(self) -> float | None:
        """Assigned partitions / all partitions of the configured topics (from metadata;
        ragmon's own repartition topic aside: the share divides the traces' budget). None
        while a topic's partitions are not known: a guess of "all" would let a replica
        that holds half of them pair in memory and spend the whole judge budget."""
        total = 0
        for topic in self.config.topics:
            parts = self._consumer.partitions_for_topic(topic) if self._consumer else None
            if not parts:
                return None
            total += len(parts)
        with self._lock:
            mine = sum(1 for p in self._assigned_parts if p[0] in self.config.topics)
        return mine / total

    def _revoked(self, partitions: list[Partition]) -> None:
        self._remember_positions(partitions)
        offsets, notes = self._handler.on_revoked(partitions) if self._handler else ({}, {})
        with self._lock:  # back straight away: read again from this commit, with its note
            for part, note in notes.items():
                if part in offsets:
                    self._resume[part] = offsets[part]
                    self._kept[part] = note
        if offsets and self._consumer is not None:
            # A blocking commit would stall the IO loop this callback runs on; the async
            # commit is sent before the group re-forms. If it loses the race, the new
            # owner re-reads at most the records since the last interval commit.
            self._consumer.commit_async(
                self._with_notes(offsets, notes), callback=self._on_async_commit
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
            kept, self._kept = self._kept, {}
            self._given.update((p, kept[p]) for p in partitions if p in kept)
        for key in partitions:
            if key in resume and self._consumer is not None:
                self._consumer.seek(TopicPartition(*key), resume[key])
                self.log.info("partition_sought_back", partition=key, offset=resume[key])

    def _lost(self, partitions: list[Partition]) -> None:
        self._remember_positions(partitions)
        with self._lock:
            self._reseek.update(partitions)
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
            # the eager protocol revokes every partition when a rebalance starts: out of
            # the group until assigned again (a replica left out stays not ready)
            self._joined = bool(self._assigned_parts)
            for key in partitions:
                self._committed.pop(key, None)
                self._read_to.pop(key, None)

    def _on_async_commit(self, offsets: object, response: object) -> None:
        outcome = "failed" if isinstance(response, Exception) else "ok"
        if self.observer is not None:
            self.observer.on_commit(outcome)
