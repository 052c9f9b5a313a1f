"""Streaming assembly: quiet period, max wait, bounds, late spans, revocation, and offsets
held open in the pipeline while a message's spans are buffered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from monitor.checks import CheckSuite
from monitor.core.model import DeadLetter, RagTrace
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.ingest.decoder import Decoded
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, ReadProgress, SourcePosition, SourceRecord
from sinks.memory import InMemorySink
from tests import otel_spans


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def rec(value: bytes, offset: int, partition: int = 0) -> SourceRecord:
    return SourceRecord(SourcePosition("otlp_spans", partition, offset), value)


def halves() -> tuple[bytes, bytes, str]:
    """One LangChain trace split in two messages: children first, the root span last
    (spans are exported as they end)."""
    made, native = otel_spans.openinference_langchain()
    root = [s for s in made if s.parent is None]
    children = [s for s in made if s.parent is not None]
    return (
        encode_spans(children).SerializeToString(),
        encode_spans(root).SerializeToString(),
        native["trace_id"],
    )


def traces(items: list[Decoded]) -> list[RagTrace]:
    return [d.item for d in items if isinstance(d.item, RagTrace)]


def test_emits_after_root_and_quiet_period_with_all_positions() -> None:
    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30), clock=clock)
    first, second, trace_id = halves()
    assert asm.feed(rec(first, 10)) == ([], 1)
    clock.now = 5.0
    assert asm.due() == []  # quiet for 5 s, but the root span has not arrived
    assert asm.feed(rec(second, 11)) == ([], 1)
    clock.now = 6.0
    assert asm.due() == []  # root arrived 1 s ago: not quiet yet
    clock.now = 7.5
    (done,) = asm.due()
    assert isinstance(done.item, RagTrace) and done.item.trace_id == trace_id
    assert done.positions == ((("otlp_spans", 0), 10), (("otlp_spans", 0), 11))
    assert "ragmon.incomplete" not in done.item.attributes
    assert asm.counts == {("openinference", "complete"): 1} and asm.buffered == 0


def test_max_wait_emits_incomplete_and_late_spans_are_counted() -> None:
    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=1, max_wait_seconds=10), clock=clock)
    first, second, _ = halves()
    asm.feed(rec(first, 1))
    clock.now = 10.0
    (done,) = asm.due()
    # no root: question/answer of the root are missing, the trace is still evaluated
    assert asm.counts[(done.item.attributes["ragmon.convention"], "max_wait")] == 1  # type: ignore[union-attr]
    assert done.item.attributes["ragmon.incomplete"] == "max_wait"  # type: ignore[union-attr]
    items, refs = asm.feed(rec(second, 2))  # the root, too late
    assert (items, refs) == ([], 0) and asm.counts[("-", "late")] == 1


def test_bounds_evict_oldest_first_as_incomplete() -> None:
    """Over the trace-count or byte bound the oldest trace leaves first, evaluated and
    marked incomplete, never dropped."""
    built = [otel_spans.openinference_langchain() for _ in range(3)]
    messages = [encode_spans(spans).SerializeToString() for spans, _ in built]
    by_count = OtlpAssembler(limits=AssemblyLimits(max_traces=2))
    out = [traces(by_count.feed(rec(m, i))[0]) for i, m in enumerate(messages)]
    assert [len(o) for o in out] == [0, 0, 1] and by_count.buffered == 2
    assert out[2][0].trace_id == built[0][1]["trace_id"]
    assert out[2][0].attributes["ragmon.incomplete"] == "evicted"
    by_bytes = OtlpAssembler(limits=AssemblyLimits(max_bytes=len(messages[0]) * 3 // 2))
    out = [traces(by_bytes.feed(rec(m, i))[0]) for i, m in enumerate(messages)]
    assert [len(o) for o in out] == [0, 1, 1] and by_bytes.buffered == 1
    assert by_bytes.counts == {("openinference", "evicted"): 2}


def test_one_message_many_traces_and_revocation() -> None:
    """kafkaexporter without partition_traces_by_id: one message, several traces."""
    a, _ = otel_spans.openinference_langchain()
    b, _ = otel_spans.genai_current()
    asm = OtlpAssembler()
    items, refs = asm.feed(rec(encode_spans(a + b).SerializeToString(), 0))
    assert (items, refs) == ([], 2) and asm.buffered == 2
    asm.feed(rec(encode_spans(otel_spans.openinference_langchain()[0]).SerializeToString(), 0, 1))
    asm.revoke([("otlp_spans", 0)])
    assert asm.buffered == 1  # only the partition-1 trace is still ours


def test_bad_messages_are_dead_letters_with_their_position() -> None:
    asm = OtlpAssembler("otlp_json")
    ((letter,), refs) = asm.feed(rec(b"\x00garbage", 7))
    assert refs == 1 and isinstance(letter.item, DeadLetter)
    assert letter.item.reason == "invalid_otlp_json" and letter.item.offset == 7
    big = OtlpAssembler(max_message_bytes=10)
    ((letter,), _) = big.feed(rec(b"x" * 11, 8))
    assert isinstance(letter.item, DeadLetter) and letter.item.reason == "too_large"


def test_an_empty_request_is_no_dead_letter_and_is_counted() -> None:
    """A zero-byte record is the protobuf encoding of an ExportTraceServiceRequest with no
    spans, as ``{}`` and ``{"resourceSpans": []}`` are in OTLP/JSON: valid OTLP (a server
    answers an empty request with success), nothing to assemble. No dead letter, nothing
    buffered, and counted (it went by unseen)."""
    from prometheus_client import CollectorRegistry

    from monitor import registry

    metrics = registry.build_metrics(CollectorRegistry())
    for fmt, values in (("otlp_proto", [b""]), ("otlp_json", [b"{}", b'{"resourceSpans": []}'])):
        asm = OtlpAssembler(fmt, observer=metrics)
        for offset, value in enumerate(values):
            assert asm.feed(rec(value, offset)) == ([], 0)
        assert asm.buffered == 0 and asm.counts == {("-", "empty"): len(values)}
    got = metrics.registry.get_sample_value(
        "ragmon_assembly_traces_total", {"convention": "-", "outcome": "empty"})  # fmt: skip
    assert got == 3
    assert (
        metrics.registry.get_sample_value(  # not a trace of any instrumentation
            "ragmon_otlp_instrumentation_traces_total",
            {"instrumentation": "none", "version": "none", "convention": "-"},
        )
        is None
    )


class Source(ListSource):
    """A list of records that never runs dry (the daemon case), records set per poll."""

    def __init__(self) -> None:
        super().__init__([])
        self.pending: list[SourceRecord] = []

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        out, self.pending = self.pending, []
        return out

    @property
    def exhausted(self) -> bool:
        return False


def test_pipeline_keeps_buffered_messages_uncommitted() -> None:
    """The offset of a message whose spans wait in the buffer is never committed; once
    the trace is emitted and written, the watermark passes it."""
    clock = Clock()
    first, second, trace_id = halves()
    other = encode_spans(otel_spans.genai_current()[0]).SerializeToString()
    sink = InMemorySink()
    source = Source()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=1, max_wait_seconds=60), clock=clock)
    pipeline = Pipeline(source, asm, CheckSuite(), [sink])
    key = ("otlp_spans", 0)
    pipeline.process([rec(first, 0), rec(other, 1)])
    assert pipeline.checkpoint_state.committable() == {key: 0}  # offset 0 is open
    clock.now = 2.0
    pipeline._handle_due()
    # the GenAI trace (complete in message 1) is written; message 0 still holds spans
    assert [e.trace.attributes["ragmon.convention"] for e in sink.evaluations] == ["otel_genai"]
    assert pipeline.checkpoint_state.committable() == {key: 0}
    pipeline.process([rec(second, 2)])
    clock.now = 4.0
    pipeline._handle_due()
    assert sink.evaluations[-1].trace.trace_id == trace_id
    assert pipeline.checkpoint_state.committable() == {key: 3}


def test_replayed_file_flushes_at_end(tmp_path: Any) -> None:
    """A finite source flushes the buffer when it ends: a trace without its root span is
    evaluated as incomplete (end_of_input), nothing is left behind."""
    first, _, _ = halves()
    sink = InMemorySink()
    pipeline = Pipeline(ListSource([first]), OtlpAssembler(), CheckSuite(), [sink])
    import threading

    pipeline.run(threading.Event())
    (evaluation,) = sink.evaluations
    assert evaluation.trace.attributes["ragmon.incomplete"] == "end_of_input"
    assert pipeline.source.committed == {("list", 0): 1}  # type: ignore[attr-defined]


# --- fuzzing: nothing read ever raises; bad messages become dead letters ----------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from monitor.ingest.conventions import map_spans  # noqa: E402
from monitor.ingest.otlp import Event, Span  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=400), fmt=st.sampled_from(["otlp_proto", "otlp_json"]))
def test_arbitrary_bytes_become_dead_letters_or_spans(raw: bytes, fmt: str) -> None:
    asm = OtlpAssembler(fmt)
    items, refs = asm.feed(rec(raw, 0))
    items += asm.due(flush=True)
    letters = [d for d in items if isinstance(d.item, DeadLetter)]
    assert len(letters) <= 1 and all(d.positions == ((("otlp_spans", 0), 0),) for d in items)
    if letters:
        assert refs == 1 and letters[0].item.raw == raw  # type: ignore[union-attr]
        # a named reason, never one that means a decoder let bad input through
        assert letters[0].item.reason not in ("decode_failed", "mapping_failed")  # type: ignore[union-attr]


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 255)), max_size=4))
def test_mutated_messages_never_raise(cuts: list[tuple[int, int]]) -> None:
    spans, _ = otel_spans.CONVENTIONS["otel_genai"]()
    good = bytearray(encode_spans(spans).SerializeToString())
    for at, value in cuts:
        good[at % len(good)] = value
    asm = OtlpAssembler()
    asm.feed(rec(bytes(good), 0))
    asm.due(flush=True)


KEYS = [
    "openinference.span.kind", "input.value", "output.value", "llm.model_name",
    "retrieval.documents.0.document.content", "retrieval.documents.0.document.metadata",
    "reranker.output_documents.0.document.id", "llm.output_messages.0.message.content",
    "llm.input_messages.0.message.content", "gen_ai.operation.name", "gen_ai.provider.name",
    "gen_ai.retrieval.documents", "gen_ai.retrieval.query.text", "gen_ai.input.messages",
    "gen_ai.output.messages", "gen_ai.system_instructions", "gen_ai.prompt", "gen_ai.completion",
    "gen_ai.prompt.0.content", "gen_ai.completion.0.content", "traceloop.entity.input",
    "traceloop.entity.output", "traceloop.span.kind", "db.vector.query.top_k",
]  # fmt: skip
VALUES = st.one_of(
    st.text(max_size=30), st.integers(), st.floats(allow_nan=True), st.booleans(),
    st.sampled_from(["RETRIEVER", "LLM", "RERANKER", "retrieval", "chat", '{"question": 1}',
                     '[{"role": "user", "parts": 5}]', '[{"id": null, "score": "x"}]', "[1, 2]",
                     '{"args": [[]]}', '"quoted"', "[", "__REDACTED__"]),
    st.lists(st.text(max_size=5), max_size=3),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(attrs=st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8), min_size=1,
                      max_size=4),
       events=st.lists(st.tuples(st.sampled_from(["db.query.result", "gen_ai.choice",
                                                  "gen_ai.content.prompt", "x"]),
                                 st.dictionaries(st.sampled_from(
                                     ["db.query.result.id", "db.query.result.document",
                                      "db.query.result.score", "message", "gen_ai.prompt"]),
                                     VALUES, max_size=3)), max_size=3))  # fmt: skip
def test_mapping_never_raises_on_odd_attribute_values(
    attrs: list[dict[str, Any]], events: list[tuple[str, dict[str, Any]]]
) -> None:
    """Attribute values of the wrong type or malformed JSON map or are unrecognised."""
    spans = [Span("ab" * 16, f"{i:016x}", "" if i == 0 else f"{0:016x}", f"s{i}", i, i + 1, a)
             for i, a in enumerate(attrs)]  # fmt: skip
    spans[-1].events = [Event(name, a) for name, a in events]
    mapped = map_spans(spans)
    assert (mapped.trace is None) == (mapped.convention in ("unrecognised", "content_missing"))


def test_held_is_the_lowest_buffered_offset_per_partition() -> None:
    """What a partition revoked and assigned straight back must be read again from."""
    first, second, _ = halves()
    asm = OtlpAssembler()
    asm.feed(rec(first, 4))
    asm.feed(rec(second, 9))
    asm.feed(rec(first, 2, partition=1))
    assert asm.buffered_from([("otlp_spans", 0), ("otlp_spans", 1), ("otlp_spans", 2)]) == {
        ("otlp_spans", 0): 4,
        ("otlp_spans", 1): 2,
    }


def test_a_root_with_a_remote_parent_completes_the_trace() -> None:
    """The app's entry span has a parent in an upstream service (W3C traceparent) that
    exports nowhere: that span still completes the trace after the quiet period."""
    from opentelemetry import trace as otel_trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.langchain")
    upstream = SpanContext(0xABC, 0xDEF, is_remote=True, trace_flags=TraceFlags(1))
    ctx = otel_trace.set_span_in_context(NonRecordingSpan(upstream))
    with tracer.start_as_current_span("RunnableSequence", context=ctx) as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", otel_spans.QUESTION)
        with tracer.start_as_current_span("retrieve") as r:
            r.set_attribute("openinference.span.kind", "RETRIEVER")
            r.set_attribute("retrieval.documents.0.document.content", otel_spans.PASSAGES[0])
        root.set_attribute("output.value", otel_spans.ANSWER)
    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=1, max_wait_seconds=60), clock=clock)
    asm.feed(rec(encode_spans(list(exporter.get_finished_spans())).SerializeToString(), 0))
    clock.now = 1.5
    (done,) = asm.due()
    assert isinstance(done.item, RagTrace) and "ragmon.incomplete" not in done.item.attributes
    assert done.item.query == otel_spans.QUESTION


def test_a_mapping_that_raises_is_a_dead_letter_not_unrecognised(monkeypatch: Any) -> None:
    """A bug in the convention mapping turns the trace into a ``mapping_failed`` dead letter
    at its first record (its spans as JSON in the raw bytes), counted as such; the records
    are still finished, so the partition does not stall."""
    import monitor.ingest.assembly

    def broken(spans: Any, extra: Any = None) -> Any:
        raise AttributeError("'int' object has no attribute 'startswith'")

    monkeypatch.setattr(monitor.ingest.assembly, "map_spans", broken)
    clock = Clock()
    asm = OtlpAssembler(clock=clock)
    first, second, trace_id = halves()
    asm.feed(rec(first, 3))
    asm.feed(rec(second, 4))
    clock.now = 10.0
    (done,) = asm.due()
    assert isinstance(done.item, DeadLetter)
    assert done.item.reason == "mapping_failed" and "AttributeError" in done.item.detail
    assert (done.item.source, done.item.offset) == ("otlp_spans", 3)
    assert trace_id in done.item.raw.decode()
    assert done.positions == ((("otlp_spans", 0), 3), (("otlp_spans", 0), 4))
    assert asm.counts == {("mapping_failed", "complete"): 1}


def test_an_all_zero_parent_span_id_is_a_root() -> None:
    """Some SDKs write eight zero bytes for "no parent": such a span is the root."""
    from monitor.ingest.otlp import decode_json

    body = (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "'
        + b"ab" * 16
        + b'", "spanId": "'
        + b"cd" * 8
        + b'", "parentSpanId": "'
        + b"0" * 16
        + b'"}]}]}]}'
    )
    (span,) = decode_json(body)
    assert span.parent_span_id == ""


def test_a_stop_evaluates_every_span_the_http_receiver_accepted() -> None:
    """OTLP/HTTP answered 200, so a graceful stop may not drop those spans: queued requests
    are decoded, traces still in their quiet period are evaluated as they are, and a trace
    whose root never came is evaluated marked incomplete; a request after the stop gets 503."""
    import http.client
    import threading

    from monitor.sources.otlp_http import OtlpHttpSource

    src = OtlpHttpSource("127.0.0.1", 0)
    sink = InMemorySink()
    limits = AssemblyLimits(quiet_seconds=60, max_wait_seconds=600)
    pipeline = Pipeline(src, OtlpAssembler(limits=limits), CheckSuite(), [sink],
                        sleep=lambda _: None)  # fmt: skip
    pipeline.start()
    whole, _ = otel_spans.openinference_langchain()
    first, _, rootless_id = halves()

    def post(body: bytes) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", src.port, timeout=5)
        conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        status = conn.getresponse().status
        conn.close()
        return status

    try:
        assert post(encode_spans(whole).SerializeToString()) == 200
        assert post(first) == 200  # children only: the root never arrives
        stop = threading.Event()
        stop.set()  # SIGTERM before the pipeline polled anything
        pipeline.run(stop)
        assert post(first) == 503
    finally:
        pipeline.close()
    by_id = {e.trace.trace_id: e.trace for e in sink.evaluations}
    assert len(by_id) == 2 and rootless_id in by_id
    assert by_id[rootless_id].attributes["ragmon.incomplete"] == "end_of_input"
    assert sum("ragmon.incomplete" in t.attributes for t in by_id.values()) == 1


def rec_at(value: bytes, offset: int, timestamp: float, partition: int = 0) -> SourceRecord:
    return SourceRecord(SourcePosition("otlp_spans", partition, offset), value,
                        timestamp=timestamp)  # fmt: skip


def caught_up(wall: Clock, *partitions: int) -> Callable[[], ReadProgress]:
    """Kafka's progress: ``partitions`` assigned, every one read to its end as of ``wall``'s
    time when asked (a fresh end offset already reached)."""
    parts = frozenset(("otlp_spans", p) for p in partitions)
    return lambda: ReadProgress(parts, frozenset(), dict.fromkeys(parts, wall.now))


def test_max_wait_counts_in_record_time_so_a_reread_trace_is_not_held_again() -> None:
    """A rootless trace read again after a restart keeps its record time: once the stream
    has been read past its max wait it is emitted at once, with no wall-clock wait; a record
    time ahead of this machine's clock counts as now."""
    clock, wall = Clock(), Clock()
    wall.now = 10_000.0
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30),
                        clock=clock, wall=wall)  # fmt: skip
    first, _, rootless = halves()
    whole, _ = otel_spans.openinference_langchain()
    behind = lambda: ReadProgress(frozenset({("otlp_spans", 0)}), frozenset({("otlp_spans", 0)}))  # noqa: E731
    asm.feed(rec_at(first, 0, 9_000.0))  # written 1,000 s ago, before the crash loop
    assert asm.due(progress=behind) == []  # the stream itself has not moved yet
    clock.now = 1.0
    asm.feed(rec_at(encode_spans(whole).SerializeToString(), 1, 9_031.0))
    (done,) = asm.due(progress=behind)
    assert isinstance(done.item, RagTrace) and done.item.trace_id == rootless
    assert done.item.attributes["ragmon.incomplete"] == "max_wait"
    # a producer clock 10 minutes ahead: its records count as written now
    later, _, ahead = halves()
    asm.feed(rec_at(later, 2, wall.now + 600))
    clock.now = 20.0
    early = [d.item.trace_id for d in asm.due(progress=caught_up(wall, 0))
             if isinstance(d.item, RagTrace)]  # fmt: skip
    assert ahead not in early  # not "570 s overdue"
    wall.now += 31
    clock.now = 20.5  # the arrival-time ceiling (40) is far off
    ids = [
        d.item.trace_id
        for d in asm.due(progress=caught_up(wall, 0))
        if isinstance(d.item, RagTrace)
    ]
    assert ids == [ahead]


