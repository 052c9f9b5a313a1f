"""Sessions that end: planted conversations per outcome (resolved, escalated, abandoned,
unresolved), each way a session closes (idle, end, max_age, input_end), a session that
resumes, the clock (record time in replay, the injected clock in the daemon), and what each
closed session becomes: its line, its counters, its candidate golden row."""

from __future__ import annotations

import io
import itertools
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from starlette.testclient import TestClient

from monitor import registry
from monitor.config import Settings
from monitor.core.model import Followup, SessionOutcome, Turn
from monitor.core.pii import Redactor
from monitor.golden import web as review_web
from monitor.golden.session_rows import build_session_row
from monitor.golden.stored import load_rows
from monitor.ingest.decoder import OneItemPerRecord
from monitor.ingest.native import NativeDecoder
from monitor.sessions.join import Sessions
from monitor.sessions.outcomes import Outcomes, decide
from monitor.sessions.signals import read
from monitor.sessions.stage import WithSessions
from monitor.sources import ListSource
from sinks.golden import GoldenRowSink
from sinks.jsonl import JsonlSink
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink
from sinks.summary import SummarySink

GOOD = "The Pro plan costs $20 a month."
CONTEXT = [{"doc_id": "plans", "text": "The Pro plan costs $20 a month."}]
REFUSED = "I'm sorry, I can't help with that."
UNGROUNDED = "The Pro plan costs $45 a month."  # a figure the context does not hold
BASE = datetime(2026, 12, 1, tzinfo=UTC).timestamp()


def turn(tid: str, at: float, query: str = "how much is the pro plan?", sid: str = "s",
         failed: bool = False, ends: bool = False) -> Turn:  # fmt: skip
    return Turn(sid, tid, at, query, "flagged" if failed else "clean", "en", "/chat", ends, failed)


def feed(o: Outcomes, turns: list[Turn]) -> list[SessionOutcome]:
    """The turns of one session, as the join releases them: each pair, then the last turn."""
    out: list[SessionOutcome] = []
    for a, b in itertools.pairwise(turns):
        o.pair(Followup(a, b, tuple(read(a.query, b.query))), None, b.time, out)
    o.lone(turns[-1], None, turns[-1].time, out)
    return out


def outcomes(**kw: float) -> Outcomes:
    return Outcomes(kw.get("idle", 1800.0), kw.get("max_age", 86400.0), grace=kw.get("grace", 0))


# --- the outcome, on planted conversations ------------------------------------------------

