"""unsupported_numbers, the tenth blind round (issue 75): each rule with the right figure
beside it and the look-alikes it must leave flagged."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Ring +1 (888) 555-0142 to book.", "Bookings: 1-888-555-0142 (24 hours).", []),
        ("Ring **+1 (888) 555-0142** to book.", "Bookings: 1-888-555-0142 (7 days).", []),
        ("Ring 888-555-0142 to book.", "Bookings: 1 888 555 0142 (24/7), e-mail too.", []),
        ("Ring +44 161 496 0753.", "Helpdesk 0161 496 0753 (2 lines open).", []),
        # a closed bracket is a group of the number, as before
        ("Ring 020 7946 0958.", "Helpdesk +44 (0)20 7946 0958 (24 hours).", []),
        # hard negatives: one digit off, another area code, the bracket's digits glued on
        ("Ring +1 (888) 555-0143 to book.", "Bookings: 1-888-555-0142 (24 hours).",
         ["+1 (888) 555-0143"]),
        ("Ring +1 (877) 555-0142 to book.", "Bookings: 1-888-555-0142 (24 hours).",
         ["+1 (877) 555-0142"]),
        ("Ring +44 161 496 0754.", "Helpdesk 0161 496 0753 (2 lines open).",
         ["+44 161 496 0754"]),
        ("Ring 1-888-555-0142-24 to book.", "Bookings: 1-888-555-0142 (24 hours).",
         ["1-888-555-0142-24"]),
    ],
)  # fmt: skip
def test_a_phone_number_ends_before_a_bracket_its_digits_do_not_close(
    answer: str, context: str, expected: list[str]
) -> None:
    """A phone number ends before a bracket whose digits it does not close ("(24 hours)",
    "(24/7)"), as before a clock time: the run of groups read "(24" as one more group, so
    the context's number had two digits too many and backed no other layout of it."""
    assert unsupported(answer, context) == expected


CINEMA = "The cinema chain sold 3.64 million tickets in 2024, against 3.25 million in 2023."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Tickets sold grew from 3.25 million to 3.64 million, a rise of 12%.", []),
        ("Tickets sold grew from **3.25 million** to **3.64 million**, up 12%.", []),
        ("Up 12% on 2023's 3.25 million, sales reached 3.64 million tickets.", []),
        ("Sales rose from 3.25 million to 3.64 million tickets, an increase of 12.0%.", []),
        # hard negatives: wrong arithmetic; the operands in another sentence (a full stop
        # before a space ends it); the change from the figure written second
        ("Tickets sold grew from 3.25 million to 3.64 million, a rise of 14%.", ["14%"]),
        ("Sales were 3.25 million in 2023. They reached 3.64 million, a rise of 12%.", ["12%"]),
        ("Tickets sold went from 3.64 million to 3.25 million, a fall of 12%.", ["12%"]),
    ],
)
def test_a_decimal_point_ends_no_sentence_of_the_answer(answer: str, expected: list[str]) -> None:
    """The answer's sentence around a figure goes on past a decimal point, as a context's
    does: the operands of a change written in it ("from 3.25 million to 3.64 million, up
    12%") are read (the sentence was cut at the point of "3.64", so they were not)."""
    assert unsupported(answer, CINEMA) == expected


