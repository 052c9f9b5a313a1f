"""unsupported_numbers, the eighth blind round (issue 75): a spelled count in markdown
emphasis, a tens word that heads a compound, a hedged bound further than a quarter from the
figure, and a list of persons named by agent nouns; each with the right figure beside it and
the look-alikes it must leave."""

from __future__ import annotations

import pytest

from monitor.checks import UnsupportedNumbers
from tests.conftest import view
from tests.unit.checks.numbers_support import unsupported

check = UnsupportedNumbers()


KENNEL = "The kennel has 9 rescue greyhounds looking for homes. The adoption fee is £150."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("- **Eight** rescue greyhounds need homes\n- Adoption fee: **£150**", ["Eight"]),
        ("**Eight** rescue greyhounds need homes.", ["Eight"]),
        ("We have *eight* greyhounds waiting.", ["eight"]),
        ("We have __seven__ greyhounds waiting.", ["seven"]),
        ("| dogs | fee |\n|---|---|\n| **Eight** greyhounds | £150 |", ["Eight"]),
        # hard negatives: the right count in emphasis, emphasis around no count
        ("- **Nine** rescue greyhounds need homes\n- Adoption fee: **£150**", []),
        ("**Nine** greyhounds are waiting.", []),
        ("The **rescue** greyhounds are waiting, fee **£150**.", []),
        ("**Only the two** greyhounds are left.", []),
    ],
)
def test_a_spelled_count_is_read_through_emphasis(answer: str, expected: list[str]) -> None:
    """ "**Eight** rescue greyhounds" claims eight as "Eight rescue greyhounds" does (the
    emphasis stood between the number and its noun, so the count was never read)."""
    assert unsupported(answer, KENNEL) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "This is the 20th edition of the fair.",
            "Welcome to the twenty-first Book Fair.",
            ["20th"],
        ),
        ("The hall has 20 seats.", "The hall has twenty-five seats.", ["20"]),
        ("The hall has 30 seats.", "The hall has thirty five seats.", ["30"]),
        ("It is the 90th season.", "Our ninety-ninth season opens in May.", ["90th"]),
        # hard negatives: the tens word alone, the compound itself, a capital
        ("This is the 21st edition of the fair.", "Welcome to the twenty-first Book Fair.", []),
        ("The hall has 20 seats.", "The hall has twenty seats.", []),
        ("The hall has 20 seats.", "Twenty seats, all reserved.", []),
        ("The hall has 25 seats.", "The hall has twenty-five seats.", []),
        ("The hall has 40 seats and 2 aisles.", "Forty seats, two aisles.", []),
        ("It lasts 20 minutes.", "It lasts twenty-odd minutes.", []),
    ],
)
def test_a_tens_word_that_heads_a_compound_is_not_the_tens(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "twenty-first" and "twenty-five" backed 20 (the "twenty" in them was read alone); a
    tens word is the tens only when no unit, cardinal or ordinal, follows it."""
    assert unsupported(answer, context) == expected


LIBRARY = "Loan limit: 15 items, loan period 3 weeks. The hall seats 80 people."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The library lends up to 20 items for 3 weeks.", ["20"]),
        ("You may borrow fewer than 20 items.", ["20"]),
        ("Loans are capped at under 20 items.", ["20"]),
        # hard negatives: within a quarter of each figure, the other direction as before
        ("The library lends up to 15 items for 3 weeks.", []),
        ("The hall seats under 90 people.", []),
        # "up to" states the maximum: a quarter over it is wrong (a fact-checker's label,
        # common-sense round 2: "up to 50%" for a maximum of 40%); "under" bounds it
        ("The hall seats up to 100 people.", ["100"]),
        ("The hall seats up to 90 people.", []),
        ("The hall seats under 100 people.", []),
        ("The library lends more than 14 items.", []),
        ("The library lends more than 12 items.", ["12"]),
        ("The hall seats more than 70 people.", []),
        ("The hall seats over 60 people.", ["60"]),
    ],
)
def test_a_bound_is_within_a_quarter_of_both_figures(answer: str, expected: list[str]) -> None:
    """ "up to 20 items" for a limit of 15 is a third over it: flagged (the quarter was
    taken of the answer's 20 alone, so 15 was within it); a bound within a quarter of both
    figures and a step of rounding stays backed."""
    assert unsupported(answer, LIBRARY) == expected


CABLE_CAR = (
    "Mountain rescue brought down a lift operator, two snowboarders and a ski instructor "
    "from the stalled cable car."
)


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Four people were brought down from the stalled cable car.", CABLE_CAR, []),
        (
            "Four people were rescued from the flooded basement.",
            "Firefighters rescued a caretaker, two decorators and a plasterer from the basement.",
            [],
        ),
        # hard negatives: the wrong sum, a thing in the list, no person named by a role
        ("Five people were brought down from the stalled cable car.", CABLE_CAR, ["Five"]),
        (
            "Four people were brought down from the stalled cable car.",
            "Mountain rescue brought down a lift operator, two snowboarders and a dog from "
            "the stalled cable car.",
            ["Four"],
        ),
        (
            "Four people were found in the shed.",
            "In the shed they found a cooler, two heaters and a freezer.",
            ["Four"],
        ),
    ],
)
def test_agent_nouns_beside_a_person_name_persons(
    answer: str, context: str, expected: list[str]
) -> None:
    """In a list that names a person by a role ("a ski instructor"), agent nouns in -er and -or
    name persons too ("a lift operator, two snowboarders": four people; they were things, so
    the count was flagged); a list of them alone, or with an animal, counts no persons."""
    assert unsupported(answer, context) == expected


ALLOTMENT = (
    "The allotment society rents plots by the year and supplies water butts to every plot holder."
)
SHOP = ALLOTMENT + " The society runs a shop, a café and a tool shed for members."


@pytest.mark.parametrize(
    ("answer", "context", "expected", "unjudged"),
    [
        ("The society also runs three composting sites for plot holders.", ALLOTMENT, [], True),
        (
            "The club also runs four floodlit courts for members.",
            "The club charges members by the month and lends rackets to every member.",
            [],
            True,
        ),
        ("The society runs two facilities for its members.", ALLOTMENT, [], True),
        # a list of things beside it counts, for or against the claim ("two" was backed by
        # "the year and supplies water butts")
        ("The society runs two facilities for its members.", SHOP, ["two"], False),
        ("The society runs three facilities for its members.", SHOP, [], False),
    ],
)
def test_a_list_with_a_unit_alone_counts_no_things(
    answer: str, context: str, expected: list[str], unjudged: bool
) -> None:
    """ "rents plots by the year and supplies water butts" is two clauses, its "list" a rate's
    unit and a thing: a count beside it is unjudged (it was flagged as another number of
    things listed, or backed when it was two); a list of things still backs or flags."""
    line = check(view(answer, [context], "")).evidence.to_line()
    assert line["numbers"] == expected
    assert bool(line.get("unjudged")) == unjudged
