"""Kill -9 while the store is written: what a flush committed is there, whole, after the
kill, and the store opens and takes writes again (a real child process)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from monitor.checks import CheckSuite
    from monitor.core.model import Evaluation, RagTrace
    from sinks.store import StoreSink

    sink = StoreSink(Path(sys.argv[1]), writer=sys.argv[3])
    sink.start()
    print(sink.writer_pid or 0, flush=True)
    suite = CheckSuite()
    page = "The refund fee is 15 euros. " * 40
    i = int(sys.argv[2])
    while True:  # batches, each flushed, then said; killed somewhere in between
        for _ in range(int(sys.argv[4])):
            t = RagTrace.from_data({"trace_id": f"{i + 1:032x}", "query": "fee?",
                                    "context": [{"text": page}], "answer": "It is 25 euros."})
            sink.write(Evaluation(trace=t, checks=suite(t)))
            i += 1
        sink.flush()
        print(i, flush=True)
    """
)


def _count(path: Path) -> tuple[int, int, int, str]:
    with sqlite3.connect(path) as db:
        evaluations = int(db.execute("SELECT count(*) FROM evaluations").fetchone()[0])
        bodies = int(db.execute("SELECT count(*) FROM bodies JOIN evaluations USING (id)")
                     .fetchone()[0])  # fmt: skip
        checks = int(db.execute("SELECT count(DISTINCT trace_id) FROM checks").fetchone()[0])
        integrity = str(db.execute("PRAGMA integrity_check").fetchone()[0])
    return evaluations, bodies, checks, integrity


def _gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return True
        time.sleep(0.05)
    return False


# inline: batches of 25; a writer process: batches of 150, so that the writer has staged
# messages of 64 in its open transaction when the daemon (or the writer) is killed
@pytest.mark.parametrize(("writer", "batch", "victim"), [("inline", 25, "daemon"),
                         ("process", 150, "daemon"), ("process", 150, "writer")])  # fmt: skip
def test_a_kill_during_writes_loses_nothing_committed(
    tmp_path: Path, writer: str, batch: int, victim: str
) -> None:
    path = tmp_path / "store.db"
    start = 0
    for delay in (0.05, 0.13, 0.31):  # three kills, at different points of the writing
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(start), writer,
                                  str(batch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)  # fmt: skip
        assert child.stdout is not None
        pid = int(child.stdout.readline())  # the writer's (0: inline)
        said = [int(child.stdout.readline())]  # it is writing
        time.sleep(delay)
        if victim == "writer":
            os.kill(pid, signal.SIGKILL)  # the daemon's next flush fails: it ends
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        said += [int(x) for x in out.split()]
        committed = said[-1]  # the last flush it returned from
        assert pid == 0 or _gone(pid), "the writer outlived the daemon"
        evaluations, bodies, checks, integrity = _count(path)
        why = f"said {said}, stored {evaluations}; the daemon's stderr: {err[-2000:]}"
        assert integrity == "ok", why
        assert evaluations >= committed, why  # nothing committed is lost
        assert evaluations % batch == 0, why  # and no batch is there in part
        assert checks == evaluations == bodies  # a trace's rows all or none
        start = evaluations  # the next run goes on from there
