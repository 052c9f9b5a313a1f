"""bench/followups.py's kinds of rephrase, told from a pair's text by the bench's own rule
(not the signals' reading): exact, partial, reworded."""

from __future__ import annotations

import pytest

from bench.followups import kind, score


@pytest.mark.parametrize(
    ("lang", "a", "b", "expected"),
    [
        ("en", "How do I export my invoices?", "how do i export my invoices", "exact"),
        ("es", "¿Cómo descargo mis datos?", "como descargo mis datos!!!", "exact"),
        ("zh", "怎么取消订阅？", "怎么取消订阅", "exact"),
        ("en", "how do I export my invoices as pdf", "invoices pdf??", "partial"),
        ("en", "how do I export my invoices", "again: export invoices, urgent", "partial"),
        ("en", "how do I cancel my subscription", "how do i cancle my subscripton", "partial"),
        ("de", "Wie exportiere ich Rechnungen als CSV?", "rechnungen csv exportieren", "partial"),
        ("en", "how do I cancel my subscription", "i want to end my plan, how", "reworded"),
        ("en", "how much is the pro plan per month", "whats the monthly cost of pro", "reworded"),
    ],
)
def test_a_rephrase_kind_is_told_by_its_text(lang: str, a: str, b: str, expected: str) -> None:
    assert kind(lang, a, b) == expected


def test_recall_is_counted_per_kind() -> None:
    again, thanks = frozenset({"rephrase"}), frozenset({"positive_feedback"})
    rows = [
        ("en", "how do I export my invoices", "how do I export my invoices", again),
        ("en", "how do I cancel my subscription", "i want to end my plan, how", again),
        ("en", "how do I export my invoices", "thanks", thanks),
    ]
    got = score(rows)
    assert got.kinds == {"exact": 1, "reworded": 1}
    assert got.kinds_read["exact"] == 1  # an exact repeat is read
