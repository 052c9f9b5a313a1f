"""The evaluation store's file: its tables, its indexes and how it is opened (docs, "The
evaluation store"). The store sink (``sinks/store.py``) writes it; the trace pages
(``monitor/golden/traces.py``) and ``ragmon inspect`` read it. SQLite from the standard
library, in WAL mode: one writer, readers in other processes while it writes.

One row per trace in ``evaluations``, narrow (what a search filters on: time, session, app,
route, release, its combination of segments, flagged, risk), keyed by an integer given in the
order the rows are written (the trace id a unique column), and one in ``bodies`` under the
same integer (its evaluation line and its trace record as JSON, both PII-redacted as the
evaluation lines are; a packed passage's text is kept once in ``passages``, by the hash of its
text, and the record names it): a search reads the narrow rows only, never the kilobytes
beside them. ``checks`` carries the trace's time with each check that flagged it or failed on
it, so that a search by check within a time window reads that index and nothing else. A
trace's segments (nine dimensions by default) are one integer of its row, the id of their
combination in ``segment_sets``; ``segment_values`` lists each combination's segments (what
a search by segment and the search form read): the distinct combinations are few, so a trace
writes one column instead of nine rows. Version 2; a store of version 1 (a segment row a
trace) is migrated in one transaction when the writer opens it. A follow-up is keyed
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

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluations (
    id INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL UNIQUE,
    time REAL NOT NULL,
    session_id TEXT,
    app TEXT,
    route TEXT,
    release TEXT,
    segments INTEGER NOT NULL,
    flagged INTEGER NOT NULL,
    risk REAL,
    stored REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS bodies (
    id INTEGER PRIMARY KEY,
    line TEXT NOT NULL,
    trace TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS evaluations_time ON evaluations (time);
CREATE INDEX IF NOT EXISTS evaluations_stored ON evaluations (stored);
CREATE INDEX IF NOT EXISTS evaluations_session ON evaluations (session_id, time)
    WHERE session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS evaluations_route ON evaluations (route, time);
CREATE INDEX IF NOT EXISTS evaluations_release ON evaluations (release, time);
CREATE INDEX IF NOT EXISTS evaluations_segments ON evaluations (segments, time);
CREATE TABLE IF NOT EXISTS segment_sets (
    id INTEGER PRIMARY KEY,
    segments TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS segment_values (
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    segments INTEGER NOT NULL,
    PRIMARY KEY (dimension, value, segments)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checks (
    trace_id TEXT NOT NULL,
    name TEXT NOT NULL,
    outcome TEXT NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (trace_id, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS checks_outcome ON checks (name, outcome, time);
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

# Version 1 to 2, in one transaction: a trace's nine-odd segment rows become the id of its
# combination of segments (read from its stored line), its two rows keyed by the trace id's
# text become rows keyed by an integer, written in the order they were stored
_MIGRATE_1 = """
DROP INDEX evaluations_time;
DROP INDEX evaluations_stored;
DROP INDEX evaluations_session;
DROP INDEX evaluations_route;
DROP INDEX evaluations_release;
ALTER TABLE evaluations RENAME TO evaluations_1;
ALTER TABLE bodies RENAME TO bodies_1;
DROP TABLE segments;
{schema}
CREATE TEMP TABLE sets_1 AS SELECT e.trace_id, (SELECT json_group_object(key, value) FROM
    (SELECT key, value FROM json_each(b.line, '$.segments') ORDER BY key)) AS segments
    FROM evaluations_1 e JOIN bodies_1 b USING (trace_id);
INSERT OR IGNORE INTO segment_sets (segments) SELECT DISTINCT segments FROM sets_1;
INSERT OR IGNORE INTO segment_values SELECT j.key, j.value, s.id
    FROM segment_sets s, json_each(s.segments) j;
INSERT INTO evaluations (trace_id, time, session_id, app, route, release, segments, flagged,
    risk, stored) SELECT e.trace_id, e.time, e.session_id, e.app, e.route, e.release, s.id,
    e.flagged, e.risk, e.stored FROM evaluations_1 e JOIN sets_1 c USING (trace_id)
    JOIN segment_sets s ON s.segments = c.segments ORDER BY e.stored, e.trace_id;
INSERT INTO bodies SELECT e.id, b.line, b.trace FROM evaluations e JOIN bodies_1 b USING (trace_id);
DROP TABLE evaluations_1;
DROP TABLE bodies_1;
DROP TABLE sets_1;
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
    """The store at ``path``, created with its tables when new (its directory too), a store
    of version 1 brought to this version; raises ``StoreUnreadable`` when the file is not a
    store, ``OSError``/``sqlite3.Error`` when it cannot be opened. WAL mode;
    ``synchronous=FULL``: a commit is on disk when it returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        version = _check(db, path, allow_empty=True, migrates=(1,))
        # both take effect on a new file only. Pages of 16 KiB: a trace's body (3-4 KB) fits
        # in one page instead of spilling into overflow pages of 4 KiB, and the WAL is
        # checkpointed a quarter as often; the store sink's cost 83-90 -> 64-67 us a trace
        # (bench/store.py --alone, PII off, CPU, the checkpoint at close included)
        db.execute("PRAGMA page_size = 16384")
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        if version == 1:
            _migrate(db, _MIGRATE_1.format(schema=SCHEMA))
        else:
            db.executescript(SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def _migrate(db: sqlite3.Connection, script: str) -> None:
    """Run ``script`` and set this version, in one transaction (all or nothing)."""
    try:
        db.executescript(
            f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;"
        )
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


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


def _check(
    db: sqlite3.Connection, path: Path, allow_empty: bool, migrates: tuple[int, ...] = ()
) -> int:
    """The store's version; raise ``StoreUnreadable`` unless ``path`` is a store of this
    version or of one of ``migrates`` (or, when ``allow_empty``, an empty file or database to
    make one in: version 0)."""
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise StoreUnreadable(f"{path} is not a store ({exc}): a damaged file?") from None
    if version == 0 and not tables and allow_empty:
        return 0
    if "evaluations" in tables and version in (SCHEMA_VERSION, *migrates):
        return version
    if "evaluations" in tables and 0 < version < SCHEMA_VERSION:
        raise StoreUnreadable(
            f"{path} is a store of version {version}, this ragmon reads version "
            f"{SCHEMA_VERSION}: the daemon or ragmon replay --store brings it up to date when "
            "it next opens it"
        )
    what = f"version {version}" if version else "another SQLite database"
    raise StoreUnreadable(
        f"{path} is not a store of this ragmon ({what}; this one reads version {SCHEMA_VERSION})"
    )
