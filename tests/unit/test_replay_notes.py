"""Replay notes: what a commit tells the next reader of a partition about the records past
its committed offset, so that a restart re-evaluates only the traces that were unfinished —
never a trace evaluated whole before, never a fragment of one counted as an
instrumentation problem."""

from __future__ import annotations

import base64
import random
import time

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.model import RagTrace
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, ReplayNote, SourceRecord, trace_key
from monitor.sources.kafka_notes import MAX_NOTE_BYTES, decode_note, encode_note
from monitor.telemetry import Metrics
from sinks.memory import InMemorySink
from tests import otel_spans
from tests.unit.judge.test_stage import GatedJudge, stage
from tests.unit.test_assembly import Clock, rec, traces

PART = ("otlp_spans", 0)


def test_a_note_reads_back_as_written_and_never_past_the_brokers_limit() -> None:
    """Kafka keeps a commit's metadata up to offset.metadata.max.bytes (4096 by default): a
    note whose bits would not fit keeps as many as fit (the traces past them are unknown:
    news); anything that is not a note (another tool's metadata, garbage) reads as no note.
    A note of ragmon/1 still reads (its keys)."""
    note = ReplayNote(1234, start=17, bits="1001" * 9 + "1")
    assert decode_note(encode_note(note)) == note
    assert decode_note(encode_note(ReplayNote(7, start=7))) == ReplayNote(7, start=7)
    rng = random.Random(5)
    noisy = "".join(rng.choice("01") for _ in range(60_000))  # incompressible
    said = encode_note(ReplayNote(10**12, start=3, bits=noisy))
    back = decode_note(said)
    assert len(said.encode()) <= MAX_NOTE_BYTES and back is not None
    assert 20_000 < len(back.bits) < 60_000 and noisy.startswith(back.bits)
    sparse = "".join("1" if rng.random() < 0.1 else "0" for _ in range(30_000))
    assert decode_note(encode_note(ReplayNote(9, start=1, bits=sparse))) == ReplayNote(
        9, start=1, bits=sparse
    )  # ~3,000 unfinished among 30,000, at random: all named
    assert len(encode_note(ReplayNote(9, start=1, bits=sparse), 200)) <= 200
    keys = frozenset({0, 1, 0xFFFFFFFF, trace_key("4bf92f3577b34da6a3ce929d0e0e4736")})
    v1 = (
        "ragmon/1 1234 "
        + base64.b64encode(b"".join(k.to_bytes(4, "big") for k in sorted(keys))).decode()
    )
    assert decode_note(v1) == ReplayNote(1234, keys)
    assert decode_note("ragmon/1 1234 *") == ReplayNote(1234)  # nothing known: all news
    for other in ("", "checkpoint-7", "ragmon/1 x *", "ragmon/1 5 !!!", "ragmon/1 5 AAA=",
                  "ragmon/2 1 2 3 !!", "ragmon/2 1 2 0 x", "ragmon/2 1 2 8 eJwDAAAAAAE=",
                  None):  # fmt: skip
        assert decode_note(other) is None
    assert encode_note(None) == ""


def trace_parts() -> tuple[bytes, bytes, str]:
    """One trace as two messages: its children, then its root."""
    made, native = otel_spans.openinference_langchain()
    children = [s for s in made if s.parent is not None]
    root = [s for s in made if s.parent is None]
    return (encode_spans(children).SerializeToString(),
            encode_spans(root).SerializeToString(), native["trace_id"])  # fmt: skip