FERRY = ["Harbour ferry: check-in opens at 07:20.", "The morning ferry sails at 09:05."]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Check-in opens at 07:20, which gives you 1 hour 45 minutes before the 09:05 sailing.",
         FERRY, []),
        ("Check-in opens at 07:20, so **1 hr 45 mins** pass before the ferry sails at 09:05.",
         FERRY, []),
        ("Between 07:20 and 09:05 you have an hour and 45 minutes.", FERRY, []),
        # hard negatives: wrong arithmetic; the clock times in two sentences; a clock time the
        # context does not state; the context's times with no clock time in the answer
        ("Check-in opens at 07:20, which gives you 1 hour 35 minutes before the 09:05 sailing.",
         FERRY, ["1 hour 35 minutes"]),
        ("Check-in opens at 07:20. You then have 1 hour 45 minutes before the 09:05 sailing.",
         FERRY, ["1 hour 45 minutes"]),
        ("Check-in opens at 07:20, which gives you 1 hour 45 minutes before the 09:05 sailing.",
         ["Harbour ferry: check-in opens at 07:20.", "The morning ferry sails at 09:15."],
         ["1 hour 45 minutes", "09:05"]),
        ("You have 1 hour 45 minutes between check-in and sailing.", FERRY,
         ["1 hour 45 minutes"]),
    ],
)  # fmt: skip
def test_a_duration_in_hours_and_minutes_between_the_answers_clock_times(
    answer: str, context: list[str], expected: list[str]
) -> None:
    """A duration in hours and minutes between two clock times the answer's sentence writes
    and the context states is backed, as one in minutes is ("105 minutes, from 07:20 to
    09:05"): the hours-and-minutes step read the context's sentences only."""
    assert unsupported(answer, context) == expected


OPEN_NIGHT = "Observatory open nights run from 7 pm to 10 pm; entry £23, telescopes provided."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Open nights run from 19.00 to 23.00.", OPEN_NIGHT, ["23.00"]),
        ("Open nights run **19.00–23.00**, entry £23.", OPEN_NIGHT, ["23.00"]),
        ("Come between 19.00 and 23.00 on clear nights.", OPEN_NIGHT, ["23.00"]),
        ("Open nights run from 19.00 to 22.00; entry is £23.", OPEN_NIGHT, []),
        ("Open nights run 19.00-22.00.", OPEN_NIGHT, []),
        # hard negatives: amounts with a currency or unit, a pointed figure alone, one-digit
        # hours, minutes past 59: decimals, backed by the plain figures as before
        ("Entry is £19.00 to £23.00.", "Entry £19 to £23.", []),
        ("Entry costs from 19.00 to 23.00 euros.", "Entry costs 19 to 23 euros.", []),
        ("Mirrors weigh 19.00 to 23.00 kg.", "Mirrors weigh 19 to 23 kg.", []),
        ("The entry fee is 23.00.", OPEN_NIGHT, []),
        ("The pH stays between 6.50 and 7.00.", "Keep the pH at 6.5 to 7.", []),
        ("Readings ran from 10.50 to 12.75.", "Readings ran from 10.5 to 12.75.", []),
    ],
)
def test_a_range_of_clock_times_written_with_a_point(
    answer: str, context: str, expected: list[str]
) -> None:
    """Two figures of two digits either side of a point written as a range ("from 19.00 to
    23.00") are clock times, backed by clock times only: "£23" backs no "23.00" there (it
    was read as the decimal 23)."""
    assert unsupported(answer, context) == expected


PARADE = "The harbour festival drew an estimated 250,000 visitors over the weekend."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("An estimated 300,000 visitors came to the festival.", PARADE, ["300,000"]),
        ("The festival drew an estimated three hundred thousand visitors.", PARADE,
         ["three hundred thousand"]),
        ("Its survey counted an estimated 78,000 anglers.", "The survey counted 77,812 anglers.",
         ["78,000"]),
        # hard negatives: the same figure; the hedges the policy lists
        ("An estimated 250,000 visitors came to the festival.", PARADE, []),
        ("The festival drew some 300,000 visitors.", PARADE, []),
        ("Its survey counted approximately 78,000 anglers.", "The survey counted 77,812 anglers.",
         []),
        ("Its survey counted nearly 78,000 anglers.", "The survey counted 77,812 anglers.", []),
    ],
)  # fmt: skip
def test_an_estimate_is_no_hedge(answer: str, context: str, expected: list[str]) -> None:
    """ "an estimated" is not among the hedges (about, around, roughly, approximately, some;
    nearly, almost; the bounds): the figure after it is a claim as written (it was read as
    "about", so 250,000 rounded to the 300,000 it stated)."""
    assert unsupported(answer, context) == expected


