"""Several evaluation stores read as one: the files of a group's workers (``run --workers N``
writes ``<name>.worker-<i>.db`` beside ``store.path``, one writer a file), of several
replicas, or any files given. The trace pages and ``ragmon inspect`` read through this, as
the golden dir's ``worker-<i>/`` directories are read as one (``monitor.golden.stored``).

* A trace is found in whichever store holds it; when several do (a rebalance replayed it on
  another replica), the one written last. Its follow-up and its session's outcome lines are
  looked up in every store: the replica that paired its turns may not be the one that
  evaluated it.
* A session's turns are the union over the stores in time order (a trace twice: the one
  written last), each turn with its follow-up from any store, with the outcomes of every
  store (an opening twice: the one written last).
* A search's counts are summed over the stores, its newest traces merged by time; the
  search form's choices merged. A trace that two stores hold counts in each.
* A store that is missing or damaged, at opening or while read, is one line in
  ``problems`` and is read no more; the others are still read. None left is
  ``StoreUnreadable``.
"""

from __future__ import annotations

import dataclasses
import glob
import heapq
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from monitor.core.lines import JsonObject
from monitor.core.store import StoreUnreadable
from monitor.golden.traces import (
    EvaluationStore,
    Outcome,
    Search,
    SearchResult,
    StoredSession,
    StoredTrace,
)

# run --workers names a worker's files with it (commands.workers.worker_path: a.db ->
# a.worker-0.db), and this reads them back by it: one spelling for both sides
WORKER_INFIX = ".worker-"
_T = TypeVar("_T")


def store_files(path: Path) -> list[Path]:
    """The files ``path`` names: itself when it exists, and the files of a group's workers
    beside it (``<stem>.worker-<i><suffix>``, ``i`` digits: ``evaluations.db`` names
    ``evaluations.worker-0.db``, ``evaluations.worker-1.db`` …), in the workers' order. Just
    ``[path]`` when neither exists (opening it then says that it is missing)."""
    stem, suffix = path.stem, path.suffix
    name = re.compile(rf"{re.escape(stem + WORKER_INFIX)}(\d+){re.escape(suffix)}")
    pattern = f"{glob.escape(stem + WORKER_INFIX)}*{glob.escape(suffix)}"
    workers = sorted(
        (int(m[1]), p) for p in path.parent.glob(pattern) if (m := name.fullmatch(p.name))
    )
    own = [path] if path.exists() or not workers else []
    return own + [p for _, p in workers]


def expand(paths: Iterable[Path]) -> list[Path]:
    """Each path's files (``store_files``), each file once."""
    out: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        for path in store_files(given):
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                out.append(path)
    return out


class EvaluationStores:
    """The stores ``paths`` name (``expand``), read-only, as one; see the module. Raises
    ``StoreUnreadable`` (one line) when not one of them can be read."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = expand(paths)
        self.problems: list[str] = []  # one line each: a store that is missing or damaged
        self._open: list[EvaluationStore] = []
        for path in self.paths:
            try:
                self._open.append(EvaluationStore(path))
            except StoreUnreadable as exc:
                self.problems.append(str(exc))
        self._check_left()

    def close(self) -> None:
        """Close every file."""
        for store in self._open:
            store.close()
        self._open = []

    def _check_left(self) -> None:
        if not self._open:
            raise StoreUnreadable("; ".join(self.problems) or "no store given")

    def _each(self, read: Callable[[EvaluationStore], _T]) -> list[_T]:
        """``read`` of every store still read; a store that fails with a database error (a
        file damaged under the reader) is one line in ``problems`` and is dropped."""
        out: list[_T] = []
        for store in list(self._open):
            try:
                out.append(read(store))
            except sqlite3.DatabaseError as exc:
                self.problems.append(f"{store.path} cannot be read ({exc}): a damaged file?")
                self._open.remove(store)
                store.close()
        self._check_left()
        return out

    def trace(self, trace_id: str) -> StoredTrace | None:
        """The stored trace ``trace_id`` from the store that wrote it last, with its
        follow-up and its session's outcomes from any store; or None."""
        held = [t for t in self._each(lambda s: s.trace(trace_id)) if t is not None]
        if not held:
            return None
        found = max(held, key=lambda t: t.written)
        follow = _newest(self._each(lambda s: s.followup(found.trace_id)))
        session = found.record.get("session_id")
        sessions = found.sessions
        if session is not None:
            sessions = tuple(o.line for o in self._outcomes(str(session)))
        return dataclasses.replace(found, followup=follow[1] if follow else found.followup,
                                   sessions=sessions)  # fmt: skip

    def session(self, session_id: str) -> StoredSession | None:
        """The session's turns over every store in time order, each with its follow-up, and
        the outcomes of every store; None when no store holds any of it."""
        turns: dict[str, StoredTrace] = {}
        for found in self._each(lambda s: s.session(session_id)):
            for t in found.turns if found is not None else ():
                if t.trace_id not in turns or t.written > turns[t.trace_id].written:
                    turns[t.trace_id] = t
        follows: dict[str, tuple[float, JsonObject]] = {}
        for some in self._each(lambda s: s.followups(session_id)):
            for tid, written in some.items():
                if tid not in follows or written[0] > follows[tid][0]:
                    follows[tid] = written
        outcomes = tuple(o.line for o in self._outcomes(session_id))
        if not turns and not outcomes:
            return None
        ordered = sorted(turns.values(), key=lambda t: (t.time, t.trace_id))
        return StoredSession(session_id, tuple(
            dataclasses.replace(t, followup=follows[t.trace_id][1]) if t.trace_id in follows
            else t for t in ordered), outcomes)  # fmt: skip

    def _outcomes(self, session_id: str) -> list[Outcome]:
        """The session's outcome lines of every store, an opening once (written last), oldest
        first."""
        kept: dict[str, Outcome] = {}
        for some in self._each(lambda s: s.outcomes(session_id)):
            for o in some:
                if o.first_trace not in kept or o.written > kept[o.first_trace].written:
                    kept[o.first_trace] = o
        return sorted(kept.values(), key=lambda o: (o.time, o.first_trace))

    def search(self, s: Search) -> SearchResult:
        """Each store's search: the counts summed, the newest ``s.limit`` traces of all (a
        trace two stores hold, once)."""
        results = self._each(lambda store: store.search(s))
        by_check: dict[str, int] = {}
        for r in results:
            for name, n in r.by_check.items():
                by_check[name] = by_check.get(name, 0) + n
        found, seen = [], set()
        merged = heapq.merge(*(r.traces for r in results), key=lambda f: -f.time)
        for f in merged:
            if f.trace_id not in seen:
                seen.add(f.trace_id)
                found.append(f)
            if len(found) >= s.limit:
                break
        return SearchResult(sum(r.total for r in results), dict(sorted(by_check.items())),
                            tuple(found))  # fmt: skip

    def options(self, limit: int = 200) -> dict[str, list[str]]:
        """The values a search can choose from, of every store (at most ``limit`` of
        each)."""
        merged: dict[str, set[str]] = {}
        for some in self._each(lambda s: s.options(limit)):
            for key, values in some.items():
                merged.setdefault(key, set()).update(values)
        return {key: sorted(values)[:limit] for key, values in merged.items()}


def _newest(found: list[tuple[float, _T] | None]) -> tuple[float, _T] | None:
    """Of ``(written, value)`` pairs (None: not held), the one written last."""
    held = [f for f in found if f is not None]
    return max(held, key=lambda f: f[0]) if held else None
