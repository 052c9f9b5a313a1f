"""unsupported_numbers and citation: the three forms round eleven's sealed cases found, fixed
after the sealed part was scored (its figures, before these fixes, are in BLIND11.md), each
with the look-alikes that must keep their reading. Each rule is written in docs/checks.md."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported
from tests.unit.checks.test_citation_brackets import cited

TRIPLED = "Applications tripled this year to 840."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Applications are **3 times** last year's level, at **840**.", TRIPLED, []),
        ("Sales are 3 times that of 2020.", "Sales tripled since 2020.", []),
        ("Sales are 3 times the 2020 figure.", "Sales tripled since 2020.", []),
        # hard negatives: another multiple; how often, not a multiple
        ("Applications are 4 times last year's level.", TRIPLED, ["4"]),
        ("He visited 3 times last year.", "Visits tripled.", ["3"]),
        ("He visits 3 times a week.", "Visits tripled.", ["3"]),
    ],
)  # fmt: skip
def test_a_multiple_of_a_possessed_thing(answer: str, context: str, expected: list[str]) -> None:
    """ "3 times last year's level" is a multiple, backed by "tripled" as "3 times as many" is;
    "3 times last year" says how often."""
    assert unsupported(answer, context) == expected


IDS = ["catalogue-2025", "buyer-terms", "third"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It was checked against the lot list [1].", ["1"]),
        ("The summary was drafted with [GPT-4] and checked against the lot list [1].", ["1"]),
        ("See the price list [2].", ["2"]),
        ("Store the values in an array [3]", ["3"]),
        # hard negatives: a value the clause goes on from, or after a value word
        ("The shopping list [1] is long.", []),
        ("The function returns a list [1, 2].", []),
        # two indices glued to the seats of a seat map, the clause going on: indexing
        ("Cells are read as seats[2][3] after loading, and frame[1][2] stores the label [1].",
         ["1"]),
        ("Pick the squares[0][7] holding a rook.", []),
        # ... but glued citations after a name the clause goes on from cite
        ("Paris[1][2] is the capital.", ["1", "2"]),
        ("The theatre has 400 seats[2][3].", ["2", "3"]),
    ],
)  # fmt: skip
def test_a_list_ending_its_sentence_and_a_seat_map(answer: str, expected: list[str]) -> None:
    assert cited(answer, IDS)[0] == expected
