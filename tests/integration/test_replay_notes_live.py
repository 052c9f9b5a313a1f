"""Replay notes on the real broker (issue 69.1-69.3): what a commit tells the next reader of
a partition about the records past its committed offset. A backlog of OpenInference and GenAI
traces written as the Collector's kafkaexporter writes them without
``partition_traces_by_id`` (parts of one to four traces a message, on any of four
partitions), some of them never getting a root span (sampled away upstream). Every trace must
be evaluated, none twice, and none from part of its spans."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from opentelemetry.sdk.trace import ReadableSpan

from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    bootstrap,
    create_topic,
    wait_until,
)
from tests.integration.test_otlp_ingest import built, encoded
from tests.integration.test_otlp_live import Counts, add_counts

pytestmark = pytest.mark.integration

PARTITIONS = 4
ENV = {"RAGMON_SOURCE__KAFKA__FORMAT": "otlp_proto", "RAGMON_JUDGE__BACKEND": "none"}
# a commit after (almost) every fetch, and fetches of 64 KiB a partition: a reader commits
# many times before it has re-read a backlog
SLOW_READ = {
    "RAGMON_SOURCE__ASSEMBLY__MAX_WAIT_SECONDS": "25",
    "RAGMON_SOURCE__KAFKA__COMMIT_INTERVAL_SECONDS": "0.05",
    "RAGMON_SOURCE__KAFKA__MAX_PARTITION_FETCH_BYTES": "65536",
}


class Backlog:
    """``n`` traces written at once; the first ``rootless_first`` and every
    ``rootless_every``-th after them never get their root span."""

    def __init__(self, topic: str, n: int, seed: int, rootless_first: int = 0,
                 rootless_every: int = 0) -> None:  # fmt: skip
        rng = random.Random(seed)
        self.traces = built(n)
        self.rootless: set[str] = set()
        parts: list[list[ReadableSpan]] = []
        for i, (spans, native) in enumerate(self.traces):
            if i < rootless_first or (rootless_every and i % rootless_every == 0):
                self.rootless.add(native["trace_id"])
                spans = [s for s in spans if s.parent is not None]
            shuffled = list(spans)
            rng.shuffle(shuffled)
            cut = rng.randrange(1, len(shuffled)) if len(shuffled) > 1 else 1
            parts += [p for p in (shuffled[:cut], shuffled[cut:]) if p]
        messages = []  # encoded first: the records are written within a second or two
        while parts:
            take = rng.randint(1, 4)  # parts of the next traces in one message
            spans = [s for part in parts[:take] for s in part]
            del parts[:take]
            messages.append((encoded(spans, "otlp_proto"), rng.randrange(PARTITIONS)))
        producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1, linger_ms=5)
        for value, partition in messages:
            producer.send(topic, value=value, partition=partition)
        producer.flush()
        producer.close()

    def ids(self) -> set[str]:
        return {native["trace_id"] for _, native in self.traces}


def outcome(backlog: Backlog, daemons: list[Daemon], what: str,
            counts: Counts | None = None) -> tuple[int, int, int, int]:  # fmt: skip
    """Lost traces, duplicate lines, lines of a trace with a root cut short, and traces
    counted ``unrecognised`` or ``content_missing`` (all clean traffic: fragments of a trace
    re-read in part) by ``counts`` (printed)."""
    lines: dict[str, list[dict[str, Any]]] = {}
    for daemon in daemons:
        got, _ = daemon.lines()
        for tid, ls in got.items():
            lines.setdefault(tid, []).extend(ls)
    ids = backlog.ids()
    lost = sorted(ids - set(lines))
    extra = sum(len(ls) - 1 for ls in lines.values())
    cut = sum(1 for tid, ls in lines.items() if tid not in backlog.rootless
              for x in ls if "incomplete" in x)  # fmt: skip
    rootless_lost = len(backlog.rootless - set(lines))
    misread = {k: n for k, n in (counts or {}).items()
               if k[0] in ("unrecognised", "content_missing")}  # fmt: skip
    print(f"\nreplay notes ({what}): {len(ids)} traces ({len(backlog.rootless)} without a root), "
          f"{len(lost)} lost ({rootless_lost} of them without a root), {extra} duplicate lines, "
          f"{cut} lines of a trace with a root cut short, "
          f"{misread or 'nothing'} misread")  # fmt: skip
    return len(lost), extra, cut, int(sum(misread.values()))


def test_kill_minus_nine_over_a_backlog_past_a_notes_key_list_loses_no_rootless_trace(
    tmp_path: Path,
) -> None:
    """Issue 69.1. 4,000 traces wait in the topic, one in 40 without a root. The daemon reads
    them all and holds every one (a quiet period of 20 s), committing notes that must name
    ~1,000 unfinished traces a partition — past the ~740 a list of keys could name, when the
    next reader dropped every trace without a root below the note's end — and is killed
    (kill -9) before any is evaluated. The restarted daemon evaluates every trace: 0 lost."""
    topic = create_topic(PARTITIONS)
    backlog = Backlog(topic, 4_000, seed=41, rootless_every=40)
    env = {**ENV, "RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS": "20",
           "RAGMON_SOURCE__ASSEMBLY__MAX_WAIT_SECONDS": "30"}  # fmt: skip
    daemon = Daemon(tmp_path, topic, "g-notes-kill9", **env)
    daemon.start()
    wait_until(lambda: all_committed(daemon.group, topic) or _noted(daemon, topic), 60,
               "a commit with a note")  # fmt: skip
    time.sleep(2)  # more commits, every record read
    assert daemon.evaluated() == []  # nothing quiet yet: every trace unfinished
    daemon.kill9()
    daemon.start()
    try:
        wait_until(lambda: all_committed(daemon.group, topic), 120, "all offsets committed")
        time.sleep(1)
    finally:
        daemon.terminate()
    lost, extra, cut, _ = outcome(backlog, [daemon], "kill -9 over a 4,000-trace backlog")
    assert (lost, extra, cut) == (0, 0, 0)


def _noted(daemon: Daemon, topic: str) -> bool:
    """The group has committed every partition of ``topic`` with a note."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap(), group_id=daemon.group,
                             enable_auto_commit=False)  # fmt: skip
    try:
        got = [consumer.committed(TopicPartition(topic, p), metadata=True)
               for p in range(PARTITIONS)]  # fmt: skip
    finally:
        consumer.close(autocommit=False)
    return all(g is not None and str(g.metadata).startswith("ragmon/") for g in got)