def split_at_the_model_call() -> tuple[bytes, bytes, str]:
    """One trace as the kafkaexporter may write it: its root and model call in one batch,
    its retriever span (with the passages) in another."""
    made, native = otel_spans.openinference_langchain()
    kinds = [(s.attributes or {}).get("openinference.span.kind") for s in made]
    retriever = [s for s, k in zip(made, kinds, strict=True) if k == "RETRIEVER"]
    rest = [s for s, k in zip(made, kinds, strict=True) if k != "RETRIEVER"]
    assert retriever and rest
    return (encode_spans(rest).SerializeToString(),
            encode_spans(retriever).SerializeToString(), native["trace_id"])  # fmt: skip


def test_catching_up_never_cuts_a_trace_whose_spans_sit_on_a_partition_not_read_yet() -> None:
    """A new consumer over a backlog reads partition 0 forty record-seconds ahead of
    partition 1: the trace whose root and model call came from partition 0 waits for its
    retriever span on partition 1, and comes out whole and complete — not cut at the max
    wait with its passages arriving late."""
    clock, wall = Clock(), Clock()
    wall.now = 100_000.0
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30),
                        clock=clock, wall=wall, replays=True)  # fmt: skip
    parts = frozenset({("otlp_spans", 0), ("otlp_spans", 1)})
    behind = set(parts)
    progress = lambda: ReadProgress(parts, frozenset(behind),  # noqa: E731
                                    {p: wall.now for p in parts - behind})  # fmt: skip
    rest, retriever, trace_id = split_at_the_model_call()
    t0 = 50_000.0
    out = traces(asm.feed(rec_at(rest, 0, t0))[0])
    for i in range(1, 41):  # forty seconds of other traffic on partition 0
        clock.now += 0.01
        other = encode_spans(otel_spans.genai_current()[0]).SerializeToString()
        out += traces(asm.feed(rec_at(other, i, t0 + i))[0])
        out += traces(asm.due(progress=progress))
    assert trace_id not in {t.trace_id for t in out}  # partition 1 is not read that far
    clock.now += 0.2
    asm.feed(rec_at(retriever, 0, t0 + 0.1, partition=1))
    behind.discard(("otlp_spans", 1))  # partition 1 read to its end
    asm.feed(rec_at(encode_spans(otel_spans.genai_current()[0]).SerializeToString(), 41, t0 + 41))
    behind.discard(("otlp_spans", 0))
    clock.now += 0.2
    out += traces(asm.due(progress=progress))
    (whole,) = [t for t in out if t.trace_id == trace_id]
    assert "ragmon.incomplete" not in whole.attributes
    assert [c.text for c in whole.context] == otel_spans.PASSAGES
    assert not any(o == "late" for _, o in asm.counts)
    assert all(o == "complete" for _, o in asm.counts), asm.counts


