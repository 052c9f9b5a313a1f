"""Decoding native records: bad input becomes a dead letter with a reason, never an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.core.model import DeadLetter, RagTrace
from monitor.ingest.native import DEAD_LETTER_REASONS, NativeDecoder
from monitor.sources import SourcePosition, SourceRecord

decode = NativeDecoder(max_record_bytes=10_000)


def record(raw: bytes) -> SourceRecord:
    return SourceRecord(SourcePosition("traces", 3, 42), raw)


def test_valid_record() -> None:
    """A valid record becomes a trace."""
    item = decode(record(json.dumps({"trace_id": "ab" * 16, "answer": "x"}).encode()))
    assert isinstance(item, RagTrace)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"\xff\xfe", "invalid_utf8"),
        (b"{not json", "invalid_json"),
        (b"[1, 2]", "not_an_object"),
        (b'{"schema": "other/v9", "trace_id": "' + b"ab" * 16 + b'"}', "unknown_schema"),
        (b'{"trace_id": 12}', "invalid_record"),
        (b'{"trace_id": "' + b"ab" * 16 + b'", "query": "' + b"x" * 20_000 + b'"}', "too_large"),
        (b"[" * 5_000, "invalid_json"),  # nesting deeper than the parser allows
    ],
)
def test_bad_records_become_dead_letters(raw: bytes, reason: str) -> None:
    """Each kind of bad input has its own bounded reason and keeps position and bytes."""
    item = decode(record(raw))
    assert isinstance(item, DeadLetter)
    assert item.reason == reason
    assert item.reason in DEAD_LETTER_REASONS
    assert (item.source, item.partition, item.offset) == ("traces", 3, 42)
    assert item.raw == raw
    assert "\n" not in item.detail


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_arbitrary_bytes_never_raise(raw: bytes) -> None:
    """Anything at all decodes to a trace or a dead letter."""
    assert isinstance(decode(record(raw)), RagTrace | DeadLetter)


_TRICKY = [
    b'{"trace_id": "' + b"ab" * 16 + b'", "answer": "x\\ud800y"}',  # lone surrogate
    b'{"trace_id": "' + b"ab" * 16 + b'", "answer": NaN}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "retrieved": [{"doc_id": "a", "rank": 3.0}]}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "retrieved": [{"doc_id": "a", "score": 1}]}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "timestamp": "2024-01-01T00:00:00Z"}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "timestamp": "yesterday"}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "answer": "a", "answer": "b"}',  # duplicate key
    b'\xef\xbb\xbf{"trace_id": "' + b"ab" * 16 + b'"}',  # byte-order mark
    b'{"schema": "ragmon.trace/v1", "trace_id": "' + b"ab" * 16 + b'"}',
    b'{"trace_id": "' + b"AB-" * 10 + b'abab"}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "context": [{"text": 5}]}',
    b'{"trace_id": "' + b"ab" * 16 + b'", "attributes": {"n": 1e999}}',
]


@pytest.mark.parametrize("raw", _TRICKY)
def test_the_fast_path_decides_as_the_explained_path(raw: bytes) -> None:
    """Records are validated straight from bytes; the outcome (trace or dead letter with
    its reason) is the one the step-by-step path gives."""
    fast, slow = decode(record(raw)), decode._explained(record(raw))
    assert type(fast) is type(slow)
    if isinstance(fast, DeadLetter):
        assert isinstance(slow, DeadLetter)
        assert (fast.reason, fast.detail) == (slow.reason, slow.detail)
    else:
        assert fast == slow


@given(
    st.dictionaries(
        st.sampled_from(["trace_id", "answer", "query", "context", "retrieved", "timestamp"]),
        st.one_of(st.text(max_size=5), st.integers(), st.floats(), st.none(),
                  st.lists(st.dictionaries(st.sampled_from(["text", "doc_id", "rank"]),
                                           st.one_of(st.text(max_size=3), st.integers()))),
                  st.just("ab" * 16)),
    )
)  # fmt: skip
@settings(max_examples=300, deadline=None)
def test_fast_and_explained_paths_agree_on_generated_records(data: dict[str, object]) -> None:
    raw = json.dumps(data).encode()
    fast, slow = decode(record(raw)), decode._explained(record(raw))
    assert type(fast) is type(slow)
    if isinstance(fast, RagTrace):
        assert fast == slow
