"""unsupported_numbers, the seventh blind round (issue 75): markdown emphasis around a figure
and a figure whose digits also stand inside an earlier figure, each with the wrong figure
beside it and the look-alikes it must leave."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

DESK = "A dedicated desk costs £250 a month and a locker £100 a month."
CASTLE = "Visitor numbers at the castle rose from 50,000 in 2023 to 60,000 in 2024."
DEPOT = "Recycling at the depots rose from 41% in 2022 to 47% in 2024."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The combined cost is **£350 a month** for both.", DESK, []),
        ("The combined cost is *£350* a month for both.", DESK, []),
        ("The combined cost is __£350__ a month for both.", DESK, []),
        ("Visitor numbers grew **20%** year on year.", CASTLE, []),
        ("Recycling went up by **6 percentage points** (41% → 47%).", DEPOT, []),
        # the wrong sum, change or difference stays flagged, emphasis or not
        ("The combined cost is **£360 a month** for both.", DESK, ["£360"]),
        ("Visitor numbers grew **25%** year on year.", CASTLE, ["25%"]),
        ("Recycling went up by **7 percentage points** (41% → 47%).", DEPOT, ["7"]),
        # a figure in emphasis the context states, and one it does not
        ("The desk costs **£250** a month.", DESK, []),
        ("The desk costs **£260** a month.", DESK, ["£260"]),
    ],
)
def test_emphasis_is_layout(answer: str, context: str, expected: list[str]) -> None:
    """The words that say a figure is a sum, a change or a difference are read through
    markdown emphasis ("grew **20%**" as "grew 20%"); they were not, so the figure was
    flagged."""
    assert unsupported(answer, context) == expected


RACE = "The half marathon starts at 09:30 on Sunday; the course closes at 12:45."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The gun goes at 9.30 am, the course closes at 12.45 pm: you have 3 hours 15 minutes.", []),
        ("Start at 9.30 am and finish by 12.45 pm, so you have 3 hours 15 minutes.", []),
        ("Start at 9.30 am and finish by 12.45 pm, so you have 195 minutes.", []),
        # the wrong span stays flagged whole, and so does a wrong time beside it
        ("Start at 9.30 am and finish by 12.45 pm, so you have 3 hours 5 minutes.",
         ["3 hours 5 minutes"]),
        ("Start at 9.30 am and finish by 12.45 pm, so you have 185 minutes.", ["185"]),
        ("Start at 9.30 am and finish by 1.45 pm, so you have 3 hours 15 minutes.", ["1.45 pm"]),
    ],
)  # fmt: skip
def test_a_figure_is_read_at_its_own_place(answer: str, expected: list[str]) -> None:
    """A figure's words are read where it stands, not where its digits first occur inside
    another figure: the "3" of "3 hours" was looked for in "9.30", so the span it starts
    was read without its unit and flagged."""
    assert unsupported(answer, RACE) == expected


BOX = "Box office: +44 20 7946 0958 (10:00–18:00 UK time)."
LODGE = "Porters' lodge: 555-0123 (staffed 7 am to 11 pm)."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("From the UK, dial 020 7946 0958.", BOX, []),
        ("From abroad, dial 0044 20 7946 0958.", BOX, []),
        ("Dial +44 20 7946 0958.", "Box office: 020 7946 0958 (10:00-18:00).", []),
        ("The lodge is on 555 0123 all day.", LODGE, []),
        ("Call 555-0123.", "Porters' lodge: 555 0123.", []),
        # one digit off is another number, reported whole
        ("From the UK, dial 020 7946 0959.", BOX, ["020 7946 0959"]),
        ("The lodge is on 555 0124 all day.", LODGE, ["555 0124"]),
        # a group is no figure; two numbers that are no phone stay two figures
        ("There were 7946 guests.", BOX, ["7946"]),
        ("The Fortune 500 2024 list has 500 names.", "The Fortune 500 list of 2024.", []),
        ("We sold 340 1234-euro passes.", "We sold 340 passes at 1234 euros.", []),
    ],
)
def test_phone_numbers_in_more_layouts(answer: str, context: str, expected: list[str]) -> None:
    """A phone number followed by clock times ("0958 (10:00") ends before them (the times
    were read as one more group, so no layout of it matched), and a local number of three
    and four digits apart by a space ("555 0123") is one phone number, as "555-0123" is
    (its groups were read as two figures, "555" flagged); a four-digit year after three
    digits, or a group glued to a word by a hyphen, is none."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The session runs 3 hours, from 9 a.m. to noon.", "It runs from 9 a.m. to 12 noon.", []),
        ("The session runs 3 hours.", "It runs from 9 a.m. to noon.", []),
        ("The session runs 180 minutes.", "It runs from 9 a.m. to midday.", []),
        ("The late shift runs 2 hours.", "The late shift runs from 10 pm to midnight.", []),
        ("The session runs 4 hours.", "It runs from 9 a.m. to noon.", ["4"]),
        ("The late shift runs 3 hours.", "The late shift runs from 10 pm to midnight.", ["3"]),
        ("The session runs 3 hours.", "It opens at noon.", ["3"]),
    ],
)
def test_noon_and_midnight_are_clock_times_of_a_duration(
    answer: str, context: str, expected: list[str]
) -> None:
    """A duration between two clock times counts noon and midnight named in words ("from
    9 a.m. to 12 noon" is 3 hours); it did not read them, so the span was flagged."""
    assert unsupported(answer, context) == expected


