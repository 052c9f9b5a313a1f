"""The evaluation store under a daemon reading a real Kafka broker: killed with SIGKILL at
random points and restarted, it holds every trace whose offset was committed at each kill
(the offsets commit after the store's commit), and at the end every valid trace exactly
once, whole."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    committed_offsets,
    create_topic,
    produce,
    wait_until,
)

pytestmark = pytest.mark.integration


def _stored(path: Path) -> list[str]:
    """The trace ids of the store's rows that have their body, as another process reads
    them (what was committed)."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        return [str(r[0]) for r in db.execute("SELECT trace_id FROM evaluations JOIN bodies "
                                              "USING (id)")]  # fmt: skip


def test_a_killed_daemon_loses_no_committed_trace_and_stores_each_once(tmp_path: Path) -> None:
    rng = random.Random(8)
    topic = create_topic(4)
    produced = produce(topic, 20_000, bad_every=101)  # three kills mid-stream on a fast machine
    store = tmp_path / "store.db"
    daemon = Daemon(tmp_path, topic, "g-store", RAGMON_STORE__PATH=str(store),
                    RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID="store-1")  # fmt: skip
    checked = []
    for _ in range(3):
        daemon.start()
        run = daemon.runs
        wait_until(lambda: len(daemon.evaluated(run)) > 0, 60, "the daemon evaluating")  # noqa: B023
        time.sleep(rng.uniform(0.3, 1.2))
        daemon.kill9()
        committed = committed_offsets("g-store", topic)
        stored = set(_stored(store))
        due = {t for t, (p, offset) in produced.valid.items() if offset < committed.get(p, 0)}
        assert due <= stored, f"{len(due - stored)} committed traces are not in the store"
        checked.append(len(due))
    assert len(set(checked)) > 1 and checked[-1] < len(produced.valid), checked  # mid-stream
    daemon.start()
    try:
        wait_until(lambda: all_committed("g-store", topic), 120, "all offsets committed")
    finally:
        daemon.terminate()
    ids = _stored(store)
    assert len(ids) == len(set(ids)) == len(produced.valid)  # each once, a replay replaced
    assert set(ids) == set(produced.valid)
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM bodies").fetchone()[0] == len(ids)
        orphans = db.execute("SELECT count(*) FROM checks WHERE trace_id NOT IN "
                             "(SELECT trace_id FROM evaluations)").fetchone()[0]  # fmt: skip
        assert orphans == 0
