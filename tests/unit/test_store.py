"""The evaluation store's sink: a row per trace that a replay replaces, the judge's later
verdict joined to its row, text redacted as the evaluation lines are, retention by age and
size, and a damaged file moved aside instead of stopping the daemon."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, Followup, RagTrace, SessionOutcome, SessionTurn, Turn
from monitor.core.pii import Redactor
from monitor.core.store import StoreUnreadable, open_for_reading
from monitor.core.verdict import Claim, Verdict
from monitor.telemetry import Metrics
from sinks.store import StoreSink

NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def trace(i: int, **extra: object) -> RagTrace:
    data: dict[str, object] = {
        "trace_id": f"{i:032x}",
        "timestamp": "2027-01-15T08:00:00Z",
        "route": "billing",
        "release": "r1",
        "query": "How much is the refund fee?",
        "context": [{"doc_id": "fees", "text": "The refund fee is 15 euros."}],
        "answer": "The refund fee is 25 euros.",
    }
    data.update(extra)
    return RagTrace.from_data(data)


def evaluate(t: RagTrace) -> Evaluation:
    return Evaluation(trace=t, checks=CheckSuite()(t), segments={"route": t.route or "-"})


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return list(db.execute(sql))


# each stored trace's segments, read through its combination of segments
SEGMENTS = ("SELECT e.trace_id, v.dimension, v.value FROM evaluations e JOIN segment_values v "
            "USING (segments) ORDER BY e.trace_id, v.dimension")  # fmt: skip


def test_a_replayed_trace_replaces_its_row(tmp_path: Path) -> None:
    """The same trace written twice (a crash's replay) is one row, one row per check."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, clock=Clock())
    sink.start()
    ev = evaluate(trace(1))
    for _ in range(2):
        sink.write(ev)
        sink.flush()
    sink.close()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]
    assert rows(path, "SELECT count(*) FROM bodies") == [(1,)]
    assert rows(path, "SELECT count(*) FROM checks") == [(len(ev.flagged),)]  # the flagged
    assert rows(path, SEGMENTS) == [(f"{1:032x}", "route", "billing")]
    assert rows(path, "SELECT outcome FROM checks WHERE name = 'unsupported_numbers'") == [
        ("flagged",)
    ]
    stored = json.loads(str(rows(path, "SELECT trace FROM bodies")[0][0]))
    (key,) = [p["hash"] for p in stored["context"]]
    assert rows(path, "SELECT hash, text FROM passages") == [(key, "The refund fee is 15 euros.")]


def test_a_passage_is_kept_once_and_goes_a_day_after_its_last_trace(tmp_path: Path) -> None:
    path, clock = tmp_path / "s.db", Clock()
    sink = StoreSink(path, max_age_seconds=3 * 86400, retention_interval_seconds=0, clock=clock)
    sink.start()
    for i in range(3):  # three traces, one passage
        sink.write(evaluate(trace(10 + i)))
    sink.flush()
    assert rows(path, "SELECT count(*) FROM passages") == [(1,)]
    clock.now += 2 * 86400
    sink.write(evaluate(trace(20)))  # named again two days later: its time is refreshed
    sink.flush()
    clock.now += 1.5 * 86400  # the first three traces go; the passage stays for the fourth
    sink.flush()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]
    assert rows(path, "SELECT count(*) FROM passages") == [(1,)]
    clock.now += 3 * 86400  # the fourth goes, and the passage a day after it
    sink.flush()
    sink.close()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(0,)]
    assert rows(path, "SELECT count(*) FROM passages") == [(0,)]


def test_a_replay_with_other_results_leaves_none_of_the_old(tmp_path: Path) -> None:
    """A trace evaluated again by other checks or segments (a new release of ragmon): the
    search finds it by its new results only."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, clock=Clock())
    sink.start()
    ev = evaluate(trace(7))
    sink.write(ev)
    sink.flush()
    sink.write(Evaluation(trace=ev.trace, checks={}, segments={"route": "other"}))
    sink.close()
    assert rows(path, "SELECT count(*) FROM checks") == [(0,)]
    assert rows(path, "SELECT count(*) FROM bodies") == [(1,)]
    assert rows(path, SEGMENTS) == [(f"{7:032x}", "route", "other")]


def test_a_trace_twice_in_one_batch_is_one_row_with_its_last_results(tmp_path: Path) -> None:
    """A trace evaluated twice between two flushes (a rescore): its last evaluation is
    stored, once, and its first leaves no check row behind."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, clock=Clock())
    sink.start()
    ev = evaluate(trace(8))
    assert ev.flagged
    sink.write(ev)
    sink.write(Evaluation(trace=ev.trace, checks={}, segments={"route": "other"}))
    sink.close()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]
    assert rows(path, "SELECT count(*) FROM bodies") == [(1,)]
    assert rows(path, "SELECT count(*) FROM checks") == [(0,)]
    assert rows(path, SEGMENTS) == [(f"{8:032x}", "route", "other")]


