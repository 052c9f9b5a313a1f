"""unsupported_numbers, the thirteenth blind round (issue 75): a change's base is the figure
written after "from" or "compared with", and the change goes the way the answer says.
docs/checks.md writes the rule."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

DOWN_FROM = "Operating profit was $60 million, down from $75 million a year earlier."
UP_FROM = "Revenue was $60 million, up from $50 million."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # "X, down from Y": Y is the base (the page took X, written first: 25 %)
        ("Operating profit fell 20%.", DOWN_FROM, []),
        ("Operating profit fell 25%.", DOWN_FROM, ["25%"]),
        ("Revenue grew 20%.", UP_FROM, []),
        ("Revenue rose about 17%.", "Claims made up 28% of the total, up from 24% in 2023.", []),
        ("Revenue grew 25%.", "Revenue was 100, compared with 80 a year earlier.", []),
        ("Revenue grew 25%.", "Revenue was 100, compared to 80 a year earlier.", []),
        # "from A to B": A, written first, as before
        ("Members fell 12.5%.", "Members went from 8,000 to 7,000.", []),
        ("Members fell by 14%.", "Members went from 8,000 to 7,000.", ["14%"]),
        ("Support fell 25%.", "Support went from 40% to 30%.", []),
        # the answer's own operands
        ("Sales are up 20% from 50 to 60.", "Sales were 50 in May. Sales were 60 in June.", []),
    ],
)  # fmt: skip
def test_a_change_is_from_the_figure_after_from(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("Operating profit grew 20%.", DOWN_FROM),
        ("Revenue fell 20%.", UP_FROM),
        ("Revenue fell 20%.", "Revenue rose from $50 million to $60 million."),
        ("Sales are down 20% from 50 to 60.", "Sales were 50 in May. Sales were 60 in June."),
        ("Members rose 12.5%.", "Members went from 8,000 to 7,000."),
    ],
)  # fmt: skip
def test_a_change_the_wrong_way_is_flagged(answer: str, context: str) -> None:
    """The size is right, the direction is not: a fall told as growth contradicts the
    context (the rule read the size alone)."""
    assert unsupported(answer, context) == ["20%" if "20%" in answer else "12.5%"]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The plan costs £29 a month.", "The plan costs £29 per year.", ["£29"]),
        ("The plan costs £29/mo.", "The plan costs £29 annually.", ["£29"]),
        ("Rent is $1,250 a month.", "Rent is $1,250 per week.", ["$1,250"]),
        # hard negatives: the same period, a price per head, a period-free mention beside,
        # and the restatement the page already backs
        ("The plan costs £29 monthly.", "The plan costs £29 per month.", []),
        ("The plan costs £29 a month.", "The plan costs £29 per user per month.", []),
        ("The plan costs £29 a month.", "Pro is £29 per year. Add-ons cost £29 each.", []),
        ("The plan costs £29 a month.", "The plan costs £29. It renews every year.", []),
        ("The plan costs £348 a year.", "The plan costs £29 per month.", []),
        ("Pay £29 a month or £290 a year.", "Monthly: £29 per month. Annual: £290 per year.",
         []),
    ],
)  # fmt: skip
def test_an_amount_per_another_period_is_flagged(
    answer: str, context: str, expected: list[str]
) -> None:
    """A price's period swapped (monthly for yearly) kept its digits, and was backed."""
    assert unsupported(answer, context) == expected


