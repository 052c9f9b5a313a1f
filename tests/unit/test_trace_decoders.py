"""The trace decoded by msgspec is the trace the record's schema accepts, on every record.

``RagTrace.from_json`` decodes a record straight into the msgspec struct and hands anything
that decoder refuses to the pydantic schema of record (``core.record.TraceRecord``), which
accepts it or names why not. So a refusal by the fast decoder is always safe; what must never
happen is the fast decoder *accepting* a record the schema refuses, or reading a value
differently (a timestamp, a number's type, a duplicated key, a normalised trace id). Each
test below decodes the same bytes both ways and asks for identical results: the same
fields, the same Python types (``repr`` tells ``1`` from ``1.0`` and ``-0.0`` from ``0.0``),
and the whole native decoder's dead letters unchanged.

The oracle is the decoder as it was before the fast path: the schema from the bytes, then,
when that fails, ``json.loads`` and the schema from Python data (``NativeDecoder._explained``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from monitor.core import model
from monitor.core import record as record_mod
from monitor.core.model import DeadLetter, Passage, RagTrace, RetrievedDoc, Timestamp
from monitor.core.record import TraceRecord
from monitor.ingest import conversion
from monitor.ingest.native import NativeDecoder
from monitor.sources import SourcePosition, SourceRecord
from monitor.sources.framing import read_messages
from tests.unit.test_decoder_fuzz import NATIVE_RECORDS, json_values, mutated_json

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
POSITION = SourcePosition("t", 0, 0)


def record(raw: bytes) -> SourceRecord:
    return SourceRecord(POSITION, raw, None)


def by_schema(raw: bytes) -> RagTrace | DeadLetter:
    """The native decoder without the fast path: what the schema alone makes of ``raw``."""
    decoder = NativeDecoder()
    if not raw.startswith(b"\xef\xbb\xbf"):
        try:
            return RagTrace.from_record(TraceRecord.model_validate_json(raw))
        except ValidationError:
            pass
    return decoder._explained(record(raw))


def fast(raw: bytes) -> RagTrace | None:
    """The msgspec decoder alone: the trace, or None when it refuses."""
    try:
        return model._decoded(raw)
    except Exception:  # every refusal goes to the schema
        return None


def same(raw: bytes) -> None:
    """Both decoders agree on ``raw``; the native decoder's outcome is the schema's."""
    want = by_schema(raw)
    got = fast(raw)
    if got is not None:
        assert isinstance(want, RagTrace), f"fast path took what the schema refuses: {want}"
        assert repr(got) == repr(want)
        assert got.to_json() == want.to_json()
    out = NativeDecoder()(record(raw))
    assert repr(out) == repr(want)


VALID: dict[str, Any] = {
    "schema": "ragmon.trace/v1",
    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
    "timestamp": "2024-11-01T10:00:00Z",
    "app": "support",
    "route": "billing",
    "release": "1.2",
    "query": "How long is the refund window?",
    "retrieved": [{"doc_id": "a", "chunk_id": "a#0", "score": 0.5, "rank": 1}],
    "context": [{"doc_id": "a", "chunk_id": "a#0", "text": "30 days.", "data_source": "kb",
                 "timestamp": "2024-10-01T00:00:00+02:00"}],
    "answer": "30 days [1].",
    "model": "gpt-4o-mini",
    "attributes": {"k": [1, 2.5, None, True, {"n": "x"}]},
    "golden_id": "g1",
    "session_id": "s-1",
    "sample_rate": 0.25,
}  # fmt: skip


def with_(**patch: Any) -> bytes:
    return json.dumps({**VALID, **patch}).encode()


def cand(**fields: Any) -> bytes:
    """The valid record with one retrieved candidate of these fields."""
    return with_(retrieved=[{"doc_id": "a", **fields}])


TIMESTAMPS = [
    "2024-11-01T10:00:00Z", "2024-11-01t10:00:00z", "2024-11-01T10:00:00.1234567Z",
    "2024-11-01T10:00:00.123456Z", "2024-11-01T10:00:00.5+05:30", "2024-11-01 10:00:00Z",
    "2024-11-01", "2024-11-01T10:00:00", "2024-11-01T10:00:00+0000", "2024-11-01T10:00Z",
    "2024-11-01T24:00:00Z", "2024-11-01T10:00:60Z", "0000-01-01T00:00:00Z",
    "2024-02-30T00:00:00Z", "20241101T100000Z", "2024-11-01T10:00:00+24:00", "", "Z",
    "2024-11-01T10:00:00ZZ", "2024-W44-5", "2024-11-01T10:00:00-00:00",
]  # fmt: skip

CASES: list[bytes] = [
    with_(),
    *(with_(timestamp=t) for t in TIMESTAMPS),
    *(with_(context=[{"text": "x", "timestamp": t}]) for t in TIMESTAMPS),
    with_(timestamp=1730455200), with_(timestamp=None), with_(timestamp=True),
    with_(trace_id="4BF92F35-77B3-4DA6-A3CE-929D0E0E4736"),
    with_(trace_id=" 4bf92f3577b34da6a3ce929d0e0e4736\n"),
    with_(trace_id="\u00a04bf92f3577b34da6a3ce929d0e0e4736"), with_(trace_id="0" * 32),
    with_(trace_id="0-" * 32), with_(trace_id="4bf92f3577b34da6a3ce929d0e0e473"),
    with_(trace_id=""),
    with_(trace_id=123), with_(trace_id="4bf92f3577b34da6a3ce929d0e0e4736" + "\u0660"),
    with_(schema="ragmon.trace/v2"), with_(schema=None), with_(schema=1),
    cand(score=1), cand(score=True), cand(rank=1.0), cand(rank=2**70), cand(rank=-3),
    cand(score=-0.0), cand(score=1e308), with_(retrieved=[{"chunk_id": "a"}]),
    with_(retrieved=None), with_(retrieved={}), with_(retrieved=[None]), with_(context=[{}]),
    with_(context=[{"text": None}]), with_(context=[{"text": "x", "doc_id": 5}]),
    with_(session_id=""), with_(session_id="x" * 256), with_(session_id="x" * 257),
    with_(session_id="\U0001f600" * 256), with_(session_id="\U0001f600" * 257),
    with_(session_id="e\u0301" * 128), with_(session_id="e\u0301" * 129),
    with_(sample_rate=0), with_(sample_rate=1), with_(sample_rate=1.0000000000000002),
    with_(sample_rate=5e-324), with_(sample_rate=-0.0), with_(sample_rate=True),
    with_(sample_rate="0.5"), with_(query=None), with_(answer=5), with_(attributes=[]),
    with_(attributes={"big": 2**80, "neg": -(2**80), "f": 1.5, "e": 1e-7, "z": -0.0}),
    with_(attributes={"deep": json.loads("[" * 200 + "]" * 200)}),
    with_(app="", route="\u0000", release="\ud7ff"), with_(model=["m"]),
    with_(extra={"unknown": [1, {"a": None}]}, record_schema="x", Trace_ID="y"),
]  # fmt: skip

T = b'{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"'  # a record's start, written out
RAW_CASES: list[bytes] = [
    T + b', "answer": "a", "answer": "b"}',
    T + b', "answer": "a", "answer": 5}',
    T + b', "attributes": {"k": 1, "k": 2}}',
    T + b', "trace_id": "0"}',
    b'{"\\u0074race_id": "4bf92f3577b34da6a3ce929d0e0e4736", "\\u0061nswer": "\\u00e9"}',
    T + b', "answer": "\\ud800"}',
    T + b', "answer": "\\ud83d\\ude00"}',
    T + b', "answer": "\xff"}',
    T + b', "answer": "\xc0\xaf"}',
    T + b', "answer": "\xed\xa0\x80"}',
    T + b', "attributes": {"n": NaN}}',
    T + b', "attributes": {"n": Infinity}}',
    T + b', "attributes": {"n": 1e400}}',
    T + b', "attributes": {"n": -1e400}}',
    T + b', "attributes": {"n": 1.0e-400}}',
    T + b', "attributes": {"n": 0.1000000000000000055511151231257827}}',
    T + b', "attributes": {"n": 12345678901234567890}}',
    T + b', "attributes": {"n": 1E2, "m": 1.0E+2, "o": 10e-1}}',
    T + b', "attributes": {"n": 01}}',
    T + b', "attributes": {"n": -}}',
    T + b', "sample_rate": 1e-400}',
    T + b', "retrieved": [{"doc_id": "a", "rank": 1e0}]}',
    T + b"}",
    b" \n\t" + T + b"} \r\n",
    T + b"} x",
    T + b"}{}",
    T + b",}",
    b"{'trace_id': '4bf92f3577b34da6a3ce929d0e0e4736'}",
    b"\xef\xbb\xbf" + T + b"}",
    T + b', "attributes": {"a": "\x01"}}',
    T + b', "query": "tab\there"}',
    b"[]", b"null", b"", b"{}", b'"x"', b"1", b"{" * 5000, b"[" * 100000 + b"]" * 100000,
    T + b', "attributes": '
    + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}",
]  # fmt: skip


@pytest.mark.parametrize("raw", CASES + RAW_CASES, ids=range(len(CASES) + len(RAW_CASES)))
def test_hard_cases_decode_as_the_schema_decodes_them(raw: bytes) -> None:
    """Edge cases of the format, the types and the record's own rules, each written out."""
    same(raw)