def mixed(*messages: bytes) -> bytes:
    """Several messages' spans in one (kafkaexporter without partition_traces_by_id)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    out = ExportTraceServiceRequest()
    for raw in messages:
        one = ExportTraceServiceRequest()
        one.ParseFromString(raw)
        out.resource_spans.extend(one.resource_spans)
    return out.SerializeToString()


def test_after_a_restart_only_the_unfinished_traces_are_assembled_again() -> None:
    """Process one reads A's children mixed with B's, then A's root: A is evaluated, B still
    waits for its root when the partition is committed. Process two, given the note, reads
    both records again: A's spans — its root too — are a replay, counted as such and
    dropped; B is assembled whole once its root comes. Without a note, A's root re-read
    alone is a replay fragment too, not an unrecognised trace."""
    a_children, a_root, a = trace_parts()
    b_children, b_root, b = trace_parts()
    first = [rec(mixed(a_children, b_children), 0), rec(a_root, 1)]
    clock = Clock()
    limits = AssemblyLimits(quiet_seconds=2, max_wait_seconds=30)
    one = OtlpAssembler(limits=limits, clock=clock, replays=True)
    for r in first:
        one.feed(r)
    clock.now = 3.0
    assert [t.trace_id for t in traces(one.due())] == [a]
    pending = one.pending([PART])
    assert pending == {PART: {b}}
    note = one.notes({PART: (0, 2)}, pending)[PART]
    assert note == ReplayNote(2, start=0, bits="010")  # record 0: A done, B not; record 1: A

    two = OtlpAssembler(limits=limits, clock=clock, replays=True)
    two.resume({PART: note})
    refs = [two.feed(r)[1] for r in first]
    assert refs == [1, 0]  # the first record waits for B only; the second holds nothing new
    two.feed(rec(b_root, 2))
    clock.now = 6.0
    assert [t.trace_id for t in traces(two.due())] == [b]
    assert two.counts == {("replay_fragment", "late"): 2, ("openinference", "complete"): 1}

    # a commit without a note (an older ragmon) at offset 1: A's root is re-read alone
    blind = OtlpAssembler(limits=limits, clock=clock, replays=True)
    blind.feed(rec(a_root, 1))
    clock.now = 12.0
    assert traces(blind.due()) == []
    assert blind.counts == {("replay_fragment", "complete"): 1}  # not "unrecognised"


def test_a_trace_with_the_judge_is_named_unfinished_in_the_note() -> None:
    """A trace assembled and handed to the judge is finished in the assembler but not yet
    written: the note committed meanwhile names it, so a restart evaluates it again rather
    than dropping it as a replay (a lost line)."""
    children, root, trace_id = trace_parts()
    other_children, _, _ = trace_parts()
    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30),
                        clock=clock, replays=True)  # fmt: skip
    metrics = Metrics(CollectorRegistry())
    judge = GatedJudge()
    source = ListSource([children, root, other_children], source="otlp_spans")
    sink = InMemorySink()
    p = Pipeline(source, asm, CheckSuite(), [sink], judge_stage=stage(judge, metrics),
                 judge_drain_seconds=5, sleep=lambda _: None)  # fmt: skip
    p.start()
    p.process(source.poll(10, 0))
    clock.now = 3.0
    p._handle_due()
    deadline = time.monotonic() + 10
    while judge.calls == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert judge.calls == 1 and sink.evaluations == []  # with the judge
    p.checkpoint()
    assert source.committed == {PART: 0}
    # records 0 and 1: the trace with the judge; record 2: the one waiting for its root
    assert source.notes[PART] == ReplayNote(3, start=0, bits="111")
    judge.gate.set()
    while not sink.evaluations and time.monotonic() < deadline:
        p._write_judged(p.judge_stage.drain(wait=0.1))  # type: ignore[union-attr]
    p.checkpoint()
    assert [e.trace.trace_id for e in sink.evaluations] == [trace_id]
    assert source.committed == {PART: 2}  # the third record waits for its trace's root
    assert source.notes[PART] == ReplayNote(3, start=2, bits="1")
    p.close()
    assert isinstance(sink.evaluations[0].trace, RagTrace)


LIMITS = AssemblyLimits(quiet_seconds=2, max_wait_seconds=30)


def reader(
    clock: Clock, note: ReplayNote | None = None
) -> tuple[Pipeline, InMemorySink, ListSource]:
    """A process reading the partition: its pipeline on an assembler that knows records are
    read again after a restart, its sink, and the source its commits go to (given ``note``,
    as the Kafka source gives the note committed with a partition it is assigned)."""
    asm = OtlpAssembler(limits=LIMITS, clock=clock, replays=True)
    sink = InMemorySink()
    source = ListSource([], source="otlp_spans")
    p = Pipeline(source, asm, CheckSuite(), [sink], sleep=lambda _: None)
    if note is not None:
        p.on_resumed({PART: note})
    return p, sink, source


def through_kafka(note: ReplayNote) -> ReplayNote:
    """A note as the next reader reads it back from a commit's metadata."""
    back = decode_note(encode_note(note))
    assert back is not None
    return back


def evaluated(sink: InMemorySink) -> list[str]:
    return [e.trace.trace_id for e in sink.evaluations]


def test_a_backlog_past_any_list_of_keys_is_named_whole_and_no_rootless_trace_is_lost() -> None:
    """Issue 69.1: a process with a backlog holds more unfinished traces than a note could
    name by key (~740), among them traces whose root never comes (sampled away upstream).
    The next reader must drop none of them — and re-evaluate none of the finished ones."""
    rootless = [trace_parts() for _ in range(1_500)]
    whole = [trace_parts() for _ in range(500)]
    values = [mixed(*(c for c, _, _ in rootless[i : i + 10])) for i in range(0, 1_500, 10)]
    values += [mixed(*(c for c, _, _ in whole[i : i + 10])) for i in range(0, 500, 10)]
    values += [mixed(*(r for _, r, _ in whole[i : i + 10])) for i in range(0, 500, 10)]
    records = [rec(v, i) for i, v in enumerate(values)]
    clock = Clock()
    one, one_sink, one_source = reader(clock)
    one.process(records)
    clock.now = 3.0
    one._handle_due()
    one.checkpoint()
    assert sorted(evaluated(one_sink)) == sorted(t for _, _, t in whole)
    assert one_source.committed == {PART: 0}

    two, two_sink, _ = reader(clock, through_kafka(one_source.notes[PART]))
    two.process(records)
    clock.now = 40.0  # past the max wait: the traces without a root go as they are
    two._handle_due()
    assert sorted(evaluated(two_sink)) == sorted(t for _, _, t in rootless)


