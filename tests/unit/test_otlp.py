"""OTLP spans made by the real OpenTelemetry SDK, encoded with the real OTLP encoder,
assembled and mapped to the same RagTrace a native record would give."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from monitor.checks import CheckSuite
from monitor.core.model import RagTrace
from monitor.ingest import otlp
from monitor.ingest.conversion import convert as assemble
from monitor.sources import framing
from tests import otel_spans
from tests.otel_spans import PASSAGES


def spans(**kw: Any) -> list[Any]:
    return otel_spans.openinference_langchain(**kw)[0]


def convert(messages: Any, fmt: str) -> Any:
    return assemble(messages, fmt.replace("-", "_"))


def proto_stream(*requests: bytes) -> bytes:
    return b"".join(len(r).to_bytes(4, "big") + r for r in requests)


def as_otlp_json(request_bytes: bytes) -> bytes:
    """OTLP/JSON as the Collector writes it: protobuf JSON with hex (not base64) ids."""
    import base64

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    doc = MessageToDict(ExportTraceServiceRequest.FromString(request_bytes))
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in s:
                        s[key] = base64.b64decode(s[key]).hex()
    return json.dumps(doc).encode()


def test_langchain_layout_maps_to_the_native_trace() -> None:
    """Question from the root input JSON, passages and ids (from metadata) from the
    retriever, answer from the root output, model from the LLM span."""
    made = spans()
    result = convert([encode_spans(made).SerializeToString()], "otlp-proto")
    (trace,) = result.traces
    assert trace.trace_id == f"{made[0].context.trace_id:032x}"
    assert trace.query == "How long do I have to ask for a refund?"
    assert [p.text for p in trace.context] == PASSAGES
    assert [p.doc_id for p in trace.context] == ["policy-0", "policy-1"]
    assert trace.answer == otel_spans.ANSWER
    assert trace.model == "gpt-4o-mini" and trace.app == "support-bot"
    assert trace.attributes["ragmon.convention"] == "openinference"
    checks = CheckSuite()(trace)
    assert not checks["unsupported_numbers"].flagged and not checks["citation"].flagged


def test_reranker_output_is_the_packed_context() -> None:
    """With a reranker, what reached the model is its output, not everything retrieved."""
    (trace,) = convert(
        [encode_spans(spans(reranked=True)).SerializeToString()], "otlp-proto"
    ).traces
    assert [p.text for p in trace.context] == [PASSAGES[0]]
    assert len(trace.retrieved) == 2


def test_spans_split_across_messages_and_json_encoding(tmp_path: Path) -> None:
    """A trace whose spans arrive in two messages, as OTLP/JSON lines, assembles the same."""
    made = spans()
    first, second = made[:2], made[2:]
    lines = b"\n".join(
        as_otlp_json(encode_spans(part).SerializeToString()) for part in (first, second)
    )
    from_json = convert(framing.read_messages(lines, "otlp-json"), "otlp-json").traces
    from_proto = convert(framing.read_messages(
        proto_stream(encode_spans(made).SerializeToString()), "otlp-proto"), "otlp-proto").traces  # fmt: skip
    assert from_json == from_proto and len(from_json) == 1


def test_unrecognised_own_and_redacted_traces() -> None:
    """No retriever: unrecognised. ragmon's own or the anthropic SDK's spans: skipped.
    Redacted content: mapped but flagged so the judge skips it."""
    tracer, exporter = otel_spans.sdk_tracer("x")
    with tracer.start_as_current_span("plain"):
        pass
    plain = encode_spans(list(exporter.get_finished_spans())).SerializeToString()
    own = encode_spans(spans(service="ragmon")).SerializeToString()
    sdk = encode_spans(spans(scope="com.anthropic.sdk.python")).SerializeToString()
    hidden = encode_spans(spans(redacted=True)).SerializeToString()
    result = convert([plain, own, sdk, hidden], "otlp-proto")
    assert result.count("unrecognised") == 1 and result.count("own") == 2
    (trace,) = result.traces
    assert trace.attributes["ragmon.content_redacted"] is True


def test_truncated_and_garbage_messages_are_reported() -> None:
    """A cut-off stream and bytes that are not OTLP become bad messages with a reason."""
    good = encode_spans(spans()).SerializeToString()
    stream = proto_stream(good, good)[:-10]
    result = convert(framing.read_messages(stream, "otlp-proto"), "otlp-proto")
    assert len(result.traces) == 1 and result.bad_messages
    assert convert([b"{nope"], "otlp-json").bad_messages[0][1] == "invalid_otlp_json"


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=300))
def test_decoders_never_raise_anything_else(raw: bytes) -> None:
    """Arbitrary bytes decode to spans or raise OtlpDecodeError, never anything else."""
    for decode in (otlp.decode_proto, otlp.decode_json):
        with contextlib.suppress(otlp.OtlpDecodeError):
            decode(raw)


@settings(max_examples=100, deadline=None)
@given(flip=st.integers(0, 10_000), value=st.integers(0, 255))
def test_mutated_valid_messages_never_raise(flip: int, value: int) -> None:
    """A valid message with one byte changed still never raises out of convert()."""
    good = bytearray(encode_spans(spans()).SerializeToString())
    good[flip % len(good)] = value
    convert([bytes(good)], "otlp-proto")


@pytest.mark.parametrize("name", sorted(otel_spans.CONVENTIONS))
def test_each_convention_maps_to_the_equivalent_native_record(name: str) -> None:
    """Spans of every convention (real SDK, real OTLP encoder) give the RagTrace a native
    producer would have written, and record which convention was recognised."""
    made, native = otel_spans.CONVENTIONS[name]()
    result = convert([encode_spans(made).SerializeToString()], "otlp-proto")
    (trace,) = result.traces
    unmapped = {"attributes": {}, "timestamp": None}
    assert replace(trace, **unmapped) == replace(RagTrace.from_data(native), **unmapped)
    root = made[-1]  # the time of an OTel trace is its root span's end
    assert trace.timestamp is not None and root.end_time is not None
    assert trace.timestamp.timestamp() == pytest.approx(root.end_time / 1e9, abs=1e-6)
    assert trace.attributes["ragmon.convention"] == name.removesuffix("_new").removesuffix(
        "_llamaindex"
    )
    assert trace.attributes["ragmon.root_span_id"] == f"{made[-1].context.span_id:016x}"


def test_route_release_and_environment_come_from_the_root_span_or_its_resource() -> None:
    """ragmon.route (else http.route) and ragmon.release (else the resource's service.version)
    set the route and release an OTel trace has none of otherwise; the deployment
    environment and the conversation are kept as attributes."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({
        "service.name": "support-bot", "service.version": "2026.12.1",
        "deployment.environment.name": "production"}))  # fmt: skip
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("openinference.instrumentation.langchain")

    def mapped(**root_attributes: str) -> RagTrace:
        with tracer.start_as_current_span("RetrievalQA") as root:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", otel_spans.QUESTION)
            for key, value in root_attributes.items():
                root.set_attribute(key.replace("_", "."), value)
            with tracer.start_as_current_span("retrieve") as r:
                r.set_attribute("openinference.span.kind", "RETRIEVER")
                r.set_attribute("retrieval.documents.0.document.id", "policy-0")
                r.set_attribute("retrieval.documents.0.document.content", otel_spans.PASSAGES[0])
            with tracer.start_as_current_span("ChatOpenAI") as llm:
                llm.set_attribute("openinference.span.kind", "LLM")
                llm.set_attribute("llm.output_messages.0.message.content", otel_spans.ANSWER)
            root.set_attribute("output.value", otel_spans.ANSWER)
        trace_id = root.get_span_context().trace_id
        spans = [s for s in exporter.get_finished_spans() if s.context.trace_id == trace_id]
        (trace,) = convert([encode_spans(spans).SerializeToString()], "otlp-proto").traces
        return trace

    trace = mapped(http_route="/api/billing", session_id="s-42")
    assert (trace.route, trace.release, trace.app) == ("/api/billing", "2026.12.1", "support-bot")
    assert trace.attributes["deployment.environment.name"] == "production"
    assert trace.session_id == "s-42"  # a turn of its conversation (docs, "Conversations")
    assert trace.attributes["ragmon.started"] > 0  # its turns are ordered by the root's start
    # the documented attributes win
    trace = mapped(ragmon_route="billing", http_route="/api/billing", ragmon_release="canary-7")
    assert (trace.route, trace.release) == ("billing", "canary-7")


