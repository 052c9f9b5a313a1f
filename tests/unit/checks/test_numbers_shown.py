"""unsupported_numbers: the answer's shown working (``numbers/shown.py``), one operation on
two other figures of its own sentence that the context states, with no cue word; the second
common-sense round's misses (issue 75). docs/checks.md writes the rule."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

FRYER = "Air fryer: was £80.00, now £60.00."
BILL = "Electricity used 300 kWh, energy charge £73.50."
EBITDA = "EBITDA rose to €812m (Q2 2024: €701m)."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a difference of two amounts in one currency
        ("It dropped from £80.00 to £60.00, that's £20 off.", FRYER, []),
        ("It dropped from £80.00 to £60.00, that's £25 off.", FRYER, ["£25"]),
        # an amount over a count, in pence
        ("You used 300 kWh for £73.50, which is 24.5p per kWh.", BILL, []),
        ("You used 300 kWh for £73.50, which is 25.4p per kWh.", BILL, ["25.4p"]),
        # a relative change over the cheaper figure for a rise, hedged
        ("EBITDA climbed to €812m from €701m, an increase of roughly 16%.", EBITDA, []),
        ("EBITDA climbed to €812m from €701m, an increase of roughly 14%.", EBITDA, ["14%"]),
        # over the dearer figure for a fall or a saving
        ("At £24 against £30, the paperback is 20% cheaper.",
         "Hardback edition: £30. Paperback edition: £24.", []),
        ("At £24 against £30, the paperback is 25% cheaper.",
         "Hardback edition: £30. Paperback edition: £24.", ["25%"]),
        ("Visitors were up 20% from 2,000 to 2,500.", "April: 2,000. May: 2,500.", ["20%"]),
        # a count over a count exactly, never rounded to a whole number
        ("Lot 7 has 4 bedrooms and 2 bathrooms.", "Lot 7 has 3 bedrooms and 2 bathrooms.",
         ["4"]),
        ("The 12 seats are shared by 4 teams, 3 seats each.", "12 seats, 4 teams.", []),
        # a sum of two counts needs its cue word
        ("Open to players aged 13 to 19 with Grade 6 or higher.",
         "Open to players aged 13 to 18 with Grade 6 or above.", ["19"]),
        # the operands must be the context's figures
        ("It dropped from £90.00 to £60.00, that's £30 off.", FRYER, ["£90.00", "£30"]),
    ],
)  # fmt: skip
def test_the_answers_shown_working(answer: str, context: str, expected: list[str]) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "With your **15%** member discount, the shell comes down from **£240.00** to "
            "**£204.00** — a saving of **£36**.",
            "Members get 15% off. Alpine shell jacket: £240.00.",
            [],
        ),
        (
            "With your 15% member discount, the shell comes down from £240.00 to £200.00.",
            "Members get 15% off. Alpine shell jacket: £240.00.",
            ["£200.00"],
        ),
        (
            "Duty is 4% of the £3,800 customs value, which is £152.",
            "Import duty of 4% on the customs value (£3,800).",
            [],
        ),
        # a tax a total may already hold is left to the cued steps: £24 is no VAT of a £120
        # total including it (that is £20)
        (
            "Of your £120.00 total, £24.00 is VAT at 20%.",
            "Invoice total: £120.00 (including VAT at 20%).",
            ["£24.00"],
        ),
    ],
)
def test_a_percentage_of_an_amount(answer: str, context: str, expected: list[str]) -> None:
    """A percentage of an amount of the answer's sentence, or the amount less or plus it,
    was no operation of the shown working ("£204.00" and "£36" beside 15% and £240.00 were
    flagged)."""
    assert unsupported(answer, context) == expected
