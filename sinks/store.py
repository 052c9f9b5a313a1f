"""``StoreSink``: every evaluation, follow-up and session outcome into the evaluation store,
a SQLite file the trace pages and ``ragmon inspect`` read (docs, "The evaluation store").

Written in one transaction per ``flush`` (the pipeline's checkpoint: commit after flush, as
every sink), so a crash loses only what was not flushed, which the source then replays; a
replayed trace replaces its row. Trace text is PII-redacted as the evaluation lines are
(``output.redact_pii``). Retention by age and by size runs after a flush, at most once per
``retention_interval_seconds``. A store file that is not a store (damaged, another
database) is moved aside with one log line and a new one is started: the daemon goes on.
With ``store.writer: process`` (the default) all of it runs in a writer process of the sink's
on another core (``sinks.store_writer``); the pipeline only takes each evaluation's record
(``sinks.store_record``) and hands it over, and a flush returns after the writer's commit.
The writer writes the rows as they come, in the transaction the flush commits (``stage``).
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec
import structlog
from pydantic import Field

from monitor.core.errors import SinkError
from monitor.core.model import ConfigSection, Evaluation, Followup, SessionOutcome
from monitor.core.pii import Redactor
from monitor.core.store import StoreUnreadable, open_for_writing
from sinks import SinkBase, store_record, store_retention
from sinks.jsonl import redacted as redacted_with
from sinks.jsonl import written_line
from sinks.store_record import Captured, capture, json_text
from sinks.store_retention import DAY

if TYPE_CHECKING:
    from monitor.telemetry import Metrics
    from sinks.store_writer import WriterProcess

_LOG = structlog.get_logger("ragmon.store")
_KNOWN_PASSAGES = 200_000  # passage hashes remembered as written today (then forgotten)
_COMBINATIONS = 10_000  # traces' segments remembered with their combination's text
_MARKS = ",".join("?" * 11)  # an evaluations row
_NOTHING = (0, 0, 0, 0, 0)  # a batch's sizes when nothing of it is staged


class StoreConfig(ConfigSection):
    """``store``: the evaluation store, a SQLite file of every evaluation line, follow-up and
    session outcome with its trace (off unless ``path`` is set)."""

    path: Path | None = Field(
        default=None,
        description="The store's file (SQLite), created if missing. Under run --workers each "
        "worker writes its own (store.worker-0.db, ...).",
    )
    max_age_days: float = Field(
        default=14.0, gt=0, description="Rows older than this (by the trace's time) are deleted."
    )
    max_bytes: int = Field(
        default=2 * 1024**3,
        ge=1024**2,
        description="The oldest rows are deleted while the store's pages in use exceed this.",
    )
    retention_interval_seconds: float = Field(
        default=300.0, ge=0, description="How often (at most) retention runs after a flush."
    )
    writer: Literal["process", "inline"] = Field(
        default="process",
        description="process: a writer process of the daemon's redacts, makes the JSON and "
        "writes the file on a core of its own (the pipeline only hands it each evaluation); "
        "inline: the pipeline does all of it (one process, one core).",
    )
    writer_timeout_seconds: float = Field(
        default=120.0,
        gt=0,
        description="How long a flush waits for the writer process's commit before it fails.",
    )


@dataclass(frozen=True)
class StoreOutput:
    """The store sink's configuration: its section (``path`` set) and the redactor of the
    text it stores (None: as it is)."""

    section: StoreConfig
    redactor: Redactor | None = None


_Row = tuple[Any, ...]


@dataclass
class _Batch:
    """What was written since the last flush, as the rows the tables take. A trace's row
    (``_trace_row``) carries its combination of segments as text and its checks' outcomes;
    the combination's id and the row's id are given at the commit."""

    evaluations: list[_Row]
    judged: list[tuple[str, str, _Row]]  # a later verdict: trace id, its judge JSON, the row
    followups: list[_Row]
    sessions: list[_Row]
    passages: list[_Row]  # new (or not written today): hash, redacted text, time

    @classmethod
    def empty(cls) -> _Batch:
        return cls([], [], [], [], [])

    def __bool__(self) -> bool:
        return any((self.evaluations, self.judged, self.followups, self.sessions))

    def sizes(self) -> tuple[int, ...]:
        return tuple(map(len, (self.evaluations, self.judged, self.followups, self.sessions,
                               self.passages)))  # fmt: skip

    def since(self, sizes: tuple[int, ...]) -> _Batch:
        """What was taken after the batch had ``sizes`` (``sizes()``)."""
        e, j, f, s, p = sizes
        return _Batch(self.evaluations[e:], self.judged[j:], self.followups[f:],
                      self.sessions[s:], self.passages[p:])  # fmt: skip


class StoreSink(SinkBase):
    """Writes the store at ``path`` (see the module)."""

    name = "store"

    @classmethod
    def from_config(cls, config: StoreOutput, metrics: Metrics | None = None) -> StoreSink:
        """The store of ``config.section``, written through ``config.redactor``."""
        s = config.section
        if s.path is None:
            raise ValueError("the store sink needs store.path")
        return cls(s.path, config.redactor, s.max_age_days * DAY, s.max_bytes,
                   s.retention_interval_seconds, metrics=metrics, writer=s.writer,
                   writer_timeout_seconds=s.writer_timeout_seconds)  # fmt: skip

    def __init__(
        self,
        path: Path,
        redactor: Redactor | None = None,
        max_age_seconds: float = 14 * DAY,
        max_bytes: int = 2 * 1024**3,
        retention_interval_seconds: float = 300.0,
        clock: Callable[[], float] = time.time,
        metrics: Metrics | None = None,
        writer: Literal["process", "inline"] = "inline",
        writer_timeout_seconds: float = 120.0,
    ) -> None:
        self.path = path
        self._metrics = metrics
        self._redactor = redactor
        self._max_age = max_age_seconds
        self._max_bytes = max_bytes
        self._interval = retention_interval_seconds
        self._clock = clock
        self._db: sqlite3.Connection | None = None
        self._batch = _Batch.empty()
        # the batch's sizes when its rows were last staged (``stage``; None: its staging
        # failed, the flush writes it whole)
        self._staged: tuple[int, ...] | None = _NOTHING
        # True: neither retention nor the WAL's checkpoint runs in a flush (nor SQLite's at a
        # commit): the owner calls ``housekeep`` (the writer process: after its answer to a
        # flush, off the pipeline's wait)
        self.deferred = False
        self._retained_at: float | None = None
        self._known: dict[str, int] = {}  # passage hash -> the day it was last written
        # a trace's segments (as the segmenter orders them) -> their combination as text
        self._combinations: dict[tuple[tuple[str, str], ...], str] = {}
        self._sets: dict[str, int] | None = None  # a combination -> its id in the file
        self.log: Any = _LOG  # the writer process collects its lines for the daemon
        self.moved_aside: list[Path] = []  # damaged files moved out of the way
        self.deleted: dict[str, int] = {"age": 0, "size": 0}  # evaluations deleted by retention
        self._remote: WriterProcess | None = None  # the writer process doing the work
        if writer == "process":
            from sinks.store_writer import WriterProcess

            args = (type(self), str(path), redactor, max_age_seconds, max_bytes,
                    retention_interval_seconds)  # fmt: skip
            self._remote = WriterProcess(self, args, writer_timeout_seconds)

    @property
    def writer_pid(self) -> int | None:
        """The writer process's id (None: inline, or not started)."""
        return None if self._remote is None else self._remote.writer_pid

    def start(self) -> None:
        """Open the store (created if missing); a file that is not a store is moved aside.
        With a writer process: start it, and it does so."""
        if self._remote is not None:
            self._remote.start()
            return
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            db = open_for_writing(self.path)
        except StoreUnreadable as exc:
            aside = self._move_aside(str(exc))
            if aside is None:
                raise SinkError(f"store: {exc}") from None
            db = open_for_writing(self.path)
        except (OSError, sqlite3.Error) as exc:
            raise SinkError(f"store: cannot open {self.path}: {exc}") from None
        if self.deferred:
            db.execute("PRAGMA wal_autocheckpoint = 0")
        return db

    def housekeep(self) -> None:
        """What a flush leaves when ``deferred``: retention when due, then the WAL's
        committed pages copied into the file as far as no reader needs them (a passive
        checkpoint: it waits for no one)."""
        if self._db is None or not self.deferred:
            return
        self._retain_when_due()
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:  # the next one copies it (the WAL keeps it safe)
            self.log.warning("store_checkpoint_failed", path=str(self.path), error=str(exc))

    def _move_aside(self, why: str) -> Path | None:
        """Rename the damaged store (and its WAL files) to ``<name>.damaged-<time>``; one
        log line says where. None when it cannot be moved."""
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self._clock()))
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        try:
            self.path.rename(aside)
            for suffix in ("-wal", "-shm"):
                extra = self.path.with_name(self.path.name + suffix)
                if extra.exists():
                    extra.rename(aside.with_name(aside.name + suffix))
        except OSError:
            return None
        self.log.warning(
            "store_damaged",
            path=str(self.path),
            moved_to=str(aside),
            reason=why,
            hint="a new store was started; the old one is kept for inspection",
        )
        self.count_damaged(aside)
        return aside

    def count_damaged(self, aside: Path) -> None:
        """A damaged file moved aside to ``aside`` (here, or by the writer process): kept in
        ``moved_aside`` and counted in the metric."""
        self.moved_aside.append(aside)
        if self._metrics is not None:
            self._metrics.on_store_damaged()

    def count_deleted(self, reason: str, deleted: int) -> None:
        """Evaluations retention deleted for ``reason`` (here, or by the writer process):
        kept in ``deleted`` and counted in the metric."""
        self.deleted[reason] += deleted
        if deleted and self._metrics is not None:
            self._metrics.on_store_deleted(reason, deleted)

    # --- taking lines

    def write(self, evaluation: Evaluation) -> None:
        """Take the evaluation's line and its trace (PII-redacted when configured)."""
        self._check_open()
        if self._remote is not None:
            self._remote.write(evaluation)
            return
        written = written_line(evaluation, self._redactor)  # the JSONL sink's, when it has one
        self.take(capture(evaluation, self._clock(), written))

    def take(self, c: Captured) -> None:
        """Take a captured evaluation (``capture``): its line, question and answer redacted
        here unless they are already (``c.redacted``), its trace's record made, its new
        passages redacted and kept. What the writer process does with what the daemon sends
        it."""
        t, line = c.trace, store_record.line_of(c)
        if c.redacted is not None:
            query, answer = c.redacted
        elif self._redactor is not None:
            line, (answer, query) = redacted_with(line, self._redactor, (t.answer, t.query))
        else:
            query, answer = t.query, t.answer
        now = c.now
        stamp = now if t.timestamp is None else min(t.timestamp.timestamp(), now)
        hashes = [self._passage(p.text, now) for p in t.context]
        record = store_record.trace_record(t, line.get("timestamp"), query, answer, hashes)
        outcomes, flagged = store_record.outcomes(line["checks"])
        row = (t.trace_id, stamp, t.session_id, t.app, t.route, t.release,
               self._combination(line["segments"]), int(flagged), line.get("risk"), now,
               json_text(line), json_text(record), outcomes)  # fmt: skip
        if line.get("judge_only"):  # a verdict that came after the checks: it joins their row
            self._batch.judged.append((t.trace_id, json_text(line.get("judge")), row))
        else:
            self._batch.evaluations.append(row)

    def _combination(self, segments: Mapping[str, str]) -> str:
        """The trace's segments as the text its combination is kept under (a JSON object,
        keys in order): one row a combination in the file, not one row a segment a trace."""
        items = tuple(segments.items())
        found = self._combinations.get(items)
        if found is None:
            if len(self._combinations) >= _COMBINATIONS:
                self._combinations.clear()
            found = self._combinations[items] = json_text(dict(sorted(items)))
        return found

    def _passage(self, text: str, now: float) -> str:
        """The hash a passage's text is stored under; its (redacted) text is written unless
        it was written today already: a passage costs its redaction once, not per trace."""
        key = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        day = int(now // DAY)
        if self._known.get(key) != day:
            if len(self._known) >= _KNOWN_PASSAGES:
                self._known.clear()
            self._known[key] = day
            clean = self._redactor.redact(text) if self._redactor is not None else text
            self._batch.passages.append((key, clean, now))
        return key

    def write_followup(self, followup: Followup) -> None:
        """Take the follow-up line (ids and signals: no text of the turns)."""
        self._check_open()
        if self._remote is not None:
            self._remote.write_followup(followup)
            return
        self._batch.followups.append(store_record.followup_row(followup, self._clock()))

    def write_session(self, outcome: SessionOutcome) -> None:
        """Take the session's outcome line (ids and counts: no text of the turns)."""
        self._check_open()
        if self._remote is not None:
            self._remote.write_session(outcome)
            return
        self._batch.sessions.append(store_record.session_row(outcome, self._clock()))

    def take_rows(self, followups: list[_Row], sessions: list[_Row]) -> None:
        """Take follow-up and session rows (``followup_row``, ``session_row``)."""
        self._batch.followups.extend(followups)
        self._batch.sessions.extend(sessions)

    # --- delivering

    def flush(self) -> None:
        """Commit everything taken so far in one transaction (raises ``SinkError`` when it
        cannot); then retention, when it is due. With a writer process: it does so, and this
        returns after its commit."""
        self._check_open()
        if self._remote is not None:
            self._remote.flush()
            return
        self._deliver()

    def _deliver(self) -> None:
        if self._batch:
            try:
                self._commit(self._batch)
            except sqlite3.OperationalError as exc:  # full disk, locked, read-only file
                raise SinkError(f"store {self.path}: {exc}") from None
            except sqlite3.DatabaseError as exc:  # the file was damaged under us
                if self._move_aside(str(exc)) is None:
                    raise SinkError(f"store {self.path}: {exc}") from None
                self._reopen()
                self._commit(self._batch)
            self._batch = _Batch.empty()
        if not self.deferred:
            self._retain_when_due()

    def _retain_when_due(self) -> None:
        now = self._clock()
        if self._retained_at is None or now - self._retained_at >= self._interval:
            self._retained_at = now
            try:
                self.retain(now)
            except sqlite3.Error as exc:
                self.log.warning("store_retention_failed", path=str(self.path), error=str(exc))

    def _reopen(self) -> None:
        if self._db is not None:
            self._db.close()
        self._known.clear()  # the new file has no passage yet
        self._sets = None  # nor any combination of segments
        self._db = self._open()

    def stage(self) -> None:
        """Write what was taken since into the store's open transaction (begun here), not
        committed: the writer process does so as evaluations arrive, so that a flush has only
        the last of them and the COMMIT left to do on the pipeline's time. A failure rolls it
        back and leaves the whole batch to the flush (written as the inline sink writes it)."""
        db = self._connection()
        if self._staged is None or not self._batch:
            return
        try:
            if not db.in_transaction:
                db.execute("BEGIN IMMEDIATE")
            self._insert(self._batch.since(self._staged))
            self._staged = self._batch.sizes()
        except Exception:
            self._sets = None  # combinations added in the transaction are not in the file
            self._staged = None  # until the next commit
            if db.in_transaction:
                db.execute("ROLLBACK")

    def _commit(self, b: _Batch) -> None:
        """Write ``b`` and commit it: its part staged already (``stage``) is not written
        again."""
        db = self._connection()
        staged, self._staged = self._staged, _NOTHING
        if staged is not None and db.in_transaction:
            b = b.since(staged)
        else:
            db.execute("BEGIN IMMEDIATE")
        try:
            self._insert(b)
            db.execute("COMMIT")
        except BaseException:
            self._sets = None  # combinations added in the transaction may not be in the file
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _insert(self, b: _Batch) -> None:
        """The statements writing ``b``, inside the caller's transaction."""
        db = self._connection()
        latest = {row[0]: row for row in b.evaluations}  # a trace twice: its last row
        store_retention.forget(db, list(latest))
        last = int(db.execute("SELECT coalesce(max(id), 0) FROM evaluations").fetchone()[0])
        rows: list[_Row] = []
        bodies: list[_Row] = []
        checks: list[_Row] = []
        for at, row in enumerate(latest.values(), last + 1):  # ids in the order written
            evaluation, body = self._rows(at, row)
            rows.append(evaluation)
            bodies.append(body)
            checks.extend((row[0], name, outcome, row[1]) for name, outcome in row[12])
        at = last + len(rows)
        db.executemany(f"INSERT INTO evaluations VALUES ({_MARKS})", rows)
        db.executemany("INSERT INTO bodies VALUES (?,?,?)", bodies)
        db.executemany("INSERT INTO checks VALUES (?,?,?,?)", checks)
        for tid, judge, row in b.judged:
            done = db.execute(
                "UPDATE bodies SET line = json_set(line, '$.judge', json(?)) "
                "WHERE id = (SELECT id FROM evaluations WHERE trace_id = ?)", (judge, tid),
            )  # fmt: skip
            if done.rowcount == 0:  # its checks' line is not (or no longer) stored
                at += 1
                evaluation, body = self._rows(at, row)
                db.execute(f"INSERT INTO evaluations VALUES ({_MARKS})", evaluation)
                db.execute("INSERT INTO bodies VALUES (?,?,?)", body)
        db.executemany("INSERT INTO passages VALUES (?,?,?) ON CONFLICT (hash) DO UPDATE "
                       "SET last = excluded.last", b.passages)  # fmt: skip
        db.executemany("INSERT OR REPLACE INTO followups VALUES (?,?,?,?,?)", b.followups)
        db.executemany("INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?,?)", b.sessions)

    def _rows(self, at: int, row: _Row) -> tuple[_Row, _Row]:
        """A batch's trace row (``write``) as the file's evaluations row and body row under
        the id ``at``, its combination of segments by its id."""
        return (at, *row[:6], self._set(row[6]), *row[7:10]), (at, row[10], row[11])

    def _set(self, combination: str) -> int:
        """The id of the combination of segments ``combination`` in the file, added (with a
        row for each of its segments, what a search by segment reads) when it is new. Inside
        the caller's transaction."""
        db = self._connection()
        if self._sets is None:
            self._sets = {str(k): int(i) for k, i in db.execute("SELECT segments, id FROM "
                                                                  "segment_sets")}  # fmt: skip
        found = self._sets.get(combination)
        if found is None:
            cursor = db.execute("INSERT INTO segment_sets (segments) VALUES (?)", (combination,))
            found = self._sets[combination] = int(cursor.lastrowid or 0)
            db.executemany(
                "INSERT INTO segment_values VALUES (?,?,?)",
                [(k, str(v), found) for k, v in msgspec.json.decode(combination).items()],
            )
        return found

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise SinkError(f"store {self.path}: written before start")
        return self._db

    def retain(self, now: float) -> None:
        """Delete the rows written longer ago than the maximum age, then the oldest written
        while the store's pages in use exceed its maximum size; the freed pages go back to
        the file system (incremental vacuum)."""
        db = self._connection()
        self._sets = None  # retention deletes the combinations no trace has any more
        self.count_deleted("age", self._delete_before(db, now - self._max_age))
        for _ in range(20):  # each round deletes a share of the rows sized to the excess
            used = store_retention.used_bytes(db)
            if used <= self._max_bytes:
                break
            rows = int(db.execute("SELECT count(*) FROM evaluations").fetchone()[0])
            if rows == 0:
                break
            share = min(1.0, (used - self._max_bytes) / used + 0.05)
            last = db.execute("SELECT stored FROM evaluations ORDER BY stored LIMIT 1 OFFSET ?",
                              (max(1, int(rows * share)) - 1,)).fetchone()  # fmt: skip
            self.count_deleted("size", self._delete_before(db, float(last[0]), inclusive=True))
        db.execute("PRAGMA incremental_vacuum")

    def _delete_before(self, db: sqlite3.Connection, cutoff: float, inclusive: bool = False) -> int:
        gone = store_retention.delete_before(db, cutoff, inclusive)
        if gone:
            self.log.info("store_retention", deleted=gone, written_before=cutoff)
        return gone

    def abandon(self) -> None:
        """Close the file without committing what was taken (the daemon that sent it is gone
        and replays it)."""
        self._closing()
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        """Commit what is left and close the file; a second call does nothing."""
        if not self._closing():
            return
        if self._remote is not None:
            self._remote.close()
            return
        if self._db is None:
            return
        try:
            if self._batch:
                self._commit(self._batch)
                self._batch = _Batch.empty()
        finally:
            self._db.close()
            self._db = None
