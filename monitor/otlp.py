"""OTLP traces to ``RagTrace``: decoding, grouping by trace, and the OpenInference mapping.

Decodes ``ExportTraceServiceRequest`` / ``TracesData`` as protobuf (``otlp_proto``) or as the
OTLP/JSON the Collector writes (``otlp_json``: hex ids, 64-bit integers as strings), walking
the structure directly (no ``json_format.Parse``). Spans are grouped per trace id and mapped
to a ``RagTrace`` following the OpenInference layout: the question is the root span's
``input.value``, the packed context the last RERANKER's output documents or else the
RETRIEVER documents, the answer the root's ``output.value`` or the last LLM span's first
output message. A trace without that shape is ``unrecognised`` (counted, not evaluated).
Content hidden by the producer (``__REDACTED__``) is flagged so the judge skips the trace.

Decoding never raises on input: bad bytes become a ``DecodeError`` with a reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.model import RagTrace

REDACTED = "__REDACTED__"


class OtlpDecodeError(Exception):
    """Input that is not OTLP traces; ``reason`` is a bounded label."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    service: str | None = None
    dropped_attributes: int = 0
    scope: str = ""

    @property
    def kind(self) -> str:
        return str(self.attributes.get("openinference.span.kind", "")).upper()


# --- decoding ---------------------------------------------------------------------------


def _any_value(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_any_value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _any_value(kv.value) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, which)


def decode_proto(data: bytes) -> list[Span]:
    """Spans of an ``ExportTraceServiceRequest`` (same wire format as ``TracesData``)."""
    try:
        request = ExportTraceServiceRequest.FromString(data)
    except (ProtobufDecodeError, ValueError) as exc:
        raise OtlpDecodeError("invalid_protobuf", str(exc)[:200]) from exc
    out: list[Span] = []
    for rs in request.resource_spans:
        resource = {kv.key: _any_value(kv.value) for kv in rs.resource.attributes}
        service = resource.get("service.name")
        for ss in rs.scope_spans:
            for s in ss.spans:
                out.append(Span(
                    trace_id=s.trace_id.hex(), span_id=s.span_id.hex(),
                    parent_span_id=s.parent_span_id.hex(), name=s.name,
                    start=s.start_time_unix_nano, end=s.end_time_unix_nano,
                    attributes={kv.key: _any_value(kv.value) for kv in s.attributes},
                    service=service if isinstance(service, str) else None,
                    dropped_attributes=s.dropped_attributes_count, scope=ss.scope.name,
                ))  # fmt: skip
    return out