def test_a_catch_up_into_live_traffic_waits_for_fresh_evidence_not_the_wall_clock() -> None:
    """A member caught up over a backlog into live traffic: by the end offset its last fetch
    response carried, partition 0 has no lag, but that answer is seconds old and the trace's
    retriever span, written 1.4 s after its root, is not fetched yet. The stream clock must
    not take this machine's clock for it (the trace would be cut without its passages,
    ``unrecognised``, its late span dropped and its offsets committed): it moves only with
    records read and end offsets asked and reached."""
    clock, wall = Clock(), Clock()
    wall.now = 1_000.0
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30),
                        clock=clock, wall=wall, replays=True)  # fmt: skip
    part = ("otlp_spans", 0)
    read_to = {part: 994.0}  # the last end offset asked and reached: before the backlog's end
    progress = lambda: ReadProgress(frozenset({part}), frozenset(), read_to)  # noqa: E731
    rest, retriever, trace_id = split_at_the_model_call()
    asm.feed(rec_at(rest, 0, 995.0))  # the root and model call, read 5 s after they were written
    for step in range(1, 6):  # seconds pass on this machine; no fresh evidence yet
        clock.now, wall.now = step * 0.5, 1_000.0 + step * 0.5
        assert asm.due(progress=progress) == []
    asm.feed(rec_at(retriever, 1, 996.4))  # fetched at last
    read_to[part] = wall.now  # a fresh end offset, reached
    clock.now += 0.2
    (whole,) = traces(asm.due(progress=progress))
    assert whole.trace_id == trace_id and "ragmon.incomplete" not in whole.attributes
    assert [c.text for c in whole.context] == otel_spans.PASSAGES
    assert asm.counts == {("openinference", "complete"): 1}


