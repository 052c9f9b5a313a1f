"""The evaluation store read back (the store sink writes it): one trace with its evidence,
its follow-up and its session; a session's turns in order; a search by route, release,
check, segment and time window with counts. The trace pages (``monitor.golden.trace_pages``)
and ``ragmon inspect`` show what this returns. Read-only: the daemon may be writing."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.core.lines import JsonObject
from monitor.core.store import CHECK_OUTCOMES, open_for_reading


@dataclass(frozen=True)
class StoredTrace:
    """A stored trace: its evaluation line, its trace record (redacted as stored), the
    follow-up its answer got, the outcome lines of its session and when the store wrote it
    (of two stores that hold a trace, the later evaluation is the one shown)."""

    trace_id: str
    time: float
    line: dict[str, Any]
    record: dict[str, Any]
    followup: dict[str, Any] | None = None
    sessions: tuple[dict[str, Any], ...] = ()
    written: float = 0.0

    def lines(self) -> list[JsonObject]:
        """The stored lines, as the evaluation-lines file has them."""
        return [self.line, *([self.followup] if self.followup else []), *self.sessions]

    @property
    def flagged(self) -> list[str]:
        """The checks that flagged it."""
        return [n for n, c in (self.line.get("checks") or {}).items() if c.get("flagged")]


@dataclass(frozen=True)
class StoredSession:
    """A session's stored turns, oldest first, and its outcome lines (one per opening)."""

    session_id: str
    turns: tuple[StoredTrace, ...]
    outcomes: tuple[dict[str, Any], ...]

    def lines(self) -> list[JsonObject]:
        """Every stored line of the session: each turn's, then the outcomes."""
        return [x for t in self.turns for x in (t.line, *([t.followup] if t.followup else []))] + [
            *self.outcomes
        ]


@dataclass(frozen=True)
class Outcome:
    """A session's stored outcome line: the first trace of its opening (the key a replay
    replaces), the time of its last turn and when the store wrote it."""

    first_trace: str
    time: float
    written: float
    line: dict[str, Any]


@dataclass(frozen=True)
class Search:
    """What a search filters on: each None or empty is no filter. ``check`` with
    ``outcome`` (flagged by default); ``segment`` as ``dimension=value``; ``since`` and
    ``until`` in Unix seconds of the traces' time."""

    route: str | None = None
    release: str | None = None
    check: str | None = None
    outcome: str = "flagged"
    segment: str | None = None
    since: float | None = None
    until: float | None = None
    limit: int = 50


@dataclass(frozen=True)
class Found:
    """One trace a search found."""

    trace_id: str
    time: float
    route: str | None
    release: str | None
    risk: float | None
    flagged: tuple[str, ...]


@dataclass(frozen=True)
class SearchResult:
    """How many traces match, how many of them each check flagged, and the newest ones."""

    total: int
    by_check: dict[str, int] = field(default_factory=dict)
    traces: tuple[Found, ...] = ()


# a stored trace's row as ``_stored`` reads it
_TRACE_COLUMNS = "e.trace_id, e.time, b.line, b.trace, e.stored, e.session_id"
_TraceRow = tuple[str, float, str, str, float, str | None]


