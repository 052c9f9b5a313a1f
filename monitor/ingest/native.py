"""Bytes to ``RagTrace``, or a ``DeadLetter`` with a reason. Never raises on input."""

from __future__ import annotations

import json

from pydantic import ValidationError

from monitor.core.model import DeadLetter, RagTrace, first_error
from monitor.core.record import SCHEMA_ID, TraceRecord
from monitor.ingest.surrogates import without_lone_surrogates
from monitor.sources import SourceRecord

# Bounded set of dead-letter reasons (a metric label).
DEAD_LETTER_REASONS = (
    "invalid_utf8",
    "invalid_json",
    "not_an_object",
    "unknown_schema",
    "invalid_record",
    "too_large",
    "invalid_protobuf",  # OTLP: not an ExportTraceServiceRequest
    "invalid_otlp_json",
    "mapping_failed",  # OTLP spans assembled, but mapping them to a trace raised (a bug)
    "decode_failed",  # decoding raised where it should have named a reason (a bug)
    "evaluation_failed",  # a trace's evaluation raised outside the checks' guard (a bug)
)
DECODE_FAILED = "decode_failed"
EVALUATION_FAILED = "evaluation_failed"


_BOM = "\ufeff".encode()


class NativeDecoder:
    """Decodes native ``ragmon.trace/v1`` JSON records.

    The common case is decoded straight from the bytes by msgspec into the trace. A record it
    does not take is validated by the record's schema (``core.record.TraceRecord``) from the
    bytes, and then, when that fails too or the record starts with a byte-order mark, step by
    step, which names the reason for the dead letter. What is accepted, and the reason of
    what is not, are the schema's: the msgspec decoder only takes records the schema takes,
    into the same trace (held by ``tests/unit/test_trace_decoders.py``).
    """

    def __init__(self, max_record_bytes: int = 16 << 20) -> None:
        self.max_record_bytes = max_record_bytes

    def __call__(self, record: SourceRecord) -> RagTrace | DeadLetter:
        """The record as a trace, or a dead letter naming why it is not one."""
        raw = record.value
        if len(raw) > self.max_record_bytes:
            return dead_letter(record, "too_large", f"{len(raw)} bytes > {self.max_record_bytes}")
        raw = without_lone_surrogates(raw)  # ingest.surrogates: no text that cannot be encoded
        if not raw.startswith(_BOM):
            try:
                return RagTrace.from_json(raw)
            except ValidationError:
                pass  # the step-by-step path below says why
        return self._explained(record, raw)

    def _explained(self, record: SourceRecord, raw: bytes | None = None) -> RagTrace | DeadLetter:
        raw = without_lone_surrogates(record.value) if raw is None else raw
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return dead_letter(record, "invalid_utf8", f"byte {exc.start}: {exc.reason}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return dead_letter(
                record, "invalid_json", f"line {exc.lineno} col {exc.colno}: {exc.msg}"
            )
        except RecursionError:
            return dead_letter(record, "invalid_json", "nesting too deep")
        if not isinstance(data, dict):
            return dead_letter(record, "not_an_object", f"top level is {type(data).__name__}")
        schema = data.get("schema")
        if schema is not None and schema != SCHEMA_ID:
            return dead_letter(
                record, "unknown_schema", f"schema {str(schema)[:80]!r}, want {SCHEMA_ID}"
            )
        try:
            return RagTrace.from_record(TraceRecord.model_validate(data))
        except ValidationError as exc:
            return dead_letter(record, "invalid_record", first_error(exc))


def dead_letter(record: SourceRecord, reason: str, detail: str) -> DeadLetter:
    """The record as a dead letter: its bytes, key and position, and why."""
    return DeadLetter(
        reason=reason,
        detail=detail,
        source=record.position.source,
        partition=record.position.partition,
        offset=record.position.offset,
        raw=record.value,
        key=record.key,
    )
