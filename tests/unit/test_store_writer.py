"""The evaluation store written by a writer process: the same rows as inline (redacted in
the writer), flush returns after the writer's commit, a damaged file moved aside with its
metric and log line, the writer's death a SinkError at the next flush (never a hang), and a
daemon killed with kill -9 leaves no writer holding the file."""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import structlog.testing
from prometheus_client import CollectorRegistry

from monitor.checks.evidence import RefusalEvidence
from monitor.core.errors import SinkError
from monitor.core.model import (
    CheckResult,
    Evaluation,
    Followup,
    RagTrace,
    SessionOutcome,
    SessionTurn,
    Turn,
)
from monitor.core.pii import Redactor
from monitor.core.verdict import Claim, Verdict
from monitor.sources import demo
from monitor.telemetry import Metrics
from sinks.jsonl import JsonlSink
from sinks.store import StoreSink
from sinks.store_record import Captured, capture, decode_hook, encode_hook, line_of
from tests.unit.test_store import SEGMENTS, evaluate, rows, trace


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_the_writer_stores_what_the_inline_sink_stores(tmp_path: Path) -> None:
    """The same evaluations, follow-up and session outcome, written inline and by the
    writer process, make the same rows (text redacted by the writer); each flush is a commit
    a reader sees at once."""
    turn = SessionTurn("b" * 32, "human", "clean", False, ("escalation",), 2.0)
    outcome = SessionOutcome("s1", "escalated", "idle", 2, 0, 1.0, "billing", "en", "a" * 32,
                             (turn,))  # fmt: skip
    follow = Followup(Turn("s1", "a" * 32, 1.0, "q", "refusal"),
                      Turn("s1", "b" * 32, 2.0, "human", "clean"), ("escalation",))  # fmt: skip
    planted = trace(2, query="Refund for jane.doe@example.com please")
    found = {}
    for name in ("inline", "process"):
        path = tmp_path / f"{name}.db"
        sink = StoreSink(path, Redactor(), writer=name)
        sink.start()
        for i in (1, 2, 3):
            sink.write(evaluate(trace(i) if i != 2 else planted))
        sink.write(evaluate(trace(1)))  # a replay in the same batch: one row
        sink.write_followup(follow)
        sink.write_session(outcome)
        sink.flush()
        assert rows(path, "SELECT count(*) FROM evaluations") == [(3,)]  # committed: flushed
        sink.close()
        found[name] = [
            rows(path, "SELECT trace_id, route, flagged FROM evaluations ORDER BY id"),
            rows(path, "SELECT line, trace FROM bodies ORDER BY id"),
            rows(path, SEGMENTS),
            rows(path, "SELECT trace_id, name, outcome FROM checks ORDER BY 1, 2"),
            rows(path, "SELECT hash, text FROM passages"),
            rows(path, "SELECT trace_id, session_id, line FROM followups"),
            rows(path, "SELECT session_id, outcome, line FROM sessions"),
        ]
    assert found["process"] == found["inline"]
    raw = str(found["process"][1])
    assert "jane.doe@example.com" not in raw and "[REDACTED:EMAIL]" in raw


