"""Conversations across replicas, on the real broker: turns of one session written unkeyed
over four partitions (as a producer keying by anything but the session does, and as the
Collector's kafkaexporter does), out of order within seconds, read by two replicas of one
group. Each turn goes through the repartition topic keyed by session (``sessions.topic``),
so each session has one owner: every consecutive pair must get exactly one follow-up line
(SIGTERM), or at least one (kill -9: duplicates printed), and no line for a pair that is not
consecutive or not of one session."""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer

from tests.integration.kafka_support import Daemon, bootstrap, create_topic, wait_until

pytestmark = pytest.mark.integration

PARTITIONS = 4
CONVERSATIONS = 2000
LATENESS = "15"  # above the test daemons' 10 s session timeout (the config refuses less)
# With a replica killed, a turn of its partitions reaches the turns topic only once the group
# has noticed (the 10 s session timeout) and a replica has caught up on what piled up; its
# neighbours arrived up to 4 s before it (the traffic's jitter). Lateness must cover all of
# it (docs, "When a pair is final"): 11 s lost 379 turns as `late` here, 15 s lost some on a
# slower machine, 25 s leaves ~10 s for the catch-up.
KILL9_LATENESS = "25"
QUERIES = ["How much is the Pro plan?", "how much is the pro plan??", "let me talk to a person",
           "thanks!", "that's wrong", "Does it include SSO?", "What is the refund?"]  # fmt: skip


def conversations(seed: int) -> dict[str, list[dict[str, Any]]]:
    """Session id -> its turns as native records, in time order (2-5 turns, a minute apart)."""
    rng = random.Random(seed)
    base = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    out = {}
    for c in range(CONVERSATIONS):
        sid = f"sess-{seed}-{c}"
        turns = []
        for i in range(rng.randint(2, 5)):
            at = base + c * 7 + 60 * i
            turns.append({
                "trace_id": f"{seed:04x}{c:012x}{i:016x}",
                "session_id": sid,
                "timestamp": datetime.fromtimestamp(at, UTC).isoformat(),
                "query": rng.choice(QUERIES),
                "context": [{"doc_id": "plans", "text": "The Pro plan costs $20 a month."}],
                "answer": "The Pro plan costs $20 a month.",
            })  # fmt: skip
        out[sid] = turns
    return out


class Traffic(threading.Thread):
    """Every turn produced unkeyed over ``seconds``, each at its conversation's start plus a
    jitter of up to 2 s either way: a session's turns arrive out of order."""

    def __init__(self, topic: str, convs: dict[str, list[dict[str, Any]]], seconds: float,
                 seed: int) -> None:  # fmt: skip
        super().__init__(daemon=True)
        rng = random.Random(seed)
        self.topic = topic
        self.schedule = sorted(
            (max(0.0, start + rng.uniform(-2, 2)), json.dumps(turn).encode())
            for start, turns in ((rng.uniform(0, seconds), t) for t in convs.values())
            for turn in turns
        )
        self.done = threading.Event()

    def run(self) -> None:
        producer = KafkaProducer(bootstrap_servers=bootstrap(), linger_ms=5)
        t0 = time.monotonic()
        for at, value in self.schedule:
            wait = at - (time.monotonic() - t0)
            if wait > 0:
                time.sleep(wait)
            producer.send(self.topic, value=value)  # no key: any partition
        producer.flush()
        producer.close()
        self.done.set()


def expected_pairs(convs: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str]]:
    return {(a["trace_id"], b["trace_id"]) for turns in convs.values()
            for a, b in itertools.pairwise(turns)}  # fmt: skip


def followups(daemons: list[Daemon]) -> tuple[list[tuple[str, str]], int]:
    """Every follow-up line of every run of ``daemons`` as (A, B), and the torn lines."""
    pairs = []
    torn = 0
    for daemon in daemons:
        for run in range(1, daemon.runs + 1):
            path = daemon.evaluations_file(run)
            for raw in path.read_text().splitlines() if path.exists() else ():
                if '"followup"' not in raw:
                    continue
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    torn += 1
                    continue
                pairs.append((line["trace_id"], line["followup"]["by"]))
    return pairs, torn


