"""``ragmon run --workers 2`` with ``golden.dir`` against the real broker (issue 71): both
workers write candidate rows, each into its own directory of the golden dir, and the golden
dir read back holds the rows one process writes for the same traces — nothing lost, nothing
doubled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kafka import KafkaConsumer

from monitor.golden.stored import load_rows, own_rows, topic_rows, worker_dir
from monitor.sources import demo
from tests.integration.conftest import ragmon
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    bootstrap,
    create_topic,
    produce,
    wait_until,
)
from tests.integration.test_workers import NO_SESSIONS, _get

pytestmark = pytest.mark.integration


def test_two_workers_write_golden_rows_nothing_lost_or_doubled(tmp_path: Path) -> None:
    """The golden dir and golden.topic both: the topic's records summed per row (each
    worker on keys of its own) hold the counts of one process too."""
    topic, group, rows_topic = create_topic(4), "g-workers-golden", create_topic(1)
    golden = tmp_path / "golden"
    daemon = Daemon(tmp_path, topic, group, name="wg", args=("--workers", "2"),
                    RAGMON_GOLDEN__DIR=str(golden), RAGMON_GOLDEN__TOPIC=rows_topic,
                    **NO_SESSIONS).start()  # fmt: skip
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
    consumer = KafkaConsumer(rows_topic, bootstrap_servers=bootstrap(),
                             auto_offset_reset="earliest", consumer_timeout_ms=5000)  # fmt: skip
    values = [json.loads(record.value) for record in consumer]
    consumer.close()
    writers = {v["ragmon"]["writer"] for v in values}
    on_topic = topic_rows(values)
    print(f"topic: {len(values)} records, {len(writers)} writers, {len(on_topic)} rows")
    assert len(writers) == 2
    assert {k: r["ragmon"]["count"] for k, r in on_topic.items()} == {
        k: r["ragmon"]["count"] for k, r in one.items()
    }
