"""citation, the ninth blind round (issue 75): a date or time format in capitals is a
placeholder; each with the citations beside it that must stay."""

from __future__ import annotations

import pytest

from tests.unit.checks.test_citation_brackets import cited


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Write dates as [DD/MM/YYYY] and never use [TBD] in published copy.", ([], [])),
        ("Use the [YYYY-MM-DD] form in file names [style-guide].", (["style-guide"], [])),
        ("Times are written [HH:MM] on the rota [1].", (["1"], [])),
        ("German copy writes [DD.MM.YYYY] dates [2].", (["2"], [])),
        ("Stamp each entry [HH:MM:SS].", ([], [])),
        # hard negatives: ids and citations in capitals still cite
        ("See the house rules [HR-POLICY].", (["HR-POLICY"], ["HR-POLICY"])),
        ("See the house rules [STYLE-GUIDE].", (["STYLE-GUIDE"], [])),
        ("Dates follow the guide [1][2].", (["1", "2"], [])),
    ],
)
def test_a_date_or_time_format_is_a_placeholder(
    answer: str, expected: tuple[list[str], list[str]]
) -> None:
    """ "[DD/MM/YYYY]" is a placeholder in capitals, as "[YOUR_API_KEY]" is: no citation (it
    was cited as an id, and invalid)."""
    assert cited(answer, ["style-guide", "dates"]) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "The notice period is one month [1:14], and overtime is time and a half [3:2].",
            ["1", "3"],
        ),
        ("The fee is £500 [2:4]; bring your passport [2:11].", ["2"]),
        ("Notice is one month [3:10].", ["3"]),
        # hard negatives: a clock time (two digits before the colon, or seconds); a ratio
        ("The courier scanned it at [14:32] and [09:30].", []),
        ("[00:14:07] upload failed; retry [2].", ["2"]),
        ("[1:14:07] upload failed.", []),
        ("Screens are [16:9] and [4:30].", []),
    ],
)
def test_a_passage_and_a_line_with_two_digits(answer: str, expected: list[str]) -> None:
    """ "[1:14]" is passage 1 at its line 14, as "[3:2]" is passage 3 at line 2 (a place of
    two digits was read as a clock time); a clock time has two digits before the colon."""
    assert cited(answer, ["contract", "schedule", "rates"]) == (expected, [])