def test_passages_from_the_prompt_are_marked_and_their_ids_never_guessed() -> None:
    """GenAI retrieval spans carry ids only: the passages come from the prompt, the trace
    says so, and the n-th passage is not taken for the n-th retrieved id (after a cutoff,
    a reranker or a fusion it is not): the ids stay unknown and are counted."""
    from prometheus_client import CollectorRegistry

    from monitor.ingest.assembly import OtlpAssembler
    from monitor.sources import SourcePosition, SourceRecord
    from monitor.telemetry import Metrics

    made, _ = otel_spans.genai_current()
    (trace,) = convert([encode_spans(made).SerializeToString()], "otlp-proto").traces
    assert trace.attributes["ragmon.context_from"] == "prompt"
    assert [p.doc_id for p in trace.context] == [None, None]
    assert trace.attributes["ragmon.ids_unresolved"] == 2
    metrics = Metrics(CollectorRegistry())
    assembler = OtlpAssembler("otlp_proto", observer=metrics)
    record = SourceRecord(SourcePosition("t", 0, 0), encode_spans(made).SerializeToString())
    assembler.feed(record)
    assembler.due(flush=True)
    sample = metrics.registry.get_sample_value
    assert sample("ragmon_otlp_ids_unresolved_total", {"convention": "otel_genai"}) == 2