def test_a_partition_that_stays_behind_delays_a_trace_by_at_most_the_max_wait() -> None:
    """The max wait in arrival time is a ceiling: a partition whose fetch never returns does
    not hold a trace (and the commit behind it) for good."""
    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30), clock=clock)
    parts = frozenset({("otlp_spans", 0), ("otlp_spans", 1)})
    stuck = lambda: ReadProgress(parts, frozenset({("otlp_spans", 1)}))  # noqa: E731
    rest, _, trace_id = split_at_the_model_call()
    asm.feed(rec_at(rest, 0, 1_000.0))
    clock.now = 29.0
    assert asm.due(progress=stuck) == []
    clock.now = 30.0
    (done,) = asm.due(progress=stuck)  # without its passages: not evaluated, but released
    assert done.positions == ((("otlp_spans", 0), 0),) and asm.buffered == 0
    assert [o for _, o in asm.counts] == ["max_wait"] and trace_id


def fragment() -> bytes:
    """Spans of a trace without its root and without any model call: what a restart can
    re-read of a trace whose other spans were evaluated before it."""
    made, _ = otel_spans.openinference_langchain()
    kept = [s for s in made if s.parent is not None
            and (s.attributes or {}).get("openinference.span.kind") != "LLM"]  # fmt: skip
    return encode_spans(kept).SerializeToString()