def test_a_later_verdict_joins_the_checks_row(tmp_path: Path) -> None:
    """Batch mode's judge-only line adds the verdict to the stored line; the checks stay."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, clock=Clock())
    sink.start()
    ev = evaluate(trace(2))
    sink.write(ev)
    sink.flush()
    claim = Claim(text="The refund fee is 25 euros.", label="CONTRADICTED", passage=1)
    verdict = Verdict(judge="heuristic", model="h", rubric_version="1", verdict="hard_fail",
                      score=0.0, weight=1.0, claims=[claim])  # fmt: skip
    sink.write(Evaluation(trace=ev.trace, checks={}, judge=verdict, judge_only=True))
    sink.close()
    line = json.loads(str(rows(path, "SELECT line FROM bodies")[0][0]))
    assert line["checks"]["unsupported_numbers"]["flagged"] is True
    assert line["judge"]["verdict"] == "hard_fail"


def test_trace_text_is_redacted_as_the_lines_are(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sink = StoreSink(path, redactor=Redactor(), clock=Clock())
    sink.start()
    t = trace(
        3,
        query="Refund for jane.doe@example.com please",
        context=[{"doc_id": "d", "text": "Write to jane.doe@example.com for 15 euros."}],
    )
    sink.write(evaluate(t))
    sink.close()
    raw = str(rows(path, "SELECT line || trace FROM bodies")[0][0])
    raw += str(rows(path, "SELECT text FROM passages")[0][0])
    assert "jane.doe@example.com" not in raw
    assert "[REDACTED:EMAIL]" in raw


PLANTED = {
    "jane.doe@example.com": "EMAIL",
    "+49 30 1234567": "PHONE",
    "+\u0664\u0669 \u0663\u0660 \u0661\u0662\u0663\u0664\u0665\u0666\u0667": "PHONE",
    "4111 1111 1111 1111": "CARD",
    "DE89 3704 0044 0532 0130 00": "IBAN",
    "10.1.2.3": "IP",
}


def test_no_planted_item_reaches_the_file(tmp_path: Path) -> None:
    """An e-mail address, phone numbers (ASCII and Arabic-Indic digits), a card number, an
    IBAN and an address, each alone in a passage among figures, in the question or in the
    answer, are in no byte of the SQLite file, also when a second trace brings the same
    passages (written once) and a third brings them on another day; the figures around them
    stay."""
    path = tmp_path / "s.db"
    clock = Clock()
    sink = StoreSink(path, redactor=Redactor(), clock=clock)
    sink.start()
    items = list(PLANTED)
    prose = "Plans keep 459 members and a $1,038 minimum. Ask {} for 15 euros since 2024-11-01."
    context = [{"doc_id": f"d{k}", "text": prose.format(item)} for k, item in enumerate(items)]
    for i, item in enumerate(items[:3]):
        clock.now = NOW + 86_400 * (i == 2)
        sink.write(evaluate(trace(40 + i, query=f"Is {item} on file?", answer=f"Call {item}.",
                                  context=context)))  # fmt: skip
        sink.flush()
    sink.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert len(rows(path, "SELECT id FROM bodies")) == 3
    for item, kind in PLANTED.items():
        assert item.encode() not in raw, kind
        assert f"[REDACTED:{kind}]".encode() in raw
    for figure in (b"459 members", b"$1,038", b"15 euros since 2024-11-01"):
        assert figure in raw


def test_followups_and_sessions_are_kept_once_per_key(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sink = StoreSink(path, clock=Clock())
    sink.start()
    a, b = (
        Turn("s1", "a" * 32, 1.0, "how much?", "refusal"),
        Turn("s1", "b" * 32, 2.0, "human", "clean"),
    )
    turn = SessionTurn("b" * 32, "human", "clean", False, ("escalation",), 2.0)
    outcome = SessionOutcome("s1", "escalated", "idle", 2, 0, 1.0, "billing", "en", "a" * 32,
                             (turn,))  # fmt: skip
    for _ in range(2):
        sink.write_followup(Followup(a, b, ("escalation",)))
        sink.write_session(outcome)
        sink.flush()
    sink.close()
    assert rows(path, "SELECT trace_id, session_id FROM followups") == [("a" * 32, "s1")]
    assert rows(path, "SELECT session_id, outcome FROM sessions") == [("s1", "escalated")]


def test_retention_deletes_what_was_written_too_long_ago(tmp_path: Path) -> None:
    """By the time of writing, not the trace's: old traces replayed today are kept."""
    path, clock = tmp_path / "s.db", Clock()
    metrics = Metrics(CollectorRegistry())
    sink = StoreSink(path, max_age_seconds=3600, retention_interval_seconds=0, clock=clock,
                     metrics=metrics)  # fmt: skip
    sink.start()
    sink.write(evaluate(trace(4, timestamp="2020-01-01T00:00:00Z", route="fees")))
    sink.flush()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]
    clock.now += 1800
    sink.write(evaluate(trace(5)))
    sink.flush()
    clock.now += 2000  # the first is 3800 s old, the second 2000 s
    sink.flush()
    sink.close()
    assert rows(path, "SELECT trace_id FROM evaluations") == [(f"{5:032x}",)]
    assert rows(path, "SELECT DISTINCT trace_id FROM checks") == [(f"{5:032x}",)]
    assert rows(path, SEGMENTS) == [(f"{5:032x}", "route", "billing")]
    assert rows(path, "SELECT count(*) FROM bodies") == [(1,)]
    # the first trace's combination of segments went with it
    assert rows(path, "SELECT dimension, value FROM segment_values") == [("route", "billing")]
    assert sink.deleted["age"] == 1
    deleted = metrics.registry.get_sample_value("ragmon_store_deleted_total", {"reason": "age"})
    assert deleted == 1


