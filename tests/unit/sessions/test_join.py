"""Sessions: consecutive turns paired in time order whatever order they arrive in, within the
window, each pair once; duplicates, late turns, eviction, revocation and replay notes."""

from __future__ import annotations

import random

from monitor.core.model import Turn
from monitor.sessions.join import Sessions
from monitor.sources import Partition, ReplayNote, trace_key

P: Partition = ("ragmon_turns", 0)


def turn(tid: str, at: float, query: str = "how much is the pro plan?", sid: str = "s1") -> Turn:
    return Turn(sid, tid, at, query, "clean")


def sessions(outcomes: list[str] | None = None, **kw: float) -> Sessions:
    opts = {"window": 1800.0, "lateness": 60.0, "max_bytes": 1 << 20, **kw}
    return Sessions(opts["window"], opts["lateness"], int(opts["max_bytes"]),
                    observe=(outcomes.append if outcomes is not None else None))  # fmt: skip


def pairs(released: list) -> list[tuple[str, str]]:
    return [(r.followup.turn.trace_id, r.followup.by.trace_id) for r in released if r.followup]


def test_pairs_follow_the_turns_time_not_their_arrival() -> None:
    s = sessions()
    s.add(turn("c", 300), arrived=10)
    s.add(turn("a", 100), arrived=11)
    s.add(turn("b", 200), arrived=12)
    assert s.due(lambda p: 71) == []  # the last arrival is not 60 s old yet
    assert pairs(s.due(lambda p: 72)) == [("a", "b"), ("b", "c")]


def test_a_pair_waits_for_a_turn_that_began_between_them() -> None:
    s = sessions()
    s.add(turn("a", 100), arrived=0)
    s.add(turn("c", 300), arrived=1)
    s.add(turn("b", 200), arrived=50)  # out of order, within the lateness
    assert pairs(s.due(lambda p: 61)) == []  # b arrived at 50: the pair (b, c) waits
    assert pairs(s.due(lambda p: 200)) == [("a", "b"), ("b", "c")]


def test_a_turn_later_than_the_lateness_is_counted_and_its_pair_lost() -> None:
    seen: list[str] = []
    s = sessions(seen)
    s.add(turn("a", 100), arrived=0)
    s.add(turn("c", 300), arrived=1)
    assert pairs(s.due(lambda p: 100)) == [("a", "c")]
    assert s.add(turn("b", 200), arrived=101)[0].followup is None  # older than a released turn
    assert seen == ["paired", "late"]


def test_outside_the_window_no_pair_and_a_lone_turn_expires() -> None:
    seen: list[str] = []
    s = sessions(seen, window=600)
    s.add(turn("a", 0), arrived=0)
    s.add(turn("b", 601), arrived=1)
    assert pairs(s.due(lambda p: 1000)) == []
    assert seen == ["outside_window", "last"]  # b expired at 1 + 600 + 60
    assert len(s) == 0 and s.bytes == 0


def test_a_trace_evaluated_twice_is_one_turn() -> None:
    seen: list[str] = []
    s = sessions(seen)
    s.add(turn("a", 100), arrived=0, position=(P, 1))
    gone = s.add(turn("a", 100), arrived=1, position=(P, 2))
    assert [r.positions for r in gone] == [((P, 2),)]  # finished at once
    s.add(turn("b", 200), arrived=2, position=(P, 3))
    released = s.due(lambda p: 100)
    assert pairs(released) == [("a", "b")] and released[0].positions == ((P, 1),)
    assert seen == ["duplicate", "paired"]


def test_sessions_never_mix_and_a_thousand_shuffled_conversations_pair_exactly() -> None:
    rng = random.Random(7)
    turns = [turn(f"{c}-{i}", 1000 * c + 10 * i, sid=f"s{c}") for c in range(1000)
             for i in range(rng.randint(2, 5))]  # fmt: skip
    rng.shuffle(turns)
    s = sessions(max_bytes=64 << 20)
    for i, t in enumerate(turns):
        s.add(t, arrived=i * 0.01)
    got = pairs(s.due(lambda p: 1e9))
    want = sorted((f"{c}-{i}", f"{c}-{i + 1}") for c in range(1000) for i in range(5)
                  if any(t.trace_id == f"{c}-{i + 1}" for t in turns))  # fmt: skip
    assert sorted(got) == want


