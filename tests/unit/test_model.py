"""The native trace record: tolerant of unknown fields, strict on types, one-line errors."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from monitor.core.model import RagTrace, first_error
from monitor.core.record import SCHEMA_ID, TraceRecord

VALID = {
    "trace_id": "4BF92F3577B34DA6A3CE929D0E0E4736",
    "timestamp": "2024-11-01T10:00:00Z",
    "app": "support",
    "route": "billing",
    "release": "1.2",
    "query": "How long is the refund window?",
    "retrieved": [{"doc_id": "a", "chunk_id": "a#0", "score": 1, "rank": 1}],
    "context": [{"doc_id": "a", "chunk_id": "a#0", "text": "30 days."}],
    "answer": "30 days [1].",
    "model": "gpt-4o-mini",
    "attributes": {"k": [1, 2]},
    "golden_id": "g1",
}


def test_valid_record_round_trips() -> None:
    """Every documented field is read; the trace id is normalised to lower case."""
    trace = RagTrace.from_data(VALID)
    assert trace.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert trace.retrieved[0].score == 1.0
    assert trace.context_text == "30 days."
    assert trace.timestamp is not None and trace.timestamp.year == 2024


def test_unknown_fields_are_ignored() -> None:
    """Producers may add fields of their own."""
    trace = RagTrace.from_data({**VALID, "schema": SCHEMA_ID, "tenant": "x"})
    assert trace.answer == "30 days [1]."


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"trace_id": "xyz"}, "trace_id"),
        ({"trace_id": "0" * 32}, "trace_id"),
        ({"query": 5}, "query"),
        ({"context": [{"doc_id": "a"}]}, "context.0.text"),
        ({"retrieved": [{"doc_id": "a", "rank": "1"}]}, "retrieved.0.rank"),
        ({"timestamp": "yesterday"}, "timestamp"),
        ({"answer": None}, "answer"),
    ],
)
def test_invalid_records_name_the_field(patch: dict[str, object], field: str) -> None:
    """A wrong type is rejected (no coercion) and the one-line reason starts with the field."""
    with pytest.raises(ValidationError) as exc:
        RagTrace.from_data({**VALID, **patch})
    line = first_error(exc.value)
    assert line.startswith(f"{field}:")
    assert "\n" not in line


def test_missing_trace_id_is_reported() -> None:
    """trace_id is the one required field."""
    with pytest.raises(ValidationError) as exc:
        RagTrace.from_data({"answer": "x"})
    assert first_error(exc.value).startswith("trace_id:")


def test_schema_lists_the_documented_fields() -> None:
    """The published JSON Schema has exactly the documented fields."""
    schema = TraceRecord.model_json_schema()
    assert set(schema["properties"]) == {
        "schema", "trace_id", "timestamp", "app", "route", "release", "query", "retrieved",
        "context", "answer", "model", "attributes", "golden_id", "sample_rate", "session_id",
    }  # fmt: skip
    assert schema["required"] == ["trace_id"]
    session = schema["properties"]["session_id"]["anyOf"][0]  # optional, at most 256 characters
    assert (session["minLength"], session["maxLength"]) == (1, 256)
    assert json.dumps(schema)  # serialisable


_NEAR_IDS = st.lists(st.sampled_from("0123456789abcdefABCDEF-"), min_size=30, max_size=38).map(
    "".join
)


@given(st.one_of(st.text(alphabet="0123456789abcdefABCDEFg- \t", max_size=40),
                 st.tuples(st.sampled_from(["", " ", "\t"]), _NEAR_IDS).map("".join)))  # fmt: skip
@settings(max_examples=500, deadline=None)
def test_the_schemas_trace_id_pattern_accepts_what_the_validator_accepts(value: str) -> None:
    """A validator in another language given `ragmon schema` agrees with ragmon on every id
    (all zeros aside: the pattern cannot say it, the description does)."""
    pattern = re.compile(TraceRecord.model_json_schema()["properties"]["trace_id"]["pattern"])
    try:
        RagTrace.from_data({"trace_id": value})
        accepted = True
    except ValidationError:
        accepted = False
    zeros = value.strip().replace("-", "") == "0" * 32
    assert bool(pattern.search(value)) == (accepted or zeros), value