def test_retention_keeps_the_store_under_its_size(tmp_path: Path) -> None:
    path, clock = tmp_path / "s.db", Clock()
    limit = 1024 * 1024
    sink = StoreSink(path, max_bytes=limit, retention_interval_seconds=0, clock=clock)
    sink.start()
    page = "Figures of the year: " + " ".join(str(n) for n in range(400))
    for i in range(600):
        clock.now += 1
        sink.write(evaluate(trace(100 + i, context=[{"doc_id": "d", "text": page}])))
        if i % 50 == 49:
            sink.flush()
    sink.close()
    with sqlite3.connect(path) as db:
        pages, free, size = (int(db.execute(f"PRAGMA {p}").fetchone()[0])
                             for p in ("page_count", "freelist_count", "page_size"))  # fmt: skip
        kept = [int(r[0], 16) for r in db.execute("SELECT trace_id FROM evaluations")]
    assert (pages - free) * size <= limit
    assert sink.deleted["size"] > 0 and kept
    assert max(kept) == 100 + 599  # the newest stay
    assert min(kept) > 100  # the oldest went


def test_a_damaged_store_is_moved_aside_and_a_new_one_started(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database" * 100)
    metrics = Metrics(CollectorRegistry())
    sink = StoreSink(path, clock=Clock(), metrics=metrics)
    sink.start()
    sink.write(evaluate(trace(6)))
    sink.close()
    assert [p.name for p in sink.moved_aside] == ["s.db.damaged-20270115T080000"]
    assert sink.moved_aside[0].read_bytes().startswith(b"this is not")
    assert metrics.registry.get_sample_value("ragmon_store_damaged_total") == 1
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]


def test_reading_a_missing_or_foreign_file_says_so_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(StoreUnreadable, match="no store at"):
        open_for_reading(tmp_path / "none.db")
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    with pytest.raises(StoreUnreadable, match="is not a store"):
        open_for_reading(tmp_path / "junk.db")
    with sqlite3.connect(tmp_path / "other.db") as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreUnreadable, match="another SQLite database"):
        open_for_reading(tmp_path / "other.db")


def test_each_worker_of_a_group_writes_its_own_store() -> None:
    """One writer a file: ``run --workers`` gives each worker its own store beside the
    configured one."""
    from monitor.commands.workers import worker_env
    from monitor.config import Settings

    settings = Settings.model_validate({"store": {"path": "data/evaluations.db"}})
    assert worker_env(settings, 1, 9000)["RAGMON_STORE__PATH"] == "data/evaluations.worker-1.db"
    assert "RAGMON_STORE__PATH" not in worker_env(Settings(), 1, 9000)