def test_replayed_fragments_are_counted_as_such_not_as_instrumentation_problems() -> None:
    asm = OtlpAssembler(replays=True)
    asm.feed(rec(fragment(), 0))
    assert [d.item for d in asm.due(flush=True)] == [None]
    assert asm.counts == {("replay_fragment", "end_of_input"): 1}
    asm.committed([("otlp_spans", 0)])  # from now on a fragment is news
    asm.feed(rec(fragment(), 1))
    asm.due(flush=True)
    assert ("replay_fragment", "end_of_input") in asm.counts
    assert sum(n for (c, _), n in asm.counts.items() if c != "replay_fragment") == 1
    asm.revoke([("otlp_spans", 0)])  # given back later: re-read again, a window again
    asm.feed(rec(fragment(), 2))
    asm.due(flush=True)
    assert asm.counts[("replay_fragment", "end_of_input")] == 2


def test_without_replays_a_fragment_is_an_instrumentation_outcome() -> None:
    asm = OtlpAssembler()
    asm.feed(rec(fragment(), 0))
    asm.due(flush=True)
    assert "replay_fragment" not in {c for c, _ in asm.counts}


def test_partitions_far_ahead_are_held_only_while_the_buffer_is_past_half() -> None:
    """Watermark alignment: below half the trace bound nothing is held; past it, a partition
    still behind and read more than ``quiet_seconds`` past the slowest one still behind is
    held — never the slowest, never one within the quiet period of it, never one read to
    its end; a partition not read at all is the slowest of all."""
    wall = Clock()
    wall.now = 100_000.0
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30,
                                              max_traces=8), wall=wall)  # fmt: skip
    p0, p1, p2, p3 = (("otlp_spans", p) for p in range(4))
    behind = {p0, p1, p2}
    progress = lambda: ReadProgress(frozenset(behind | {p3}), frozenset(behind))  # noqa: E731
    t0 = 50_000.0
    one = lambda: encode_spans(otel_spans.genai_current()[0]).SerializeToString()  # noqa: E731
    asm.feed(rec_at(one(), 0, t0, partition=0))
    asm.feed(rec_at(one(), 0, t0 + 1, partition=1))  # within the quiet period of p0
    asm.feed(rec_at(one(), 0, t0 + 60, partition=2))  # a minute ahead
    asm.feed(rec_at(one(), 0, t0 + 90, partition=3))  # ahead, but read to its end
    assert asm.buffered == 4 and asm.ahead(progress) == frozenset()  # not past half of 8
    asm.feed(rec_at(one(), 1, t0 + 0.5, partition=0))
    assert asm.ahead(progress) == {p2}
    assert asm.ahead(None) == frozenset()  # a source without record time: nothing to hold
    behind.add(p3)  # p3 has records again, and p0 has its first unread: p0 is still slowest
    assert asm.ahead(progress) == {p2, p3}
    behind.discard(p0)  # p0 read to its end: p1 is the slowest now
    assert asm.ahead(progress) == {p2, p3}
    p4 = ("otlp_spans", 4)
    behind.add(p4)  # assigned, nothing read of it yet: the slowest of all
    assert asm.ahead(progress) == {p1, p2, p3}


