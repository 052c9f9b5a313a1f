"""``ragmon run --workers 2`` against the real broker: two consumer processes of one group
under one parent, one /metrics, a worker killed with SIGKILL mid-stream and restarted,
nothing lost, nothing counted twice, SIGTERM drains both."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from monitor.commands.workers import worker_path
from tests.integration.conftest import free_port, ragmon
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    bootstrap,
    create_topic,
    produce,
    wait_until,
)

pytestmark = pytest.mark.integration

# no conversations in these traces; paired in memory they would be refused (test below)
NO_SESSIONS = {"RAGMON_SESSIONS__ENABLED": "false"}
TRACE_ID = re.compile(rb'"trace_id": ?"([0-9a-f]{32})"')


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


def _traces_by_worker(port: int) -> dict[str, float]:
    """``ragmon_traces_total`` of the parent's one scrape, summed per worker label."""
    status, text = _get(port, "/metrics")
    assert status == 200
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "ragmon_traces_total":
                out[s.labels["worker"]] = out.get(s.labels["worker"], 0) + s.value
    return out


def _restarts(port: int) -> dict[str, float]:
    _, text = _get(port, "/metrics")
    return {s.labels["worker"]: s.value
            for f in text_string_to_metric_families(text) for s in f.samples
            if s.name == "ragmon_worker_restarts_total"}  # fmt: skip


def _ids(path: Path) -> list[bytes]:
    """Trace ids written, read by pattern: a line torn by SIGKILL and the next run's first
    line glued to it still count once each."""
    return TRACE_ID.findall(path.read_bytes()) if path.exists() else []


def _started(daemon: Daemon) -> list[dict[str, object]]:
    log = daemon.tmp / f"{daemon.name}-stderr-{daemon.runs}.log"
    return [json.loads(x) for x in log.read_text().splitlines()
            if '"worker_started"' in x]  # fmt: skip


def test_two_workers_share_the_group_survive_a_kill_and_drain_on_sigterm(tmp_path: Path) -> None:
    topic, group = create_topic(4), "g-workers"
    daemon = Daemon(tmp_path, topic, group, name="w", args=("--workers", "2"),
                    RAGMON_SOURCE__KAFKA__SESSION_TIMEOUT_MS="6000",
                    **NO_SESSIONS).start()  # fmt: skip
    files = [worker_path(daemon.evaluations_file(1), i) for i in (0, 1)]
    try:
        wait_until(lambda: _get(daemon.port, "/readyz")[0] == 200, 90, "every worker ready")
        assert _get(daemon.port, "/healthz")[0] == 200
        first = produce(topic, 1000)
        wait_until(lambda: all_committed(group, topic), 120, "the first batch committed")
        by_worker = _traces_by_worker(daemon.port)
        written = [len(_ids(f)) for f in files]
        print(f"\nworkers: scraped {by_worker}, lines {written}")
        assert all(written), "a worker got no partition"
        # each worker's series once, from the process that wrote those lines
        assert by_worker == {"0": written[0], "1": written[1]}
        # and the one exposition is what Prometheus reads: promtool parses it (exit 1 and
        # "parsing error" on a second HELP or TYPE of a family) and its naming lint says
        # nothing (exit 3 and a line a name: the document-age histogram was in days)
        promtool = shutil.which("promtool")
        assert promtool, "promtool: make test installs it"
        checked = subprocess.run([promtool, "check", "metrics"], capture_output=True,
                                 input=_get(daemon.port, "/metrics")[1].encode())  # fmt: skip
        said = (checked.stdout + checked.stderr).decode()
        assert (checked.returncode, said) == (0, ""), said

        victim = next(s for s in _started(daemon) if s["worker"] == 0)
        os.kill(int(victim["pid"]), signal.SIGKILL)  # type: ignore[call-overload]
        before_kill = len(_ids(files[0]))
        second = produce(topic, 1000, start=1000)
        wait_until(lambda: len(_started(daemon)) == 3, 60, "worker 0 started again")
        wait_until(lambda: all_committed(group, topic), 180, "the second batch committed")
        assert _restarts(daemon.port) == {"0": 1.0}

        wait_until(lambda: _get(daemon.port, "/readyz")[0] == 200, 90, "ready again")
        third = produce(topic, 1000, start=2000)
        wait_until(lambda: all_committed(group, topic), 120, "the third batch committed")

        # at least once: every trace of every batch has a line
        seen = {i.decode() for f in files for i in _ids(f)}
        assert set(first.valid) | set(second.valid) | set(third.valid) <= seen
        # the scrape counts the worker running now, and it only: worker 0's new process
        # from the lines it wrote (none yet: no series), worker 1 from all of its lines
        by_worker = _traces_by_worker(daemon.port)
        now = [len(_ids(f)) for f in files]
        print(f"after the kill: scraped {by_worker}, lines {now}, worker 0 before {before_kill}")
        assert by_worker.get("0", 0) == now[0] - before_kill
        assert by_worker["1"] == now[1]
    finally:
        took = daemon.terminate(timeout=60)
    assert daemon.proc is not None and daemon.proc.returncode == 0, daemon.stderr[-1][-3000:]
    print(f"SIGTERM: both workers drained in {took:.1f} s")
    assert '"workers_stopped"' in daemon.stderr[-1]
    # three processes logged to one stderr, at once at each start and stop: whole lines
    for line in daemon.stderr[-1].splitlines():
        json.loads(line)
    assert all_committed(group, topic)


