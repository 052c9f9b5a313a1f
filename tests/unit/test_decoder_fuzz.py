"""Structure-aware fuzzing of every decoder: real messages (OTLP from real instrumentation,
native records from the demo generator) are corrupted the way broken producers and
attackers corrupt them — a field removed, a value replaced by another JSON type, protobuf
fields set to odd bytes, bytes flipped, a message truncated or spliced into another — and
fed through the decoder and the whole pipeline. The property: nothing raises; every
record becomes traces, dead letters with a named reason, or nothing to evaluate; and no
dead letter is one of the "a bug of ours" reasons (``decode_failed``, ``mapping_failed``),
which would mean a decoder let a malformed value through to code that cannot take it."""

from __future__ import annotations

import copy
import io
import json
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.checks import CheckSuite
from monitor.core.model import DeadLetter, RagTrace
from monitor.ingest.assembly import OtlpAssembler
from monitor.ingest.native import DEAD_LETTER_REASONS, NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, SourcePosition, SourceRecord, demo
from monitor.sources.framing import read_messages
from sinks.jsonl import JsonlSink
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink

CORPUS = Path(__file__).resolve().parents[1] / "otel_corpus"
BUGS = {"decode_failed", "mapping_failed"}
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _messages(suffix: str, fmt: str, per_file: int = 6) -> list[bytes]:
    out: list[bytes] = []
    for path in sorted(CORPUS.glob(f"*{suffix}")):
        out.extend(list(read_messages(path.read_bytes(), fmt))[:per_file])
    return out


