"""The PII detectors' gates (the literals of ``Detector.needs``, the shape patterns of
``Detector.shaped``) only skip scans that could not match: the redaction and what it finds are
the same with and without them, on the labelled corpus, on the benchmark's passages and on
arbitrary text."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import bench_records
from monitor.core.pii import Redactor, shape
from tests.pii_corpus import CORPUS

GATED = Redactor({"ticket": r"TCK-\d{6}"})
UNGATED = Redactor({"ticket": r"TCK-\d{6}"})
UNGATED.detectors = tuple(dataclasses.replace(d, needs=(), shaped=None) for d in UNGATED.detectors)


def same(text: str) -> None:
    counts_gated: dict[str, int] = {}
    counts_ungated: dict[str, int] = {}
    assert GATED.redact(text, counts_gated) == UNGATED.redact(text, counts_ungated)
    assert counts_gated == counts_ungated
    assert GATED.found(text) == UNGATED.found(text)


def test_the_gates_change_nothing_on_the_corpus_and_the_bench_passages() -> None:
    assert any(d.needs for d in GATED.detectors)  # gated, the reference not
    assert any(d.shaped for d in GATED.detectors)
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


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("0123456789 .-/+()?ABDEGZx:,\u0663\uff10\u00e9\U0001d7ce"))
        | st.characters(),
        max_size=120,
    )
)
def test_the_shape_gates_change_nothing_on_text_of_figures(text: str) -> None:
    """Digits (ASCII and not), separators, capitals and '?' in any order, as the numbers'
    detectors read them: gated and ungated redact alike."""
    same(text)
    same(f"+{text}")
    same(f"({text[:3]}) {text[3:]}")


def test_the_shape_skips_the_number_patterns_on_prose_with_figures() -> None:
    """A passage of figures that no number pattern can match is not scanned by them (the gate
    works); a card, an IBAN, an address or a phone number in it is."""
    prose = "The admin console keeps up to 459 members; a $1,038 monthly minimum, 16% off."
    numbers = [d for d in GATED.detectors if d.shaped is not None]
    assert [d.kind for d in numbers] == ["IBAN", "CARD", "IP", "PHONE"]
    assert not any(d.may_match(prose) for d in numbers)
    for kind, item in (("IBAN", "DE89 3704 0044 0532 0130 00"), ("CARD", "4111 1111 1111 1111"),
                       ("IP", "10.0.0.1"), ("PHONE", "+49 30 1234567"),
                       ("PHONE", "(555) 123-4567"), ("PHONE", "030 1234567")):  # fmt: skip
        (detector,) = [d for d in numbers if d.kind == kind and d.may_match(f"{prose} {item} now")]
        assert detector.pattern.search(f"{prose} {item} now")
    assert shape("Call +49 30 1234567, ok? \u0663") == b"A +00 00 0000000 0 0"