class EvaluationStore:
    """The store at ``path``, read-only; ``StoreUnreadable`` (one line) when it is missing or
    not a store."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = open_for_reading(path)

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def trace(self, trace_id: str) -> StoredTrace | None:
        """The stored trace ``trace_id`` (lower-case hex), or None."""
        row = self._db.execute(
            f"SELECT {_TRACE_COLUMNS} FROM evaluations e JOIN bodies b USING (id) "
            "WHERE e.trace_id = ?",
            (trace_id.lower(),),
        ).fetchone()
        if row is None:
            return None
        sessions: tuple[dict[str, Any], ...] = ()
        if row[5] is not None:
            sessions = tuple(o.line for o in self.outcomes(str(row[5])))
        return self._stored(row, sessions)

    def followup(self, trace_id: str) -> tuple[float, JsonObject] | None:
        """The follow-up line the answer of ``trace_id`` got and when it was written, or
        None."""
        found = self._db.execute("SELECT stored, line FROM followups WHERE trace_id = ?",
                                 (trace_id.lower(),)).fetchone()  # fmt: skip
        return (float(found[0]), json.loads(found[1])) if found else None

    def followups(self, session_id: str) -> dict[str, tuple[float, JsonObject]]:
        """The follow-up lines of the session's turns, by the turn's trace id, with when each
        was written."""
        rows = self._db.execute(
            "SELECT trace_id, stored, line FROM followups WHERE session_id = ?", (session_id,)
        )
        return {str(t): (float(w), json.loads(x)) for t, w, x in rows}

    def outcomes(self, session_id: str) -> list[Outcome]:
        """The session's outcome lines (one per opening), oldest first."""
        rows = self._db.execute(
            "SELECT first_trace, time, stored, line FROM sessions WHERE session_id = ? "
            "ORDER BY time", (session_id,),
        )  # fmt: skip
        return [Outcome(str(f), float(t), float(w), json.loads(x)) for f, t, w, x in rows]

    def _stored(self, row: _TraceRow, sessions: tuple[JsonObject, ...] = ()) -> StoredTrace:
        follow = self.followup(str(row[0]))
        record = json.loads(row[3])
        for passage in record.get("context") or []:  # each passage's text, kept once by hash
            if "text" not in passage:
                found = self._db.execute("SELECT text FROM passages WHERE hash = ?",
                                         (passage.get("hash"),)).fetchone()  # fmt: skip
                passage["text"] = found[0] if found else "(the passage's text is not stored)"
        return StoredTrace(str(row[0]), float(row[1]), json.loads(row[2]), record,
                           follow[1] if follow else None, sessions, float(row[4]))  # fmt: skip

    def session(self, session_id: str) -> StoredSession | None:
        """The session's stored turns in time order and its outcomes, or None when the
        store holds neither."""
        turns = tuple(
            self._stored(r)
            for r in self._db.execute(
                f"SELECT {_TRACE_COLUMNS} FROM evaluations e JOIN bodies b USING (id) "
                "WHERE e.session_id = ? ORDER BY time, trace_id", (session_id,),
            ).fetchall()
        )  # fmt: skip
        outcomes = tuple(o.line for o in self.outcomes(session_id))
        if not turns and not outcomes:
            return None
        return StoredSession(session_id, turns, outcomes)

    def search(self, s: Search) -> SearchResult:
        """The traces that match ``s``: their count, each check's flagged count among them,
        and the newest ``s.limit``. A search by one check (and a window) is
        answered from that table's index alone; other filters join the narrow trace rows."""
        where, args = self._where(s)
        one = _one_index(s)
        if one is not None:
            table, match, margs = one
            total = int(self._db.execute(f"SELECT count(*) FROM {table} f WHERE {match}", margs)
                        .fetchone()[0])  # fmt: skip
        else:
            total = int(self._db.execute(f"SELECT count(*) FROM evaluations e {where}", args)
                        .fetchone()[0])  # fmt: skip
        by_check: dict[str, int] = {}
        if total:
            by_check = self._by_check(s, where, args, one)
        if one is not None:
            table, match, margs = one
            ids = [r[0] for r in self._db.execute(
                f"SELECT trace_id FROM {table} f WHERE {match} ORDER BY time DESC LIMIT ?",
                (*margs, s.limit))]  # fmt: skip
            rows = [r for tid in ids for r in self._db.execute(
                "SELECT trace_id, time, route, release, risk FROM evaluations WHERE trace_id = ?",
                (tid,))]  # fmt: skip
        else:
            rows = self._db.execute(
                f"SELECT trace_id, time, route, release, risk FROM evaluations e {where} "
                "ORDER BY time DESC LIMIT ?", (*args, s.limit),
            ).fetchall()  # fmt: skip
        found = []
        for tid, t, route, release, risk in rows:
            names = tuple(n for (n,) in self._db.execute(
                "SELECT name FROM checks WHERE trace_id = ? AND outcome = 'flagged' ORDER BY name",
                (tid,)))  # fmt: skip
            found.append(Found(str(tid), float(t), route, release, risk, names))
        return SearchResult(total, by_check, tuple(found))

    @staticmethod
    def _where(s: Search) -> tuple[str, tuple[object, ...]]:
        clauses: list[str] = []
        args: list[object] = []
        window = ""
        window_args: list[object] = []
        if s.since is not None:
            window += " AND time >= ?"
            window_args.append(s.since)
        if s.until is not None:
            window += " AND time < ?"
            window_args.append(s.until)
        for column, value in (("route", s.route), ("release", s.release)):
            if value:
                clauses.append(f"e.{column} = ?")
                args.append(value)
        if s.check:
            outcome = s.outcome if s.outcome in CHECK_OUTCOMES else "flagged"
            clauses.append("e.trace_id IN (SELECT trace_id FROM checks WHERE name = ? AND "
                           f"outcome = ?{window})")  # fmt: skip
            args += [s.check, outcome, *window_args]
        if s.segment:  # the combinations of segments that hold it
            dimension, _, value = s.segment.partition("=")
            clauses.append("e.segments IN (SELECT segments FROM segment_values WHERE "
                           "dimension = ? AND value = ?)")  # fmt: skip
            args += [dimension, value]
        if window:
            clauses.append(window.removeprefix(" AND ").replace("time", "e.time"))
            args += window_args
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", tuple(args)

    def _by_check(
        self,
        s: Search,
        where: str,
        args: tuple[object, ...],
        one: tuple[str, str, tuple[object, ...]] | None,
    ) -> dict[str, int]:
        """Each check's flagged count among the traces ``where`` selects: from the checks'
        own index when only a time window is given, from the one index a search by one check
        reads, else joined from the selected traces (CROSS JOIN: SQLite's planner
        otherwise walks every check row and looks each trace up, 2 s over a million)."""
        if not (s.route or s.release or s.check or s.segment):
            window, bounds = _window(s, "time")
            rows = self._db.execute(
                "SELECT name, count(*) FROM checks WHERE outcome = 'flagged'"
                f"{window} GROUP BY name ORDER BY name", bounds,
            )  # fmt: skip
        elif one is not None:
            table, match, margs = one
            rows = self._db.execute(
                f"SELECT c.name, count(*) FROM {table} f CROSS JOIN checks c ON c.trace_id = "
                f"f.trace_id AND c.outcome = 'flagged' WHERE {match} GROUP BY c.name "
                "ORDER BY c.name", margs,
            )  # fmt: skip
        else:
            rows = self._db.execute(
                "SELECT c.name, count(*) FROM evaluations e CROSS JOIN checks c ON c.trace_id = "
                f"e.trace_id AND c.outcome = 'flagged' {where} GROUP BY c.name ORDER BY c.name",
                args,
            )  # fmt: skip
        return {str(name): int(n) for name, n in rows}

    def options(self, limit: int = 200) -> dict[str, list[str]]:
        """The values a search can choose from (at most ``limit`` of each): routes,
        releases, checks, segments; each read by stepping through its index from one
        value to the next, not by reading every row."""

        def distinct(table: str, column: str) -> list[str]:
            out: list[str] = []
            last = ""
            while len(out) < limit:
                (value,) = self._db.execute(
                    f"SELECT min({column}) FROM {table} WHERE {column} > ?", (last,)
                ).fetchone()
                if value is None:
                    break
                out.append(str(value))
                last = value
            return out

        segments: list[str] = []
        at = ("", "")
        while len(segments) < limit:
            found = self._db.execute(
                "SELECT dimension, value FROM segment_values WHERE (dimension, value) > (?, ?) "
                "ORDER BY dimension, value LIMIT 1", at,
            ).fetchone()  # fmt: skip
            if found is None:
                break
            at = (str(found[0]), str(found[1]))
            segments.append(f"{at[0]}={at[1]}")
        return {
            "route": distinct("evaluations", "route"),
            "release": distinct("evaluations", "release"),
            "check": distinct("checks", "name"),
            "segment": segments,
        }


def _window(s: Search, column: str) -> tuple[str, list[object]]:
    """``AND column >= ? AND column < ?`` for the search's time bounds, and the bounds."""
    window, bounds = "", list[object]()
    for op, bound in ((">=", s.since), ("<", s.until)):
        if bound is not None:
            window += f" AND {column} {op} ?"
            bounds.append(bound)
    return window, bounds


def _one_index(s: Search) -> tuple[str, str, tuple[object, ...]] | None:
    """A search by one check (with a window or not), and nothing else: its table, the
    condition on it (rows ``f``) and its arguments; else None. (A search by one segment reads
    the trace rows' index of their combination of segments.)"""
    if s.route or s.release or s.segment or not s.check:
        return None
    window, bounds = _window(s, "f.time")
    outcome = s.outcome if s.outcome in CHECK_OUTCOMES else "flagged"
    return "checks", f"f.name = ? AND f.outcome = ?{window}", (s.check, outcome, *bounds)
