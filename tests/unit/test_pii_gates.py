"""The PII detectors' literal gates (``Detector.needs``) only skip scans that could not match:
the redaction and what it finds are the same with and without them, on the labelled corpus,
on the benchmark's passages and on arbitrary text."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import bench_records
from monitor.core.pii import Redactor
from tests.pii_corpus import CORPUS

GATED = Redactor({"ticket": r"TCK-\d{6}"})
UNGATED = Redactor({"ticket": r"TCK-\d{6}"})
UNGATED.detectors = tuple(dataclasses.replace(d, needs=()) for d in UNGATED.detectors)


def same(text: str) -> None:
    counts_gated: dict[str, int] = {}
    counts_ungated: dict[str, int] = {}
    assert GATED.redact(text, counts_gated) == UNGATED.redact(text, counts_ungated)
    assert counts_gated == counts_ungated
    assert GATED.found(text) == UNGATED.found(text)


def test_the_gates_change_nothing_on_the_corpus_and_the_bench_passages() -> None:
    assert any(d.needs for d in GATED.detectors)  # gated, the reference not
    for _, text, _ in CORPUS:
        same(text)
        same(f"{text} Authorization: BEARER abcdefghijklmnop1234 and TCK-123456")
    for record in bench_records(40):
        for passage in json.loads(record)["context"]:
            same(passage["text"])


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("aeBRr@:.-_ 0123456789eyJskghAKIAxoz+()/")) | st.characters(),
        max_size=200,
    )
)
def test_the_gates_change_nothing_on_any_text(text: str) -> None:
    same(text)