def test_a_source_a_group_cannot_share_is_refused_in_one_line(tmp_path: Path) -> None:
    said = ragmon("run", "--workers", "2", RAGMON_SOURCE__TYPE="demo", **NO_SESSIONS)
    assert said.returncode == 2
    assert said.stderr.strip() == ("ragmon run: --workers 2 needs source.type kafka (it is "
                                   "demo): only a consumer group shares its input among "
                                   "processes")  # fmt: skip
    # every problem in the one line, not one a run
    said = ragmon("run", "--workers", "2", RAGMON_SOURCE__TYPE="demo")
    assert said.returncode == 2 and len(said.stderr.splitlines()) == 1
    assert "needs source.type kafka" in said.stderr and "sessions in memory" in said.stderr
    said = ragmon("run", "--workers", "2", RAGMON_SOURCE__TYPE="kafka")
    assert said.returncode == 2
    assert said.stderr.startswith("ragmon run: --workers 2 with sessions in memory: ")
    piped = ragmon("run", "--workers", "2", "-c", "/dev/stdin", stdin=b"{}",
                   RAGMON_SOURCE__TYPE="kafka", RAGMON_SESSIONS__ENABLED="false")  # fmt: skip
    assert piped.returncode == 2
    assert "each worker reads the file again; name a regular file" in piped.stderr
    said = ragmon("run", "--workers", "0")
    assert said.returncode == 2 and "a count of at least 1, or auto" in said.stderr


def test_no_worker_outlives_a_parent_killed_with_sigkill(tmp_path: Path) -> None:
    """The parent killed with SIGKILL: each worker gets SIGTERM from the kernel (parent-death
    signal) and drains, so none goes on consuming beside a parent started again."""
    topic, group = create_topic(2), "g-workers-orphan"
    daemon = Daemon(tmp_path, topic, group, name="o", args=("--workers", "2"),
                    **NO_SESSIONS).start()  # fmt: skip
    wait_until(lambda: _get(daemon.port, "/readyz")[0] == 200, 90, "every worker ready")
    produce(topic, 200)
    wait_until(lambda: all_committed(group, topic), 120, "the traces committed")
    pids = [int(s["pid"]) for s in _started(daemon)]  # type: ignore[call-overload]
    daemon.kill9()
    wait_until(lambda: not any(_alive(p) for p in pids), 30, "the workers stopped")
    assert '"stopped"' in (tmp_path / "o-stderr-1.log").read_text()  # drained, not killed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


def _ended(daemon: Daemon, within: float) -> tuple[int, list[str], float]:
    """The parent's exit status, its stderr's lines and the seconds it took."""
    assert daemon.proc is not None
    t0 = time.monotonic()
    daemon._reap(within)
    return daemon.proc.returncode, daemon.stderr[-1].splitlines(), time.monotonic() - t0


def _said(lines: list[str]) -> list[str]:
    """The lines that are not log lines (JSON objects): what the command says."""
    return [x for x in lines if not x.startswith("{")]


def test_a_missing_topic_ends_the_parent_at_once_in_one_line(tmp_path: Path) -> None:
    """Checked before any worker starts, as one process checks it: one line, exit 2, no
    worker started (the parent used to start them and restart them for ~40 s, exit 1)."""
    daemon = Daemon(tmp_path, "no-such-topic-w", "g-workers-fail", name="f",
                    args=("--workers", "2"), **NO_SESSIONS).start()  # fmt: skip
    code, lines, took = _ended(daemon, 30)
    print(f"\nmissing topic: exit {code} in {took:.1f} s")
    assert (code, _said(lines)) == (2, [
        f"ragmon run: topic(s) no-such-topic-w do not exist on {bootstrap()} "
        "(ragmon does not create topics)"])  # fmt: skip
    assert not any('"worker_started"' in x for x in lines)
    assert took < 10


def test_an_unreachable_broker_ends_the_parent_within_its_timeout(tmp_path: Path) -> None:
    """Nothing listens on the port: the bootstrap timeout (2 s here), one line, exit 2."""
    where = f"127.0.0.1:{free_port()}"
    daemon = Daemon(tmp_path, "t", "g-workers-away", name="u", args=("--workers", "2"),
                    RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([where]),
                    RAGMON_KAFKA__BOOTSTRAP_TIMEOUT_SECONDS="2", **NO_SESSIONS).start()  # fmt: skip
    code, lines, took = _ended(daemon, 30)
    print(f"\nunreachable: exit {code} in {took:.1f} s")
    said = _said(lines)
    assert code == 2 and len(said) == 1, lines
    assert said[0].startswith(f"ragmon run: cannot reach Kafka at {where} within 2s: ")
    assert took < 10


def test_a_worker_that_cannot_start_ends_the_parent_with_its_one_line(tmp_path: Path) -> None:
    """What only a worker meets at its start (here its own evaluations file, under a path
    that is a file): the parent stops the others and exits 2 with that worker's line, once,
    at the first failure (it used to restart them five times and exit 1)."""
    topic = create_topic(2)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    daemon = Daemon(tmp_path, topic, "g-workers-refused", name="r", args=("--workers", "2"),
                    RAGMON_OUTPUT__EVALUATIONS_JSONL=str(blocked / "evals.jsonl"),
                    **NO_SESSIONS).start()  # fmt: skip
    code, lines, took = _ended(daemon, 60)
    print(f"\na worker refused: exit {code} in {took:.1f} s")
    said = _said(lines)
    assert code == 2 and len(said) == 1, lines
    assert said[0].startswith("ragmon run: ") and "a-file" in said[0], said
    assert not any('"worker_ended"' in x or '"worker_keeps_failing"' in x for x in lines)
    assert sum('"worker_started"' in x for x in lines) == 2  # never started again
    # a worker's start (imports, models) is seconds on a quiet machine: 3 s measured, 11-22
    # with a load of 15 on two cores; the restarts took 40 s and more
    assert took < 60