def test_a_search_counts_by_route_check_segment_and_window(tmp_path: Path) -> None:
    """What the search page shows, read back: the count, each check's flagged count among the
    matches, the newest first; and the choices of its form."""
    from monitor.golden.traces import EvaluationStore, Search

    path, clock = tmp_path / "s.db", Clock()
    clock.now = _stamp("2027-01-16T00:00:00Z")  # after the traces: their own times stand
    sink = StoreSink(path, clock=clock)
    sink.start()
    bad, good = "The refund fee is 25 euros.", "The refund fee is 15 euros [1]."
    for i, (route, hour, answer) in enumerate([("billing", 8, bad), ("billing", 9, good),
                                               ("login", 9, bad), ("login", 10, bad)]):  # fmt: skip
        t = trace(30 + i, route=route, answer=answer, timestamp=f"2027-01-15T0{hour}:00:00Z"
                  if hour < 10 else "2027-01-15T10:00:00Z")  # fmt: skip
        sink.write(evaluate(t))
    sink.close()
    store = EvaluationStore(path)
    try:
        everything = store.search(Search())
        assert everything.total == 4
        assert everything.by_check["unsupported_numbers"] == 3
        assert everything.traces[0].trace_id == f"{33:032x}"  # the newest first
        by_check = store.search(Search(check="unsupported_numbers"))  # its index alone
        assert by_check.total == 3 and by_check.by_check["unsupported_numbers"] == 3
        assert [f.trace_id for f in by_check.traces] == [f"{i:032x}" for i in (33, 32, 30)]
        flagged = store.search(Search(route="billing", check="unsupported_numbers"))
        assert (flagged.total, [f.trace_id for f in flagged.traces]) == (1, [f"{30:032x}"])
        window = store.search(Search(segment="route=login", since=_stamp("2027-01-15T08:30:00Z"),
                                     until=_stamp("2027-01-15T09:30:00Z")))  # fmt: skip
        assert window.total == 1 and window.by_check == {"citation": 1, "unsupported_numbers": 1}
        choices = store.options()
        assert choices["route"] == ["billing", "login"]
        assert choices["segment"] == ["route=billing", "route=login"]
        assert "unsupported_numbers" in choices["check"]
    finally:
        store.close()


