"""unsupported_numbers: forms the fourth common-sense round showed (issue 75, wave 21), each
with the wrong figure beside it."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a price glued to "pp", "pcm", "pa": the figure is read
        ("It costs £649 per person.", "Lisbon (4 nights, from £649pp) includes transfers.", []),
        ("It costs £659 per person.", "Lisbon (4 nights, from £649pp) includes transfers.",
         ["£659"]),
        ("Rent is £1,150 a month.", "Flat 3: £1,150pcm, available now.", []),
        # a code's letters beside its groups, under eight digits
        ("Your policy number is HH 20419 77.", "Home — policy HH-20419-77, renews.", []),
        ("Your policy number is HH 20419 78.", "Home — policy HH-20419-77, renews.",
         ["20419 78"]),
        # the trunk zero in brackets after the country code
        ("Call +44 (0)345 300 0161 from abroad.", "From abroad: +44 345 300 0161.", []),
        ("Call +44 (0) 20 7946 0958.", "Call 020 7946 0958.", []),
        ("Call +44 (0)345 300 0162 from abroad.", "Call 0345 300 0161.",
         ["+44 (0)345 300 0162"]),
        # a spelled count with two words between it and its noun
        ("You get six fee-free cash withdrawals abroad.",
         "5 fee-free cash withdrawals abroad per month.", ["six"]),
        ("You get five fee-free cash withdrawals abroad.",
         "5 fee-free cash withdrawals abroad per month.", []),
        # a version the context writes after a "v"
        ("It is fixed in 2.14.1.", "Release notes — v2.14.1 (12 February 2025).", []),
        ("It is fixed in 2.14.2.", "Release notes — v2.14.1 (12 February 2025).", ["2.14.2"]),
        # the layout the context declares for its numeric dates decides the reading
        ("It closes on 11 April 2025.", "All dates are in MM/DD/YYYY. It closes 04/11/2025.", []),
        ("It closes on 4 November 2025.", "All dates are in MM/DD/YYYY. It closes 04/11/2025.",
         ["4 November 2025"]),
        ("It is taken on 1 July 2025.", "Collected on 01/07/2025 (DD/MM/YYYY).", []),
        ("It is taken on 7 January 2025.", "Collected on 01/07/2025 (DD/MM/YYYY).",
         ["7 January 2025"]),
        ("It is taken on 7 January 2025.", "Collected on 01/07/2025.", []),  # either reading
        # a gain, a loss, an improvement of: a difference
        ("Yield went from 8.0 t/ha to 9.2 t/ha, a gain of 1.2 t/ha.",
         "Yield rose from 8.0 t/ha (2023) to 9.2 t/ha (2024).", []),
        ("Yield went from 8.0 t/ha to 9.2 t/ha, a gain of 1.4 t/ha.",
         "Yield rose from 8.0 t/ha (2023) to 9.2 t/ha (2024).", ["1.4"]),
        # ... but a relative improvement is no difference
        ("Margin widened to 42%, a relative improvement of 4%.",
         "Gross margin improved to 42% from 38%.", ["4%"]),
        # a range of clock times with its zone after its end
        ("Support runs 9am–5pm AEST, which is 23:00–07:00 UTC.",
         "Support hours: 9:00–17:00 AEST (UTC+10).", []),
        ("Support runs 9am–5pm AEST, which is 22:00–07:00 UTC.",
         "Support hours: 9:00–17:00 AEST (UTC+10).", ["22:00"]),
    ],
)  # fmt: skip
def test_common4_forms(answer: str, context: str, expected: list[str]) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "query", "context", "expected"),
    [
        # the user's premise that the context gives otherwise: not backed by the query
        ("At £39 a month, the Pro plan costs £468 a year.",
         "Since the Pro plan is £39 a month, how much would I pay for a year?",
         "Plans: Basic £19/month; Pro £45/month; Team £89/month.", ["£39", "£468"]),
        ("On Ferry Road's 40 mph limit, the penalty is a £100 fine.",
         "The speed limit on Ferry Road is 40 mph, right? What's the penalty?",
         "Ferry Road speed limit: 30 mph. Minimum penalty: £100 fine.", ["40"]),
        ("As your tenancy ends on 31 March, give notice by 31 January.",
         "My fixed-term tenancy ends on 31 March — when do I give notice?",
         "Fixed term 1 May 2024 to 30 April 2025. Notice: 2 months.", ["31 March", "31 January"]),
        # ... and the premise the context does not speak of is the user's to state
        ("Your £120 order can be refunded within 14 days.",
         "My order of £120 arrived damaged, can I get a refund?",
         "Orders over £50 ship free. Refunds within 14 days.", []),
        ("At £39 a month, you can pay by card.",
         "Since my plan is £39 a month, can I pay by card?",
         "Prices are shown in your account.", []),
        # a yes/no question's premise is read as before: denied, it is no claim
        ("No, the late fee is £10, not £15.", "Is the late fee £15?",
         "A late-payment fee of £10 applies.", []),
    ],
)  # fmt: skip
def test_a_premise_the_context_denies(
    answer: str, query: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context, query) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a difference or a sum the answer names, of two context figures in its unit, stated
        # in two sentences
        ("It weighs 1.29 kg, which is 0.5 kg lighter than the Novabook 16.",
         ["Novabook 14: weight 1.29 kg.", "Novabook 16: 1.79 kg; £1,649."], []),
        ("It weighs 1.29 kg, which is 0.6 kg lighter than the Novabook 16.",
         ["Novabook 14: weight 1.29 kg.", "Novabook 16: 1.79 kg; £1,649."], ["0.6"]),
        ("The pass is €1,395, €155 more than last season.",
         ["The 2024/25 pass cost €1,240.", "For 2025/26 the pass is €1,395."], []),
        ("In total 75 people died.",
         ["Officials said 30 people died in the north.", "In the south 45 people died."], []),
        ("In total 85 people died.",
         ["Officials said 30 people died in the north.", "In the south 45 people died."],
         ["85"]),
        # not without the words that name one, nor across units
        ("The pass is €1,395 and €155 for a child.",
         ["The 2024/25 pass cost €1,240.", "For 2025/26 the pass is €1,395."], ["€155"]),
        ("It is 0.5 lb lighter than the Novabook 16.",
         ["Novabook 14: weight 1.29 kg.", "Novabook 16: 1.79 kg."], ["0.5"]),
    ],
)  # fmt: skip
def test_a_sum_or_difference_across_sentences(
    answer: str, context: list[str], expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # cents and pence said in words, against an amount with its currency's code
        ("It costs 99 cents in the US store.", "Priced at 0.99 USD on the App Store.", []),
        ("It costs 89 cents in the US store.", "Priced at 0.99 USD on the App Store.", ["89"]),
        ("A stamp costs 40 pence.", "A stamp costs £0.40.", []),
        # fuel economy both ways, in the gallon the answer names
        ("It uses 5.0 L/100 km, about 56 mpg in UK gallons.", "Fuel use: 5.0 L/100 km.", []),
        ("It uses 5.0 L/100 km, about 47 mpg in US gallons.", "Fuel use: 5.0 L/100 km.", []),
        ("It uses 5.0 L/100 km, about 47 mpg in UK gallons.", "Fuel use: 5.0 L/100 km.",
         ["47"]),
        ("It manages 52 mpg.", "Fuel use: 5.0 L/100 km.", ["52"]),
    ],
)  # fmt: skip
def test_small_change_and_fuel_economy(answer: str, context: str, expected: list[str]) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a count of the things the answer lists right after it, each the context's
        ("Collections run three days a week — Monday, Wednesday and Friday, 10am–2pm.",
         "Collections run on Mondays, Wednesdays and Fridays, 10:00–14:00.", []),
        ("Collections run four days a week — Monday, Wednesday and Friday, 10am–2pm.",
         "Collections run on Mondays, Wednesdays and Fridays, 10:00–14:00.", ["four"]),
        ("The break includes five things:\n- Airport transfers\n- Daily breakfast\n"
         "- A walking tour\n- Travel insurance\n- A welcome dinner",
         "Includes airport transfers, daily breakfast, one walking tour, travel insurance "
         "and a welcome dinner.", []),
        # ... not when the context counts them otherwise
        ("The land train has three stops (Main Gate, Lakeside and Castle).",
         "Land train stops: Main Gate, Lakeside, Safari Café and Castle.", ["three"]),
    ],
)  # fmt: skip
def test_a_count_of_the_answers_own_list(answer: str, context: str, expected: list[str]) -> None:
    assert unsupported(answer, context) == expected
