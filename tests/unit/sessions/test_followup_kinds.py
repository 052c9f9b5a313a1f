"""bench/followups.py's kinds of rephrase, told from a pair's text by the bench's own rule
(not the signals' reading): exact, partial, reworded."""

from __future__ import annotations

from pathlib import Path

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


def test_a_fifth_column_is_counted_as_the_labelled_kind(tmp_path: Path) -> None:
    from bench.followups import by_kind, labelled_kinds, load

    path = tmp_path / "set.tsv"
    path.write_text(
        "# comment\n"
        "en\thow do I export my invoices\thow do I export my invoices\trephrase\texact\n"
        "en\thow do I cancel my plan\ti want to end my plan, how\trephrase\treworded\n"
        "en\thow do I export my invoices\tthanks\tpositive_feedback\t-\n",
        encoding="utf-8",
    )
    rows, given = load(path), labelled_kinds(path)
    assert given == ["exact", "reworded", "-"]
    got = score(rows, given)
    assert got.labelled == {"exact": 1, "reworded": 1}
    assert got.labelled_read["exact"] == 1 and got.labelled_read["reworded"] == 0
    assert "labelled: exact=1.000 (1/1)" in by_kind(got)


def test_a_file_without_a_fifth_column_has_no_labelled_kind(tmp_path: Path) -> None:
    from bench.followups import by_kind, labelled_kinds, load

    path = tmp_path / "set.tsv"
    path.write_text("en\thow do I export\thow do I export\trephrase\n", encoding="utf-8")
    assert labelled_kinds(path) is None
    got = score(load(path), labelled_kinds(path))
    assert not got.labelled and "labelled" not in by_kind(got)
