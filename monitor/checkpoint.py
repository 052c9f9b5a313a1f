"""Watermark checkpointing: which offsets are safe to commit.

Every record read is *open* until everything it produced is finished (checked, judged if
sampled, handed to the sinks). Per partition the committable offset is the lowest offset
still open, or one past the highest finished offset when nothing is open: committing it
means "everything before this is done", so a crash replays the open records and loses
nothing. Records finish out of order (a judged record can finish after later unjudged ones);
the watermark never jumps past an open one.

Thread-safe: kafka-python 3 runs rebalance callbacks on its IO thread, while the pipeline
opens and finishes records on the poll thread (and, later, the judge on its own threads).
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from monitor.sources.base import Partition


@dataclass
class _PartitionState:
    open: set[int] = field(default_factory=set)
    heap: list[int] = field(default_factory=list)  # open offsets, lazily pruned
    next_offset: int = -1  # one past the highest offset seen
    committed: int = -1  # last offset handed to commit()


class Checkpoint:
    """Tracks open offsets per partition and yields commit watermarks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[Partition, _PartitionState] = {}

    def open(self, partition: Partition, offset: int) -> None:
        """A record was read and is now in flight."""
        self.open_all(((partition, offset),))

    def open_all(self, positions: Iterable[tuple[Partition, int]]) -> None:
        """Records read (a poll's: the lock is taken once for all) are now in flight."""
        with self._lock:
            parts = self._parts
            for partition, offset in positions:
                st = parts.get(partition)
                if st is None:
                    st = parts[partition] = _PartitionState()
                st.open.add(offset)
                heapq.heappush(st.heap, offset)
                if offset >= st.next_offset:
                    st.next_offset = offset + 1

    def done(self, partition: Partition, offset: int) -> None:
        """Everything the record at ``offset`` produced is finished. Unknown offsets (a
        partition revoked meanwhile) are ignored: their new owner replays them."""
        with self._lock:
            st = self._parts.get(partition)
            if st is not None:
                st.open.discard(offset)

    def _watermark(self, st: _PartitionState) -> int:
        while st.heap and st.heap[0] not in st.open:
            heapq.heappop(st.heap)
        return st.heap[0] if st.heap else st.next_offset

    def committable(self) -> dict[Partition, int]:
        """Offsets that advanced since the last ``mark_committed``: partition → next offset."""
        with self._lock:
            out = {}
            for key, st in self._parts.items():
                mark = self._watermark(st)
                if mark > st.committed and mark >= 0:
                    out[key] = mark
            return out

    def positions(self) -> dict[Partition, tuple[int, int]]:
        """Per tracked partition: its watermark and one past the highest offset read."""
        with self._lock:
            return {
                key: (self._watermark(st), st.next_offset)
                for key, st in self._parts.items()
                if st.next_offset >= 0
            }

    def mark_committed(self, offsets: dict[Partition, int]) -> None:
        """Record that ``offsets`` were committed (the source confirmed them). A partition
        with nothing open, committed up to its end, is forgotten: a source with a partition
        per file (replay, the jsonl source) does not keep one state per file it ever read;
        a later record of it starts a fresh state, whose first watermark is committed."""
        with self._lock:
            for key, offset in offsets.items():
                st = self._parts.get(key)
                if st is not None:
                    st.committed = max(st.committed, offset)
                    if not st.open and st.committed >= st.next_offset:
                        del self._parts[key]

    def tracked(self) -> int:
        """Partitions with a state kept (open records, or finished ones not committed)."""
        with self._lock:
            return len(self._parts)

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget partitions this process no longer owns; their open records are dropped
        (not committed), so the new owner processes them again."""
        with self._lock:
            for key in partitions:
                self._parts.pop(key, None)

    def open_count(self, partition: Partition | None = None) -> int:
        """Records read but not finished, in ``partition`` or in all of them."""
        with self._lock:
            if partition is not None:
                st = self._parts.get(partition)
                return len(st.open) if st else 0
            return sum(len(st.open) for st in self._parts.values())
