"""Sessions that end, from outside: `ragmon replay` of planted conversations (one per
outcome, a session that resumes after its idle gap, one still open when the input ends), and
two replicas on the real broker reading the planted conversations spread unkeyed over four
partitions, meeting on the turns topic: every session gets exactly one outcome line, the
right one, from whichever replica owns it."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer

from tests.integration.conftest import ragmon
from tests.integration.kafka_support import Daemon, bootstrap, create_topic, wait_until

pytestmark = pytest.mark.integration

CONTEXT = [{"doc_id": "plans", "text": "The Pro plan costs $20 a month."}]
GOOD = "The Pro plan costs $20 a month."
REFUSED = "I'm sorry, I can't help with that."
UNGROUNDED = "The Pro plan costs $45 a month."
Q = "How much is the Pro plan?"
END = "chat.closed"  # the end attribute the tests configure

# kind -> its turns (question, answer, ends the session) and the outcome it must get
PLANTED: dict[str, tuple[list[tuple[str, str, bool]], str, str]] = {
    "thanks": ([(Q, GOOD, False), ("thanks!", "You're welcome.", False)], "resolved", "idle"),
    "clean": ([(Q, GOOD, False)], "resolved", "idle"),
    "person": ([(Q, REFUSED, False), ("let me talk to a person", GOOD, False)], "escalated",
               "idle"),
    "refused": ([(Q, REFUSED, False)], "abandoned", "idle"),
    "ungrounded": ([(Q, UNGROUNDED, False)], "abandoned", "idle"),
    "complained": ([(Q, GOOD, False), ("that's wrong", GOOD, False)], "abandoned", "idle"),
    "rephrased": ([(Q, REFUSED, False), ("how much is the pro plan??", GOOD, False)],
                  "resolved", "idle"),
    "ended": ([(Q, GOOD, False), ("that's wrong", GOOD, True)], "abandoned", "end"),
}  # fmt: skip


def records(sid: str, kind: str, start: float, gap: float) -> list[dict[str, Any]]:
    turns, _, _ = PLANTED[kind]
    out = []
    for i, (q, a, ends) in enumerate(turns):
        out.append({
            "trace_id": f"{abs(hash(sid)) % 16**16:016x}{i + 1:016x}", "session_id": sid,
            "timestamp": datetime.fromtimestamp(start + gap * i, UTC).isoformat(),
            "query": q, "context": CONTEXT, "answer": a, "route": f"/{kind}",
            **({"attributes": {END: True}} if ends else {}),
        })  # fmt: skip
    return out


def session_lines(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        for raw in path.read_text().splitlines() if path.exists() else ():
            if '"session":' in raw:
                out.append(json.loads(raw))
    return out


def test_replay_writes_one_outcome_line_per_closed_session(tmp_path: Path) -> None:
    base = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    lines: list[dict[str, Any]] = []
    for k, kind in enumerate(PLANTED):
        lines += records(f"s-{kind}", kind, base + 10 * k, 60)
    # a session that resumes an hour after its first close; one still open at the end
    lines += records("s-back", "refused", base, 60)
    lines += records("s-back", "thanks", base + 3600, 60)[1:]
    lines += records("s-open", "refused", base + 7200, 60)
    lines.sort(key=lambda r: r["timestamp"])
    src = tmp_path / "conversations.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "evaluations.jsonl"
    done = ragmon("replay", str(src), "--output-jsonl", str(out),
                  RAGMON_SESSIONS__END_ATTRIBUTE=END)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = [(x["session_id"], x["session"]["outcome"], x["session"]["closed_by"],
            x["session"]["resumed"]) for x in session_lines([out])]  # fmt: skip
    want = [(f"s-{kind}", outcome, closed_by, 0)
            for kind, (_, outcome, closed_by) in PLANTED.items()]  # fmt: skip
    want += [("s-back", "abandoned", "idle", 0), ("s-back", "resolved", "idle", 1),
             ("s-open", "unresolved", "input_end", 0)]  # fmt: skip
    assert sorted(got) == sorted(want)
    followups = [x for x in map(json.loads, out.read_text().splitlines()) if "followup" in x]
    pairs = sum(len(turns) - 1 for turns, _, _ in PLANTED.values())  # s-back: an hour apart
    assert len(followups) == pairs  # the pairs are still written, each once


def scrape(daemon: Daemon) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/metrics", timeout=5) as resp:
        return str(resp.read().decode())


def test_two_replicas_close_each_planted_session_once_with_its_outcome(tmp_path: Path) -> None:
    traces, turns = create_topic(4), create_topic(4)
    env = {"RAGMON_SESSIONS__TOPIC": turns, "RAGMON_SESSIONS__LATENESS_SECONDS": "15",
           "RAGMON_SESSIONS__IDLE_SECONDS": "5", "RAGMON_SESSIONS__WINDOW_SECONDS": "5",
           "RAGMON_SESSIONS__END_ATTRIBUTE": END,
           "RAGMON_JUDGE__BACKEND": "none"}  # fmt: skip
    one = Daemon(tmp_path, traces, "g-outcomes", name="one", **env).start()
    two = Daemon(tmp_path, traces, "g-outcomes", name="two", **env).start()
    daemons = [one, two]
    rng = random.Random(7)
    want: dict[str, tuple[str, str]] = {}
    values = []
    now = time.time()
    for n in range(25):
        for kind, (_, outcome, closed_by) in PLANTED.items():
            sid = f"o-{kind}-{n}"
            want[sid] = (outcome, closed_by)
            values += [json.dumps(r).encode() for r in records(sid, kind, now + n * 0.1, 1.0)]
    rng.shuffle(values)  # out of order, unkeyed: a session's turns over every partition
    try:
        wait_until(lambda: one.assigned() and two.assigned(), 60, "both replicas assigned")
        producer = KafkaProducer(bootstrap_servers=bootstrap(), linger_ms=5)
        for value in values:
            producer.send(traces, value=value)
        producer.flush()
        producer.close()

        def files() -> list[Path]:
            return [d.evaluations_file(r) for d in daemons for r in range(1, d.runs + 1)]

        wait_until(lambda: len(session_lines(files())) >= len(want), 180, "every outcome")
        time.sleep(3)  # an outcome written twice would show by now
        metrics = [scrape(d) for d in daemons]
    finally:
        for daemon in daemons:
            if daemon.alive():
                daemon.terminate()
    lines = session_lines(files())
    got = [(x["session_id"], (x["session"]["outcome"], x["session"]["closed_by"]))
           for x in lines]  # fmt: skip
    wrong = {sid: (outcome, want[sid]) for sid, outcome in got if outcome != want[sid]}
    writers = {d.name: len(session_lines([d.evaluations_file(1)])) for d in daemons}
    print(f"\noutcomes: {len(want)} sessions, {len(lines)} lines, {len(wrong)} wrong, "
          f"written by {writers}")  # fmt: skip
    assert wrong == {}
    assert sorted(sid for sid, _ in got) == sorted(want)  # each exactly once
    assert all(n > 0 for n in writers.values())  # both replicas own sessions
    assert all(x["session"]["turns"] == len(PLANTED[x["session_id"].split("-")[1]][0])
               for x in lines)  # fmt: skip
    abandoned = sum(
        float(line.split()[-1])
        for text in metrics
        for line in text.splitlines()
        if line.startswith("ragmon_session_outcomes_total{")
        and 'outcome="abandoned"' in line
        and 'closed_by="idle"' in line
    )
    assert abandoned == 25 * 3  # refused, ungrounded, complained (ended: closed_by end)