def test_passage_ids_come_from_the_retrieved_text_when_the_spans_have_it() -> None:
    """Retrieval documents with their text: each prompt passage takes the id of the
    document with the same text (whitespace aside), whatever the order, and a passage whose
    text matches none stays unknown."""
    from monitor.ingest.conventions.core import _Doc
    from monitor.ingest.conventions.packing import _from_prompt

    retrieved = [_Doc("a", "Alpha  policy text."), _Doc("b", "Beta policy text.")]
    prompt = ["[1] Beta policy text.\n[2] Alpha policy\ntext.\n[3] Gamma, not retrieved."]
    got = _from_prompt(prompt, retrieved, "q")
    assert [(d.id, d.text) for d in got] == [
        ("b", "Beta policy text."),
        ("a", "Alpha policy\ntext."),
        (None, "Gamma, not retrieved."),
    ]


def test_content_not_captured_is_counted_not_evaluated() -> None:
    """Ids without text (content capture off): never invented, never evaluated."""
    made, _ = otel_spans.genai_current(content=False)
    result = convert([encode_spans(made).SerializeToString()], "otlp-proto")
    assert not result.traces and result.count("content_missing") == 1


def test_retrieval_that_returned_nothing_is_an_empty_context() -> None:
    """Zero documents is a real failure (empty_context), not missing content."""
    made, _ = otel_spans.openinference_langchain(passages=[])
    (trace,) = convert([encode_spans(made).SerializeToString()], "otlp-proto").traces
    assert trace.context == [] and CheckSuite()(trace)["empty_context"].flagged