TRAWLER = "The lifeboat picked up a skipper, two deckhands and a cook from the stricken trawler."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Four people were taken off the stricken trawler.", TRAWLER, []),
        ("Four people were taken off the trawler.",
         "The lifeboat took a skipper, a beekeeper, a midwife and a vicar off the trawler.", []),
        ("Five people were taken off the stricken trawler.", TRAWLER, ["Five"]),
    ],
)  # fmt: skip
def test_more_roles_name_persons(answer: str, context: str, expected: list[str]) -> None:
    """Persons are named by any role: a skipper, a deckhand (-hand), a beekeeper (-keeper),
    a midwife, a vicar are persons; a list of them adds up to a count of people (the count
    was left flagged)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("About a quarter of members voted online.", "33.3% of members voted online.",
         ["a quarter"]),
        ("A quarter of members voted online.", "25% of members voted online.", []),
        ("A third of members voted online.", "33.3% of members voted online.", []),
        ("A third of members voted online.", "A third of members voted online.", []),
        ("About a quarter of the stalls sell hot food.", "12 of the 48 stalls sell hot food.", []),
        ("A fifth of the stalls sell crafts.", "12 of the 48 stalls sell crafts.", ["A fifth"]),
        # a share is backed by a percentage only, never by a plain figure
        ("A quarter of members voted online.", "25 members voted online.", ["A quarter"]),
        ("Three quarters of members voted.", "75 members voted.", ["Three quarters"]),
        # a span or an amount claims no share
        ("The walk takes a quarter of an hour.", "The walk is short.", []),
        ("It cost a quarter of a million.", "It cost 250,000.", []),
    ],
)  # fmt: skip
def test_one_part_of_a_whole_is_a_share(answer: str, context: str, expected: list[str]) -> None:
    """A fraction in words before "of" is a share with one part too ("a quarter of", "a
    third of": 25%, 33%), backed by the same fraction, the percentage it rounds to or a
    share it computes ("12 of the 48"), flagged as written otherwise; it was never read. A
    share is a percentage, so a plain figure backs none ("three quarters" was backed by
    "75 members")."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The pool opens on 15 March 2025.", "La piscina abre el 15 de marzo de 2025.", []),
        ("A piscina abre em 15 de março de 2025.", "The pool opens on 15 March 2025.", []),
        ("The pool opens on 15 March 2025.", "La piscine ouvre le 15 mars 2025.", []),
        ("The pool opens on 16 March 2025.", "La piscina abre el 15 de marzo de 2025.",
         ["16 March 2025"]),
        ("The pool opens on 15 March 2026.", "La piscina abre el 15 de marzo de 2025.",
         ["15 March 2026"]),
        ("A piscina abre em 15 de março de 2026.", "The pool opens on 15 March 2025.",
         ["15 de março de 2026"]),
    ],
)  # fmt: skip
def test_a_date_in_spanish_and_portuguese(answer: str, context: str, expected: list[str]) -> None:
    """A day, "de", a month's name in Spanish or Portuguese and "de" a year is one date
    ("15 de marzo de 2025"), read whole as "15 marzo 2025" and "15 mars 2025" now are; the
    "de" left the day unread, and another language's month name never took its year."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("There were 496 diners.", "Call 555-0496 to book.", ["496"]),
        ("There were 496 diners.", "Call 0161 0496 0753 to book.", ["496"]),
        # the same digits as a figure of their own back it
        ("There were 496 diners.", "Call 555-0496: all 496 diners.", []),
        ("There were 7 diners.", "Room 007 had 7 diners.", []),
        ("There were 7 diners.", "Room 007 was booked.", []),
    ],
)
def test_a_phone_group_with_leading_zeros_is_no_figure(
    answer: str, context: str, expected: list[str]
) -> None:
    """A group of a phone number is no figure of the text, its leading zeros read with it:
    "496 diners" is not backed by "555-0496" (the look-up read 496 from the zero on, past the
    check for a group); a zero-padded figure of its own ("007") still backs its value."""
    assert unsupported(answer, context) == expected