def test_an_amount_per_period_is_never_the_tail_of_another() -> None:
    """The amounts per period are read near each period word; a window that began inside
    "$1,048" read "48 monthly", which backed "$576 a year" (48 x 12)."""
    context = "Team is $1,048 monthly. Support is included with every plan, see the status"
    context = context.ljust(76) + "month-to-month contracts are available."
    assert context.index("month-to") - 64 == context.index("48 m")  # the window's start
    assert unsupported("Team costs $576 a year.", context) == ["$576"]
    assert unsupported("Team costs $12,576 a year.", context) == []


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The bridge is closed for 16 days.", "It is closed from 4 April to 19 April.", []),
        ("The bridge is closed for 15 days.", "It is closed from 4 April to 19 April.", []),
        ("The bridge is closed for 20 days.", "It is closed from 4 April to 19 April.", ["20"]),
        ("The line closes for 16 days.", "The line is closed 4-19 April 2026.", []),
        ("The line closes for 16 days.", "Repairs close the line from Saturday 4 April 2026 to "
         "Sunday 19 April 2026.", []),
        ("You stay 3 nights.", "Check in on 12 May, check out on 15 May.", []),
        ("You stay 4 nights.", "Check in on 12 May, check out on 15 May.", ["4"]),
        ("The works last 5 days.", "Closed from 28 February to 3 March 2024.", []),  # leap year
        ("The works last 6 days.", "Closed from 28 February to 3 March 2024.", ["6"]),
        ("The break is 7 days.", "The office closes from 28 December to 3 January.", []),
        ("The closure is 16 days, from 4 to 19 April.", "It is closed from 4 April to 19 April.",
         []),
        # dates in two sentences give no span
        ("Delivery takes 3 days.", "Order by 4 April. Delivery by 7 April.", ["3"]),
    ],
)  # fmt: skip
def test_a_count_of_days_between_two_dates(answer: str, context: str, expected: list[str]) -> None:
    """A closure "from 4 April to 19 April" is 16 days counting both, 15 from one to the
    other: either was flagged (the policy had left spans between dates undecided)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("It has two dozen staff.", "It has 24 staff.", []),
        ("It has two dozen staff.", "It has 30 staff.", []),  # the page: no count claimed
        ("It has half a dozen staff.", "It has 6 staff.", []),
        ("It has a dozen staff.", "It has 12 staff.", []),
        ("It has a dozen staff.", "It has 14 staff.", ["dozen"]),  # "a dozen" claims 12
    ],
)  # fmt: skip
def test_a_multiplied_dozen_claims_no_count(answer: str, context: str, expected: list[str]) -> None:
    """ "two dozen staff" was read as "dozen staff", a claim of 12, and flagged beside 24."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # the operands named by "than", "from" or "instead of" in the answer's sentence
        ("Q2 revenue was $48.2 million, up $6.7 million from $41.5 million.",
         "Q2 revenue was $48.2 million, compared with $41.5 million in Q2 last year.", []),
        ("Q2 revenue was $48.2 million, up $7.7 million from $41.5 million.",
         "Q2 revenue was $48.2 million, compared with $41.5 million in Q2 last year.",
         ["$7.7 million"]),
        ("You'll pay $17.99 a month, $3.00 more than the current $14.99.",
         "It renews at $14.99/month. The price rises to $17.99/month from 1 October.", []),
        ("You'll pay $17.99 a month, $4.00 more than the current $14.99.",
         "It renews at $14.99/month. The price rises to $17.99/month from 1 October.",
         ["$4.00"]),
        ("You'd pay £55.45 instead of £84.00, a saving of £28.55.",
         "Anytime Return: £84.00. With a Railcard: £55.45.", []),
        # a share whose "A of B" the answer writes
        ("**175** of the **1,250** patients (**14%**) reported nausea.",
         "Of 1,250 patients, 175 experienced nausea.", []),
        ("**175** of the **1,250** patients (**15%**) reported nausea.",
         "Of 1,250 patients, 175 experienced nausea.", ["15%"]),
        ("72 out of 480 applicants got offers (15%).",
         "72 offers were made. There were 480 applicants.", []),
        # a time to the second
        ("The winning time was **2:14:08**.", "Winning time 2:14:08.", []),
        ("The winning time was 2:14:09.", "Winning time 2:14:08.", ["2:14:09"]),
        # cents and pence
        ("Each text costs $0.25.", "Each text costs 25 cents.", []),
        ("Each text costs $0.25.", "Texts cost 25¢ each.", []),
        ("The standing charge is £53.35 a day.", "Standing charge: 53.35p per day.", ["£53.35"]),
        ("The standing charge is £53.35 a quarter.",
         "Standing charge: £53.35 per quarter, or 58.6p per day.", []),
    ],
)  # fmt: skip
def test_the_common_sense_rounds_forms(answer: str, context: str, expected: list[str]) -> None:
    """Forms a fact-checker's labels (the first common-sense round, open part) read otherwise
    than the check did: correct one-step figures flagged, a pence amount in pounds backed."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a code's segments after its digits are part of it
        ("Write the code **RTN-5528-KD** on the parcel.", "Write code RTN-5582-KD on it.",
         ["RTN-5528-KD"]),
        ("Write the code **RTN-5582-KD** on the parcel.", "Write code RTN-5582-KD on it.", []),
        ("Quote policy HX-20932-77.", "Have your policy number (HX-20931-77) ready.",
         ["HX-20932-77"]),
        ("Quote policy HX-20931-77.", "Have your policy number (HX-20931-77) ready.", []),
        # an amount in another currency
        ("Each transfer costs **£25**.",
         "Transfers: $25 fee from USD accounts; £15 from GBP accounts.", ["£25"]),
        ("Each transfer costs **$25**.",
         "Transfers: $25 fee from USD accounts; £15 from GBP accounts.", []),
        ("Each transfer costs $25.", "Each transfer costs 25 euros.", ["$25"]),
        ("Each transfer costs €25.", "Each transfer costs 25 euros.", []),
        ("Each transfer costs $25.", "Each transfer costs 25.", []),
    ],
)  # fmt: skip
def test_codes_whole_and_currencies(answer: str, context: str, expected: list[str]) -> None:
    """Two wrong figures the common-sense round's labels flag and the check backed: a code
    with a letter segment after its digits was read as no figure, and the same digits in
    another currency were the same figure."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Conversion rose from 2.0% to 2.5%, which is 0.5 percentage points.",
         "Conversion rate increased from 2.0% to 2.5% after the redesign.", []),
        ("Conversion rose from 2.0% to 2.5%, which is 0.7 percentage points.",
         "Conversion rate increased from 2.0% to 2.5% after the redesign.", ["0.7"]),
        ("Brand A's share rose 3.5 points to 31.5%.",
         "Market share: Brand A 31.5% (2024: 28.0%); Brand B 22.1% (2024: 24.6%).", []),
        ("Cash costs 27.9% a year, 5 percentage points more than purchases at 22.9%.",
         "Purchase rate 22.9% p.a. (variable). Cash rate 27.9% p.a. (variable).", []),
        ("It's 12th in the guide, up 6 places from 18th.",
         "Ranked 12th in the guide (up from 18th last year).", []),
        ("It's 12th in the guide, up 5 places from 18th.",
         "Ranked 12th in the guide (up from 18th last year).", ["5"]),
        # points of a game are no percentage points
        ("Ferrari beat McLaren by a margin of 8 points.",
         "Ferrari finished with 406 points and McLaren with 398.", []),
    ],
)  # fmt: skip
def test_points_and_places_apart(answer: str, context: str, expected: list[str]) -> None:
    """Differences a fact-checker reads at once: percentage points between two rates, places
    between two ranks."""
    assert unsupported(answer, context) == expected


