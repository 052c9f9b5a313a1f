"""When each open session is to be looked at again, per partition: the join (is its first
pair final yet?) and the outcomes (has its idle gap or age run out?) both keep one.

A heap per partition of (time, tie, session id). Moving a session's time pushes a new entry
and leaves the old one in place, stale: an entry counts only while its time is still its
session's ``due``, so nothing is ever searched for and removed."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, TypeVar

from monitor.sources import Partition

Key = tuple[Partition | None, str]  # (partition, session id)
Clock = Callable[[Partition | None], float]


class Scheduled(Protocol):
    """An open session: when it is due to be looked at again (``inf``: not scheduled)."""

    due: float


S = TypeVar("S", bound=Scheduled)


class DueTimes:
    """Per partition, the times the open sessions are due (see the module's doc)."""

    def __init__(self) -> None:
        self._heaps: dict[Partition | None, list[tuple[float, int, str]]] = {}
        self._ties = itertools.count()

    def schedule(self, key: Key, session: Scheduled, at: float) -> None:
        """Look at ``session`` again at ``at``: an entry already there for that time stands,
        an earlier or later one goes stale."""
        if at != session.due:
            session.due = at
            heapq.heappush(self._heaps.setdefault(key[0], []), (at, next(self._ties), key[1]))

    def passed(self, clock: Clock, sessions: Mapping[Key, S]) -> Iterator[tuple[Key, S, float]]:
        """(key, session, its partition's now) of each session in ``sessions`` whose time
        has come on its partition's clock, popped; stale entries are dropped on the way. A
        session scheduled again meanwhile for a time already passed comes up in turn."""
        for part, heap in self._heaps.items():
            now = clock(part)
            while heap and heap[0][0] <= now:
                at, _, sid = heapq.heappop(heap)
                key = (part, sid)
                session = sessions.get(key)
                if session is not None and session.due == at:
                    yield key, session, now

    def clear(self) -> None:
        """Forget every entry."""
        self._heaps.clear()

    def forget(self, part: Partition) -> None:
        """Forget the entries of ``part`` (its sessions are gone)."""
        self._heaps.pop(part, None)