def _stamp(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_the_pages_say_in_one_line_that_the_store_is_missing_or_damaged(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from monitor.golden.web import build_app

    missing = TestClient(build_app(tmp_path, store=tmp_path / "none.db"))
    for path in ("/search", "/session/s1", f"/trace/{'a' * 32}"):
        got = missing.get(path)
        assert got.status_code == 503 and f"no store at {tmp_path / 'none.db'}" in got.text
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    damaged = TestClient(build_app(tmp_path, store=tmp_path / "junk.db"))
    got = damaged.get("/search")
    assert got.status_code == 503 and "is not a store" in got.text
    assert TestClient(build_app(tmp_path)).get("/search").status_code == 404  # no store set


def test_the_line_is_made_once_for_the_jsonl_sink_and_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSONL sink and the store, each with its own redactor of the same detectors, make
    and redact an evaluation's line once between them and write the same line; a store whose
    redactor has other patterns (or none) makes its own."""
    from sinks.jsonl import JsonlSink

    made = 0
    to_line = Evaluation.to_line

    def counted(self: Evaluation) -> object:
        nonlocal made
        made += 1
        return to_line(self)

    monkeypatch.setattr(Evaluation, "to_line", counted)
    lines = tmp_path / "lines.jsonl"
    jsonl = JsonlSink(lines, redactor=Redactor())
    same = StoreSink(tmp_path / "same.db", redactor=Redactor(), clock=Clock())
    other = StoreSink(tmp_path / "other.db", redactor=Redactor({"ticket": r"T-\d{4}"}),
                      clock=Clock())  # fmt: skip
    plain = StoreSink(tmp_path / "plain.db", clock=Clock())
    for sink in (jsonl, same, other, plain):
        sink.start()
    t = trace(7, query="Mail jane.doe@example.com about T-1234?",
              answer="The refund fee is 25 euros, jane.doe@example.com (T-1234).")  # fmt: skip
    ev = evaluate(t)
    for sink in (jsonl, same):
        sink.write(ev)
    assert made == 1
    other.write(ev)
    plain.write(ev)
    assert made == 3
    for sink in (jsonl, same, other, plain):
        sink.close()
    written = json.loads(lines.read_text())
    stored = json.loads(str(rows(tmp_path / "same.db", "SELECT line FROM bodies")[0][0]))
    assert stored == written
    body = str(rows(tmp_path / "same.db", "SELECT line || trace FROM bodies")[0][0])
    assert "jane.doe@example.com" not in body and "T-1234" in body
    body = str(rows(tmp_path / "other.db", "SELECT line || trace FROM bodies")[0][0])
    assert "jane.doe@example.com" not in body and "T-1234" not in body
    body = str(rows(tmp_path / "plain.db", "SELECT line || trace FROM bodies")[0][0])
    assert "jane.doe@example.com" in body


def test_a_short_piece_of_evidence_is_redacted_in_every_trace(tmp_path: Path) -> None:
    """Evidence quotes short pieces that recur (their redaction is kept): an e-mail address
    quoted again by a later trace, or by a trace redacted with other patterns, is redacted
    each time."""
    first = StoreSink(tmp_path / "a.db", redactor=Redactor(), clock=Clock())
    second = StoreSink(tmp_path / "b.db", redactor=Redactor({"money": r"euros"}), clock=Clock())
    for sink in (first, second):
        sink.start()
    for i in range(3):
        t = trace(60 + i, answer="The refund fee is 25 euros [jane.doe@example.com].",
                  context=[{"doc_id": "fees", "text": "The refund fee is 15 euros."}])  # fmt: skip
        ev = evaluate(t)
        first.write(ev)
        second.write(ev)
    for sink in (first, second):
        sink.close()
    raw = "".join(str(r[0]) for r in rows(tmp_path / "a.db", "SELECT line FROM bodies"))
    assert "jane.doe@example.com" not in raw
    assert raw.count('"numbers":["25 euros"]') == 3
    raw = "".join(str(r[0]) for r in rows(tmp_path / "b.db", "SELECT line FROM bodies"))
    assert "jane.doe@example.com" not in raw
    assert raw.count('"numbers":["25 [REDACTED:MONEY]"]') == 3


# The tables of a store of version 1 (a row a segment a trace, rows keyed by the trace id's
# text), as that version made them: the file a store of version 2 is migrated from
V1_SCHEMA = """
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
PRAGMA user_version = 1;
"""


def _v1_store(path: Path) -> None:
    """A store of version 1 holding two traces (one in a session) with their segments."""
    with sqlite3.connect(path) as db:
        db.executescript(V1_SCHEMA)
        for i, route, session in ((1, "billing", "s1"), (2, "fees", None)):
            tid = f"{i:032x}"
            segments = {"route": route, "language": "en"}
            line = {"trace_id": tid, "segments": segments,
                    "checks": {"refusal": {"flagged": i == 2}}}  # fmt: skip
            record = {"trace_id": tid, "context": []}
            row = (tid, NOW - 10 * i, session, "app", route, "r1", i == 2, 0.5, NOW)
            db.execute("INSERT INTO evaluations VALUES (?,?,?,?,?,?,?,?,?)", row)
            db.execute("INSERT INTO bodies VALUES (?,?,?)",
                       (tid, json.dumps(line), json.dumps(record)))  # fmt: skip
            if i == 2:
                db.execute("INSERT INTO checks VALUES (?, 'refusal', 'flagged', ?)",
                           (tid, NOW - 20))  # fmt: skip
            db.executemany("INSERT INTO segments VALUES (?,?,?,?)",
                           [(k, v, NOW - 10 * i, tid) for k, v in segments.items()])  # fmt: skip


def test_a_store_of_version_1_is_migrated_when_the_writer_opens_it(tmp_path: Path) -> None:
    """The daemon (or replay --store) opening a store of the first version brings it to
    this one: every trace found by id, session, check and segment as before, the segment
    rows become combinations; until then a reader says in one line what to do."""
    from monitor.golden.traces import EvaluationStore, Search

    path = tmp_path / "s.db"
    _v1_store(path)
    with pytest.raises(StoreUnreadable, match=r"store of version 1, .* brings it up to date"):
        open_for_reading(path)
    sink = StoreSink(path, clock=Clock())
    sink.start()
    sink.write(evaluate(trace(3, route="login")))
    sink.close()
    assert sink.moved_aside == []
    assert rows(path, "PRAGMA user_version") == [(2,)]
    assert "segments" not in {str(r[0]) for r in rows(path, "SELECT name FROM sqlite_master")}
    assert rows(path, "SELECT trace_id FROM evaluations ORDER BY id") == [
        (f"{i:032x}",) for i in (1, 2, 3)
    ]
    store = EvaluationStore(path)
    try:
        old = store.trace(f"{2:032x}")
        assert old is not None and old.line["segments"] == {"route": "fees", "language": "en"}
        assert old.flagged == ["refusal"]
        session = store.session("s1")
        assert session is not None and [t.trace_id for t in session.turns] == [f"{1:032x}"]
        assert store.search(Search(segment="language=en")).total == 2
        fees = store.search(Search(segment="route=fees"))
        assert [f.trace_id for f in fees.traces] == [f"{2:032x}"]
        assert store.search(Search(check="refusal")).total == 1
        assert store.options()["segment"] == ["language=en", "route=billing", "route=fees",
                                              "route=login"]  # fmt: skip
    finally:
        store.close()
