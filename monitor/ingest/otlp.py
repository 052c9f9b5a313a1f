"""OTLP trace messages to spans.

Decodes ``ExportTraceServiceRequest`` / ``TracesData`` as protobuf (``otlp_proto``) or as the
OTLP/JSON the Collector writes (``otlp_json``: hex ids, 64-bit integers as strings), walking
the structure directly (no ``json_format.Parse``, which would read the hex ids as base64).
Span events are kept (old GenAI content events, OpenLLMetry ``db.query.result``).
Assembly into traces lives in ``monitor.ingest.assembly``, the mapping in ``monitor.ingest.conventions``.

Decoding never raises on input: bad bytes become an ``OtlpDecodeError`` with a reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from monitor.core.errors import OtlpDecodeError
from monitor.ingest.surrogates import without_lone_surrogates


@dataclass(slots=True)
class Event:
    """A span event: its name, time and attributes."""

    name: str
    attributes: dict[str, Any]


@dataclass
class Span:
    """One decoded OTLP span, with what the conventions read from it."""

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
    # its resource's attributes (one dict shared by the resource's spans): service.version,
    # deployment.environment.name, ragmon.route
    resource: dict[str, Any] = field(default_factory=dict)
    # W3C tracestate (``ot=th:...``: the probability the trace was sampled with, OTEP 235)
    trace_state: str = ""
    # the span's status is Error (``STATUS_CODE_ERROR``): e.g. a tool call that failed
    error: bool = False

    @property
    def kind(self) -> str:
        """The span kind's name (internal, server, client, producer, consumer)."""
        return str(self.attributes.get("openinference.span.kind", "")).upper()


# --- decoding ---------------------------------------------------------------------------


_PARENT_IS_REMOTE = 0x200  # SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK (OTLP 1.1)
_STATUS_ERROR = 2  # Status.StatusCode.STATUS_CODE_ERROR


def _any_value(v: AnyValue) -> object:
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


_HEX = frozenset("0123456789abcdef")


def _bad_ids(span: Span) -> str | None:
    """Why a span's ids are not valid W3C ids (16-byte trace id, 8-byte span ids, not all
    zero), or None. A span without a valid trace id cannot be assembled into any trace."""
    for what, value, size, optional in (
        ("trace id", span.trace_id, 32, False),
        ("span id", span.span_id, 16, False),
        ("parent span id", span.parent_span_id, 16, True),
    ):
        if optional and not value:
            continue
        if len(value) != size or not _HEX.issuperset(value) or not value.strip("0"):
            return f"span {span.name[:40]!r}: {what} {value[:40]!r} is not {size // 2} bytes of hex"
    return None


def _checked(spans: list[Span], reason: str) -> list[Span]:
    for span in spans:
        if span.parent_span_id and not span.parent_span_id.strip("0"):
            span.parent_span_id = ""  # an all-zero parent id is how some SDKs write "none"
        why = _bad_ids(span)
        if why is not None:
            raise OtlpDecodeError(reason, why)
    return spans


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
                    remote_parent=bool(s.flags & _PARENT_IS_REMOTE), resource=resource,
                    trace_state=s.trace_state, error=s.status.code == _STATUS_ERROR,
                ))  # fmt: skip
    return _checked(out, "invalid_protobuf")


class _Shape(Exception):
    """A field of OTLP/JSON has the wrong JSON type (becomes ``invalid_otlp_json``)."""


