"""The evaluation store's file: its tables, its indexes and how it is opened (docs, "The
evaluation store"). The store sink (``sinks/store.py``) writes it; the trace pages
(``monitor/golden/traces.py``) and ``ragmon inspect`` read it. SQLite from the standard
library, in WAL mode: one writer, readers in other processes while it writes.

One row per trace in ``evaluations``, narrow (what a search filters on: time, session, app,
route, release, flagged, risk), and in ``bodies`` (its evaluation line and its trace record as
JSON, both PII-redacted as the evaluation lines are; a packed passage's text is kept once in
``passages``, by the hash of its text, and the record names it): a search reads the narrow
rows only, never the kilobytes beside them. Two more narrow tables carry the trace's time
(``checks``: each check that flagged the trace or failed on it; ``segments``: each segment),
so that a search by check or segment within a time window reads an index and nothing else
(``segments`` is that index alone: a trace's rows are found again from its line's segments
when it is replaced or deleted, so a segment costs one B-tree, not two). A follow-up is keyed
by the turn it is about, a session's outcome by the session and the first trace of its
opening: a replay replaces a row, never adds one.
``time`` is the trace's own (what a search's window reads; the time of writing when the
trace has none, and never later than that); ``stored`` is when the row was written (what
retention reads: a replay of last month's files is kept as long as today's traffic); a
passage's ``last`` is when a trace last named it (refreshed once a day at most), and a passage
goes a day after the last trace that named it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluations (
    trace_id TEXT PRIMARY KEY,
    time REAL NOT NULL,
    session_id TEXT,
    app TEXT,
    route TEXT,
    release TEXT,
    flagged INTEGER NOT NULL,
    risk REAL,
    stored REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS bodies (
    trace_id TEXT PRIMARY KEY,
    line TEXT NOT NULL,
    trace TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS evaluations_time ON evaluations (time);
CREATE INDEX IF NOT EXISTS evaluations_stored ON evaluations (stored);
CREATE INDEX IF NOT EXISTS evaluations_session ON evaluations (session_id, time)
    WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS evaluations_route ON evaluations (route, time);
CREATE INDEX IF NOT EXISTS evaluations_release ON evaluations (release, time);
CREATE TABLE IF NOT EXISTS checks (
    trace_id TEXT NOT NULL,
    name TEXT NOT NULL,
    outcome TEXT NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (trace_id, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS checks_outcome ON checks (name, outcome, time);
CREATE TABLE IF NOT EXISTS segments (
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    time REAL NOT NULL,
    trace_id TEXT NOT NULL,
    PRIMARY KEY (dimension, value, time, trace_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS followups (
    trace_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    time REAL NOT NULL,
    line TEXT NOT NULL,
    stored REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS followups_session ON followups (session_id);
CREATE INDEX IF NOT EXISTS followups_stored ON followups (stored);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT NOT NULL,
    first_trace TEXT NOT NULL,
    time REAL NOT NULL,
    outcome TEXT NOT NULL,
    line TEXT NOT NULL,
    stored REAL NOT NULL,
    PRIMARY KEY (session_id, first_trace)
);
CREATE INDEX IF NOT EXISTS sessions_stored ON sessions (stored);
CREATE TABLE IF NOT EXISTS passages (
    hash TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    last REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_last ON passages (last);
"""

# Outcomes of a check the ``checks`` table holds (the search's check filter): a check that
# passed or did not apply has no row (most results: a row each would cost every trace more)
CHECK_OUTCOMES = ("flagged", "error")


class StoreUnreadable(Exception):
    """The store file is missing, is not a SQLite database, or is not a store (one line)."""


def check_outcome(flagged: bool, error: bool) -> str | None:
    """A check's result as one word of ``CHECK_OUTCOMES``, or None (passed, not
    applicable)."""
    if error:
        return "error"
    return "flagged" if flagged else None


def open_for_writing(path: Path) -> sqlite3.Connection:
    """The store at ``path``, created with its tables when new (its directory too); raises
    ``StoreUnreadable`` when the file is not a store, ``OSError``/``sqlite3.Error`` when it
    cannot be opened. WAL mode; ``synchronous=FULL``: a commit is on disk when it returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        _check(db, path, allow_empty=True)
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # takes effect on a new file only
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.executescript(SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def open_for_reading(path: Path) -> sqlite3.Connection:
    """The store at ``path``, read-only (another process may be writing it); raises
    ``StoreUnreadable`` with one line when it is missing or not a store."""
    if not path.is_file():
        raise StoreUnreadable(f"no store at {path}")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                             check_same_thread=False)  # fmt: skip
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"cannot open the store {path}: {exc}") from None
    try:
        _check(db, path, allow_empty=False)
    except BaseException:
        db.close()
        raise
    return db


def _check(db: sqlite3.Connection, path: Path, allow_empty: bool) -> None:
    """Raise ``StoreUnreadable`` unless ``path`` is a store of this version (or, when
    ``allow_empty``, an empty file or database to make one in)."""
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise StoreUnreadable(f"{path} is not a store ({exc}): a damaged file?") from None
    if version == 0 and not tables and allow_empty:
        return
    if version != SCHEMA_VERSION or "evaluations" not in tables:
        what = f"version {version}" if version else "another SQLite database"
        raise StoreUnreadable(
            f"{path} is not a store of this ragmon ({what}; this one reads version "
            f"{SCHEMA_VERSION})"
        )