PLANTED: dict[str, tuple[list[tuple[str, bool]], str]] = {
    # (question, its answer failed) per turn -> the outcome when the user went quiet
    "thanks": ([("how much is the pro plan?", False), ("thanks!", False)], "resolved"),
    "clean answer": ([("how much is the pro plan?", False)], "resolved"),
    "asked for a person": ([("how much is the pro plan?", True), ("let me talk to a person",
                                                                  False)], "escalated"),
    "a person, then thanks": ([("human pls", False), ("thanks!", False)], "escalated"),
    "refused, then left": ([("how much is the pro plan?", True)], "abandoned"),
    "complained, then left": ([("how much is the pro plan?", False), ("that's wrong", False)],
                              "abandoned"),
    "rephrased to a clean answer": ([("how much is the pro plan?", True),
                                     ("how much is the pro plan??", False)], "resolved"),
    "rephrased to a failure": ([("how much is the pro plan?", True),
                                ("how much is the pro plan??", True)], "abandoned"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(PLANTED))
def test_each_planted_conversation_gets_its_outcome(name: str) -> None:
    said, expected = PLANTED[name]
    o = outcomes()
    turns = [turn(f"t{i}", 60.0 * i, q, failed=f) for i, (q, f) in enumerate(said)]
    assert feed(o, turns) == []
    (closed,) = o.due(lambda p: 60.0 * len(said) + 1800)
    assert (closed.outcome, closed.closed_by, closed.turns) == (expected, "idle", len(said))


def test_a_failure_is_abandoned_only_when_the_user_is_known_to_have_left() -> None:
    cases = [("idle", "abandoned"), ("end", "abandoned"), ("max_age", "unresolved"),
             ("input_end", "unresolved")]  # fmt: skip
    for closed_by, expected in cases:
        assert decide(False, True, (), closed_by) == expected  # type: ignore[arg-type]
        assert decide(False, False, (), closed_by) == "resolved"  # type: ignore[arg-type]
        assert decide(True, True, (), closed_by) == "escalated"  # type: ignore[arg-type]


def test_rephrases_and_the_time_to_the_outcome() -> None:
    o = outcomes()
    turns = [turn("a", 0, "how much is the pro plan?", failed=True),
             turn("b", 30, "how much is the pro plan??", failed=True),
             turn("c", 90, "pro plan price?", failed=True),
             turn("d", 150, "let me talk to a person"),
             turn("e", 400, "thanks!")]  # fmt: skip
    feed(o, turns)
    (closed,) = o.due(lambda p: 400 + 1800)
    assert (closed.outcome, closed.rephrases) == ("escalated", 2)
    assert closed.seconds_to_outcome == 150  # to the first ask for a person
    line = closed.to_line()
    assert line == {"session_id": "s", "session": {
        "outcome": "escalated", "turns": 5, "closed_by": "idle", "rephrases": 2,
        "seconds_to_outcome": 150.0, "first_trace": "a", "last_trace": "e", "resumed": 0,
    }}  # fmt: skip


# --- how a session closes -----------------------------------------------------------------


def test_idle_closes_on_the_given_clock_after_the_gap_and_its_grace() -> None:
    o = outcomes(idle=600, grace=60)
    feed(o, [turn("a", 1000)])
    assert o.due(lambda p: 1000 + 600 + 59) == []  # a turn near the end of the gap may come
    (closed,) = o.due(lambda p: 1000 + 600 + 60)
    assert closed.closed_by == "idle"
    assert len(o) == 0


def test_a_gap_longer_than_idle_between_two_released_turns_splits_the_session() -> None:
    o = outcomes(idle=600)
    out = feed(o, [turn("a", 0, failed=True), turn("b", 700, "thanks!")])
    assert [(c.outcome, c.closed_by, c.turns) for c in out] == [("abandoned", "idle", 1)]
    (second,) = o.due(lambda p: 700 + 600)
    assert (second.outcome, second.turns, second.resumed) == ("resolved", 1, 1)


def test_a_turn_with_the_end_attribute_closes_its_session_at_once() -> None:
    o = outcomes()
    out = feed(o, [turn("a", 0), turn("b", 60, "that's wrong", ends=True)])
    assert [(c.outcome, c.closed_by, c.turns) for c in out] == [("abandoned", "end", 2)]
    assert len(o) == 0 and o.due(lambda p: 1e12) == []


def test_max_age_closes_a_session_that_never_goes_quiet() -> None:
    o = outcomes(idle=600, max_age=3600)
    out: list[SessionOutcome] = []
    turns = [turn(f"t{i}", 500.0 * i) for i in range(10)]  # every 500 s: never idle
    for a, b in itertools.pairwise(turns):
        o.pair(Followup(a, b, ()), None, b.time, out)
    assert [(c.closed_by, c.turns) for c in out] == [("max_age", 8)]  # 0..3500 s
    assert out[0].resumed == 0
    (rest,) = o.due(lambda p: 4000 + 3600)  # the turns after it: a new opening
    assert (rest.turns, rest.resumed) == (2, 1)


def test_the_end_of_input_closes_every_session_by_the_newest_turns_time() -> None:
    o = outcomes(idle=600)
    feed(o, [turn("a", 0, sid="quiet", failed=True)])
    feed(o, [turn("b", 1000, sid="recent", failed=True)])
    closed = {c.session: c for c in o.due(lambda p: 0.0, flush=True)}
    assert (closed["quiet"].closed_by, closed["quiet"].outcome) == ("idle", "abandoned")
    # still within its gap when the input ended: that the user left is not known
    assert (closed["recent"].closed_by, closed["recent"].outcome) == ("input_end", "unresolved")


def test_a_resumed_session_gets_a_new_outcome_appended_never_overwritten() -> None:
    o = outcomes(idle=600)
    feed(o, [turn("a", 0, failed=True)])
    (first,) = o.due(lambda p: 600)
    feed(o, [turn("b", 5000, "thanks!")])  # the same session, back after its close
    (second,) = o.due(lambda p: 5600)
    assert (first.outcome, first.resumed) == ("abandoned", 0)
    assert (second.outcome, second.resumed, second.first_trace) == ("resolved", 1, "b")


def test_memory_is_bounded_and_every_dropped_session_counted() -> None:
    dropped: list[str] = []
    o = Outcomes(1800, 86400, max_bytes=1 << 20, observe=dropped.append)
    for i in range(3000):
        feed(o, [turn(f"t{i}", i, "q" * 1000, sid=f"s{i}")])
    assert o.bytes <= 1 << 20
    assert len(o) + len(dropped) == 3000 and set(dropped) == {"evicted"}
    o.revoke([("ragmon_turns", 0)])  # none of these came through it: nothing revoked
    assert set(dropped) == {"evicted"}


def test_revoked_partitions_forget_their_sessions_counted() -> None:
    dropped: list[str] = []
    o = Outcomes(1800, 86400, observe=dropped.append)
    out: list[SessionOutcome] = []
    o.lone(turn("a", 0), ("ragmon_turns", 0), 0.0, out)
    o.lone(turn("b", 0, sid="other"), ("ragmon_turns", 1), 0.0, out)
    o.revoke([("ragmon_turns", 0)])
    assert dropped == ["revoked"] and len(o) == 1


# --- on the pipeline's path ---------------------------------------------------------------


def record(sid: str, i: int, at: float, query: str, answer: str, **extra: Any) -> dict[str, Any]:
    return {"trace_id": f"{abs(hash(sid)) % 10**12:016x}{i + 1:016x}", "session_id": sid,
            "timestamp": datetime.fromtimestamp(BASE + at, UTC).isoformat(), "query": query,
            "context": CONTEXT, "answer": answer, "route": "/chat", **extra}  # fmt: skip


def planted_records() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """A conversation per outcome (and per failure), each closed idle by a last one an hour
    later, which the end of the input closes."""
    convs: dict[str, tuple[list[tuple[str, str]], str]] = {
        "thanks": ([("How much is the Pro plan?", GOOD), ("thanks!", "You're welcome.")],
                   "resolved"),
        "clean": ([("How much is the Pro plan?", GOOD)], "resolved"),
        "person": ([("How much is the Pro plan?", GOOD), ("let me talk to a person", GOOD)],
                   "escalated"),
        "refused": ([("How much is the Pro plan?", REFUSED)], "abandoned"),
        "ungrounded": ([("How much is the Pro plan?", UNGROUNDED)], "abandoned"),
        "complained": ([("How much is the Pro plan?", GOOD), ("that's wrong", GOOD)],
                       "abandoned"),
    }  # fmt: skip
    out = []
    for c, (sid, (turns, _)) in enumerate(convs.items()):
        for i, (q, a) in enumerate(turns):
            out.append(record(sid, i, c * 10 + 60 * i, q, a))
    out.append(record("last", 0, 3600, "How much is the Pro plan?", REFUSED))
    expected = {sid: want for sid, (_, want) in convs.items()} | {"last": "unresolved"}
    return out, expected


def replay(records: list[dict[str, Any]], **sessions: Any) -> InMemorySink:
    settings = Settings(sessions=sessions) if sessions else Settings()
    metrics = registry.build_metrics(CollectorRegistry())
    sink = InMemorySink()
    pipeline = registry.build_pipeline(
        settings, metrics, source=ListSource([json.dumps(r).encode() for r in records]),
        extra_sinks=[sink], outputs=False,
    )  # fmt: skip
    pipeline.start()
    try:
        pipeline.run(threading.Event())
    finally:
        pipeline.close()
    return sink


def test_replay_closes_the_planted_conversations_with_their_outcomes() -> None:
    records, expected = planted_records()
    sink = replay(records)
    got = {s.session: (s.outcome, s.closed_by) for s in sink.sessions}
    assert len(sink.sessions) == len(expected)
    assert got == {sid: (want, "input_end" if sid == "last" else "idle")
                   for sid, want in expected.items()}  # fmt: skip


def test_replay_ends_a_session_on_the_configured_attribute() -> None:
    records = [record("s", 0, 0, "How much is the Pro plan?", GOOD),
               record("s", 1, 60, "that's wrong", GOOD, attributes={"chat.closed": True}),
               record("s", 2, 120, "thanks!", "You're welcome.")]  # fmt: skip
    sink = replay(records, end_attribute="chat.closed")
    assert [(s.outcome, s.closed_by, s.turns, s.resumed) for s in sink.sessions] == [
        ("abandoned", "end", 2, 0), ("resolved", "input_end", 1, 1)]  # fmt: skip


def test_outcomes_off_writes_no_session() -> None:
    records, _ = planted_records()
    assert replay(records, outcomes=False).sessions == []


def test_the_daemon_closes_idle_sessions_on_its_injected_clock() -> None:
    now = [BASE]
    sessions = Sessions(60.0, 10.0, 1 << 20)
    o = Outcomes(600.0, 86400.0, grace=10.0)
    stage = WithSessions(OneItemPerRecord(NativeDecoder()), sessions, outcomes=o,
                         clock=lambda: now[0])  # fmt: skip
    sessions.hold(turn("a", BASE, failed=True), now[0])
    assert [d.item for d in stage.due()] == []
    now[0] += 70  # the join lets the lone turn go (window + lateness): the session waits
    assert [d.item for d in stage.due()] == [None] and len(o) == 1
    now[0] += 600 - 70 + 10 - 1  # its idle gap and grace from its arrival, but for a second
    assert [d.item for d in stage.due()] == []
    now[0] += 1
    (closed,) = [d.item for d in stage.due()]
    assert isinstance(closed, SessionOutcome)
    assert (closed.outcome, closed.closed_by) == ("abandoned", "idle")


def test_a_one_turn_session_closes_when_the_join_lets_it_go_if_the_window_covers_idle() -> None:
    """Nothing came within the window (at least the idle gap) of the turn's arrival: its gap
    is counted from then, not from when the join let it go."""
    now = [BASE]
    sessions = Sessions(1800.0, 60.0, 1 << 20)
    o = Outcomes(1800.0, 86400.0, grace=60.0)
    stage = WithSessions(OneItemPerRecord(NativeDecoder()), sessions, outcomes=o,
                         clock=lambda: now[0])  # fmt: skip
    sessions.hold(turn("a", BASE), now[0])
    stage.due()
    now[0] += 1860
    items = [d.item for d in stage.due()]
    assert [(c.outcome, c.closed_by) for c in items if isinstance(c, SessionOutcome)] == [
        ("resolved", "idle")]  # fmt: skip


def test_turns_timed_in_the_past_do_not_close_their_session_at_once() -> None:
    """A backlog read late (or old traces produced now): the turns' times are hours behind
    the clock, so the gap is counted from when each turn was released on it."""
    now = [BASE + 10_000]
    sessions = Sessions(60.0, 0.0, 1 << 20)
    o = Outcomes(600.0, 86400.0)
    stage = WithSessions(OneItemPerRecord(NativeDecoder()), sessions, outcomes=o,
                         clock=lambda: now[0])  # fmt: skip
    sessions.hold(turn("a", BASE, failed=True), now[0])
    stage.due()
    now[0] += 61  # the lone turn leaves the join; its own time is hours old
    assert stage.due() and len(o) == 1
    sessions.hold(turn("b", BASE + 30, "thanks!"), now[0])  # the same session, read later
    stage.due()
    now[0] += 61
    assert [d.item for d in stage.due()] == [None]  # released: joins the open session
    now[0] += 600
    (closed,) = [d.item for d in stage.due()]
    assert isinstance(closed, SessionOutcome)
    assert (closed.outcome, closed.closed_by, closed.turns, closed.resumed) == (
        "resolved", "idle", 2, 0)  # fmt: skip


def test_on_record_time_only_a_newer_turn_moves_the_clock() -> None:
    now = [BASE + 10_000]
    o = Outcomes(600.0, 86400.0)
    stage = WithSessions(OneItemPerRecord(NativeDecoder()), Sessions(60.0, 0.0, 1 << 20),
                         outcomes=o, clock=lambda: now[0], record_time=True)  # fmt: skip
    stage.sessions.hold(turn("a", BASE, failed=True), now[0])
    stage.due()
    now[0] += 1e6  # this machine's clock is no clock here
    assert [d.item for d in stage.due()] == [None] and len(o) == 1
    stage.sessions.hold(turn("z", BASE + 600, sid="other"), now[0])
    stage.due()
    now[0] += 61
    items = [d.item for d in stage.due()]
    assert [(c.session, c.closed_by) for c in items if isinstance(c, SessionOutcome)] == [
        ("s", "idle")]  # fmt: skip


def test_turn_sink_marks_the_end_and_the_failure() -> None:
    records, _ = planted_records()
    sink = replay(records)
    kept = {t.trace_id: t for s in sink.sessions for t in s.kept}
    ungrounded = next(s for s in sink.sessions if s.session == "ungrounded")
    assert kept[ungrounded.first_trace].failed
    thanks = next(s for s in sink.sessions if s.session == "clean")
    assert not kept[thanks.first_trace].failed  # uncited, not ungrounded
    assert {s.route for s in sink.sessions} == {"/chat"}


# --- what a closed session becomes --------------------------------------------------------


def closed(outcome: str = "abandoned") -> SessionOutcome:
    o = outcomes(idle=600)
    turns = [turn("a", 0, "my email is ann@example.com, how much is pro?", failed=True),
             turn("b", 60, "let me talk to a person" if outcome == "escalated" else
                  "that's wrong")]  # fmt: skip
    feed(o, turns)
    (done,) = o.due(lambda p: 1000)
    assert done.outcome == outcome
    return done


def test_the_jsonl_sink_writes_the_session_line() -> None:
    out = io.StringIO()
    sink = JsonlSink(stream=out)
    sink.write_session(closed())
    assert json.loads(out.getvalue()) == closed().to_line()


def test_the_prometheus_sink_counts_per_route_and_language() -> None:
    metrics = registry.build_metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    sink.write_session(closed())
    sink.write_session(closed("escalated"))
    r = metrics.registry
    # counted on flush, as the daemon flushes its sinks at every checkpoint
    assert r.get_sample_value("ragmon_session_outcome_turns_total",
                              {"outcome": "escalated", "route": "/chat"}) is None  # fmt: skip
    sink.flush()
    assert (
        r.get_sample_value(
            "ragmon_session_outcomes_total",
            {"outcome": "abandoned", "closed_by": "idle", "route": "/chat"},
        )
        == 1
    )
    assert (
        r.get_sample_value(
            "ragmon_segment_session_outcomes_total",
            {"dimension": "language", "segment": "en", "outcome": "escalated"},
        )
        == 1
    )
    assert (
        r.get_sample_value(
            "ragmon_session_to_outcome_seconds_count", {"outcome": "abandoned", "route": "/chat"}
        )
        == 1
    )
    assert r.get_sample_value("ragmon_session_outcome_turns_total",
                              {"outcome": "escalated", "route": "/chat"}) == 2  # fmt: skip


def test_a_session_that_ended_badly_is_a_candidate_golden_row() -> None:
    row = build_session_row(closed(), Redactor())
    assert row is not None
    meta = row["ragmon"]
    assert (meta["reason"], meta["trace_id"], meta["route"]) == ("session_abandoned", "b", "/chat")
    session = meta["session"]
    assert [t["trace_id"] for t in session["kept"]] == ["a", "b"]
    assert session["kept"][1]["signals"] == ["negative_feedback"]
    assert "ann@example.com" not in json.dumps(row)  # PII-redacted
    assert build_session_row(closed("escalated"), Redactor())["ragmon"]["reason"] == (  # type: ignore[index]
        "session_escalated"
    )
    assert build_session_row(closed(), Redactor(), reasons=("refusal",)) is None


def test_the_review_page_shows_the_sessions_turns(tmp_path: Path) -> None:
    sink = GoldenRowSink(tmp_path)
    sink.start()
    sink.write_session(closed())
    sink.close()
    (row,) = load_rows(tmp_path).values()
    body = TestClient(review_web.build_app(tmp_path)).get(f"/row/{row['id']}").text
    assert "How the conversation ended: abandoned (idle), 2 turns" in body
    assert "failed (flagged)" in body and "negative_feedback" in body
    assert "ann@example.com" not in body


def test_a_replica_no_longer_alone_drops_its_open_sessions_counted() -> None:
    """Pairing in memory in a group it no longer holds alone, a replica sees part of each
    session: it closes none of what it held (counted ``shared``), as it writes no pair."""
    now = [BASE]
    dropped: list[str] = []
    o = Outcomes(600.0, 86400.0, observe=dropped.append)
    stage = WithSessions(OneItemPerRecord(NativeDecoder()), Sessions(60.0, 0.0, 1 << 20),
                         outcomes=o, clock=lambda: now[0], group=True)  # fmt: skip
    stage.sessions.hold(turn("a", BASE), now[0])
    stage.due()
    now[0] += 61
    stage.due()
    assert len(o) == 1
    stage.on_share(0.5)
    now[0] += 10_000
    assert [d.item for d in stage.due() if isinstance(d.item, SessionOutcome)] == []
    assert dropped == ["shared"] and len(o) == 0


def test_the_replay_summary_says_how_the_sessions_ended() -> None:
    sink = SummarySink([])
    sink.write_session(closed())
    sink.write_session(closed("escalated"))
    assert ("sessions closed: 2; escalated 1 (50.0%), abandoned 1 (50.0%) (closed by idle 2)"
            in sink.table().splitlines())  # fmt: skip


def test_explain_passes_over_session_lines_without_a_word(tmp_path: Path) -> None:
    from monitor.commands.cli import build_parser, runner

    records, _ = planted_records()
    replayed = replay(records)
    assert replayed.sessions
    lines = [e.to_line() for e in replayed.evaluations] + [s.to_line() for s in replayed.sessions]
    path = tmp_path / "lines.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    args = build_parser().parse_args(["explain", str(path), str(path), "--check", "refusal"])
    err = io.StringIO()
    runner("explain")(args, io.StringIO(), err)
    assert "not evaluation lines" not in err.getvalue()