JSON_MESSAGES = _messages(".otlp.jsonl", "otlp-json")
PROTO_MESSAGES = _messages(".otlp", "otlp-proto")
NATIVE_RECORDS = [demo.generate_bytes(i) for i in range(40)]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _slots(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a JSON document, depth first."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, value in items:
            out.append((node, key))
            if isinstance(value, dict | list):
                stack.append(value)
    return out


@st.composite
def mutated_json(draw: st.DrawFn, corpus: list[bytes]) -> bytes:
    """A real JSON message with one to three structural changes, then maybe a byte-level one."""
    doc = json.loads(draw(st.sampled_from(corpus)))
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(doc)
        if not slots:
            break
        node, key = slots[draw(st.integers(0, len(slots) - 1))]
        op = draw(st.sampled_from(["delete", "replace", "wrap", "rename"]))
        if op == "delete":
            del node[key]
        elif op == "replace":
            node[key] = draw(json_values)
        elif op == "wrap":
            node[key] = [node[key]]
        elif isinstance(node, dict):
            node[draw(st.text(max_size=6))] = node.pop(key)
    raw = json.dumps(doc).encode()
    return draw(byte_mutation(raw, corpus))


@st.composite
def byte_mutation(draw: st.DrawFn, raw: bytes, corpus: list[bytes]) -> bytes:
    op = draw(st.sampled_from(["none", "none", "flip", "truncate", "splice"]))
    if op == "flip" and raw:
        i = draw(st.integers(0, len(raw) - 1))
        return raw[:i] + bytes([raw[i] ^ draw(st.integers(1, 255))]) + raw[i + 1 :]
    if op == "truncate":
        return raw[: draw(st.integers(0, len(raw)))]
    if op == "splice":
        other = draw(st.sampled_from(corpus))
        return raw[: draw(st.integers(0, len(raw)))] + other[draw(st.integers(0, len(other))) :]
    return raw


@st.composite
def mutated_proto(draw: st.DrawFn) -> bytes:
    """A real protobuf request with span fields set to odd values, then maybe a byte-level
    change (which protobuf often still parses, as other fields or unknown ones)."""
    request = ExportTraceServiceRequest.FromString(draw(st.sampled_from(PROTO_MESSAGES)))
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    for _ in range(draw(st.integers(0, 3))):
        if not spans:
            break
        span = spans[draw(st.integers(0, len(spans) - 1))]
        field = draw(
            st.sampled_from(["trace_id", "span_id", "parent_span_id", "attr", "flags", "time"])
        )
        if field in ("trace_id", "span_id", "parent_span_id"):
            setattr(span, field, draw(st.binary(max_size=20)))
        elif field == "attr" and span.attributes:
            kv = span.attributes[draw(st.integers(0, len(span.attributes) - 1))]
            kind = draw(
                st.sampled_from(["string", "int", "double", "bool", "bytes", "empty", "array"])
            )
            if kind == "string":
                kv.value.string_value = draw(st.text(max_size=30))
            elif kind == "int":
                kv.value.int_value = draw(st.integers(-(2**63), 2**63 - 1))
            elif kind == "double":
                kv.value.double_value = draw(st.floats())
            elif kind == "bool":
                kv.value.bool_value = draw(st.booleans())
            elif kind == "bytes":
                kv.value.bytes_value = draw(st.binary(max_size=10))
            elif kind == "array":
                kv.value.array_value.values.add().int_value = 1
            else:
                kv.ClearField("value")
        elif field == "flags":
            span.flags = draw(st.integers(0, 2**32 - 1))
        else:
            span.start_time_unix_nano = draw(st.integers(0, 2**64 - 1))
    return draw(byte_mutation(request.SerializeToString(), PROTO_MESSAGES))


def _assert_handled(assembler: OtlpAssembler, raw: bytes) -> None:
    items, refs = assembler.feed(SourceRecord(SourcePosition("fuzz", 0, 1), raw))
    items += assembler.due(flush=True)
    assert refs >= 0
    for d in items:
        assert d.item is None or isinstance(d.item, RagTrace | DeadLetter)
        if isinstance(d.item, DeadLetter):
            assert d.item.reason in DEAD_LETTER_REASONS and d.item.reason not in BUGS, d.item
            assert d.item.detail


@FUZZ
@given(mutated_json(JSON_MESSAGES))
def test_otlp_json_decoder_takes_any_mutation(raw: bytes) -> None:
    """A corrupted OTLP/JSON request is a trace or a dead letter with a reason, never a raise."""
    _assert_handled(OtlpAssembler("otlp_json"), raw)


@FUZZ
@given(mutated_proto())
def test_otlp_proto_decoder_takes_any_mutation(raw: bytes) -> None:
    """A corrupted OTLP protobuf request is a trace or a dead letter, never a raise."""
    _assert_handled(OtlpAssembler("otlp_proto"), raw)


@FUZZ
@given(mutated_json(NATIVE_RECORDS))
def test_native_decoder_takes_any_mutation(raw: bytes) -> None:
    """A corrupted native record is a trace or a dead letter with a reason, and the check
    suite runs on every trace it yields without raising."""
    item = NativeDecoder()(SourceRecord(SourcePosition("fuzz", 0, 1), raw))
    if isinstance(item, DeadLetter):
        assert item.reason in DEAD_LETTER_REASONS and item.reason not in BUGS
    else:
        CheckSuite()(item)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated_json(JSON_MESSAGES), min_size=1, max_size=6))
def test_pipeline_survives_mutated_otlp_stream(batch: list[bytes]) -> None:
    """A stream of corrupted OTLP/JSON messages runs through the whole pipeline (checks
    and the Prometheus and JSONL sinks included); every message is finished and committed,
    and every line written is strict JSON (no NaN or Infinity) on a line of its own."""
    sink = InMemorySink()
    out = io.StringIO()
    metrics = registry.build_metrics(CollectorRegistry())
    source = ListSource([*batch, JSON_MESSAGES[0]], source="fuzz")
    sinks = [sink, PrometheusSink(metrics), JsonlSink(stream=out)]
    pipeline = Pipeline(source, OtlpAssembler("otlp_json"), CheckSuite(), sinks,
                        observer=metrics, sleep=lambda _: None)  # fmt: skip
    pipeline.start()
    pipeline.run(threading.Event())
    pipeline.close()
    assert source.committed == {("fuzz", 0): len(batch) + 1}
    assert not {d.reason for d in sink.dead_letters} & BUGS
    lines = out.getvalue().split("\n")[:-1]
    assert len(lines) == len(sink.evaluations)
    for line in lines:
        json.loads(line, parse_constant=_refuse)


def _refuse(constant: str) -> None:
    raise ValueError(f"not JSON (RFC 8259): {constant}")