def test_the_fast_decoder_is_the_one_that_takes_the_common_records() -> None:
    """The demo's records and the hand-written valid one are taken by msgspec itself (were the
    fast path refusing everything, every other test here would pass and nothing be fast)."""
    for raw in [*NATIVE_RECORDS, with_()]:
        got = fast(raw)
        assert got is not None
        assert isinstance(got.timestamp, Timestamp)


def test_a_timestamp_is_read_by_the_records_rule_not_msgspecs() -> None:
    """msgspec's own RFC 3339 parser takes a lower-case ``t``/``z`` and rounds a 7th fraction
    digit; the record's rule (``datetime.fromisoformat``) is what decides."""
    trace = RagTrace.from_json(with_(timestamp="2024-11-01T10:00:00.1234567Z"))
    assert trace.timestamp is not None and trace.timestamp.microsecond == 123456
    assert RagTrace.from_json(with_(timestamp="2024-11-01")).timestamp == Timestamp(2024, 11, 1)


@FUZZ
@given(mutated_json(NATIVE_RECORDS))
def test_mutated_real_records_decode_as_the_schema_decodes_them(raw: bytes) -> None:
    """The demo's records with fields deleted, replaced by other JSON, wrapped, renamed, and
    bytes flipped, cut and spliced."""
    same(raw)


