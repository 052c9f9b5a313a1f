"""OTLP spans made by the real OpenTelemetry SDK, encoded with the real OTLP encoder,
assembled and mapped to the same RagTrace a native record would give."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from monitor import otlp
from monitor.checks import CheckSuite

PASSAGES = ["Refunds are accepted within 30 days of purchase.", "Sale items are final."]


def spans(service: str = "support-bot", reranked: bool = False, redacted: bool = False,
          with_answer: bool = True, scope: str = "openinference.instrumentation.langchain") -> list:  # type: ignore[type-arg]  # fmt: skip
    """A LangChain-shaped OpenInference trace (or LlamaIndex-shaped with a reranker)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer(scope)
    question = "How long do I have to ask for a refund?"
    with tracer.start_as_current_span("RunnableSequence") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", json.dumps({"question": question}))
        with tracer.start_as_current_span("VectorStoreRetriever") as r:
            r.set_attribute("openinference.span.kind", "RETRIEVER")
            r.set_attribute("input.value", question)
            for i, text in enumerate(PASSAGES):
                r.set_attribute(f"retrieval.documents.{i}.document.content",
                                "__REDACTED__" if redacted else text)  # fmt: skip
                r.set_attribute(f"retrieval.documents.{i}.document.metadata",
                                json.dumps({"doc_id": f"policy-{i}"}))  # fmt: skip
        if reranked:
            with tracer.start_as_current_span("rerank") as rr:
                rr.set_attribute("openinference.span.kind", "RERANKER")
                rr.set_attribute("reranker.output_documents.0.document.id", "policy-0")
                rr.set_attribute("reranker.output_documents.0.document.content", PASSAGES[0])
                rr.set_attribute("reranker.output_documents.0.document.score", 0.9)
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            llm.set_attribute("llm.model_name", "gpt-4o-mini")
            llm.set_attribute("llm.output_messages.0.message.content", "Within 30 days [1].")
        if with_answer:
            root.set_attribute("output.value", "You can ask within 30 days [1].")
    return list(exporter.get_finished_spans())


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
    result = otlp.convert([encode_spans(made).SerializeToString()], "otlp-proto")
    (trace,) = result.traces
    assert trace.trace_id == f"{made[0].context.trace_id:032x}"
    assert trace.query == "How long do I have to ask for a refund?"
    assert [p.text for p in trace.context] == PASSAGES
    assert [p.doc_id for p in trace.context] == ["policy-0", "policy-1"]
    assert trace.answer == "You can ask within 30 days [1]."
    assert trace.model == "gpt-4o-mini" and trace.app == "support-bot"
    assert trace.attributes["ragmon.convention"] == "openinference"
    checks = CheckSuite()(trace)
    assert not checks["unsupported_numbers"].flagged and not checks["citation"].flagged


def test_reranker_output_is_the_packed_context() -> None:
    """With a reranker, what reached the model is its output, not everything retrieved."""
    (trace,) = otlp.convert(
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
    from_json = otlp.convert(otlp.read_messages(lines, "otlp-json"), "otlp-json").traces
    from_proto = otlp.convert(otlp.read_messages(
        proto_stream(encode_spans(made).SerializeToString()), "otlp-proto"), "otlp-proto").traces  # fmt: skip
    assert from_json == from_proto and len(from_json) == 1


def test_unrecognised_own_and_redacted_traces() -> None:
    """No retriever: unrecognised. ragmon's own or the anthropic SDK's spans: skipped.
    Redacted content: mapped but flagged so the judge skips it."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("x").start_as_current_span("plain"):
        pass
    plain = encode_spans(list(exporter.get_finished_spans())).SerializeToString()
    own = encode_spans(spans(service="ragmon")).SerializeToString()
    sdk = encode_spans(spans(scope="com.anthropic.sdk.python")).SerializeToString()
    hidden = encode_spans(spans(redacted=True)).SerializeToString()
    result = otlp.convert([plain, own, sdk, hidden], "otlp-proto")
    assert result.unrecognised == 1 and result.own == 2
    (trace,) = result.traces
    assert trace.attributes["ragmon.content_redacted"] is True


def test_truncated_and_garbage_messages_are_reported() -> None:
    """A cut-off stream and bytes that are not OTLP become bad messages with a reason."""
    good = encode_spans(spans()).SerializeToString()
    stream = proto_stream(good, good)[:-10]
    result = otlp.convert(otlp.read_messages(stream, "otlp-proto"), "otlp-proto")
    assert len(result.traces) == 1 and result.bad_messages
    assert otlp.convert([b"{nope"], "otlp-json").bad_messages[0][1] == "invalid_otlp_json"


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
    otlp.convert([bytes(good)], "otlp-proto")
