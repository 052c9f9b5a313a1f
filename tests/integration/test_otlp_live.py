"""OTLP spans from Kafka while traffic is live: a member that stops and comes back (a rolling
deploy, a crash) catches up over the backlog of its downtime into traffic still being
written. Traces are written as the Collector's kafkaexporter writes them — half keyed by
trace id (``partition_traces_by_id``: sarama's hash partitioner), half unkeyed with parts of
one to four traces per message on any partition — each trace's spans in two or three parts
0.05–1.5 s apart, in any order (the root can come before the retriever). Every trace must
come out whole once, and no offset may be committed past a trace not evaluated."""

from __future__ import annotations

import heapq
import json
import random
import threading
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
from tests.integration.test_otlp_ingest import (
    built,
    encoded,
    native_lines,
    sarama_partition,
    scrape,
)

pytestmark = pytest.mark.integration

PARTITIONS = 4
COMMIT_INTERVAL = 0.5  # the test daemon's (kafka_support.Daemon)
ENV = {
    "RAGMON_SOURCE__KAFKA__FORMAT": "otlp_proto",
    "RAGMON_JUDGE__BACKEND": "none",
    # the defaults: a 2 s quiet period (longer than any gap between a trace's parts), 30 s
    # max wait
}


class LiveTraffic(threading.Thread):
    """Writes ``rate`` traces a second for ``seconds`` seconds (see the module doc)."""

    def __init__(
        self, topic: str, rate: float, seconds: float, seed: int, all_keyed: bool = False
    ) -> None:
        super().__init__(daemon=True)
        self.all_keyed = all_keyed
        self.topic = topic
        self.rng = random.Random(seed)
        self.traces = built(int(rate * seconds))
        self.rate = rate
        self.done = threading.Event()
        self.error: BaseException | None = None

    def natives(self) -> list[dict[str, Any]]:
        return [native for _, native in self.traces]

    def _parts(self, spans: list[ReadableSpan]) -> list[list[ReadableSpan]]:
        shuffled = list(spans)
        self.rng.shuffle(shuffled)  # any order: the root may come first
        n = min(len(shuffled), self.rng.choice((2, 3)))
        cuts = sorted(self.rng.sample(range(1, len(shuffled)), n - 1))
        return [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(shuffled)], strict=True)]

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # the test asserts on it
            self.error = exc
        finally:
            self.done.set()

    def _run(self) -> None:
        producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1, linger_ms=5)
        due: list[tuple[float, int, bool, bytes, list[ReadableSpan]]] = []
        t0 = time.monotonic()
        seq = 0
        for i, (spans, native) in enumerate(self.traces):
            at = t0 + i / self.rate
            keyed = self.all_keyed or i % 2 == 0
            for part in self._parts(spans):
                heapq.heappush(due, (at, seq, keyed, native["trace_id"].encode(), part))
                seq += 1
                at += self.rng.uniform(0.05, 1.5)
        while due:
            now = time.monotonic()
            ready = []
            while due and due[0][0] <= now:
                ready.append(heapq.heappop(due))
            unkeyed = [r for r in ready if not r[2]]
            for _, _, _, key, part in (r for r in ready if r[2]):
                producer.send(self.topic, value=encoded(part, "otlp_proto"), key=key,
                              partition=sarama_partition(key, PARTITIONS))  # fmt: skip
            while unkeyed:  # one to four traces' parts in one message, on any partition
                take = self.rng.randint(1, 4)
                spans = [s for r in unkeyed[:take] for s in r[4]]
                del unkeyed[:take]
                producer.send(self.topic, value=encoded(spans, "otlp_proto"),
                              partition=self.rng.randrange(PARTITIONS))  # fmt: skip
            producer.flush()
            if due:
                time.sleep(max(0.0, min(0.02, due[0][0] - time.monotonic())))
        producer.close()


def assembly_counts(metrics: str) -> dict[tuple[str, str], float]:
    """``ragmon_assembly_traces_total`` by (convention, outcome), from a /metrics text."""
    out: dict[tuple[str, str], float] = {}
    for line in metrics.splitlines():
        if line.startswith("ragmon_assembly_traces_total{"):
            labels, value = line.rsplit(" ", 1)
            conv = labels.split('convention="')[1].split('"')[0]
            outcome = labels.split('outcome="')[1].split('"')[0]
            out[(conv, outcome)] = out.get((conv, outcome), 0) + float(value)
    return out


