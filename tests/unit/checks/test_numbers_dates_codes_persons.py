"""unsupported_numbers: a numeric date's day, a lower-case "may" before a day, a period said
early in the sentence, persons by their roles, hyphenated and spaced codes (issue 75, sixth
blind round): each form with the wrong figure beside it and the look-alikes it must leave."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The invoice covers 14 nights.", "Invoice dated 14/03/2025 for a stay of 3 nights.", []),
        ("The invoice covers 4 nights.", "Invoice dated 03/04/2024 for a stay.", []),
        (
            "The invoice covers 15 nights.",
            "Invoice dated 14/03/2025 for a stay of 3 nights.",
            ["15"],
        ),
        ("The invoice covers 12 nights.", "Invoice dated 14/03/2025 for a stay.", ["12"]),
    ],
)
def test_a_numeric_date_backs_its_day(answer: str, context: str, expected: list[str]) -> None:
    """A date backs its day in every layout: "14/03/2025" backs 14 as "14 March 2025" does
    (its day was never read); its month backs nothing."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The lido reopens on 30 May.", "the lido reopens may 30 after the retiling.", []),
        ("The lido reopens on 30 May.", "the lido reopens may 30.", []),
        ("The lido reopens on 31 May.", "the lido reopens may 30 after the retiling.", ["31 May"]),
        ("The fee rises on 10 May.", "the fee may 10x over the year.", ["10 May"]),
        ("The fee rises on 5 May.", "the fee may 5% rise, officers said.", ["5 May"]),
    ],
)
def test_a_lower_case_may_before_a_day_alone_is_the_month(
    answer: str, context: str, expected: list[str]
) -> None:
    """Lower-cased news writes "reopens may 30": the month, whatever word comes before (it was
    the month only after "on", "in", "by"...); before a quantity ("may 10x", "may 5%") the
    verb still."""
    assert unsupported(answer, context) == expected


DESK = "A dedicated desk at the Foundry costs £120 per month."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Over a year, a dedicated desk at the Foundry costs £1,440.", []),
        ("Over a year, a dedicated desk at the Foundry costs £1,450.", ["£1,450"]),
        ("For a year of membership at the Foundry, a dedicated desk costs £1,440.", ["£1,440"]),
    ],
)
def test_a_period_said_anywhere_before_the_amount_in_its_sentence(
    answer: str, expected: list[str]
) -> None:
    """ "Over a year" is the amount's period however many words stand between (it was read
    within 48 characters only); "for a year of membership" is no period of it."""
    assert unsupported(answer, DESK) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "The hut sheltered five people.",
            "The hut sheltered a guide, three hikers and a photographer.",
            [],
        ),
        (
            "The hut sheltered six people.",
            "The hut sheltered a guide, three hikers and a photographer.",
            ["six"],
        ),
        (
            "The lab hired four people.",
            "The lab hired a biologist, two electricians and a chairwoman.",
            [],
        ),
        (
            "The lab hired five people.",
            "The lab hired a biologist, two electricians and a chairwoman.",
            ["five"],
        ),
        (
            "The hut sheltered five people.",
            "The hut sheltered a guide, three hikers and a dog.",
            ["five"],
        ),
        (
            "The lab hired four people.",
            "The lab hired a checklist, two electricians and a chairwoman.",
            ["four"],
        ),
    ],
)
def test_persons_named_by_roles_of_any_kind_add_up(
    answer: str, context: str, expected: list[str]
) -> None:
    """A guide and a photographer are persons, and so is a role made by a suffix ("-ologist",
    "-ician", "-grapher", "-woman"); a dog or a checklist is not, and the list counts none."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Take the TP-728 from Platform 4.", "Service TP 782 leaves Platform 4.", ["TP-728"]),
        ("Take the TP-782 from Platform 4.", "Service TP 782 leaves Platform 4.", []),
        ("Take the TP-782 from Platform 4.", "Service TP782 leaves Platform 4.", []),
        ("The F-150 is sold out.", "The truck is sold out.", []),
        ("The venue is COVID-19 safe.", "The venue is safe.", []),
    ],
)
def test_a_hyphenated_code_with_three_digits_is_one_token(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "TP-728" is the code TP728 hyphenated, a claim compared whole (it was not read at all,
    so a wrong one passed); one capital ("F-150") or two digits ("COVID-19") name no code."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "Quote reference 4471 2290 1138.",
            "Your case reference is 4471 2290 1183.",
            ["4471 2290 1138"],
        ),
        ("Quote reference 4471 2290 1138.", "Your case reference is 4471-2290-1138.", []),
        ("Quote reference 4471 2290 1183.", "Your case reference is 4471 2290 1183.", []),
        ("It cost 123 456 780 euros.", "It costs 123 456 789 euros.", ["123 456 780 euros"]),
        ("The 2019 2020 2021 seasons sold out.", "The 2019, 2020 and 2021 seasons sold out.", []),
    ],
)
def test_a_reference_number_in_spaced_groups_is_one_token(
    answer: str, context: str, expected: list[str]
) -> None:
    """Three or more groups of three to five digits apart by spaces are one reference number,
    reported whole and backed by the same digits with other separators (its last group alone
    was reported, and "4471 2290 1138" beside "4471-2290-1138" flagged 4471); a number in
    thousands and a row of years stay what they are."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Entries close on 31 December.", "Photo competition entries close 12/31.", []),
        ("Entries close on 31 December.", "Entries close on 31/12.", []),
        (
            "Entries close on 30 December.",
            "Photo competition entries close 12/31.",
            ["30 December"],
        ),
    ],
)
def test_a_day_and_month_with_a_slash_in_the_context_back_the_date(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "12/31" in the context is a day and a month, as it was in the answer already: it
    backs "31 December" (it was read as a fraction only)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Appelez le 01 44 55 66 78.", "Standard : +33 1 44 55 66 77.", ["01 44 55 66 78"]),
        ("Appelez le 01 44 55 66 77.", "Standard : +33 1 44 55 66 77.", []),
        ("Rufen Sie uns unter +49 30 901820 an.", "Telefon: 030 901820 (Mo–Fr).", []),
        (
            "Rufen Sie uns unter +49 30 901821 an.",
            "Telefon: 030 901820 (Mo–Fr).",
            ["+49 30 901821"],
        ),
        ("Text us on 07700 900124.", "Mobile (SMS only): +44 7700 900123.", ["07700 900124"]),
        ("Text us on 07700 900123.", "Mobile (SMS only): +44 7700 900123.", []),
        ("The gala drew 7946 guests.", "Call 020 7946 0958; the gala drew 8,100 guests.", ["7946"]),
        ("The gala drew 8,100 guests.", "Call 020 7946 0958; the gala drew 8,100 guests.", []),
    ],
)
def test_phone_numbers_in_more_layouts_and_never_their_groups(
    answer: str, context: str, expected: list[str]
) -> None:
    """A French number in pairs, a German one with a long last group, a British mobile in two
    groups are read whole (one digit off was reported as its last group, or a country code);
    a group of a phone number backs no figure of the answer (identifiers are whole tokens)."""
    assert unsupported(answer, context) == expected