FIELDS = [k for k in VALID if k != "schema"] + ["schema"]


@FUZZ
@given(
    st.sampled_from(FIELDS),
    json_values | st.text() | st.from_regex(r"\A[0-9T:.\-+ Zz]{0,35}\Z") | st.floats(),
)
def test_any_value_in_any_field_decodes_as_the_schema_decodes_it(field: str, value: Any) -> None:
    """One known field of a valid record set to an arbitrary JSON value."""
    same(json.dumps({**VALID, field: value}, allow_nan=True).encode())


@FUZZ
@given(st.sampled_from(["retrieved", "context"]), st.sampled_from(
    ["doc_id", "chunk_id", "score", "rank", "text", "data_source", "timestamp"]
), json_values | st.from_regex(r"\A[0-9T:.\-+ Zz]{0,35}\Z"))  # fmt: skip
def test_any_value_in_a_passage_or_candidate_decodes_as_the_schema_decodes_it(
    where: str, field: str, value: Any
) -> None:
    """One field of the first passage or candidate set to an arbitrary JSON value."""
    item = {**VALID[where][0], field: value}
    same(json.dumps({**VALID, where: [item]}, allow_nan=True).encode())


@FUZZ
@given(st.sampled_from(CASES + RAW_CASES[:30]).flatmap(lambda raw: st.just(raw)))
def test_python_data_converts_as_the_schema_validates_it(raw: bytes) -> None:
    """``from_data`` (msgspec's convert, the schema when it refuses) on the Python data of
    the same records: the span mapping and the offline commands build traces this way."""
    try:
        data = json.loads(raw)
    except ValueError:
        return
    try:
        want: RagTrace | str = RagTrace.from_record(TraceRecord.model_validate(data))
    except ValidationError as exc:
        want = str(exc)
    try:
        got: RagTrace | str = RagTrace.from_data(data)
    except ValidationError as exc:
        got = str(exc)
    assert repr(got) == repr(want)


