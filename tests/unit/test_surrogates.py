"""Lone UTF-16 surrogates escaped in JSON (monitor/ingest/surrogates.py): RFC 8259 section
8.2 allows "\\uDEAD" in a string and says such strings arise "when a library truncates a
UTF-16 string without checking whether the truncation split a surrogate pair". Decoded as
they are, they made a str UTF-8 cannot encode: three checks raised on it and the risk's
byte search raised out of the pipeline (``ragmon replay`` ended in a traceback, writing
nothing). They become U+FFFD before the JSON is decoded."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from monitor.checks import CheckSuite
from monitor.checks.risk import risk
from monitor.checks.view import TraceView
from monitor.core.model import RagTrace
from monitor.ingest.native import NativeDecoder
from monitor.ingest.otlp import decode_json
from monitor.ingest.surrogates import without_lone_surrogates
from monitor.sources import SourcePosition, SourceRecord, demo
from tests.conftest import ends_in_time


def test_lone_halves_become_the_replacement_character_and_pairs_stay() -> None:
    cases = {
        rb'"a\ud800b"': "a\ufffdb",  # a high half alone
        rb'"a\uDC00b"': "a\ufffdb",  # a low half alone (either case of hex)
        rb'"\ud83d\ude00"': "\U0001f600",  # a pair: one character, kept
        rb'"\ud83d\ud83d\ude00"': "\ufffd\U0001f600",  # a half, then a pair
        rb'"\\ud800"': "\\ud800",  # an escaped backslash, then the text "ud800"
        rb'"\\\ud800"': "\\\ufffd",  # an escaped backslash, then an escape
        rb'"cut at the limit \ud83d"': "cut at the limit \ufffd",
    }
    for raw, text in cases.items():
        assert json.loads(without_lone_surrogates(raw)) == text, raw


def test_json_without_a_surrogate_escape_is_returned_as_it_is() -> None:
    raw = b'{"answer": "\\u00e9 \\\\u d800"}'
    assert without_lone_surrogates(raw) is raw


_ANY_CODE_UNIT = st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr), st.just("\\"))


@given(st.text(_ANY_CODE_UNIT, max_size=40))
def test_any_string_json_escapes_decodes_to_encodable_text(text: str) -> None:
    """Whatever a producer's JSON writer escapes (Python's json escapes every non-ASCII
    character, lone halves included), the decoded text encodes, and is the text with each
    lone half made U+FFFD (pairs written as two halves are one character, as in JSON)."""
    decoded = json.loads(without_lone_surrogates(json.dumps(text).encode()))
    decoded.encode("utf-8")  # raises on a lone half
    assert decoded == text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def native_record(answer: str, passage: str) -> bytes:
    for i in range(50):
        rec = json.loads(demo.generate_bytes(i))
        if rec["context"]:
            break
    rec["answer"] = answer
    rec["context"][0]["text"] = passage
    return json.dumps(rec).encode()  # ensure_ascii: the lone half is written \ud800


def test_a_native_trace_with_a_lone_half_is_checked_whole() -> None:
    raw = native_record("It costs 20 dollars \ud800.", "It costs 25 \ud800 dollars. Plans vary.")
    trace = NativeDecoder()(SourceRecord(SourcePosition("f", 0, 0), raw))
    assert isinstance(trace, RagTrace)
    assert "\ufffd" in trace.answer and "\ud800" not in trace.answer
    view = TraceView(trace)
    results = CheckSuite()(trace, view)
    assert [r.name for r in results.values() if r.error] == []
    assert results["unsupported_numbers"].flagged  # 20 against 25: read through the mark
    assert 0.0 <= risk(results, view) <= 1.0


def test_otlp_json_with_a_lone_half_decodes() -> None:
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331",
        "name": "llm", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
        "attributes": [{"key": "output.value", "value": {"stringValue": "cut \ud83d"}}],
    }]}]}]}  # fmt: skip
    spans = decode_json(json.dumps(doc).encode())
    assert [s.attributes["output.value"] for s in spans] == ["cut \ufffd"]


def test_long_runs_of_backslashes_are_read_in_linear_time() -> None:
    """The escape is found after an even run of backslashes: a run is tried from its start
    only, so a record of backslashes costs its length, not its square."""
    code = (
        "from monitor.ingest.surrogates import without_lone_surrogates\n"
        "raw = b'\"' + b'\\\\\\\\' * 2_000_000 + b'\\\\ud800\"'\n"
        "assert without_lone_surrogates(raw).endswith(b'\\\\ufffd\"')\n"
        "raw = b'\"' + b'\\\\ud800\\\\' * 300_000 + b'\"'\n"
        "without_lone_surrogates(raw)\n"
    )
    assert ends_in_time(code, seconds=20)