@pytest.mark.parametrize("stop", ["none", "kill9"])
def test_every_consecutive_pair_gets_its_line_across_two_replicas(
    tmp_path: Path, stop: str
) -> None:
    seed = 3 if stop == "none" else 4
    traces, turns = create_topic(PARTITIONS), create_topic(PARTITIONS)
    group = f"g-sessions-{stop}"
    lateness = KILL9_LATENESS if stop == "kill9" else LATENESS
    env = {"RAGMON_SESSIONS__TOPIC": turns, "RAGMON_SESSIONS__LATENESS_SECONDS": lateness,
           "RAGMON_JUDGE__BACKEND": "none"}  # fmt: skip
    convs = conversations(seed)
    want = expected_pairs(convs)
    one = Daemon(tmp_path, traces, group, name="one", **env).start()
    two = Daemon(tmp_path, traces, group, name="two", **env).start()
    wait_until(lambda: one.assigned() and two.assigned(), 60, "both replicas assigned")
    traffic = Traffic(traces, convs, seconds=12, seed=seed)
    traffic.start()
    if stop == "kill9":
        time.sleep(6)
        two.kill9()  # mid-stream: its traces, turns and held sessions move to the other
        time.sleep(4)
        two.start()
    assert traffic.done.wait(120)
    daemons = [one, two]
    outcomes: dict[str, float] = {}
    try:
        wait_until(lambda: set(followups(daemons)[0]) >= want, 180, "every pair's line")
        time.sleep(3)  # a pair written twice would show by now
    finally:
        for daemon in daemons:
            if daemon.alive():
                for outcome, n in turn_outcomes(daemon).items():
                    outcomes[outcome] = outcomes.get(outcome, 0) + n
                daemon.terminate()
        print(f"\nturn outcomes of the live runs ({stop}): {outcomes}")
    got, torn = followups(daemons)
    wrong = set(got) - want
    duplicates = len(got) - len(set(got))
    print(f"\nsessions ({stop}): {len(convs)} conversations, {len(want)} pairs, "
          f"{len(want - set(got))} missed, {len(wrong)} not consecutive, {duplicates} "
          f"duplicate lines, {torn} torn")  # fmt: skip
    assert want - set(got) == set()
    assert wrong == set()
    assert outcomes.get("late", 0) == 0  # (the killed run's own counts died with it)
    if stop == "none":
        assert duplicates == 0


def scrape(daemon: Daemon, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}{path}", timeout=5) as resp:
        return str(resp.read().decode())


def turn_outcomes(daemon: Daemon) -> dict[str, float]:
    """``ragmon_session_turns_total`` of a live daemon by outcome (what a failure needs to
    tell a turn too late from one never read)."""
    out = {}
    for line in scrape(daemon, "/metrics").splitlines():
        found = re.match(r'ragmon_session_turns_total\{outcome="(\w+)"\} (\S+)', line)
        if found:
            out[found[1]] = float(found[2])
    return out


def sample(text: str, name: str) -> float:
    """The value of the sample ``name`` (with its labels, as exposed) in ``text``, else 0."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_two_replicas_without_a_turns_topic_say_so_and_write_no_wrong_pair(
    tmp_path: Path,
) -> None:
    """Without ``sessions.topic`` each replica pairs in memory what it reads: with two, a
    session's turns are spread over both, and a pair of what one saw may skip a turn the
    other read (before: 75 of 404 pairs written were not consecutive, with no word said).
    Each holding a share of the partitions, neither writes a pair; each logs it once,
    counts every turn ``shared``, sets ``ragmon_sessions_shared`` and says it on /readyz."""
    traces = create_topic(PARTITIONS)
    env = {"RAGMON_SESSIONS__LATENESS_SECONDS": LATENESS, "RAGMON_JUDGE__BACKEND": "none"}
    convs = dict(itertools.islice(conversations(5).items(), 300))
    want = expected_pairs(convs)
    total = sum(len(turns) for turns in convs.values())
    one = Daemon(tmp_path, traces, "g-sessions-shared", name="one", **env).start()
    two = Daemon(tmp_path, traces, "g-sessions-shared", name="two", **env).start()
    daemons = [one, two]
    try:
        wait_until(lambda: one.assigned() and two.assigned(), 60, "both replicas assigned")
        traffic = Traffic(traces, convs, seconds=4, seed=5)
        traffic.start()
        assert traffic.done.wait(60)

        def evaluated() -> int:
            return len({t for d in daemons for t, lines in d.lines()[0].items()
                        if any("checks" in x for x in lines)})  # fmt: skip

        wait_until(lambda: evaluated() == total, 60, "every trace evaluated")
        time.sleep(float(LATENESS) + 3)  # every pair final by now: written, if ever
        for daemon in daemons:
            assert "sessions.topic" in scrape(daemon, "/readyz")
            metrics = scrape(daemon, "/metrics")
            assert sample(metrics, "ragmon_sessions_shared") == 1
            assert sample(metrics, 'ragmon_session_turns_total{outcome="shared"}') > 0
    finally:
        for daemon in daemons:
            if daemon.alive():
                daemon.terminate()
    got, torn = followups(daemons)
    wrong = set(got) - want
    print(f"\nsessions without a turns topic: {len(want)} pairs, {len(got)} lines, "
          f"{len(wrong)} not consecutive")  # fmt: skip
    assert wrong == set() and torn == 0
    assert got == []  # neither held every partition: no pair it could know was consecutive
    for daemon in daemons:
        said = [x for x in daemon.stderr[-1].splitlines() if '"sessions_shared"' in x]
        assert len(said) == 1, daemon.stderr[-1][-2000:]
