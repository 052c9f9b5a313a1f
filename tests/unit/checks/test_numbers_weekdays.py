"""unsupported_numbers: the weekday an answer gives a date is the calendar's to judge
(issue 75, common-sense round 3: "17 June 2025 ... falls on a Wednesday" was read as no claim)."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

HEARING = "Your tribunal hearing is listed for 17 June 2025 at 10:00."  # a Tuesday


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # the weekday before the date, after it, in brackets, in the next sentence
        ("It is on **Wednesday 17 June 2025**.", HEARING, ["Wednesday"]),
        ("It is on **Tuesday 17 June 2025**.", HEARING, []),
        ("It is on Tuesday, 17 June 2025.", HEARING, []),
        ("It is on 17 June 2025, which is a **Friday**.", HEARING, ["Friday"]),
        ("It is on 17 June 2025 (Tuesday).", HEARING, []),
        (
            "It is on **17 June 2025** at **10am**. That date falls on a **Wednesday**.",
            HEARING,
            ["Wednesday"],
        ),
        ("It is on 17 June 2025 at 10am. That date falls on a Tuesday.", HEARING, []),
        # month first, and a day-first or month-first date: either reading's weekday
        ("Due Friday, March 7, 2025.", "Payment due March 7, 2025.", []),
        ("Due Monday, March 7, 2025.", "Payment due March 7, 2025.", ["Monday"]),
        ("Saturday 12/04/2025", "Travel on 12/04/2025.", []),
        # a date without its year takes the year the context gives that day and month
        ("Collected on **Monday 2 June**.", "Collected on 2 June 2025.", []),
        ("Collected on **Tuesday 2 June**.", "Collected on 2 June 2025.", ["Tuesday"]),
        # no year anywhere: not judged (a year is never guessed)
        ("Collected on Tuesday 2 June.", "Collected on 2 June.", []),
        # a wrong date is the error, reported itself, not its weekday
        ("It is on Friday 20 June 2025.", HEARING, ["20 June 2025"]),
        # a weekday given no date is not a claim about one
        ("It is on 17 June 2025. Tuesday is busy.", HEARING, []),
    ],
)
def test_the_weekday_of_a_date(answer: str, context: str, expected: list[str]) -> None:
    assert unsupported(answer, context) == expected