def test_the_writer_takes_the_line_the_jsonl_sink_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside a JSONL sink that writes first (as the daemon orders them), the store takes the
    line it made (redacted) instead of making the evaluation's line again, and stores what
    the inline sink stores."""
    made = []
    to_line = Evaluation.to_line

    def counted(self: Evaluation) -> object:
        made.append(self.trace_id)
        return to_line(self)

    found = {}
    for name in ("inline", "process"):
        # anew for each store: an evaluation carries the line made of it
        evaluations = [evaluate(trace(i, query="Refund for jane.doe@example.com")) for i in (1, 2)]
        lines = JsonlSink(tmp_path / f"{name}.jsonl", redactor=Redactor())
        sink = StoreSink(tmp_path / f"{name}.db", Redactor(), writer=name)
        lines.start()
        sink.start()
        monkeypatch.setattr(Evaluation, "to_line", counted)
        for ev in evaluations:
            lines.write(ev)
            sink.write(ev)
        monkeypatch.undo()
        sink.close()
        lines.close()
        assert made == [f"{1:032x}", f"{2:032x}"], name  # once each, by the JSONL sink
        made.clear()
        found[name] = rows(tmp_path / f"{name}.db", "SELECT line, trace FROM bodies ORDER BY id")
    assert found["process"] == found["inline"]
    assert "jane.doe@example.com" not in str(found["process"])


def test_the_writer_makes_the_line_the_evaluation_makes() -> None:
    """What the writer makes of an evaluation as the daemon encoded it (the trace, the check
    results' fields, the other members) is its line: on every trace of the checks' labelled
    sets (each check's evidence flagged and passed, conflicts nested), the demo's (sessions,
    agents' tools, times), a score, an error, a verdict skipped, a risk, segments."""
    texts = [json.dumps(demo.generate(i, 7)) for i in range(600)]  # the demo's traffic
    for path in sorted((Path(__file__).resolve().parents[1] / "checks").glob("*.jsonl")):
        texts.extend(path.read_text().splitlines())
    evaluations = [evaluate(RagTrace.from_json(text)) for text in texts]
    results = {
        "scored": CheckResult("scored", False, score=0.25),
        "failed": CheckResult.failed("failed", ValueError("x")),
        "refusal": CheckResult("refusal", True, evidence=RefusalEvidence("no", None)),
    }
    evaluations.append(Evaluation(trace(1), results, None, "sampled", False, {"route": "b"},
                                  {"answer_chars": 3.0}, {"refusal": "2"}, None, 0.5))  # fmt: skip
    flagged = set()
    for ev in evaluations:
        sent = msgspec.msgpack.encode(capture(ev, 0.0), enc_hook=encode_hook)
        c = msgspec.msgpack.decode(sent, type=Captured, dec_hook=decode_hook)
        assert c.trace == ev.trace
        assert c.line is None and c.checks is not None  # made by the writer
        assert line_of(c) == ev.to_line()
        flagged.update(ev.flagged)
    assert len(flagged) >= 5, flagged  # each check that flags on them, its evidence


def test_what_the_pipeline_keeps_until_a_send_is_bytes(tmp_path: Path) -> None:
    """The evaluations taken between two sends are kept encoded: nothing of them (the line's
    dicts) for the daemon's garbage collector to trace, promote and collect again."""
    sink = StoreSink(tmp_path / "s.db", writer="process")
    sink.start()
    evaluations = [evaluate(trace(i)) for i in range(1, 41)]
    gc.collect()
    before = len(gc.get_objects())
    for ev in evaluations:  # fewer than a message's batch: all kept
        sink.write(ev)
    kept = len(gc.get_objects()) - before
    sink.close()
    assert kept < 10, f"{kept} objects the garbage collector traces kept for 40 evaluations"
    assert rows(tmp_path / "s.db", "SELECT count(*) FROM evaluations") == [(40,)]


def test_a_damaged_file_is_moved_aside_by_the_writer_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database" * 100)
    metrics = Metrics(CollectorRegistry())
    sink = StoreSink(path, metrics=metrics, writer="process")
    sink.start()
    sink.write(evaluate(trace(6)))
    sink.close()
    assert next(p.name for p in sink.moved_aside).startswith("s.db.damaged-")
    assert metrics.registry.get_sample_value("ragmon_store_damaged_total") == 1
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]


def test_the_writers_death_is_a_sink_error_at_the_next_flush(tmp_path: Path) -> None:
    """Killed between flushes: the next flush (and every one after) raises at once with one
    line naming the writer, never waits; what was committed before stays."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, writer="process", writer_timeout_seconds=30)
    sink.start()
    sink.write(evaluate(trace(1)))
    sink.flush()
    pid = sink.writer_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    sink.write(evaluate(trace(2)))
    began = time.monotonic()
    with structlog.testing.capture_logs() as logged:
        for _ in range(2):
            # gone before the flush's send (a broken pipe) or after it (its exit seen)
            with pytest.raises(SinkError, match=r"writer process (exited|is gone)"):
                sink.flush()
        sink.write(evaluate(trace(3)))  # taken and dropped: the flush says it
        sink.close()
    assert time.monotonic() - began < 10
    assert [e["event"] for e in logged] == ["store_writer_failed"]  # one line
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]


@pytest.fixture
def stopped(tmp_path: Path) -> Iterator[StoreSink]:
    """A store sink whose writer process is stopped (SIGSTOP), with a timeout of 1 s; after
    the test the writer is let go on and the sink closed, and the writer must be gone (the
    sink killed it, or it exited)."""
    sink = StoreSink(tmp_path / "s.db", writer="process", writer_timeout_seconds=1)
    sink.start()
    pid = sink.writer_pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        yield sink
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGCONT)
    sink.close()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_a_stuck_writer_fails_the_flush_after_the_timeout(stopped: StoreSink) -> None:
    began = time.monotonic()
    with pytest.raises(SinkError, match="did not answer its flush within 1 s"):
        stopped.flush()
    assert time.monotonic() - began < 10


def test_a_writer_that_stops_reading_does_not_hang_the_writes(stopped: StoreSink) -> None:
    """A stopped writer (SIGSTOP) with megabytes sent to it: the sends give up after the
    timeout, the writes return, and the flush raises; the writer is killed."""
    began = time.monotonic()
    ev = evaluate(trace(7, context=[{"doc_id": "d", "text": "fee 15 euros. " * 2000}]))
    for _ in range(300):  # ~9 MB, far more than the socket holds
        stopped.write(ev)
    with pytest.raises(SinkError, match="writer process"):
        stopped.flush()
    assert time.monotonic() - began < 15


def test_sigterm_leaves_the_writer_to_finish_what_it_was_sent(tmp_path: Path) -> None:
    """The writer ignores SIGTERM (a service manager sends it to every process of the
    daemon): the daemon's close still has it commit what was taken."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, writer="process")
    sink.start()
    pid = sink.writer_pid
    assert pid is not None
    for i in range(1, 6):
        sink.write(evaluate(trace(i)))
    os.kill(pid, signal.SIGTERM)
    sink.close()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(5,)]


def test_a_daemon_killed_with_kill_9_leaves_no_writer(tmp_path: Path) -> None:
    """A process holding a writer sink is killed with SIGKILL: its writer sees the pipe's
    end and exits, the file closed; what was flushed is in it."""
    path = tmp_path / "s.db"
    script = textwrap.dedent(f"""
        import sys, time
        from sinks.store import StoreSink
        from tests.unit.test_store import evaluate, trace
        from pathlib import Path
        sink = StoreSink(Path({str(path)!r}), writer="process")
        sink.start()
        sink.write(evaluate(trace(1)))
        sink.flush()
        sink.write(evaluate(trace(2)))
        print(sink.writer_pid, flush=True)
        time.sleep(60)
    """)
    root = Path(__file__).resolve().parents[2]
    daemon = subprocess.Popen([sys.executable, "-c", script], cwd=root, stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    assert daemon.stdout is not None
    pid = int(daemon.stdout.readline())
    assert _alive(pid)
    daemon.kill()
    daemon.wait()
    daemon.stdout.close()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the writer outlived the daemon"
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]


def test_a_script_without_a_main_guard_that_exits_without_close(tmp_path: Path) -> None:
    """The writer is a new interpreter running its own module: a daemon's main script is not
    imported again in it (multiprocessing's spawn would), and an exit without close ends it
    (its pipe's end); what was flushed is in the file."""
    path = tmp_path / "s.db"
    script = tmp_path / "daemon.py"
    script.write_text(
        "from pathlib import Path\n"
        "from sinks.store import StoreSink\n"
        "from tests.unit.test_store import evaluate, trace\n"
        f"sink = StoreSink(Path({str(path)!r}), writer='process')\n"
        "sink.start()\n"
        "sink.write(evaluate(trace(1)))\n"
        "sink.flush()\n"
        "print(sink.writer_pid, flush=True)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True,
                          text=True, timeout=60, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert rows(path, "SELECT count(*) FROM evaluations") == [(1,)]


def test_staged_rows_wait_in_the_open_transaction_for_the_flush(tmp_path: Path) -> None:
    """What the writer process stages as evaluations arrive (``stage``) is written into the
    store's open transaction: its own connection reads it, no reader does until the flush
    commits it (flush is delivered, never before); a trace staged, then evaluated again, is
    one row with its last results, and a later verdict joins its row, as in one batch."""
    path = tmp_path / "s.db"
    sink = StoreSink(path, Redactor())
    sink.start()
    first = evaluate(trace(1))
    assert first.flagged
    sink.write(first)
    sink.write(evaluate(trace(2)))
    sink.stage()
    own = sink._connection()
    assert own.in_transaction
    assert own.execute("SELECT count(*) FROM evaluations").fetchone() == (2,)
    assert rows(path, "SELECT count(*) FROM evaluations") == [(0,)]  # not committed
    sink.write(Evaluation(trace=first.trace, checks={}, segments={"route": "other"}))
    claim = Claim(text="The refund fee is 25 euros.", label="CONTRADICTED", passage=1)
    verdict = Verdict(judge="heuristic", model="h", rubric_version="1", verdict="hard_fail",
                      score=0.0, weight=1.0, claims=[claim])  # fmt: skip
    sink.write(Evaluation(trace=trace(2), checks={}, judge=verdict, judge_only=True))
    sink.stage()
    sink.write(evaluate(trace(3)))
    assert rows(path, "SELECT count(*) FROM evaluations") == [(0,)]
    sink.flush()
    assert not own.in_transaction
    assert rows(path, "SELECT trace_id FROM evaluations ORDER BY 1") == [
        (f"{i:032x}",) for i in (1, 2, 3)
    ]
    assert rows(path, SEGMENTS)[0] == (f"{1:032x}", "route", "other")
    assert rows(path, f"SELECT count(*) FROM checks WHERE trace_id = '{1:032x}'") == [(0,)]
    line = json.loads(str(rows(path, f"SELECT line FROM bodies JOIN evaluations USING (id) "
                                     f"WHERE trace_id = '{2:032x}'")[0][0]))  # fmt: skip
    assert line["judge"]["verdict"] == "hard_fail" and line["checks"]
    sink.close()


def test_a_stage_that_fails_leaves_the_whole_batch_to_the_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stage that fails (a full disk, a lock) is rolled back and staging stops until the
    next commit: the flush writes the whole batch, what was staged before the failure too."""
    path = tmp_path / "s.db"
    sink = StoreSink(path)
    sink.start()
    sink.write(evaluate(trace(1)))
    sink.stage()
    sink.write(evaluate(trace(2)))
    real = StoreSink._insert
    failed: list[object] = []

    def once(self: StoreSink, b: object) -> None:
        if not failed:
            failed.append(b)
            raise sqlite3.OperationalError("database or disk is full")
        real(self, b)  # type: ignore[arg-type]

    monkeypatch.setattr(StoreSink, "_insert", once)
    sink.stage()
    assert failed and not sink._connection().in_transaction  # rolled back
    sink.write(evaluate(trace(3)))
    sink.stage()  # not staged: the flush writes the batch whole
    assert not sink._connection().in_transaction
    sink.flush()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(3,)]
    sink.write(evaluate(trace(4)))
    sink.stage()  # staging again after the commit
    assert sink._connection().in_transaction
    sink.close()
    assert rows(path, "SELECT count(*) FROM evaluations") == [(4,)]


LINES = "SELECT e.trace_id, b.line FROM bodies b JOIN evaluations e USING (id) ORDER BY 1"


def test_the_writer_stages_messages_and_stores_what_inline_stores(tmp_path: Path) -> None:
    """Evaluations over several of the writer's messages (each staged as it arrives), traces
    evaluated again across messages and flushes: the rows are those the inline sink writes,
    and no reader sees a row before its flush."""
    order = [*range(1, 151), *range(40, 90), *range(140, 200)]
    found = {}
    for name in ("inline", "process"):
        path = tmp_path / f"{name}.db"
        sink = StoreSink(path, Redactor(), writer=name)
        sink.start()
        for n, i in enumerate(order, 1):
            sink.write(evaluate(trace(i, route=f"r{n % 3}")))
            if n == 150:
                time.sleep(0.2)  # the writer has staged its messages
                assert rows(path, "SELECT count(*) FROM evaluations") == [(0,)]
                sink.flush()
        sink.flush()
        sink.close()
        found[name] = [
            rows(path, "SELECT trace_id, route, flagged FROM evaluations ORDER BY trace_id"),
            rows(path, LINES),
            rows(path, "SELECT trace_id, name, outcome FROM checks ORDER BY 1, 2"),
        ]
    assert len(found["process"][0]) == 199
    assert found["process"] == found["inline"]


def test_the_writer_runs_retention_after_its_answer_and_counts_it_in_the_next(
    tmp_path: Path,
) -> None:
    """Retention (and the WAL's checkpoint) run in the writer after it has answered a
    flush, not while the pipeline waits for the answer: what it deleted is counted at the
    next answer (the metric, ``deleted``), and the rows are gone."""
    path = tmp_path / "s.db"
    old = StoreSink(path, clock=lambda: time.time() - 10 * 86_400)  # written ten days ago
    old.start()
    for i in range(1, 4):
        old.write(evaluate(trace(i)))
    old.close()
    metrics = Metrics(CollectorRegistry())
    sink = StoreSink(path, max_age_seconds=86_400, metrics=metrics, writer="process")
    sink.start()
    sink.write(evaluate(trace(9)))
    sink.flush()  # answered after the commit; retention after the answer
    sink.flush()  # its answer says what retention deleted
    sink.close()
    assert sink.deleted["age"] == 3
    deleted = metrics.registry.get_sample_value("ragmon_store_deleted_total", {"reason": "age"})
    assert deleted == 3
    assert rows(path, "SELECT trace_id FROM evaluations") == [(f"{9:032x}",)]
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
