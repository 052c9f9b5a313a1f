"""Replay notes of the conversations' repartition topic (issue 70.4, 70.5): the note a
commit of a turn partition carries names exactly the held turns whose follow-up line is not
written yet — never a turn re-read and ruled out by the note before it, and however many
sessions are open on the partition — so a restarted or rebalanced group writes no line
twice and loses none."""

from __future__ import annotations

from monitor.checks import CheckSuite
from monitor.core.model import DeadLetter, RagTrace, Turn
from monitor.ingest.decoder import OneItemPerRecord
from monitor.pipeline import Pipeline
from monitor.sessions.join import Sessions
from monitor.sessions.stage import WithSessions
from monitor.sources import ListSource, ReplayNote, SourcePosition, SourceRecord
from monitor.sources.kafka_notes import decode_note, encode_note
from sinks.memory import InMemorySink

TOPIC = "ragmon_turns"
P = (TOPIC, 0)


def no_trace(record: SourceRecord) -> RagTrace | DeadLetter:
    raise AssertionError("only turn records here")


def reader(note: ReplayNote | None = None) -> tuple[Pipeline, InMemorySink, ListSource]:
    """A replica owning the turn partition (window 60 s, lateness 5 s), given ``note``."""
    sessions = Sessions(window=60, lateness=5, max_bytes=1 << 28)
    decoder = WithSessions(OneItemPerRecord(no_trace), sessions, topic=TOPIC)
    sink = InMemorySink()
    source = ListSource([], source=TOPIC)
    p = Pipeline(source, decoder, CheckSuite(), [sink], sleep=lambda _: None)
    if note is not None:
        p.on_resumed({P: note})
    return p, sink, source


def turn_record(offset: int, sid: str, tid: str, at: float, arrived: float) -> SourceRecord:
    """A turn record written at ``arrived`` (the partition's clock is its records' time)."""
    value = Turn(sid, tid, at, f"question {tid}", "clean").to_record()
    return SourceRecord(SourcePosition(TOPIC, 0, offset), value, timestamp=arrived)


def through_kafka(note: ReplayNote) -> ReplayNote:
    back = decode_note(encode_note(note))
    assert back is not None
    return back


def lines(sink: InMemorySink) -> list[tuple[str, str]]:
    return [(f.turn.trace_id, f.by.trace_id) for f in sink.followups]


def test_a_restarted_group_revoked_during_its_catch_up_writes_no_line_again() -> None:
    """Issue 70.4. The first life: a session's turn z (offset 0) is still held when it stops;
    five sessions' pairs after it were written and their turns let go. The second life
    re-reads them all (the five pairs are ruled out by the note) and is revoked before their
    turns leave: its note must not name them, or the third life writes the five lines
    again."""
    records = [turn_record(0, "z", "z1", 1_000.0, arrived=69.0)]
    for i in range(5):
        records.append(turn_record(1 + 2 * i, f"s{i}", f"a{i}", 100.0, arrived=0.0))
        records.append(turn_record(2 + 2 * i, f"s{i}", f"b{i}", 110.0, arrived=0.0))
    records.append(turn_record(11, "tick", "t1", 2_000.0, arrived=70.0))  # the clock moves on
    one, sink, source = reader()
    one.process(records)
    one._handle_due()
    one.checkpoint()
    assert sorted(lines(sink)) == [(f"a{i}", f"b{i}") for i in range(5)]
    assert source.committed == {P: 0}  # z (and the tick) still held

    two, sink, _ = reader(through_kafka(source.notes[P]))
    two.process(records)  # re-read; revoked before anything is due
    _, notes = two.on_revoked([P])
    assert lines(sink) == []

    three, sink, _ = reader(through_kafka(notes[P]))
    three.process(records)
    three._handle_due()
    assert lines(sink) == []


def test_thousands_of_open_sessions_on_one_partition_write_no_line_twice() -> None:
    """Issue 70.5. One turn partition, 3,000 sessions whose second turn is held when the
    replica commits: the note names all 3,000 (a note by key named ~747, then "all again");
    the next owner re-reads every pair and writes none of them twice — then, once a third
    turn comes to one session, exactly its one new line."""
    records = []
    for i in range(3_000):
        records.append(turn_record(2 * i, f"s{i}", f"a{i}", 100.0, arrived=0.0))
        records.append(turn_record(2 * i + 1, f"s{i}", f"b{i}", 110.0, arrived=0.0))
    records.append(turn_record(6_000, "tick", "t1", 2_000.0, arrived=10.0))
    one, sink, source = reader()
    one.process(records)
    one._handle_due()
    one.checkpoint()
    assert len(lines(sink)) == 3_000 and source.committed == {P: 1}

    two, sink, _ = reader(through_kafka(source.notes[P]))
    two.process(records[1:])  # from the committed offset
    two.process([turn_record(6_001, "s7", "c7", 120.0, arrived=11.0),
                 turn_record(6_002, "tick", "t2", 2_001.0, arrived=20.0)])  # fmt: skip
    two._handle_due()
    assert lines(sink) == [("b7", "c7")]
