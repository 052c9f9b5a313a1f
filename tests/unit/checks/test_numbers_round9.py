"""unsupported_numbers, the ninth blind round (issue 75): a percentage written in text
without spaces; each with the right figure beside it and the look-alikes it must leave."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

# (the 48 characters before the sign hold no space: the window read only the sign)
PIANO = [
    "ピアノ調律サービス：通常調律は1台 15,000円（税込）、所要時間は約90分です。"
    "出張費は市内無料、市外は2,000円。",
    "年2回の定期調律契約で10%割引になります。",
]
LONG = (
    "ピアノ調律サービスの年間割引について：市内のお客様が年2回の定期調律契約を"
    "一年間ご利用いただいた場合の割引率は{}になります。"
)
SHORT = "調律契約の年間割引は定期契約で{}になります。"


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Two tunings a year get you **10% off**.", "\n\n".join(PIANO), []),
        ("Two tunings a year get you 10% off.", PIANO, []),
        ("The contract gives 10%.", LONG.format("10%"), []),
        ("The contract gives 10%.", SHORT.format("10%"), []),
        # hard negatives: another percentage; a longer figure before the sign
        ("Two tunings a year get you **15% off**.", "\n\n".join(PIANO), ["15%"]),
        ("The contract gives 10%.", LONG.format("210%"), ["10%"]),
        ("The contract gives 10%.", LONG.format("2.10%"), ["10%"]),
        ("The contract gives 10%.", LONG.format("1,210%"), ["10%"]),
        # a plain figure is no percentage, spaces or none
        ("The contract gives 10%.", LONG.format("10回"), ["10%"]),
        ("The contract gives 10%.", SHORT.format("10回"), ["10%"]),
    ],
)
def test_a_percentage_in_text_without_spaces(
    answer: str, context: str | list[str], expected: list[str]
) -> None:
    """A percentage is read from the words before its sign; in Japanese or Chinese, with no
    space in the 48 characters before it, the window held the sign alone and no figure."""
    assert unsupported(answer, context) == expected


AUDITIONS = "Youth orchestra auditions: open to players aged 13–18 with Grade 6 or above. Fee £20."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Auditions are open to players aged 13 to **19** with Grade 6 or higher.", ["19"]),
        ("Players aged **19** may audition.", ["19"]),
        ("The fee is **25**.", ["25"]),
        ("**7** players per section.", ["7"]),
        # hard negatives: list markers in bold with a point or bracket; the right figure
        ("**1.** Book a slot\n**2.** Pay the £20 fee", []),
        ("**1)** Book a slot\n**2)** Pay the £20 fee", []),
        ("Auditions are open to players aged 13 to **18** with Grade **6** or higher.", []),
    ],
)
def test_a_figure_in_bold_is_no_list_marker(answer: str, expected: list[str]) -> None:
    """A list marker in bold has a point or a bracket ("**1.**"); a figure in bold with
    neither ("aged 13 to **19**") is a figure (the pattern took the point as optional, so
    every bold figure of one or two digits was blanked as a marker)."""
    assert unsupported(answer, AUDITIONS) == expected


RAILCARD = "Annual railcard: the 16–25 Railcard costs £35 for one year or £80 for three years."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It is £35 a year or £80 for three years: **£45 more** for the longer card.", []),
        ("The three-year card costs £45 more.", []),
        ("The one-year card costs £45 less.", []),
        # hard negatives: wrong arithmetic; a hedge or a bound, no difference; no currency
        ("It is £35 a year or £80 for three years: **£40 more** for the longer card.", ["£40"]),
        ("The three-year card costs £45 more or less.", ["£45"]),
        ("Expect to pay £45 or more.", ["£45"]),
        ("The three-year card gives 45 more journeys.", ["45"]),
    ],
)
def test_an_amount_more_or_less_is_a_difference(answer: str, expected: list[str]) -> None:
    """ "£45 more" (an amount, "more" or "less" right after it, no "than") states the
    difference of two amounts of one context sentence, as "£45 dearer" does."""
    assert unsupported(answer, RAILCARD) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("It covers one wash every **7 days**.", "Membership: one wash a week for £19.99.", ["7"]),
        ("The pool is open 7 days.", "The pool is open five days a week.", ["7"]),
        ("You get a lesson every 7 days.", "Members get a lesson a week.", ["7"]),
        ("Classes run every 7 days.", "Yoga runs 3 classes a week.", ["7"]),
        # hard negatives: a span, not a rate ("takes a week", "for a month"); the old rates
        ("Delivery takes 7 days.", "Delivery takes a week.", []),
        ("Delivery takes 7 days.", "A refund takes a week.", []),
        ("The trial lasts 7 days.", "The free trial runs for a week.", []),
        ("The valet takes 60 minutes.", "The premium valet takes about an hour.", []),
        ("Delivery takes 7 days.", "Delivery takes one week.", []),
        ("Lessons every 7 days.", "Lessons twice a week.", ["7"]),
    ],
)
def test_a_count_of_things_a_period_is_a_rate(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "one wash a week" is a rate, as "twice a week" is: its "a week" backs no span of 7
    days (the rate was read only after a digit or "once", "twice", "per", "every")."""
    assert unsupported(answer, context) == expected