def test_a_trace_from_two_services_in_two_messages() -> None:
    """The gateway's root span and the worker's retriever/LLM spans are exported by two
    SDKs (two resources, two messages) and still assemble into one trace."""
    from opentelemetry import trace as otel_trace

    scope = "openinference.instrumentation.langchain"
    gateway, gateway_spans = otel_spans.sdk_tracer(scope, "gateway")
    worker, worker_spans = otel_spans.sdk_tracer(scope, "rag-worker")
    with gateway.start_as_current_span("RunnableSequence") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", otel_spans.QUESTION)
        ctx = otel_trace.set_span_in_context(root)
        with worker.start_as_current_span("VectorStoreRetriever", context=ctx) as r:
            r.set_attribute("openinference.span.kind", "RETRIEVER")
            r.set_attribute("retrieval.documents.0.document.id", "policy-0")
            r.set_attribute("retrieval.documents.0.document.content", PASSAGES[0])
        root.set_attribute("output.value", otel_spans.ANSWER)
    messages = [encode_spans(list(e.get_finished_spans())).SerializeToString()
                for e in (worker_spans, gateway_spans)]  # fmt: skip
    (trace,) = convert(messages, "otlp-proto").traces
    assert trace.app == "gateway" and trace.answer == otel_spans.ANSWER
    assert [p.doc_id for p in trace.context] == ["policy-0"]


def test_milvus_search_results_as_documents() -> None:
    """OpenLLMetry's Milvus instrumentation: ``db.search.result`` events (id, score,
    entity) are the retrieved and packed documents."""
    tracer, exporter = otel_spans.sdk_tracer("opentelemetry.instrumentation.milvus")
    with tracer.start_as_current_span("rag.workflow") as root:
        root.set_attribute("traceloop.span.kind", "workflow")
        root.set_attribute("traceloop.entity.input", json.dumps({"kwargs": {"query": "q?"}}))
        with tracer.start_as_current_span("milvus.search") as r:
            r.set_attribute("db.system", "milvus")
            for i, text in enumerate(PASSAGES):
                r.add_event("db.search.result", {"db.search.result.id": f"m-{i}",
                                                 "db.search.result.score": 0.5 + i,
                                                 "db.search.result.entity": text})  # fmt: skip
        root.set_attribute("traceloop.entity.output", json.dumps("Within 30 days."))
    made = list(exporter.get_finished_spans())
    (trace,) = convert([encode_spans(made).SerializeToString()], "otlp-proto").traces
    assert trace.query == "q?" and trace.answer == "Within 30 days."
    assert [(d.doc_id, d.score) for d in trace.retrieved] == [("m-0", 0.5), ("m-1", 1.5)]
    assert [p.text for p in trace.context] == PASSAGES
    assert trace.attributes["ragmon.convention"] == "openllmetry"


def test_openinference_without_document_text_reads_the_llm_prompt() -> None:
    """OPENINFERENCE_HIDE_* style: retriever ids without content; the answering LLM's
    input messages (system and user, not assistant) hold the passages."""
    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.llama_index")
    with tracer.start_as_current_span("query") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", otel_spans.QUESTION)
        with tracer.start_as_current_span("retrieve") as r:
            r.set_attribute("openinference.span.kind", "RETRIEVER")
            for i, doc_id in enumerate(otel_spans.IDS):
                r.set_attribute(f"retrieval.documents.{i}.document.id", doc_id)
        with tracer.start_as_current_span("llm") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            for i, (role, text) in enumerate([("system", otel_spans.numbered_prompt()),
                                              ("assistant", "[9] earlier turn"),
                                              ("user", otel_spans.QUESTION)]):  # fmt: skip
                llm.set_attribute(f"llm.input_messages.{i}.message.role", role)
                llm.set_attribute(f"llm.input_messages.{i}.message.content", text)
        root.set_attribute("output.value", otel_spans.ANSWER)
    made = list(exporter.get_finished_spans())
    (trace,) = convert([encode_spans(made).SerializeToString()], "otlp-proto").traces
    # ids without text: which passage is which document is not said, so not guessed
    assert [(p.doc_id, p.text) for p in trace.context] == [(None, t) for t in PASSAGES]
    assert [d.doc_id for d in trace.retrieved] == otel_spans.IDS
    assert trace.attributes["ragmon.context_from"] == "prompt"
