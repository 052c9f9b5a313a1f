"""Characters that are digits but not decimal ("¹²", "²": str.isdigit() is true, int() fails)
are no numbers wherever text is parsed into one: a check, an ingested attribute's index, a
commit's note, a command's count. Found by the property test of every check (a mutated list
item "¹² Carl" raised ValueError in unsupported_numbers)."""

from __future__ import annotations

import argparse

import pytest

from monitor.checks import TraceView, default_checks
from monitor.checks.numbers.forms import quantity
from monitor.commands.arguments import _workers
from monitor.core.model import RagTrace
from monitor.ingest.conventions.core import _indexed
from monitor.sources.kafka_notes import decode_note


def test_a_list_item_led_by_superscript_digits_counts_one() -> None:
    assert quantity("¹² Carl") == 1
    assert quantity("12 Carls") == 12
    text = "Her children are Anna, Ben9:¹² Carl and Dora."
    data = {"trace_id": "ab" * 16, "query": "", "answer": "She has four children.",
            "context": [{"doc_id": "d1", "text": text}]}  # fmt: skip
    view = TraceView(RagTrace.from_data(data))
    for check in default_checks():
        check(view)  # raises nothing


def test_an_attribute_index_in_superscript_is_no_index() -> None:
    attrs = {"llm.input_messages.¹.message.content": "x",
             "llm.input_messages.0.message.content": "y"}  # fmt: skip
    assert _indexed(attrs, "llm.input_messages", "message.") == [{"content": "y"}]


def test_a_note_with_superscript_digits_is_no_note() -> None:
    assert decode_note("ragmon/2 ¹ 2 0 -") is None
    assert decode_note("ragmon/2 1 2 0 -") is not None
    assert decode_note("ragmon/1 ¹ *") is None


def test_a_worker_count_in_superscript_is_refused() -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        _workers("²")