Counts = dict[tuple[str, str], float]


def add_counts(counts: Counts, daemon: Daemon) -> None:
    """Add ``daemon``'s assembly counts (from its /metrics) to ``counts``."""
    for key, n in assembly_counts(scrape(daemon)).items():
        counts[key] = counts.get(key, 0) + n


def finish(traffic: LiveTraffic, topic: str, group: str, daemons: list[Daemon],
           counts: Counts) -> None:  # fmt: skip
    """Wait for the traffic to end and every offset to be committed, add each running
    daemon's counts, and stop them all (SIGTERM)."""
    traffic.done.wait(120)
    assert traffic.error is None, traffic.error
    try:
        wait_until(lambda: all_committed(group, topic), 120, "all offsets committed")
        time.sleep(1)
        for daemon in daemons:
            add_counts(counts, daemon)
    finally:
        for daemon in reversed(daemons):
            if daemon.alive():
                daemon.terminate()


@pytest.mark.parametrize("stop", ["sigterm", "kill9"])
def test_restarts_into_live_traffic_lose_no_trace(tmp_path: Path, stop: str) -> None:
    """Three stops while traces are written (about 28 s of traffic), each followed by 4–6 s
    of downtime, so every restart catches up over a backlog into live traffic: 0 traces lost
    or cut short, every trace's evaluation equal to its native record's; after SIGTERM not a
    single trace twice, after kill -9 the duplicates printed and bounded by what was read
    since the last commit plus what was still assembling; no replayed fragment counted as an
    instrumentation problem. Before the stream clock asked for fresh end offsets and commits
    carried replay notes, the SIGTERM run had 15 traces cut short, 2,824 duplicate lines and
    48 + 7 fragments counted unrecognised / content_missing."""
    rng = random.Random(5 if stop == "sigterm" else 6)
    topic = create_topic(PARTITIONS)
    group = f"g-otlp-live-{stop}"
    traffic = LiveTraffic(topic, rate=80, seconds=28, seed=rng.randrange(1 << 30))
    daemon = Daemon(tmp_path, topic, group, RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID="live-1",
                    **ENV)  # fmt: skip
    counts: Counts = {}
    daemon.start()
    traffic.start()
    for _ in range(3):
        time.sleep(rng.uniform(3.0, 5.0))
        wait_until(lambda: len(daemon.evaluated(daemon.runs)) > 0, 30, "the daemon evaluating")
        add_counts(counts, daemon)
        if stop == "sigterm":
            daemon.terminate()
        else:
            daemon.kill9()
        time.sleep(rng.uniform(4.0, 6.0))  # the backlog of the downtime
        daemon.start()
    finish(traffic, topic, group, [daemon], counts)
    extra = judge_outcome(tmp_path, [daemon], traffic, counts, f"{stop} x3")
    if stop == "sigterm":
        assert extra == 0
    else:  # at most what was read since the last commit, and what was still assembling
        per_stop = traffic.rate * (COMMIT_INTERVAL + 2.0 + 1.5)
        assert extra <= 3 * per_stop


_TOLD = (
    "assign",
    "revok",
    "lost",
    "rebalanc",
    "replay",
    "note",
    "stop",
    "start",
    "incomplete",
    "join",
    "commit_failed",
)


def _what_happened(tmp: Path, daemons: list[Daemon], lines: dict[str, list[dict[str, Any]]],
                   lost: list[str]) -> str:  # fmt: skip
    """What a failing run leaves to find its cause by (the test has failed now and then in
    the full suite and never alone): which run of which replica wrote each trace cut short
    or twice, and each run's log lines about partitions, replays, starts and stops, and its
    warnings."""
    out = [f"lost: {lost[:20]}"]
    for tid, ls in sorted(lines.items()):
        if len(ls) > 1 or any("incomplete" in x for x in ls):
            where = [(d.name, run) for d in daemons for run in range(1, d.runs + 1)
                     for x in _ids(d.evaluations_file(run)) if x == tid]  # fmt: skip
            out.append(f"{tid}: {len(ls)} lines, incomplete {['incomplete' in x for x in ls]}, "
                       f"written by {where}")  # fmt: skip
    for d in daemons:
        for run in range(1, d.runs + 1):
            log = tmp / f"{d.name}-stderr-{run}.log"
            told = [
                ln
                for ln in (log.read_text().splitlines() if log.exists() else [])
                if '"warning"' in ln or '"error"' in ln or any(w in ln for w in _TOLD)
            ]
            out.append(f"--- {d.name} run {run}: {len(told)} lines")
            out.extend(ln[:400] for ln in told[-150:])
    return "\n".join(out)