def test_the_pipeline_holds_what_the_decoder_finds_ahead_and_releases_it() -> None:
    """After each poll the pipeline passes the decoder's held set to the source, and an
    empty one once, so a held partition is released."""

    class Holding(Source):
        def __init__(self) -> None:
            super().__init__()
            self.holds: list[frozenset[tuple[str, int]]] = []

        def hold(self, partitions: frozenset[tuple[str, int]]) -> None:
            self.holds.append(partitions)

    class Ahead(OtlpAssembler):
        now: frozenset[tuple[str, int]] = frozenset()

        def ahead(self, progress: Any = None) -> frozenset[tuple[str, int]]:
            return self.now

    source, asm = Holding(), Ahead()
    pipeline = Pipeline(source, asm, CheckSuite(), [InMemorySink()])
    pipeline._align()
    assert source.holds == []  # nothing held, nothing was: not asked
    asm.now = frozenset({("otlp_spans", 2)})
    pipeline._align()
    pipeline._align()  # still held: told again (a rebalance clears a consumer's pauses)
    asm.now = frozenset()
    pipeline._align()
    pipeline._align()
    assert source.holds == [asm.now | {("otlp_spans", 2)}] * 2 + [frozenset()]


def test_an_incomplete_trace_says_so_in_its_evaluation_line() -> None:
    """A trace emitted without its root (at the max wait, by eviction, at the end of input)
    carries ``incomplete`` with the reason in its evaluation line; a whole one does not."""
    from monitor.core.model import Evaluation

    clock = Clock()
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=2, max_wait_seconds=30), clock=clock)
    whole, _ = otel_spans.openinference_langchain()
    children, _, _ = halves()
    asm.feed(rec(encode_spans(whole).SerializeToString(), 0))
    asm.feed(rec(children, 1, partition=1))  # its root span never comes
    clock.now = 31.0
    lines = {t.trace_id: Evaluation(t, {}).to_line() for t in traces(asm.due())}
    assert sorted(line.get("incomplete", "") for line in lines.values()) == ["", "max_wait"]