BASKET = "Basket: Trail running shoes £89.99; running socks (3-pack) £12.50; delivery £4.95."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Your total comes to **£107.44**: **£89.99** for the shoes, **£12.50** for the socks "
         "and **£4.95** delivery.", []),
        ("Your total comes to **£108.44**: **£89.99** for the shoes, **£12.50** for the socks "
         "and **£4.95** delivery.", ["£108.44"]),
        # a figure the context does not state beside them: no sum is shown
        ("Your total comes to £107.44: £89.99, £12.50, £4.95 and 2 vouchers.", ["£107.44", "2"]),
    ],
)  # fmt: skip
def test_a_sum_the_answer_shows(answer: str, expected: list[str]) -> None:
    assert unsupported(answer, BASKET) == expected


WARRANTY = "Warranty: 24 months from the date of purchase. Purchase date: 15/08/2024."
RETURNS = "You have 30 days to return an item. Your order was delivered on 12 February 2026."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Your warranty runs until **15 August 2026**.", WARRANTY, []),
        ("Your warranty runs until 14 August 2026.", WARRANTY, []),  # the day before
        ("Your warranty runs until **15 August 2027**.", WARRANTY, ["15 August 2027"]),
        ("Return it by 14 March 2026.", RETURNS, []),
        ("Return it by 20 March 2026.", RETURNS, ["20 March 2026"]),
    ],
)  # fmt: skip
def test_a_date_a_stated_span_on(answer: str, context: str, expected: list[str]) -> None:
    """A warranty's end or a return deadline, one step from a date and a span the context
    states, was flagged."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The drive takes almost **3 hours**.", "Estimated drive time: 2 h 52 min.", []),
        ("The drive takes almost 4 hours.", "Estimated drive time: 2 h 52 min.", ["4"]),
        ("The flight is just under **2 hours**.", "Flight time: 1 h 55 min.", []),
        ("The flight is about 3 hours.", "Flight time: 1 h 55 min.", ["3"]),
        ("It takes more than 90 minutes.", "It takes 1 hour 35 minutes.", []),
    ],
)  # fmt: skip
def test_a_hedged_span_around_hours_and_minutes(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


UNITS = "Electricity: unit rate 24.50p per kWh. Your usage last month: 310 kWh over 31 days."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Your usage cost **£75.95** (**310 kWh** at **24.50p**).", UNITS, []),
        ("Your usage cost **£76.95** (**310 kWh** at **24.50p**).", UNITS, ["£76.95"]),
        ("Over 90 days you used 812 kWh, about 9 kWh a day.",
         "Bill period: 90 days. Electricity used: 812 kWh.", []),
        ("Over 90 days you used 812 kWh, about 12 kWh a day.",
         "Bill period: 90 days. Electricity used: 812 kWh.", ["12"]),
        # no working-out said, and counts never make money
        ("The plan has 5 users and 4 projects and costs $20.",
         "The plan has 5 users and 4 projects and costs $25.", ["$20"]),
    ],
)  # fmt: skip
def test_a_product_or_quotient_the_answer_works_out(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The tank holds 50 litres (about **11 UK gallons**).", "Tank capacity: 50 litres.", []),
        ("The tank holds 50 litres (about 13 UK gallons).", "Tank capacity: 50 litres.", ["13"]),
        ("The tank holds 50 litres (about 13 gallons).", "Tank capacity: 50 litres.", []),
        ("Use sort code **204577**.", "Pay to sort code 20-45-77, account 43218765.", []),
        ("Use sort code **204578**.", "Pay to sort code 20-45-77, account 43218765.",
         ["204578"]),
    ],
)  # fmt: skip
def test_imperial_gallons_and_a_code_in_another_layout(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


SHOW = ("Doors open 18:30; the show starts 19:30. Running time 2 hours 20 minutes including a "
        "20-minute interval.")  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The show should finish around **9:50pm**.", SHOW, []),
        ("The show should finish around 10:10pm.", SHOW, ["10:10pm"]),
        ("It starts at 18:00, lasts 90 minutes, and so ends at 19:30.",
         "The webinar starts at 18:00 and lasts 90 minutes.", []),
        ("It ends at 19:45.", "The webinar starts at 18:00 and lasts 90 minutes.", ["19:45"]),
        # a timetable: too many times and spans to read a time off them
        ("The last bus is at 23:05.",
         "Buses at 07:10, 08:25, 09:40, 11:00 and 12:15; 25 minutes to town, 40 minutes to the "
         "airport, 55 minutes to the coast, 2 hours to the city, 3 hours 10 minutes to the port.",
         ["23:05"]),
        ("Your card expires at the end of **November 2026**.", "Card valid thru 11/26.", []),
        ("Your card expires at the end of December 2026.", "Card valid thru 11/26.",
         ["December 2026"]),
    ],
)  # fmt: skip
def test_a_clock_time_a_span_on_and_an_expiry_month(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("After opening, keep it at **2–8°C** (**36–46°F**).", "Keep it at 2–8°C once opened.",
         []),
        ("Keep it at 2–8°C (40–46°F).", "Keep it at 2–8°C once opened.", ["40"]),
        ("Keep it at 36 to 46 °F.", "Keep it at 2 to 8 °C.", []),
    ],
)  # fmt: skip
def test_a_temperature_range_converted(answer: str, context: str, expected: list[str]) -> None:
    """A range's first end had no scale of its own, so "36" of "36–46°F" was flagged."""
    assert unsupported(answer, context) == expected