TRAIL = "Der Küstenweg ist 12,875 km lang; Start am Leuchtturm."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The coastal path is about 8 miles long.", TRAIL, []),
        ("The coastal path is 12.875 km (**8 miles**) long.", TRAIL, []),
        ("Le sentier fait environ 8 miles.", "Le sentier côtier fait 12,875 km.", []),
        # the thousands reading still converts
        ("The network is about 8,000 miles long.", "The network spans 12,875 km of trails.", []),
        # hard negatives: a wrong conversion; a text whose point makes the comma a thousands
        # separator; a comma before two digits or four is no such figure
        ("The coastal path is about 9 miles long.", TRAIL, ["9"]),
        ("The trails cover about 8 miles.",
         "The trail network spans 12,875 km; day passes cost $4.50.", ["8"]),
        ("The path is about 8 miles long.", "Der Weg ist 12,87 km lang.", []),
        ("The path is about 8 miles long.", "Der Weg ist 128,75 km lang.", ["8"]),
    ],
)  # fmt: skip
def test_a_comma_figure_of_no_convention_converts_under_both_readings(
    answer: str, context: str, expected: list[str]
) -> None:
    """A context figure with a comma before its last three digits ("12,875 km"), in a text
    whose figures show neither convention, is converted under both readings, as the look-up
    reads it (only the thousands reading was converted: 8,000 miles, never 8)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Highs of 19°C are expected inland.", "forecast : highs of 19c inland , 14c on the coast .",
         []),
        ("Highs of **19 °C** inland, 14 degrees on the coast.",
         "Forecast: highs of 19C inland, 14C on the coast.", []),
        ("Expect 66 °F by noon.", "Expect highs near 66F by noon.", []),
        ("Highs of 21C are expected inland.", "Forecast: highs of 19C inland.", ["21C"]),
        # hard negatives: another figure; letters that are no unit; "cm" stays centimetres
        ("Highs of 21°C are expected inland.", "forecast : highs of 19c inland .", ["21"]),
        ("Highs of 190°C in the kiln.", "forecast : highs of 19c inland .", ["190"]),
        ("Turn on 2FA and use a 3D model.", "Security: enable 2FA.", []),
        ("The tile is 19cm wide.", "Tiles 19 mm wide.", ["19cm"]),
    ],
)  # fmt: skip
def test_degrees_glued_to_a_figure(answer: str, context: str, expected: list[str]) -> None:
    """A figure with "C", "c" or "F" glued ("19c" in lower-cased news, "19C") is the figure
    with its unit, as "19 c" apart is (the letter made it part of a word, no figure)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Water boils at 212F at sea level.", "Water boils at 100°C at sea level.", []),
        ("Water boils at 212°F at sea level.", "Water boils at 100C at sea level.", []),
        ("Bake the loaf at 350F.", "Bake the loaf at 175 °C.", []),
        ("It was 19c in the shade.", "It was 66F in the shade.", []),
        # hard negatives: a wrong conversion; a letter after the figure that is no scale
        ("It was 25C in the shade.", "It was 66F in the shade.", ["25C"]),
        ("Bake the loaf at 400F.", "Bake the loaf at 175 °C.", ["400F"]),
        ("The seat is 14C.", "It was 60 degrees Fahrenheit at boarding, gate 5.", ["14C"]),
    ],
)
def test_degrees_glued_to_a_figure_convert(answer: str, context: str, expected: list[str]) -> None:
    """A temperature written with its scale glued ("212F", "19c"), as the page says it reads
    them, converts between Celsius and Fahrenheit as "212 °F" does (it was compared as
    written only, so "212F" beside "100°C" was flagged)."""
    assert unsupported(answer, context) == expected
