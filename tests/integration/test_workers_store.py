"""``ragmon run --workers 2`` with ``store.path`` against the real broker (issue 76): each
worker writes its own store beside the configured path, and ``ragmon inspect --store`` given
that path finds the traces of both; the stores read as one hold every trace once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from monitor.commands.workers import worker_path
from monitor.golden.stores import EvaluationStores
from monitor.golden.traces import Search
from tests.integration.conftest import ragmon
from tests.integration.kafka_support import Daemon, all_committed, create_topic, produce, wait_until
from tests.integration.test_workers import NO_SESSIONS, _get

pytestmark = pytest.mark.integration


def test_inspect_finds_the_traces_of_both_workers_stores(tmp_path: Path) -> None:
    topic, group = create_topic(4), "g-workers-store"
    base = tmp_path / "store.db"
    daemon = Daemon(tmp_path, topic, group, name="ws", args=("--workers", "2"),
                    RAGMON_STORE__PATH=str(base), **NO_SESSIONS).start()  # fmt: skip
    try:
        wait_until(lambda: _get(daemon.port, "/readyz")[0] == 200, 90, "every worker ready")
        sent = produce(topic, 300, seed=13)
        wait_until(lambda: all_committed(group, topic), 120, "the traces committed")
    finally:
        daemon.terminate(timeout=60)
    assert daemon.proc is not None and daemon.proc.returncode == 0, daemon.stderr[-1][-3000:]
    assert not base.exists()  # only the workers' files
    held = []
    for i in (0, 1):
        with sqlite3.connect(worker_path(base, i)) as db:
            held.append([str(t) for (t,) in db.execute("SELECT trace_id FROM evaluations")])
    assert all(held), f"a worker stored no trace: {[len(h) for h in held]}"
    print(f"\nstored: {len(held[0])} + {len(held[1])} by worker, {len(sent.valid)} sent")
    assert sorted(held[0] + held[1]) == sorted(sent.valid)  # every trace once
    for ids in held:
        said = ragmon("inspect", "--store", str(base), ids[0])
        assert said.returncode == 0, said.stderr
        assert said.stdout.startswith(f"trace {ids[0]}") and said.stderr == ""
    stores = EvaluationStores([base])
    try:
        assert stores.search(Search()).total == len(sent.valid)
    finally:
        stores.close()
