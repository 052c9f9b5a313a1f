"""A window of a Kafka topic's history, read once: ``ragmon rescore``.

Every partition of the topics is assigned to this reader (no consumer group is joined, no
offset is committed: the live group is not touched), sought to the first record at or after
``since`` (``offsets_for_times``), and read up to the first record at or after ``until`` (or
the partition's end when none is that late). The source is exhausted when every partition has
reached its stop offset.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from monitor.core.errors import SourceError
from monitor.core.log import held_logs
from monitor.sources.base import SourceDefaults, SourcePosition, SourceRecord

if TYPE_CHECKING:
    from monitor.core.model import KafkaConnection


class KafkaWindow(SourceDefaults):
    """The records of ``topics`` whose record time lies in [``since``, ``until``) (Unix
    seconds), each partition in offset order."""

    name = "kafka_window"

    def __init__(
        self,
        topics: list[str],
        connection: KafkaConnection,
        since: float,
        until: float,
        consumer_factory: Callable[..., KafkaConsumer] = KafkaConsumer,
    ) -> None:
        self.topics = topics
        self.connection = connection
        self.since, self.until = since, until
        self._factory = consumer_factory
        self._consumer: Any = None
        self._stop: dict[TopicPartition, int] = {}  # partition -> first offset not read
        self._done = False

    def start(self) -> None:
        """Assign every partition of the topics and seek each to ``since``."""
        conn = self.connection
        try:
            with held_logs("kafka"):  # its retries, while the reason is not known yet
                self._consumer = self._factory(
                    **conn.client_kwargs(), group_id=None, enable_auto_commit=False,
                    bootstrap_timeout_ms=int(conn.bootstrap_timeout_seconds * 1000),
                    request_timeout_ms=conn.request_timeout_ms,
                )  # fmt: skip
            missing = [t for t in self.topics if t not in self._consumer.topics()]
            if missing:
                raise SourceError(f"no such topic: {', '.join(missing)}")
            parts = [TopicPartition(t, p) for t in self.topics
                     for p in sorted(self._consumer.partitions_for_topic(t) or ())]  # fmt: skip
            self._consumer.assign(parts)
            start = self._offsets(parts, self.since)
            stop = self._offsets(parts, self.until)
        except KafkaError as exc:
            raise SourceError(
                f"cannot read {', '.join(self.topics)} from Kafka at "
                f"{', '.join(conn.bootstrap_servers)}: {exc}"
            ) from exc
        for tp in parts:
            if start[tp] < stop[tp]:
                self._consumer.seek(tp, start[tp])
                self._stop[tp] = stop[tp]
            else:
                self._consumer.pause(tp)  # nothing of it in the window
        self._done = not self._stop

    def _offsets(self, parts: list[TopicPartition], at: float) -> dict[TopicPartition, int]:
        """Each partition's first offset at or after ``at``, else its end."""
        found = self._consumer.offsets_for_times({tp: int(at * 1000) for tp in parts})
        ends = self._consumer.end_offsets(parts)
        return {tp: found[tp].offset if found.get(tp) is not None else ends[tp] for tp in parts}

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        """The next records of the window (none once every partition reached its stop)."""
        if self._done:
            return []
        batches = self._consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_records)
        out = []
        for tp, records in batches.items():
            stop = self._stop.get(tp)
            for r in records:
                if stop is None or r.offset >= stop:
                    break
                out.append(SourceRecord(
                    SourcePosition(tp.topic, tp.partition, r.offset), r.value, r.key,
                    tuple(r.headers or ()), r.timestamp / 1000 if r.timestamp >= 0 else None,
                ))  # fmt: skip
        for tp in list(self._stop):
            if self._consumer.position(tp) >= self._stop[tp]:
                del self._stop[tp]
                self._consumer.pause(tp)  # read to the window's end
        self._done = not self._stop
        return out

    @property
    def exhausted(self) -> bool:
        """Every partition has reached the end of the window."""
        return self._done

    def close(self) -> None:
        """Leave Kafka (nothing was committed: no group was joined)."""
        if self._consumer is not None:
            self._consumer.close(autocommit=False)
            self._consumer = None


def parse_time(text: str, now: Callable[[], float] = time.time) -> float:
    """Unix seconds of an RFC 3339 time (``2026-12-01T00:00:00Z``), of Unix seconds, or of a
    duration before now (``2h``, ``30m``, ``7d``, ``0s``; ``-2h`` too); ``ValueError``
    otherwise."""
    from datetime import datetime

    text = text.strip()
    ago = _AGO.fullmatch(text)
    if ago:
        return now() - float(ago.group(1)) * _UNITS[ago.group(2)]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a time: give an RFC 3339 time with its zone "
            "(2026-12-01T00:00:00Z), Unix seconds (1764547200) or a duration before now "
            "(30m, 2h, 7d)"
        ) from None
    if stamp.tzinfo is None:
        raise ValueError(f"{text}: give a time zone (Z or +hh:mm)")
    return stamp.timestamp()


_AGO = re.compile(r"-?(\d+(?:\.\d+)?)([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
