"""`ragmon run` against a real Kafka broker: at-least-once, crash safety, shutdown, outage,
scale-out. The broker is started by `make test` (deploy/run-tests.sh)."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from kafka import KafkaConsumer

from monitor.ingest.native import DEAD_LETTER_REASONS
from tests.integration.conftest import free_port, ragmon
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    bootstrap,
    broker_down,
    broker_up,
    committed_offsets,
    create_topic,
    produce,
    wait_until,
)

pytestmark = pytest.mark.integration


def test_every_valid_trace_is_evaluated_and_every_invalid_one_dead_lettered(tmp_path: Path) -> None:
    """A clean run over a 4-partition topic: each valid trace evaluated once, each invalid
    record a dead letter (file and Kafka topic) with its reason, and offsets committed."""
    topic = create_topic(4)
    dlq = create_topic(1)
    produced = produce(topic, 2000, bad_every=50)
    daemon = Daemon(tmp_path, topic, "g-e2e", RAGMON_OUTPUT__DEAD_LETTERS_TOPIC=dlq).start()
    try:
        wait_until(lambda: all_committed("g-e2e", topic), 90, "all offsets committed")
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/metrics").read().decode()
        assert urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/readyz").status == 200
    finally:
        daemon.terminate()
    evaluated = daemon.evaluated()
    assert Counter(evaluated) == Counter(list(produced.valid))  # all, and each exactly once
    letters = daemon.dead_letters()
    assert {(d["partition"], d["offset"]) for d in letters} == set(produced.invalid)
    assert all(d["reason"] in DEAD_LETTER_REASONS and d["source"] == topic for d in letters)
    assert 'ragmon_dead_letters_total{reason="invalid_json"}' in metrics
    assert (
        "ragmon_kafka_committed_offset{" in metrics
        and 'ragmon_commits_total{outcome="ok"}' in metrics
    )

    consumer = KafkaConsumer(dlq, bootstrap_servers=bootstrap(), auto_offset_reset="earliest",
                             consumer_timeout_ms=5000)  # fmt: skip
    in_topic = list(consumer)
    consumer.close()
    assert {r.value for r in in_topic} == set(produced.invalid.values())
    headers = dict(in_topic[0].headers)
    assert headers["ragmon.dlq.reason"].decode() in DEAD_LETTER_REASONS
    assert headers["ragmon.source.topic"].decode() == topic


def test_kill_minus_nine_loses_nothing(tmp_path: Path) -> None:
    """kill -9 at random points, restart, repeat: no valid trace is missing, and every
    trace evaluated twice lies in the window that was not committed when the process died."""
    rng = random.Random(5)
    topic = create_topic(4)
    produced = produce(topic, 40_000, bad_every=97)
    total = len(produced.valid) + len(produced.invalid)
    # Static membership: the restarted process takes its partitions back at once instead of
    # waiting for the killed member's session to expire.
    daemon = Daemon(tmp_path, topic, "g-crash", RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID="crash-1")
    committed_at_kill: list[dict[int, int]] = []
    for _ in range(4):
        daemon.start()
        run = daemon.runs
        # kill at a random moment once this run is evaluating (startup time varies with load)
        wait_until(lambda: len(daemon.evaluated(run)) > 0, 60, "the restarted daemon evaluating")  # noqa: B023
        time.sleep(rng.uniform(0.5, 1.5))
        daemon.kill9()
        committed_at_kill.append(committed_offsets("g-crash", topic))
    # The kills must have hit a stream in progress, or this test proves nothing.
    progress = [sum(c.values()) for c in committed_at_kill]
    assert progress[-1] < total and len(set(progress)) > 1, progress
    daemon.start()
    try:
        wait_until(lambda: all_committed("g-crash", topic), 120, "all offsets committed")
    finally:
        daemon.terminate()

    assert set(produced.valid) <= set(daemon.evaluated()), "a valid trace was lost"
    seen_in: dict[str, list[int]] = {}
    for run in range(1, daemon.runs + 1):
        for trace_id in set(daemon.evaluated(run)):
            seen_in.setdefault(trace_id, []).append(run)
    duplicates = 0
    for trace_id, runs in seen_in.items():
        partition, offset = produced.valid[trace_id]
        for earlier in runs[:-1]:
            # evaluated in `earlier`, which was killed: only legal if not yet committed then
            assert offset >= committed_at_kill[earlier - 1].get(partition, 0), trace_id
            duplicates += 1
    print(f"\ncrash test: {len(produced.valid)} traces, {daemon.runs - 1} kills at committed "
          f"offsets {progress}, {duplicates} re-evaluated from uncommitted windows")  # fmt: skip


def test_sigterm_commits_and_restart_repeats_nothing(tmp_path: Path) -> None:
    """SIGTERM exits within the budget after a final commit; a restart evaluates only what
    was produced after the stop."""
    topic = create_topic(2)
    produce(topic, 1500)
    daemon = Daemon(tmp_path, topic, "g-term", RAGMON_SHUTDOWN_TIMEOUT_SECONDS="10").start()
    wait_until(lambda: len(daemon.evaluated(1)) == 1500, 90, "first batch evaluated")
    elapsed = daemon.terminate()
    assert elapsed < 10
    assert daemon.proc is not None and daemon.proc.returncode == 0
    assert all_committed("g-term", topic)

    later = produce(topic, 100, start=5000)
    daemon.start()
    try:
        wait_until(lambda: len(daemon.evaluated(2)) >= 100, 60, "new traces evaluated")
        time.sleep(2)  # anything replayed would show up by now
    finally:
        daemon.terminate()
    assert Counter(daemon.evaluated(2)) == Counter(list(later.valid))


@pytest.mark.exclusive  # stops the broker every other test uses
def test_broker_outage_recovers_without_restart(tmp_path: Path) -> None:
    """The broker goes away for ~15 s mid-stream and comes back: the same daemon process
    resumes and every trace, before and after the outage, is evaluated. 15 s (besides the
    broker's own stop and start) outlast the daemon's request timeout (5 s) and its commit
    and session timeouts (10 s): the group's coordinator is marked dead and looked for again,
    with a growing backoff, until the broker is back."""
    topic = create_topic(2)
    first = produce(topic, 1000)
    daemon = Daemon(tmp_path, topic, "g-outage").start()
    try:
        wait_until(lambda: len(daemon.evaluated()) >= 1000, 60, "first half evaluated")
        pid = daemon.proc.pid if daemon.proc else None
        broker_down()
        time.sleep(15)
        assert daemon.alive(), "the daemon died while the broker was down"
        broker_up()
        second = produce(topic, 1000, start=1000)
        wait_until(lambda: all_committed("g-outage", topic), 180, "all committed after outage")
        assert daemon.alive() and daemon.proc is not None and daemon.proc.pid == pid
    finally:
        if daemon.alive():
            daemon.terminate()
    assert set(first.valid) | set(second.valid) <= set(daemon.evaluated())


def test_two_replicas_split_the_partitions(tmp_path: Path) -> None:
    """Two daemons in one group share a 4-partition topic and together evaluate every
    trace; duplicates can only come from the rebalance when the second one joins."""
    topic = create_topic(4)
    a = Daemon(tmp_path, topic, "g-scale", name="a").start()
    b = Daemon(tmp_path, topic, "g-scale", name="b").start()
    wait_until(lambda: a.assigned() and b.assigned(), 60, "both replicas assigned")
    produced = produce(topic, 4000)
    try:
        wait_until(lambda: all_committed("g-scale", topic), 120, "all offsets committed")
    finally:
        a.terminate()
        b.terminate()
    ids_a, ids_b = a.evaluated(), b.evaluated()
    assert ids_a and ids_b, "one replica got no partition"
    assert set(ids_a) | set(ids_b) == set(produced.valid)
    both = Counter(ids_a) + Counter(ids_b)
    duplicates = sum(n - 1 for n in both.values())
    print(f"\nscale-out: a={len(ids_a)} b={len(ids_b)} duplicates={duplicates}")
    assert duplicates == 0  # both joined before any record was produced


def test_unreachable_broker_fails_fast(tmp_path: Path) -> None:
    """Nothing listening at the bootstrap address: exit 2 with a message after the bounded
    wait, no traceback."""
    port = free_port()
    daemon = Daemon(tmp_path, "rag_traces", "g-none",
                    RAGMON_KAFKA__BOOTSTRAP_SERVERS=f'["127.0.0.1:{port}"]',
                    RAGMON_KAFKA__BOOTSTRAP_TIMEOUT_SECONDS="3").start()  # fmt: skip
    t0 = time.monotonic()
    assert daemon.proc is not None
    daemon.proc.wait(timeout=60)
    daemon._reap(5)
    assert daemon.proc.returncode == 2
    assert time.monotonic() - t0 < 30
    assert f"cannot reach Kafka at 127.0.0.1:{port}" in daemon.stderr[-1]
    assert "Traceback" not in daemon.stderr[-1]
    # the reason alone: kafka-python's retries (17+ lines before) are held back meanwhile
    assert '"logger": "kafka' not in daemon.stderr[-1], daemon.stderr[-1]
    said = ragmon("rescore", "--since", "-1h", "--dry-run",
                  RAGMON_KAFKA__BOOTSTRAP_SERVERS=f"127.0.0.1:{port}",
                  RAGMON_KAFKA__BOOTSTRAP_TIMEOUT_SECONDS="2")  # fmt: skip
    assert said.returncode == 2 and said.stderr.count("\n") == 1, said.stderr


def test_missing_topic_fails_fast(tmp_path: Path) -> None:
    """A topic that does not exist is named at startup (ragmon never creates topics)."""
    daemon = Daemon(tmp_path, "no-such-topic", "g-missing").start()
    assert daemon.proc is not None
    daemon.proc.wait(timeout=60)
    daemon._reap(5)
    assert daemon.proc.returncode == 2
    assert "no-such-topic do not exist" in daemon.stderr[-1]


def test_sink_that_cannot_persist_stops_the_daemon_uncommitted(tmp_path: Path) -> None:
    """Evaluations go to /dev/full: every flush fails, the daemon exits 1 after its retries
    and commits nothing, so a healthy restart would process every record."""
    topic = create_topic(1)
    produce(topic, 200)
    daemon = Daemon(tmp_path, topic, "g-full", RAGMON_OUTPUT__EVALUATIONS_JSONL="/dev/full").start()
    assert daemon.proc is not None
    daemon.proc.wait(timeout=60)
    daemon._reap(5)
    assert daemon.proc.returncode == 1
    assert "pipeline_failed" in daemon.stderr[-1]
    assert committed_offsets("g-full", topic) == {}


def test_golden_rows_reach_the_topic_keyed_by_row_and_writer(tmp_path: Path) -> None:
    """With golden.topic set, every candidate row is on the topic under its row id and the
    process's writer identity, in the same final state as in the segment files."""
    topic = create_topic(2)
    rows_topic = create_topic(1)
    produce(topic, 600)
    golden_dir = tmp_path / "golden"
    daemon = Daemon(tmp_path, topic, "g-golden", RAGMON_GOLDEN__DIR=str(golden_dir),
                    RAGMON_GOLDEN__TOPIC=rows_topic).start()  # fmt: skip
    try:
        wait_until(lambda: all_committed("g-golden", topic), 90, "all offsets committed")
    finally:
        daemon.terminate()
    from monitor.golden.stored import load_rows, topic_rows

    on_disk = load_rows(golden_dir)
    assert on_disk
    consumer = KafkaConsumer(rows_topic, bootstrap_servers=bootstrap(),
                             auto_offset_reset="earliest", consumer_timeout_ms=5000)  # fmt: skip
    values, writers = [], set()
    for record in consumer:
        row = json.loads(record.value)
        assert record.key.decode() == f"{row['id']}/{row['ragmon']['writer']}"
        writers.add(row["ragmon"]["writer"])
        values.append(row)
    consumer.close()
    assert len(writers) == 1  # one process
    assert topic_rows(values) == on_disk