def test_memory_is_bounded_by_evicting_the_least_recently_active_session() -> None:
    seen: list[str] = []
    s = sessions(seen, max_bytes=1 << 20)
    for i in range(3000):
        s.add(turn(f"t{i}", i, query="x" * 400, sid=f"s{i}"), arrived=i)
    assert s.bytes <= 1 << 20
    assert seen.count("evicted") == 3000 - len(s)
    assert len(s) > 500  # the newest are kept


def test_revoked_partitions_forget_their_turns() -> None:
    s = sessions()
    s.add(turn("a", 100), arrived=0, position=(P, 5))
    s.add(turn("x", 100, sid="s2"), arrived=0, position=(("ragmon_turns", 1), 9))
    assert s.held_from([P]) == {P: 5}
    s.revoke([P])
    assert s.held_from([P, ("ragmon_turns", 1)]) == {("ragmon_turns", 1): 9}
    assert [r.positions for r in s.due(lambda p: 1e9)] == [((("ragmon_turns", 1), 9),)]


def test_a_replay_note_rules_out_lines_already_written() -> None:
    """Before the restart: a, b, c read (offsets 1-3); (a, b) written, b and c held. The note
    names b and c. After it: a and b are re-read; a's line is not written again, (b, c) is."""
    seen: list[str] = []
    s = sessions(seen)
    s.resume({P: ReplayNote(4, frozenset({trace_key("b"), trace_key("c")}))})
    for off, (tid, at) in enumerate((("a", 100), ("b", 200), ("c", 300)), 1):
        s.add(turn(tid, at), arrived=0, position=(P, off))
    released = s.due(lambda p: 100)
    assert pairs(released) == [("b", "c")]
    assert released[0].positions == ((P, 1),) and released[0].followup is None
    assert seen[:2] == ["replayed", "paired"]


def test_flush_writes_every_pair_held() -> None:
    s = sessions()
    s.add(turn("a", 100), arrived=0)
    s.add(turn("b", 200), arrived=0)
    s.add(turn("z", 100, sid="lonely"), arrived=0)
    released = s.due(lambda p: 0, flush=True)
    assert pairs(released) == [("a", "b")] and len(s) == 0


def test_followup_line_contract() -> None:
    s = sessions()
    s.add(
        Turn("s1", "a" * 32, 100.0, "How much is the Pro plan?", "refusal", {"language": "en"}), 0
    )
    s.add(Turn("s1", "b" * 32, 130.5, "let me talk to a person", "clean"), 0)
    released, last = s.due(lambda p: 1e9)
    assert released.followup is not None and last.followup is None
    assert released.followup.to_line() == {
        "trace_id": "a" * 32, "session_id": "s1",
        "followup": {"by": "b" * 32, "seconds": 30.5, "signals": ["escalation"],
                     "after": "refusal"},
    }  # fmt: skip


def test_turn_records_round_trip_and_garbage_is_no_turn() -> None:
    t = Turn("s1", "a" * 32, 100.0, "¿Cuánto cuesta?", "flagged", "es")
    assert Turn.from_record(t.to_record()) == t
    for raw in (
        b"",
        b"{}",
        b"[1]",
        b'{"v": 2}',
        b"\xff",
        t.to_record().replace(b"flagged", b"meh"),
    ):
        assert Turn.from_record(raw) is None


def test_held_turns_are_added_at_the_next_due_as_if_added_one_by_one() -> None:
    """``hold`` (in memory: turns without a record) defers the adding to the next ``due``;
    what comes out, and when, is what ``add`` gives, duplicates counted alike."""
    rng = random.Random(5)
    arrivals = [(turn(f"{i:02d}", rng.uniform(0, 500), sid=f"s{i % 4}"), float(i))
                for i in range(40)]  # fmt: skip
    arrivals.append(arrivals[3])  # a trace evaluated twice
    counted: list[list[str]] = [[], []]
    added, held = sessions(counted[0]), sessions(counted[1])
    for t, at in arrivals:
        added.add(t, at)
        held.hold(t, at)
    assert len(held) == 0  # nothing added before the pipeline asks what is due
    for now in (50.0, 90.0, 101.0):

        def clock(part: Partition | None, now: float = now) -> float:
            return now

        assert pairs(held.due(clock)) == pairs(added.due(clock))
    assert pairs(held.due(lambda p: 0.0, flush=True)) == pairs(added.due(lambda p: 0.0, True))
    assert sorted(counted[1]) == sorted(counted[0]) and "duplicate" in counted[0]