def test_a_trace_written_for_the_judge_reads_back_equal() -> None:
    """The judge's process and the batch outbox hand a trace on as ``to_json``."""
    for raw in [*NATIVE_RECORDS, *CASES]:
        trace = by_schema(raw)
        if isinstance(trace, RagTrace):
            assert repr(RagTrace.from_json(trace.to_json())) == repr(trace)


CORPUS = Path(__file__).resolve().parents[1] / "otel_corpus"


def test_every_trace_mapped_from_real_spans_converts_as_the_schema_validates_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The span mapping hands its record to ``from_data``: on every trace of the corpus of real
    instrumentation, msgspec's convert gives what the schema gives."""
    seen: list[object] = []
    original = RagTrace.from_data

    def recording(data: object) -> RagTrace:
        seen.append(copy.deepcopy(data))
        return original(data)

    monkeypatch.setattr(RagTrace, "from_data", staticmethod(recording))
    for path in sorted(CORPUS.glob("*.otlp")):
        conversion.convert(read_messages(path.read_bytes(), "otlp-proto"), "otlp_proto")
    assert len(seen) >= 60
    for data in seen:
        assert repr(original(data)) == repr(RagTrace.from_record(TraceRecord.model_validate(data)))


REQUIRED = object()


def _struct_fields(struct: type[msgspec.Struct]) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in msgspec.structs.fields(struct):
        if f.default is not msgspec.NODEFAULT:
            out[f.encode_name] = f.default
        elif f.default_factory is not msgspec.NODEFAULT:
            out[f.encode_name] = f.default_factory()
        else:
            out[f.encode_name] = REQUIRED
    return out


def _model_fields(model: type[BaseModel]) -> dict[str, object]:
    return {
        (info.alias or name): REQUIRED
        if info.is_required()
        else info.get_default(call_default_factory=True)
        for name, info in model.model_fields.items()
    }


@pytest.mark.parametrize(
    ("struct", "schema"),
    [(RagTrace, TraceRecord), (Passage, record_mod.Passage),
     (RetrievedDoc, record_mod.RetrievedDoc)],
)  # fmt: skip
def test_the_struct_has_every_field_of_the_schema_and_its_default(
    struct: type[msgspec.Struct], schema: type[BaseModel]
) -> None:
    """The two definitions of the record cannot drift: a field added to the schema and not to
    the struct (or with another default, or another key) fails here, not in production, where
    the struct would silently drop it."""
    assert _struct_fields(struct) == _model_fields(schema)


def test_the_tests_record_sets_every_field_and_survives_the_way_back() -> None:
    """``VALID`` names every field of the record, its passage and its candidate (so the
    cases above change each), and a trace made from the schema's record gives that record
    back (``from_record`` copies every field, ``to_record`` loses none)."""
    assert set(VALID) == set(_model_fields(TraceRecord))
    assert set(VALID["context"][0]) == set(_model_fields(record_mod.Passage))
    assert set(VALID["retrieved"][0]) == set(_model_fields(record_mod.RetrievedDoc))
    validated = TraceRecord.model_validate(VALID)
    assert RagTrace.from_record(validated).to_record() == validated
