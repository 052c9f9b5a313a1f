"""``ragmon run --workers 2`` with ``golden.dir`` against the real broker (issue 71): both
workers write candidate rows, each into its own directory of the golden dir, and the golden
dir read back holds the rows one process writes for the same traces — nothing lost, nothing
doubled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.golden.stored import load_rows, own_rows, worker_dir
from monitor.sources import demo
from tests.integration.conftest import ragmon
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    create_topic,
    produce,
    wait_until,
)
from tests.integration.test_workers import NO_SESSIONS, _get

pytestmark = pytest.mark.integration


def test_two_workers_write_golden_rows_nothing_lost_or_doubled(tmp_path: Path) -> None:
    topic, group = create_topic(4), "g-workers-golden"
    golden = tmp_path / "golden"
    daemon = Daemon(tmp_path, topic, group, name="wg", args=("--workers", "2"),
                    RAGMON_GOLDEN__DIR=str(golden), **NO_SESSIONS).start()  # fmt: skip
    try:
        wait_until(lambda: _get(daemon.port, "/readyz")[0] == 200, 90, "every worker ready")
        sent = produce(topic, 600, seed=11)
        wait_until(lambda: all_committed(group, topic), 120, "the traces committed")
    finally:
        daemon.terminate(timeout=60)
    assert daemon.proc is not None and daemon.proc.returncode == 0, daemon.stderr[-1][-3000:]
    held = [own_rows(worker_dir(golden, i)) for i in (0, 1)]
    assert all(held), "a worker wrote no row"
    # the same traces replayed by one process: the rows and counts the golden dir must hold
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(demo.generate(i, 11)) + "\n" for i in range(600)))
    alone = tmp_path / "alone"
    replayed = ragmon("replay", str(traces), "--golden-dir", str(alone), "--judge", "none",
                      "--progress", "never", RAGMON_SESSIONS__ENABLED="false")  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
    assert len(sent.valid) == 600
    one, both = load_rows(alone), load_rows(golden)
    print(
        f"\nrows: {len(both)} ({len(held[0])} + {len(held[1])} by worker), one process {len(one)}"
    )
    assert set(both) == set(one)
    assert {k: r["ragmon"]["count"] for k, r in both.items()} == {
        k: r["ragmon"]["count"] for k, r in one.items()
    }
