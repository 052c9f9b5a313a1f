"""Replay notes: what a commit tells the next reader of a partition about the records past
its committed offset, so that a restart re-evaluates only the traces that were unfinished —
never a trace evaluated whole before, never a fragment of one counted as an
instrumentation problem."""

from __future__ import annotations

import time

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.model import RagTrace
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, ReplayNote, trace_key
from monitor.sources.kafka import MAX_NOTE_BYTES, decode_note, encode_note
from monitor.telemetry import Metrics
from sinks.memory import InMemorySink
from tests import otel_spans
from tests.unit.judge.test_stage import GatedJudge, stage
from tests.unit.test_assembly import Clock, rec, traces

PART = ("otlp_spans", 0)


def test_a_note_reads_back_as_written_and_never_past_the_brokers_limit() -> None:
    """Kafka keeps a commit's metadata up to offset.metadata.max.bytes (4096 by default):
    a note whose keys would not fit says "unknown" (``*``) instead; anything that is not a
    note (another tool's metadata, garbage) reads as no note."""
    keys = frozenset({0, 1, 0xFFFFFFFF, trace_key("4bf92f3577b34da6a3ce929d0e0e4736")})
    assert decode_note(encode_note(ReplayNote(1234, keys))) == ReplayNote(1234, keys)
    assert decode_note(encode_note(ReplayNote(7, frozenset()))) == ReplayNote(7, frozenset())
    assert decode_note(encode_note(ReplayNote(7, None))) == ReplayNote(7, None)
    many = frozenset(range(5_000))
    said = encode_note(ReplayNote(10**12, many))
    assert len(said.encode()) <= MAX_NOTE_BYTES and decode_note(said) == ReplayNote(10**12, None)
    fits = frozenset(range(740))
    assert decode_note(encode_note(ReplayNote(10**12, fits))) == ReplayNote(10**12, fits)
    for other in ("", "checkpoint-7", "ragmon/1 x *", "ragmon/1 5 !!!", "ragmon/1 5 AAA=", None):
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
    assert pending == {PART: {trace_key(b)}}
    note = ReplayNote(2, frozenset(pending[PART]))

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
    other_children, _, waiting = trace_parts()
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
    assert source.notes[PART] == ReplayNote(3, frozenset({trace_key(trace_id),
                                                          trace_key(waiting)}))  # fmt: skip
    judge.gate.set()
    while not sink.evaluations and time.monotonic() < deadline:
        p._write_judged(p.judge_stage.drain(wait=0.1))  # type: ignore[union-attr]
    p.checkpoint()
    assert [e.trace.trace_id for e in sink.evaluations] == [trace_id]
    assert source.committed == {PART: 2}  # the third record waits for its trace's root
    assert source.notes[PART] == ReplayNote(3, frozenset({trace_key(waiting)}))
    p.close()
    assert isinstance(sink.evaluations[0].trace, RagTrace)