def _ids(path: Path) -> list[str]:
    if not path.exists():
        return []
    ids = []
    for raw in path.read_text().splitlines():
        try:
            ids.append(json.loads(raw)["trace_id"])
        except (json.JSONDecodeError, KeyError):
            continue
    return ids


def judge_outcome(tmp: Path, daemons: list[Daemon], traffic: LiveTraffic, counts: Counts,
                  what: str) -> int:  # fmt: skip
    """Assert that every trace came out whole and as its native record's evaluation, none
    cut short, nothing misread; print the figures; return the duplicate lines."""
    lines: dict[str, list[dict[str, Any]]] = {}
    torn = 0
    for daemon in daemons:
        got, t = daemon.lines()
        torn += t
        for tid, ls in got.items():
            lines.setdefault(tid, []).extend(ls)
    natives = traffic.natives()
    whole = {tid: ls for tid, ls in lines.items() if any("incomplete" not in x for x in ls)}
    lost = [n["trace_id"] for n in natives if n["trace_id"] not in whole]
    cut = sum(1 for ls in lines.values() for x in ls if "incomplete" in x)
    extra = sum(len(ls) - 1 for ls in lines.values())
    # spans after their trace was emitted by this process ("-", late) mean a trace was cut
    misread = {k: n for k, n in counts.items()
               if k[0] in ("unrecognised", "content_missing", "-")}  # fmt: skip
    replayed = sum(n for (conv, _), n in counts.items() if conv == "replay_fragment")
    print(f"\nlive ({what}): {len(natives)} traces, {len(lost)} lost, {cut} cut short, "
          f"{extra} duplicate lines, {torn} torn; {misread or 'nothing'} misread; "
          f"{replayed:g} replayed fragments dropped")  # fmt: skip
    if lost or cut or misread:
        print(_what_happened(tmp, daemons, lines, lost))
    assert (len(lost), cut) == (0, 0)
    assert misread == {}
    expected = native_lines(tmp, natives)
    first_whole = {tid: next(x for x in ls if "incomplete" not in x) for tid, ls in whole.items()}
    assert first_whole == expected
    return extra


def test_a_fresh_group_joining_live_traffic_loses_no_trace(tmp_path: Path) -> None:
    """A new group's first member starts six seconds into the traffic: it catches up over
    the topic from its start into traffic still being written."""
    topic = create_topic(PARTITIONS)
    traffic = LiveTraffic(topic, rate=80, seconds=20, seed=17)
    daemon = Daemon(tmp_path, topic, "g-otlp-live-join", **ENV)
    counts: Counts = {}
    traffic.start()
    time.sleep(6)
    daemon.start()
    finish(traffic, topic, daemon.group, [daemon], counts)
    assert judge_outcome(tmp_path, [daemon], traffic, counts, "a fresh group joins") == 0


def test_a_second_replica_joining_and_leaving_loses_no_trace(tmp_path: Path) -> None:
    """Two replicas, traces keyed by trace id (``partition_traces_by_id``, as the README
    asks for several replicas): a second member joins, leaves with SIGTERM and joins again
    while traffic is live; every rebalance moves partitions with their replay notes. Every
    trace whole, none cut short, nothing misread; not one duplicate line."""
    topic = create_topic(PARTITIONS)
    group = "g-otlp-live-rebalance"
    traffic = LiveTraffic(topic, rate=80, seconds=24, seed=23, all_keyed=True)
    one = Daemon(tmp_path, topic, group, name="one", **ENV)
    two = Daemon(tmp_path, topic, group, name="two", **ENV)
    counts: Counts = {}
    one.start()
    traffic.start()
    time.sleep(5)
    two.start()
    wait_until(two.assigned, 60, "the second replica assigned partitions")
    time.sleep(5)
    add_counts(counts, two)
    two.terminate()
    time.sleep(3)
    two.start()
    finish(traffic, topic, group, [one, two], counts)
    extra = judge_outcome(tmp_path, [one, two], traffic, counts, "a replica joins and leaves")
    assert extra == 0
