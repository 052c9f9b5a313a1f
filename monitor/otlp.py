"""OTLP trace messages to spans.

Decodes ``ExportTraceServiceRequest`` / ``TracesData`` as protobuf (``otlp_proto``) or as the
OTLP/JSON the Collector writes (``otlp_json``: hex ids, 64-bit integers as strings), walking
the structure directly (no ``json_format.Parse``, which would read the hex ids as base64).
Span events are kept (old GenAI content events, OpenLLMetry ``db.query.result``).
Assembly into traces lives in ``monitor.assembly``, the mapping in ``monitor.conventions``.

Decoding never raises on input: bad bytes become an ``OtlpDecodeError`` with a reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.errors import OtlpDecodeError


@dataclass(slots=True)
class Event:
    name: str
    attributes: dict[str, Any]


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
    scope_version: str = ""
    events: list[Event] = field(default_factory=list)
    # The parent lives in another process (W3C traceparent from an upstream service that
    # may not export to us): this span is where the trace enters the instrumented app.
    remote_parent: bool = False

    @property
    def kind(self) -> str:
        return str(self.attributes.get("openinference.span.kind", "")).upper()


# --- decoding ---------------------------------------------------------------------------


_PARENT_IS_REMOTE = 0x200  # SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK (OTLP 1.1)


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
                    dropped_attributes=s.dropped_attributes_count + s.dropped_events_count,
                    scope=ss.scope.name, scope_version=ss.scope.version,
                    events=[Event(e.name, {kv.key: _any_value(kv.value) for kv in e.attributes})
                            for e in s.events],
                    remote_parent=bool(s.flags & _PARENT_IS_REMOTE),
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
                        dropped_attributes=int(s.get("droppedAttributesCount", 0))
                        + int(s.get("droppedEventsCount", 0)),
                        scope=str(ss.get("scope", {}).get("name", "")),
                        scope_version=str(ss.get("scope", {}).get("version", "")),
                        events=[Event(str(e.get("name", "")), _attrs(e.get("attributes", [])))
                                for e in s.get("events", [])],
                        remote_parent=bool(int(s.get("flags", 0)) & _PARENT_IS_REMOTE),
                    ))  # fmt: skip
        return out
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise OtlpDecodeError("invalid_otlp_json", str(exc)[:200]) from exc


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


def sniff_format(path: Path) -> str | None:
    """``native``, ``otlp-json`` or ``otlp-proto`` from a file's first bytes; None when the
    file holds nothing but whitespace. JSON lines that name ``resourceSpans`` are OTLP/JSON;
    other JSON lines are native records; anything else is taken for length-prefixed
    protobuf (which then decodes or is reported record by record)."""
    with path.open("rb") as fh:
        head = fh.read(64 << 10)
    text = head.lstrip()
    if not text:
        return None
    if text[:1] not in (b"{", b"["):
        return "otlp-proto"
    first = text.split(b"\n", 1)[0]
    return "otlp-json" if b'"resourceSpans"' in first or b'"resource_spans"' in first else "native"
