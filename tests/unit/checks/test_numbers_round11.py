"""unsupported_numbers, the eleventh blind round (issue 75): each rule with the right figure
beside it and the look-alikes it must keep. Each rule is written in docs/checks.md."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # weeks and months are units of one kind (durations), as days and minutes are
        ("The first block lasts 6 weeks.", "The first block lasts 6 months.", ["6"]),
        ("The first block lasts 6 months.", "The first block lasts 6 weeks.", ["6"]),
        ("The course takes 3 years.", "The course takes 3 weeks.", ["3"]),
        # a number in words too, against the digits or the same word
        ("The first block lasts six weeks.", "The first block lasts 6 months.", ["six"]),
        ("The first block lasts six weeks.", "The first block lasts six months.", ["six"]),
        ("The first block lasts Six weeks.", "Six months is the first block.", ["Six"]),
        # hard negatives: the same unit, a conversion, the figure written elsewhere
        ("The first block lasts six weeks.", "The first block lasts 6 weeks.", []),
        ("The first block lasts six weeks.", "The first block lasts six weeks.", []),
        ("The course takes 2 years.", "The course takes 24 months.", []),
        ("The course takes 12 months.", "It takes 1 year, or 12 months.", []),
        ("It takes six weeks.", "Six people run it. It takes 6 weeks.", []),
        ("The first block lasts 6 weeks.", "6 months of study; the first block is 6 weeks.", []),
        # "forty-six months" does not write "six"
        ("It takes 6 weeks.", "Six people run it for 6 weeks; the rest forty-six months.", []),
    ],
)  # fmt: skip
def test_the_same_figure_in_another_unit_of_time_is_flagged(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "six weeks" beside "6 months": the same figure in another unit of its kind. Months
    and years were a kind apart from days and weeks (they do not convert into them exactly),
    so weeks for months went unflagged, and a number in words was never read so."""
    assert unsupported(answer, context) == expected


CLUB = [
    "The fencing club has 60 members, and 30 of them compete in regional events.",
    "Annual fees: adults £180, juniors £120.",
]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Two thirds of the members compete.", CLUB, ["Two thirds"]),
        ("67% of the members compete.", CLUB, ["67%"]),
        # hard negatives: operands that count what the share is of, in another word form;
        # a pronoun names nothing and leaves the sentence's pairs as they were
        ("Half of the members compete.", CLUB, []),
        ("50% of the members compete.", CLUB, []),
        ("A quarter of the seats are reserved.", "10 of the 40 seats are reserved.", []),
        ("92% of starters finished.", "Of the 250 runners who started, 230 finished.", []),
        ("25% of the budget goes to youth.", "£30 million of the £120 million budget.", []),
        ("64 donors came and 75% of them gave.", "64 donors came and 48 gave blood.", []),
        ("Juniors pay two thirds of the adult fee.", CLUB, []),
        # the thing is named by either of the two words after "of": an adjective or a
        # possessor before the noun does not hide it
        ("25% of the total budget goes to youth.", "£30 million of the £120 million budget.", []),
        ("25% of the club's members compete.", "The club has 40 members; 10 of them compete.",
         []),
        ("Two thirds of the club's members compete.", CLUB, ["Two thirds"]),
    ],
)  # fmt: skip
def test_a_share_is_of_what_its_operands_count(
    answer: str, context: str | list[str], expected: list[str]
) -> None:
    """A share computed from two figures of one context sentence is backed only when that
    sentence names what the answer's share is of: "two thirds of the members" is not
    £120 / £180 of a fees line."""
    assert unsupported(answer, context) == expected


STIPEND = "Each apprentice receives a monthly stipend of ₹9,000, of which the state pays ₹1,800."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Over a year, the stipend comes to ₹1,08,000.", STIPEND, []),
        ("Over a year, the stipend comes to ₹108,000.", STIPEND, []),
        ("The fee is $50 a month.", "The annual fee is $600.", []),
        ("That is £75 a week.", "A weekly rent: £75. The yearly rent of £3,900 is due.", []),
        # hard negatives: a wrong restatement, and an amount the period is not said of
        ("Over a year, the stipend comes to ₹1,09,000.", STIPEND, ["₹1,09,000"]),
        ("The fee is $60 a month.", "The annual fee is $600.", ["$60"]),
        ("The fee is $50 a month.", "Our annual report: $600 was raised.", ["$50"]),
    ],
)  # fmt: skip
def test_a_period_said_before_the_amount(answer: str, context: str, expected: list[str]) -> None:
    """ "a monthly stipend of ₹9,000", "the annual fee is $600": an amount per month or
    year, restated per another period, as "₹9,000 a month" is."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("It is a six-week course.", "The course lasts 4 weeks.", ["six"]),
        ("It is a six-week course.", "The course lasts 6 months.", ["six"]),
        ("It is an eight-hour shift.", "The shift lasts 6 hours.", ["eight"]),
        ("It is a twenty-four-hour service.", "The service runs 12 hours a day.", ["twenty-four"]),
        # hard negatives: the same span, in digits, in words or in another unit; no unit
        ("It is a six-week course.", "The course lasts 6 weeks.", []),
        ("It is a six-week course.", "The course lasts six weeks.", []),
        ("It is an eight-hour shift.", "Shifts are 8 hours long.", []),
        ("It is a two-year warranty.", "The warranty lasts 24 months.", []),
        ("We offer two-factor login.", "The plan has 3 seats.", []),
    ],
)  # fmt: skip
def test_a_number_in_words_joined_to_a_unit_of_time(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "a six-week course" claims six weeks, as "a 6-week course" and "a one-week trial"
    are read; the spelled number was read only before a unit apart from it."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a range's first end takes the unit of its second end; capitals are the same word
        ("The course takes 2-3 weeks.", "The course takes 2-3 months.", ["2", "3"]),
        ("The course takes 2 to 3 weeks.", "The course takes 2 to 3 months.", ["2", "3"]),
        ("The course takes six weeks.", "THE COURSE TAKES SIX MONTHS.", ["six"]),
        # hard negatives: the same range, a range of another kind, capitals of the same unit
        ("The course takes 2-3 weeks.", "The course takes 2-3 weeks.", []),
        ("The course takes 2-3 weeks.", "It costs 2-3 pounds and takes 2-3 weeks.", []),
        ("The course takes six weeks.", "THE COURSE TAKES SIX WEEKS.", []),
        ("The course takes 2 weeks.", "Version 2-3 was released; the course takes 14 days.", []),
    ],
)  # fmt: skip
def test_a_range_and_capitals_in_another_unit(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "2-3 weeks" for "2-3 months": both ends are the same figures in another unit (the
    first end's unit was read as none); "six weeks" for "SIX MONTHS" too (the review of the
    round left both undecided)."""
    assert unsupported(answer, context) == expected
