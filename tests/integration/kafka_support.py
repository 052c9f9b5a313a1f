"""A real broker for integration tests: topics, producing, reading group offsets, daemons."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

from monitor.sources import demo
from tests.integration.conftest import RAGMON, clean_env, free_port

ROOT = Path(__file__).resolve().parents[2]


def bootstrap() -> str:
    server = os.environ.get("TEST_KAFKA_BOOTSTRAP")
    if not server:
        pytest.fail(
            "TEST_KAFKA_BOOTSTRAP is not set: run the suite with `make test`, which starts a "
            "real Kafka broker (deploy/kafka/kafka-up.sh) and exports it"
        )
    return server


def create_topic(partitions: int) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap())
    admin.create_topics([NewTopic(name, partitions, 1)])
    admin.close()
    return name


@dataclass
class Produced:
    """What was produced: trace id → (partition, offset), and the invalid records."""

    valid: dict[str, tuple[int, int]] = field(default_factory=dict)
    invalid: dict[tuple[int, int], bytes] = field(default_factory=dict)


BAD_RECORDS = [
    b"{not json",
    b'{"trace_id": 7}',
    b"[1, 2, 3]",
    b"\xff\xfe\xfd",
    b'{"schema": "x/v9"}',
]


def produce(topic: str, count: int, start: int = 0, bad_every: int = 0, seed: int = 11) -> Produced:
    """``count`` demo traces (every ``bad_every``-th record invalid), keyed by trace id."""
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all", linger_ms=5)
    pending: list[tuple[str | None, bytes, Any]] = []
    for i in range(start, start + count):
        if bad_every and i % bad_every == bad_every - 1:
            raw = BAD_RECORDS[(i // bad_every) % len(BAD_RECORDS)]
            pending.append((None, raw, producer.send(topic, raw, key=f"bad-{i}".encode())))
            continue
        record = demo.generate(i, seed)
        raw = json.dumps(record).encode()
        pending.append(
            (record["trace_id"], raw, producer.send(topic, raw, key=record["trace_id"].encode()))
        )
    producer.flush()
    out = Produced()
    for trace_id, raw, fut in pending:
        meta = fut.get(timeout=30)
        if trace_id is None:
            out.invalid[(meta.partition, meta.offset)] = raw
        else:
            out.valid[trace_id] = (meta.partition, meta.offset)
    producer.close()
    return out


def end_offsets(topic: str) -> dict[int, int]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap())
    parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic)]
    ends = {tp.partition: off for tp, off in consumer.end_offsets(parts).items()}
    consumer.close()
    return ends


def committed_offsets(group: str, topic: str) -> dict[int, int]:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap())
    try:
        offsets = admin.list_group_offsets(group).get(group, {})
    finally:
        admin.close()
    return {tp.partition: om.offset for tp, om in offsets.items() if tp.topic == topic}


def wait_until(
    predicate: Callable[[], bool], timeout: float, what: str, step: float = 0.25
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except Exception:  # a broker restarting, a file being written: try again
            pass
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def all_committed(group: str, topic: str) -> bool:
    ends = end_offsets(topic)
    done = committed_offsets(group, topic)
    return all(done.get(p, -1) >= end for p, end in ends.items() if end > 0)


class Daemon:
    """`ragmon run` against the test broker, as a separate process."""

    def __init__(
        self, tmp: Path, topic: str, group: str, name: str = "d",
        args: tuple[str, ...] = (), **env: str,
    ) -> None:  # fmt: skip
        self.tmp = tmp
        self.args = args  # of `ragmon run`
        self.topic = topic
        self.group = group
        self.name = name
        self.port = free_port()
        self.runs = 0
        self.proc: subprocess.Popen[str] | None = None
        self.extra_env = env
        self.stderr: list[str] = []

    def evaluations_file(self, run: int) -> Path:
        return self.tmp / f"{self.name}-evals-{run}.jsonl"

    def dead_letters_file(self, run: int) -> Path:
        return self.tmp / f"{self.name}-dead-{run}.jsonl"

    def start(self) -> Daemon:
        self.runs += 1
        settings = dict(
            RAGMON_SOURCE__TYPE="kafka",
            RAGMON_SOURCE__KAFKA__TOPICS=json.dumps([self.topic]),
            RAGMON_SOURCE__KAFKA__GROUP_ID=self.group,
            RAGMON_SOURCE__KAFKA__COMMIT_INTERVAL_SECONDS="0.5",
            RAGMON_SOURCE__KAFKA__SESSION_TIMEOUT_MS="10000",
            RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([bootstrap()]),
            RAGMON_KAFKA__BOOTSTRAP_TIMEOUT_SECONDS="10",
            RAGMON_KAFKA__REQUEST_TIMEOUT_MS="5000",
            RAGMON_OUTPUT__EVALUATIONS_JSONL=str(self.evaluations_file(self.runs)),
            RAGMON_OUTPUT__DEAD_LETTERS_JSONL=str(self.dead_letters_file(self.runs)),
            RAGMON_METRICS__HOST="127.0.0.1",
            RAGMON_METRICS__PORT=str(self.port),
            RAGMON_LOG__FORMAT="json",
        )
        env = clean_env(**{**settings, **self.extra_env})  # a test's own settings win
        # stderr to a file: a pipe nobody reads fills up and blocks the daemon.
        self._log = (self.tmp / f"{self.name}-stderr-{self.runs}.log").open("w")
        self.proc = subprocess.Popen(
            [*RAGMON, "run", *self.args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            text=True,
        )
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self._reap(10)

    def terminate(self, timeout: float = 30) -> float:
        """SIGTERM; returns the seconds until exit."""
        assert self.proc is not None
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        self._reap(timeout)
        return time.monotonic() - t0

    def _reap(self, timeout: float) -> None:
        assert self.proc is not None
        self.proc.wait(timeout=timeout)
        self._log.close()
        self.stderr.append(Path(self._log.name).read_text())

    def assigned(self) -> bool:
        """The current run holds at least one partition now: its last assignment gave it
        some, and no revocation or loss came after it (kafka-python's eager rebalance logs
        the revocation first: the assignment before it is no longer held)."""
        log = self.tmp / f"{self.name}-stderr-{self.runs}.log"
        last: list[Any] = []
        for line in log.read_text().splitlines() if log.exists() else ():
            if '"partitions_assigned"' in line:
                last = json.loads(line)["partitions"]
            elif '"partitions_revoked"' in line or '"partitions_lost"' in line:
                last = []
        return bool(last)

    def lines(self) -> tuple[dict[str, list[dict[str, Any]]], int]:
        """Every evaluation line of every run, per trace id, and how many lines were torn
        (cut by kill -9 after the last flush: their offsets were never committed)."""
        by_trace: dict[str, list[dict[str, Any]]] = {}
        torn = 0
        for run in range(1, self.runs + 1):
            path = self.evaluations_file(run)
            for raw in path.read_text().splitlines() if path.exists() else ():
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    torn += 1
                    continue
                if "trace_id" in line:  # not a closed session's outcome line
                    by_trace.setdefault(line["trace_id"], []).append(line)
        return by_trace, torn

    def evaluated(self, run: int | None = None) -> list[str]:
        """Trace ids in the evaluation files (all runs, or one). A line torn by kill -9 is
        skipped: it was written after the last flush, so its offset was never committed."""
        runs = [run] if run is not None else range(1, self.runs + 1)
        ids = []
        for r in runs:
            path = self.evaluations_file(r)
            if path.exists():
                ids.extend(_trace_ids(path))
        return ids

    def dead_letters(self) -> list[dict[str, Any]]:
        out = []
        for r in range(1, self.runs + 1):
            path = self.dead_letters_file(r)
            if path.exists():
                out.extend(json.loads(x) for x in path.read_text().splitlines() if x.endswith("}"))
        return out


def _trace_ids(path: Path) -> Iterator[str]:
    for line in path.read_text().splitlines():
        try:
            yield json.loads(line)["trace_id"]
        except (json.JSONDecodeError, KeyError):
            continue


def broker_down() -> None:
    subprocess.run(["bash", str(ROOT / "deploy/kafka/kafka-down.sh")], check=True, timeout=90)


def broker_up() -> None:
    subprocess.run(["bash", str(ROOT / "deploy/kafka/kafka-up.sh")], check=True, timeout=180)