def _json_value(v: dict[str, Any]) -> Any:
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return int(v["intValue"])  # 64-bit integers are strings in OTLP/JSON
    if "arrayValue" in v:
        return [_json_value(x) for x in v["arrayValue"].get("values", [])]
    if "kvlistValue" in v:
        return {
            kv["key"]: _json_value(kv.get("value", {})) for kv in v["kvlistValue"].get("values", [])
        }
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def _attrs(items: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return {kv["key"]: _json_value(kv.get("value", {})) for kv in items}


def decode_json(data: bytes) -> list[Span]:
    """Spans of OTLP/JSON as the Collector writes it (hex trace and span ids)."""
    try:
        doc = json.loads(data)
        out: list[Span] = []
        for rs in doc.get("resourceSpans", []):
            resource = _attrs(rs.get("resource", {}).get("attributes", []))
            service = resource.get("service.name")
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    out.append(Span(
                        trace_id=str(s.get("traceId", "")).lower(), span_id=str(s.get("spanId", "")).lower(),
                        parent_span_id=str(s.get("parentSpanId", "")).lower(), name=str(s.get("name", "")),
                        start=int(s.get("startTimeUnixNano", 0)), end=int(s.get("endTimeUnixNano", 0)),
                        attributes=_attrs(s.get("attributes", [])),
                        service=service if isinstance(service, str) else None,
                        dropped_attributes=int(s.get("droppedAttributesCount", 0)),
                        scope=str(ss.get("scope", {}).get("name", "")),
                    ))  # fmt: skip
        return out
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise OtlpDecodeError("invalid_otlp_json", str(exc)[:200]) from exc


# --- mapping ----------------------------------------------------------------------------


@dataclass
class Mapped:
    trace: RagTrace | None
    convention: str  # "openinference" | "unrecognised"
    redacted: bool = False
    problems: list[str] = field(default_factory=list)


def _documents(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``prefix.{i}.document.{id,content,score,metadata}`` flattened attributes → list."""
    docs: dict[int, dict[str, Any]] = {}
    head = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        index, _, rest = key[len(head) :].partition(".")
        if not index.isdigit() or not rest.startswith("document."):
            continue
        docs.setdefault(int(index), {})[rest[len("document.") :]] = value
    return [docs[i] for i in sorted(docs)]


def _question(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return value
        if isinstance(data, dict):
            for key in ("question", "query", "input"):
                if isinstance(data.get(key), str):
                    return str(data[key])
            first = next((v for v in data.values() if isinstance(v, str)), None)
            return first or value
    return value


def _doc_id(doc: dict[str, Any], i: int) -> str:
    if doc.get("id"):
        return str(doc["id"])
    meta = doc.get("metadata")
    if isinstance(meta, str):  # LangChain puts ids only in the metadata JSON
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    if isinstance(meta, dict):
        for key in ("doc_id", "id", "source", "document_id"):
            if meta.get(key):
                return str(meta[key])
    return f"doc-{i}"


def map_openinference(spans: list[Span]) -> Mapped:
    """One trace's spans → RagTrace, or ``unrecognised``."""
    if not spans:
        return Mapped(None, "unrecognised")
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id or s.parent_span_id not in ids]
    root = min(roots or spans, key=lambda s: s.start)
    ordered = sorted(spans, key=lambda s: s.start)
    retrievers = [s for s in ordered if s.kind == "RETRIEVER"]
    rerankers = [s for s in ordered if s.kind == "RERANKER"]
    llms = [s for s in ordered if s.kind == "LLM"]
    if not retrievers and not rerankers:
        return Mapped(None, "unrecognised")
    retrieved_docs = [
        d for r in retrievers for d in _documents(r.attributes, "retrieval.documents")
    ]
    packed = (
        _documents(rerankers[-1].attributes, "reranker.output_documents")
        if rerankers
        else retrieved_docs
    )
    question = _question(root.attributes.get("input.value")) or _question(
        (retrievers or rerankers)[0].attributes.get("input.value")
    )
    answer = root.attributes.get("output.value")
    if not isinstance(answer, str) and llms:
        answer = llms[-1].attributes.get("llm.output_messages.0.message.content")
    if not isinstance(answer, str):
        answer = ""
    model = next((str(s.attributes["llm.model_name"]) for s in reversed(llms)
                  if s.attributes.get("llm.model_name")), None)  # fmt: skip
    texts = [question, answer, *(str(d.get("content", "")) for d in packed)]
    redacted = any(REDACTED in t for t in texts) or any(s.dropped_attributes for s in spans)
    record = {
        "trace_id": root.trace_id,
        "app": root.service,
        "query": question,
        "retrieved": [
            {"doc_id": _doc_id(d, i), "score": float(d["score"]) if isinstance(d.get("score"), int | float) else None,
             "rank": i}
            for i, d in enumerate(retrieved_docs, 1)
        ],
        "context": [{"doc_id": _doc_id(d, i), "text": str(d.get("content", ""))} for i, d in enumerate(packed, 1)],
        "answer": answer,
        "model": model,
        "attributes": {"ragmon.convention": "openinference", "ragmon.root_span_id": root.span_id,
                       **({"ragmon.content_redacted": True} if redacted else {})},
    }  # fmt: skip
    try:
        return Mapped(RagTrace.model_validate(record), "openinference", redacted)
    except ValueError as exc:
        return Mapped(None, "unrecognised", problems=[str(exc).splitlines()[0]])


def group(spans: Iterable[Span]) -> Iterator[list[Span]]:
    """Spans per trace id, in first-seen order (offline assembly: every span is present)."""
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    yield from by_trace.values()


# The daemon's own spans (and the anthropic SDK's) are never RAG traces.
OWN_SERVICES = frozenset({"ragmon"})
OWN_SCOPES = frozenset({"com.anthropic.sdk.python"})


def is_own(spans: list[Span]) -> bool:
    """ragmon's own spans, or a trace made only of anthropic SDK client spans (the judge)."""
    return any(s.service in OWN_SERVICES for s in spans) or all(
        s.scope in OWN_SCOPES for s in spans
    )


def read_messages(data: bytes, fmt: str) -> Iterator[bytes]:
    """Messages of an OTLP file: one JSON request per line, or 4-byte big-endian length
    prefixed protobuf requests."""
    if fmt == "otlp-json":
        for line in data.splitlines():
            if line.strip():
                yield line
        return
    pos = 0
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos : pos + 4], "big")
        yield data[pos + 4 : pos + 4 + size]
        pos += 4 + size
    if pos != len(data):
        yield data[pos:]  # a truncated tail: it will not decode, and is reported


@dataclass
class Conversion:
    traces: list[RagTrace] = field(default_factory=list)
    unrecognised: int = 0
    own: int = 0
    bad_messages: list[tuple[int, str, bytes]] = field(default_factory=list)  # (index, reason, raw)


def convert(messages: Iterable[bytes], fmt: str) -> Conversion:
    """Decode every message, assemble the traces (all spans present), map them."""
    decode = decode_json if fmt == "otlp-json" else decode_proto
    spans: list[Span] = []
    out = Conversion()
    for i, raw in enumerate(messages, 1):
        try:
            spans.extend(decode(raw))
        except OtlpDecodeError as exc:
            out.bad_messages.append((i, exc.reason, raw))
    for trace_spans in group(spans):
        if is_own(trace_spans):
            out.own += 1
            continue
        mapped = map_openinference(trace_spans)
        if mapped.trace is None:
            out.unrecognised += 1
        else:
            out.traces.append(mapped.trace)
    return out