def three_traces() -> tuple[list[SourceRecord], bytes, str]:
    """Records 0-3: A's and B's children, A's root, C's children, C's root; B's root comes
    later (returned, with B's id)."""
    a_children, a_root, _ = trace_parts()
    b_children, b_root, b = trace_parts()
    c_children, c_root, _ = trace_parts()
    values = [mixed(a_children, b_children), a_root, c_children, c_root]
    return [rec(v, i) for i, v in enumerate(values)], b_root, b


def first_life(records: list[SourceRecord], clock: Clock) -> ReplayNote:
    """The first process reads every record; A and C are evaluated, B waits for its root
    when it commits (offset 0: B's first record) and stops."""
    one, sink, source = reader(clock)
    one.process(records)
    clock.now += 3.0
    one._handle_due()
    one.checkpoint()
    assert len(sink.evaluations) == 2 and source.committed == {PART: 0}
    return through_kafka(source.notes[PART])


def test_a_partition_is_read_against_its_note_until_past_its_end_whenever_it_commits() -> None:
    """Issue 69.2: the next reader commits after re-reading records 0-1 of the four below
    the note's end; records 2-3 (C, evaluated before) are still a replay after that commit:
    only B is evaluated, once its root comes."""
    clock = Clock()
    records, b_root, b = three_traces()
    note = first_life(records, clock)
    two, sink, source = reader(clock, note)
    two.process(records[:2])
    two.checkpoint()
    assert source.committed == {PART: 0}
    two.process([*records[2:], rec(b_root, 4)])
    clock.now += 3.0
    two._handle_due()
    assert evaluated(sink) == [b]


def test_a_reader_revoked_right_after_joining_carries_the_old_note_forward() -> None:
    """Issue 69.3: the second reader is revoked after re-reading one record of the four
    below the note's end. The note it commits must still rule out A and C, which the
    first process evaluated: the third reader evaluates B alone."""
    clock = Clock()
    records, b_root, b = three_traces()
    note = first_life(records, clock)
    two, two_sink, _ = reader(clock, note)
    two.process(records[:1])
    offsets, notes = two.on_revoked([PART])
    assert offsets == {PART: 0} and two_sink.evaluations == []
    three, sink, _ = reader(clock, through_kafka(notes[PART]))
    three.process([*records, rec(b_root, 4)])
    clock.now += 3.0
    three._handle_due()
    assert evaluated(sink) == [b]


def test_past_the_bits_of_a_note_cut_short_nothing_is_dropped_and_each_line_says_unsure() -> None:
    """A note too long for the broker keeps the bits that fit. Below them the reader drops
    what was finished; past them it cannot tell, so it evaluates every trace it meets first
    there again (a duplicate at most, never a loss), marks its line and counts it."""
    rootless, _, waiting = trace_parts()
    finished = [trace_parts() for _ in range(120)]
    values = [mixed(rootless, *finished[0][:2])]
    values += [mixed(children, root) for children, root, _ in finished[1:]]
    records = [rec(v, i) for i, v in enumerate(values)]
    clock = Clock()
    one, one_sink, source = reader(clock)
    one.process(records)
    clock.now = 3.0
    one._handle_due()
    one.checkpoint()
    assert len(one_sink.evaluations) == 120 and source.committed == {PART: 0}
    full = source.notes[PART]
    assert len(full.bits) == 121  # record 0: two traces; the others: one each
    short = through_kafka(ReplayNote(full.read_end, start=full.start, bits=full.bits[:41]))

    metrics = Metrics(CollectorRegistry())
    asm = OtlpAssembler(limits=LIMITS, clock=clock, replays=True, observer=metrics)
    sink = InMemorySink()
    two = Pipeline(ListSource([], source="otlp_spans"), asm, CheckSuite(), [sink])
    two.on_resumed({PART: short})
    two.process(records)
    clock.now = 40.0
    two._handle_due()
    again = [e.trace for e in sink.evaluations if e.trace.trace_id != waiting]
    known = len(short.bits) - 1  # finished traces whose bits were kept (the first: record 0's)
    assert sorted(t.trace_id for t in again) == sorted(t for _, _, t in finished[known:])
    assert all(t.attributes.get("ragmon.replay") == "unsure" for t in again)
    assert [e.trace.trace_id for e in sink.evaluations if e.trace.trace_id == waiting] == [waiting]
    assert metrics.registry.get_sample_value("ragmon_assembly_replay_unsure_total") == len(again)