def first_life(tmp_path: Path, topic: str, backlog: Backlog, env: dict[str, str],
               counts: Counts) -> Daemon:  # fmt: skip
    """The first daemon evaluates every trace that has a root and stops (SIGTERM) while the
    traces without one (written first: the commit waits behind them) are still waiting."""
    one = Daemon(tmp_path, topic, "g-notes", name="one", **env)
    one.start()
    want = len(backlog.traces) - len(backlog.rootless)
    wait_until(lambda: len(one.evaluated()) >= want, 90, "every trace with a root evaluated")
    time.sleep(1)  # a commit after the last
    add_counts(counts, one)
    one.terminate()
    return one


def test_a_restart_that_commits_before_passing_the_old_notes_end_repeats_nothing(
    tmp_path: Path,
) -> None:
    """Issue 69.2. After the first life, the second daemon re-reads every record from the
    offsets of the traces without a root; it commits (every 0.5 s) long before it has read
    past the note's end. Records below that end stay a replay after its first commit: no
    trace evaluated twice, none from part of its spans."""
    topic = create_topic(PARTITIONS)
    backlog = Backlog(topic, 3_000, seed=43, rootless_first=8)
    env = {**ENV, **SLOW_READ}
    counts: Counts = {}
    one = first_life(tmp_path, topic, backlog, env, counts)
    two = Daemon(tmp_path, topic, "g-notes", name="two", **env)
    two.start()
    try:
        wait_until(lambda: all_committed(two.group, topic), 120, "all offsets committed")
        time.sleep(1)
        add_counts(counts, two)
    finally:
        two.terminate()
    got = outcome(backlog, [one, two], "a restart commits below the old note's end", counts)
    assert got == (0, 0, 0, 0)


def test_a_replica_revoked_right_after_joining_keeps_the_old_notes_traces(
    tmp_path: Path,
) -> None:
    """Issue 69.3. After the first life, the second daemon is revoked as soon as it holds
    its partitions (a third joins the group), long before it has re-read up to the old
    note's end: the notes it commits carry the old note's rest forward, so the third and
    the second, re-reading, evaluate nothing twice and nothing from part of its spans."""
    topic = create_topic(PARTITIONS)
    backlog = Backlog(topic, 3_000, seed=47, rootless_first=8)
    env = {**ENV, **SLOW_READ}
    counts: Counts = {}
    one = first_life(tmp_path, topic, backlog, env, counts)
    two = Daemon(tmp_path, topic, "g-notes", name="two", **env)
    three = Daemon(tmp_path, topic, "g-notes", name="three", **env)
    two.start()
    wait_until(two.assigned, 60, "the second daemon assigned")
    three.start()
    try:
        wait_until(three.assigned, 60, "the third daemon assigned")
        wait_until(lambda: all_committed(two.group, topic), 120, "all offsets committed")
        time.sleep(1)
        add_counts(counts, two)
        add_counts(counts, three)
    finally:
        three.terminate()
        two.terminate()
    got = outcome(backlog, [one, two, three], "a replica revoked right after joining", counts)
    assert got == (0, 0, 0, 0)