def _obj(value: object, where: str) -> dict[str, object]:
    """A JSON object; absent (null) is the empty message, as in the proto3 JSON mapping."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Shape(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _arr(value: object, where: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Shape(f"{where}: expected an array, got {type(value).__name__}")
    return value


def _str(value: object, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Shape(f"{where}: expected a string, got {type(value).__name__}")
    return value


def _int(value: object, where: str) -> int:
    """A 64-bit integer: a JSON number or a decimal string (OTLP/JSON writes strings)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _Shape(f"{where}: expected an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except (ValueError, OverflowError) as exc:  # "abc", 1e400 (inf), "nan"
        raise _Shape(f"{where}: not an integer: {str(value)[:40]!r}") from exc
    if isinstance(value, float) and number != value:
        raise _Shape(f"{where}: not an integer: {value!r}")
    return number


def _double(value: object, where: str) -> float:
    """A double: a JSON number, or "NaN" / "Infinity" / a decimal as a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _Shape(f"{where}: expected a number, got {type(value).__name__}")
    try:
        return float(value)
    except ValueError as exc:
        raise _Shape(f"{where}: not a number: {str(value)[:40]!r}") from exc


def _json_value(v: object, where: str) -> object:
    """An ``AnyValue``: str, bool, int, float, list, dict (string keys) or None."""
    v = _obj(v, where)
    if "stringValue" in v:
        return _str(v["stringValue"], where)
    if "boolValue" in v:
        b = v["boolValue"]
        if not isinstance(b, bool):
            raise _Shape(f"{where}: boolValue is {type(b).__name__}")
        return b
    if "intValue" in v:
        return _int(v["intValue"], where)
    if "doubleValue" in v:
        return _double(v["doubleValue"], where)
    if "arrayValue" in v:
        values = _arr(_obj(v["arrayValue"], where).get("values"), where)
        return [_json_value(x, where) for x in values]
    if "kvlistValue" in v:
        return _attrs(_obj(v["kvlistValue"], where).get("values"), where)
    if "bytesValue" in v:
        return _str(v["bytesValue"], where)  # base64 text, kept as it is
    return None


def _attrs(items: object, where: str) -> dict[str, object]:
    """``KeyValue``s as a dict; a missing key is the empty string (the proto3 default)."""
    out: dict[str, object] = {}
    for kv in _arr(items, where):
        kv = _obj(kv, where)
        key = _str(kv.get("key"), f"{where} key")
        out[key] = _json_value(kv.get("value"), f"{where} {key[:40]!r}")
    return out


def _json_span(
    s: object, ss: dict[str, object], service: str | None, resource: dict[str, object]
) -> Span:
    s = _obj(s, "span")
    scope = _obj(ss.get("scope"), "scope")
    return Span(
        trace_id=_str(s.get("traceId"), "traceId").lower(),
        span_id=_str(s.get("spanId"), "spanId").lower(),
        parent_span_id=_str(s.get("parentSpanId"), "parentSpanId").lower(),
        name=_str(s.get("name"), "span name"),
        start=_int(s.get("startTimeUnixNano"), "startTimeUnixNano"),
        end=_int(s.get("endTimeUnixNano"), "endTimeUnixNano"),
        attributes=_attrs(s.get("attributes"), "span attribute"),
        service=service,
        dropped_attributes=_int(s.get("droppedAttributesCount"), "droppedAttributesCount")
        + _int(s.get("droppedEventsCount"), "droppedEventsCount"),
        scope=_str(scope.get("name"), "scope name"),
        scope_version=_str(scope.get("version"), "scope version"),
        events=[
            Event(_str(e.get("name"), "event name"), _attrs(e.get("attributes"), "event attribute"))
            for e in (_obj(e, "event") for e in _arr(s.get("events"), "events"))
        ],
        remote_parent=bool(_int(s.get("flags"), "flags") & _PARENT_IS_REMOTE),
        resource=resource,
        trace_state=_str(s.get("traceState"), "traceState"),
        error=_status_error(s.get("status")),
    )


def _status_error(value: object) -> bool:
    """A span status of Error: the code as a number (2), or as its enum name, which the
    proto3 JSON mapping also allows (``"STATUS_CODE_ERROR"``)."""
    code = _obj(value, "status").get("code")
    if isinstance(code, str) and not code.isdigit():
        return code == "STATUS_CODE_ERROR"
    return _int(code, "status code") == _STATUS_ERROR


def decode_json(data: bytes) -> list[Span]:
    """Spans of OTLP/JSON as the Collector writes it (hex trace and span ids). The walk
    follows the proto3 JSON mapping: an absent or null field is its default, a field of
    the wrong JSON type makes the whole message ``invalid_otlp_json``."""
    try:
        doc = _obj(json.loads(without_lone_surrogates(data)), "request")
        out: list[Span] = []
        for rs in _arr(doc.get("resourceSpans"), "resourceSpans"):
            rs = _obj(rs, "resourceSpans")
            resource = _attrs(_obj(rs.get("resource"), "resource").get("attributes"), "resource")
            service = resource.get("service.name")
            for ss in _arr(rs.get("scopeSpans"), "scopeSpans"):
                ss = _obj(ss, "scopeSpans")
                out.extend(
                    _json_span(s, ss, service if isinstance(service, str) else None, resource)
                    for s in _arr(ss.get("spans"), "spans")
                )
        return _checked(out, "invalid_otlp_json")
    except _Shape as exc:
        raise OtlpDecodeError("invalid_otlp_json", str(exc)[:200]) from exc
    except (ValueError, RecursionError) as exc:  # not JSON (UnicodeDecodeError is one), too deep
        raise OtlpDecodeError("invalid_otlp_json", str(exc)[:200] or "nesting too deep") from exc


# The daemon's own spans (and the anthropic SDK's) are never RAG traces.
OWN_SERVICES = frozenset({"ragmon"})
OWN_SCOPES = frozenset({"com.anthropic.sdk.python"})


def is_own(spans: list[Span]) -> bool:
    """ragmon's own spans, or a trace made only of anthropic SDK client spans (the judge)."""
    return any(s.service in OWN_SERVICES for s in spans) or all(
        s.scope in OWN_SCOPES for s in spans
    )
