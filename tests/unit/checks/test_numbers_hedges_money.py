"""unsupported_numbers: a hedge that narrows what backs a figure ("over 90%" for 89.5%), a
figure rounded to fives ("around 25 minutes" for 24), and amounts in pence or cents against
pounds, dollars or euros (``numbers/hedges.py``, ``numbers/measures.py``); the third wave of
issue 75's common-sense misses. docs/checks.md writes the rules."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a hedge whose direction the context's value contradicts
        (
            "In October **over 90%** of trains arrived on time.",
            "On time in October: 89.5%.",
            ["90%"],
        ),
        (
            "The museum had nearly 2 million visitors.",
            "The museum had 2.1 million visitors.",
            ["2 million"],
        ),
        ("Cancellations were under 2%.", "Cancellations: 2.3%.", ["2%"]),
        ("The sale offers up to 50% off outerwear.", "Sale: up to 40% off outerwear.", ["50%"]),
        # hard negatives: the same figures on the hedge's side, and a rounding with no hedge
        ("Over 90% of trains arrived on time.", "On time: 90.4%.", []),
        ("The museum had nearly 2 million visitors.", "The museum had 1.96 million visitors.", []),
        ("Cancellations were under 2%.", "Cancellations: 1.8%.", []),
        ("About 90% of trains arrived on time.", "On time: 89.5%.", []),
        ("90% of trains arrived on time.", "On time: 89.5%.", []),
        ("Just over 1,000 people replied.", "1,040 people replied.", []),
        # a figure ending in a 5, one step off its source
        ("Express delivery takes around 25 minutes.", "Express: 24 minutes on average.", []),
        ("Express delivery takes around 25 minutes.", "Express: 22 minutes on average.", ["25"]),
        ("About 35,000 people watched.", "The final drew 37,480 spectators.", ["35,000"]),
        ("It had about 50% off.", "Sale: 40% off.", ["50%"]),
    ],
)
def test_a_hedge_bounds_from_its_side(answer: str, context: str, expected: list[str]) -> None:
    """A hedge widened what backs a figure and never narrowed it: "over 90%" was backed by
    89.5% (it rounds to 90), "up to 50%" by a maximum of 40% (a quarter over it)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a hundred times: the same digits after the other unit
        ("Each text costs £45.", "Roaming: texts 45p each.", ["£45"]),
        ("Each text costs 45p.", "Roaming: texts £45 each.", ["45p"]),
        ("A bag costs 5p and the fine is £5.", "Bags are 5p each; the fine is £5.", []),
        # cents and pence with decimals, and the cent sign apart from the figure
        ("You are paid $0.125 for each kWh.", "Feed-in rate: 12.5c per kWh.", []),
        ("You are paid $0.135 for each kWh.", "Feed-in rate: 12.5c per kWh.", ["$0.135"]),
        ("You are paid 12.5c for each kWh.", "Feed-in rate: $0.125 per kWh.", []),
        ("Most tracks cost 99¢.", "Single tracks: $0.99.", []),
        ("Most tracks cost 99c.", "Single tracks: $0.99.", []),
        ("Most tracks cost 89¢.", "Single tracks: $0.99.", ["89¢"]),
        ("Electricity is 24.5p per kWh.", "Unit rate: £0.245 per kWh.", []),
    ],
)
def test_pence_and_cents_against_the_major_unit(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "£45" for 45p was backed (the digits match; the unit is a hundredfold), "$0.125" for
    12.5c and "99¢" for $0.99 were flagged (only whole pence and cents were converted)."""
    assert unsupported(answer, context) == expected


BINS = "Because Monday 25 August 2025 is a bank holiday, collection will be the following day."
OFFICE = (
    "The office is closed from Wednesday 24 December 2025 to Thursday 1 January 2026 "
    "inclusive, and will reopen the following day."
)


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Your bins will be collected on **Tuesday 26 August**.", BINS, []),
        ("Your bins will be collected on **Wednesday 27 August**.", BINS, ["27 August"]),
        ("We reopen on **Friday 2 January 2026**.", OFFICE, []),
        ("We reopen on **Monday 5 January 2026**.", OFFICE, ["5 January 2026"]),
        ("Delivery is on 8 March.", "Ordered on 3 March 2025; delivery takes 5 days.", []),
        (
            "Delivery is on 11 March.",
            "Ordered on 3 March 2025; delivery takes 5 days.",
            ["11 March"],
        ),
    ],
)
def test_the_following_day(answer: str, context: str, expected: list[str]) -> None:
    """ "The following day" was no span, and a date without its year was never read as one
    moved by a span ("2 January 2026" and "26 August" were flagged)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a count joined to its thing by a hyphen
        (
            "22 Elm Road is a **four-bedroom** home.",
            "22 Elm Road: 3 bedrooms, 2 bathrooms.",
            ["four"],
        ),
        ("22 Elm Road is a **three-bedroom** home.", "22 Elm Road: 3 bedrooms, 2 bathrooms.", []),
        ("A Two-bedroom flat.", "Two bedrooms, one bathroom.", []),
        ("Enable two-factor authentication.", "Enable 2FA in your settings.", []),
        # an ordinal in words, judged where the context ranks in ordinals
        (
            "Revenue grew for the **fourth** consecutive quarter.",
            "Revenue rose 6%, the third consecutive quarter of growth.",
            ["fourth"],
        ),
        (
            "Revenue grew for the third consecutive quarter.",
            "Revenue rose 6%, the third consecutive quarter of growth.",
            [],
        ),
        (
            "The sixth annual festival is on 21 June.",
            "The 5th annual festival is on 21 June.",
            ["sixth"],
        ),
        ("The fifth annual festival is on 21 June.", "The 5th annual festival is on 21 June.", []),
        ("Moreau finished fourth.", "Results: 1. Okonkwo 2. Lindqvist 3. Moreau.", []),
        ("Henry the Fifth was crowned.", "The 4th king was crowned in 1413.", []),
    ],
)
def test_spelled_counts_joined_and_ordinals(answer: str, context: str, expected: list[str]) -> None:
    """ "four-bedroom" and "fourth" were no figures: never checked."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a gap in points between two rates the context states in two sentences
        (
            "Energy VAT is **15 percentage points** below the standard rate — **75%** lower.",
            "VAT on domestic energy: 5%. Standard VAT rate: 20%.",
            [],
        ),
        (
            "Energy VAT is **16 percentage points** below the standard rate — **80%** lower.",
            "VAT on domestic energy: 5%. Standard VAT rate: 20%.",
            ["16", "80%"],
        ),
        (
            "The Bank cut rates by **25 basis points**, to **5%**.",
            "The Bank cut Bank Rate from 5.25% to 5.00%.",
            [],
        ),
        (
            "The Bank cut rates by **50 basis points**, to **5%**.",
            "The Bank cut Bank Rate from 5.25% to 5.00%.",
            ["50"],
        ),
        (
            "Attendance is 93.4%, 2.6 percentage points below target.",
            "Attendance target: 96%. Attendance this term: 93.4%.",
            [],
        ),
        # a relative change over the base its direction says
        (
            "Churn fell 1 percentage point to 4.0%, a 20% relative reduction.",
            "Churn fell from 5.0% to 4.0%.",
            [],
        ),
        (
            "Churn fell 1 percentage point to 4.0%, a 25% relative reduction.",
            "Churn fell from 5.0% to 4.0%.",
            ["25%"],
        ),
        # a gap is no rate rounded: "4" is not 4.6% truncated
        (
            "Unemployment climbed to 4.6%, up 4 percentage points from 4.2%.",
            "Unemployment rose to 4.6% from 4.2% in the previous quarter.",
            ["4"],
        ),
        (
            "Unemployment climbed to 4.6%, up 0.4 percentage points from 4.2%.",
            "Unemployment rose to 4.6% from 4.2% in the previous quarter.",
            [],
        ),
        # a "Saver" account is no saving: the change is over the lower rate
        (
            "Your Easy Saver rate rises from 4.50% to 5.25%, about 17% in relative terms.",
            "From 1 May, the Easy Saver rate increases from 4.50% to 5.25%.",
            [],
        ),
    ],
)
def test_two_rates_compared(answer: str, context: str, expected: list[str]) -> None:
    """A gap in points or a relative change between two rates of two context sentences was
    flagged (the cued steps read one sentence); "4 percentage points" was backed by 4.6%."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a dollar's country: another country's dollar is another amount
        ("An adult ticket is **A$79**.", "Adult NZ$79, child NZ$40.", ["A$79"]),
        ("An adult ticket is NZ$79.", "Adult NZ$79, child NZ$40.", []),
        ("An adult ticket is $79.", "Adult NZ$79, child NZ$40.", []),
        ("An adult ticket is A$79.", "Adult AU$79.", []),
        # reported as written, with the sign the scan leaves out
        (
            "The fund manages **A$280 million**.",
            "The fund manages A$2.8 billion.",
            ["A$280 million"],
        ),
        ("Extra texts are **50¢** each.", "Each extra text costs $0.05.", ["50¢"]),
        # an age on a date of the answer's sentence, from the context's birth date
        (
            "The applicant will be **37** on the **1 June 2025** start date.",
            "Applicant date of birth: 14 March 1988. Proposed start date: 1 June 2025.",
            [],
        ),
        (
            "The applicant will be **38** on the **1 June 2025** start date.",
            "Applicant date of birth: 14 March 1988.",
            ["38", "1 June 2025"],
        ),
    ],
)
def test_dollars_cents_and_ages(answer: str, context: str, expected: list[str]) -> None:
    """ "A$79" was backed by "NZ$79" (the scan reads the figure after the sign) and reported
    as "79"; "50¢" as "50"; an age without "aged" beside a birth date was flagged."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "It starts at **14:00 UTC** on 20 February.",
            "Webinar: 20 February, 15:00 CET (UTC+1).",
            [],
        ),
        (
            "It starts at **13:00 UTC** on 20 February.",
            "Webinar: 20 February, 15:00 CET (UTC+1).",
            ["13:00"],
        ),
        ("It is at 09:00 PT, which is 16:00 UTC.", "It begins at 09:00 PT. PT is UTC-7.", []),
        (
            "It is at 09:00 PT, which is 17:00 UTC.",
            "It begins at 09:00 PT. PT is UTC-7.",
            ["17:00"],
        ),
        ("It starts at 3pm GMT.", "It starts at 16:00 UTC+1.", []),
        # the context's time as a bare hour with am or pm
        ("The webinar starts at 4pm CET.", "It starts at 3pm UTC. CET (UTC+1).", []),
        ("The webinar starts at 16:00 CET.", "It starts at 3 p.m. UTC. CET (UTC+1).", []),
        ("The webinar starts at 5pm CET.", "It starts at 3pm UTC. CET (UTC+1).", ["5pm"]),
        # no offset for the zone: not judged as a move (a zone's offset is never guessed)
        ("It is at 09:00 PT, which is 16:00 UTC.", "It begins at 09:00 PT.", ["16:00"]),
    ],
)
def test_a_clock_time_in_another_zone(answer: str, context: str, expected: list[str]) -> None:
    """ "14:00 UTC" for "15:00 CET (UTC+1)" was flagged: a zone was never read."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "Over a year, the 30-day plan costs **£144** and the 24-month plan **£120**.",
            "SIM-only 30-day plan: £12/month. SIM-only 24-month plan: £10/month.",
            [],
        ),
        (
            "Over a year, the 30-day plan costs **£150** and the 24-month plan **£120**.",
            "SIM-only 30-day plan: £12/month. SIM-only 24-month plan: £10/month.",
            ["£150"],
        ),
    ],
)
def test_a_period_said_before_labels_and_amounts(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "Over a year" was not read past a label's digits ("30-day") or another amount."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Your card expires 09/27.", "Card expiry: September 2027.", []),
        ("Your card expires 09/28.", "Card expiry: September 2027.", ["09/28"]),
        ("Your card expires 09/27.", "Valid thru 09/27.", []),
    ],
)
def test_a_card_expiry_against_a_month_and_year(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "09/27" was flagged beside "September 2027" (only the other way was read)."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "That's **€90** per person, breakfast included.",
            "Group booking for 6 guests: total €540, including breakfast.",
            [],
        ),
        (
            "That's **€95** per person, breakfast included.",
            "Group booking for 6 guests: total €540, including breakfast.",
            ["€95"],
        ),
        ("Tickets are £45 each.", "The 4 tickets cost £180 in total.", []),
        # the total of another sentence, or no word for "each": not a share
        ("Tickets are £45 each.", "There are 4 tickets. They cost £180 in total.", ["£45"]),
        ("Tickets are £45.", "The 4 tickets cost £180 in total.", ["£45"]),
    ],
)
def test_an_amount_per_person_of_a_stated_total(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "€90 per person" beside "6 guests: total €540" was flagged."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Each module stores **2,400 Wh** of usable energy.", "Capacity: 2.4 kWh a module.", []),
        (
            "Each module stores **2,500 Wh** of usable energy.",
            "Capacity: 2.4 kWh a module.",
            ["2,500"],
        ),
        ("The farm's output is 1.5 MW.", "Output: 1,500 kW.", []),
        ("Whisk in **1 cup** of whole milk.", "Add 250 ml of whole milk and whisk.", []),
        ("Whisk in 1 cup of whole milk.", "Add 120 ml of whole milk and whisk.", ["1"]),
        ("Add 2 tbsp of oil.", "Add 30 ml of oil.", []),
        ("Tyre pressure is 2.3 bar.", "Pressure: 33 psi.", []),
        ("Tyre pressure is 2.8 bar.", "Pressure: 33 psi.", ["2.8"]),
        ("He weighs 11 stone.", "Weight: 70 kg.", []),
        ("The boat does 20 knots.", "Top speed: 37 km/h.", []),
    ],
)
def test_energy_power_and_kitchen_measures(answer: str, context: str, expected: list[str]) -> None:
    """Watt-hours, watts and kitchen measures were no units: "2,400 Wh" for 2.4 kWh was
    flagged."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("It can be up to **22 × 16 × 8 inches**.", "Cabin bag maximum: 55 × 40 × 20 cm.", []),
        ("It can be up to **22 × 18 × 8 inches**.", "Cabin bag maximum: 55 × 40 × 20 cm.", ["18"]),
        ("It measures 90 x 60 cm.", "Size: 900 x 600 mm.", []),
    ],
)
def test_a_dimension_list_shares_its_unit(answer: str, context: str, expected: list[str]) -> None:
    """The unit after a list of dimensions was read for its last figure only ("22" and "16"
    of "22 × 16 × 8 inches" were flagged)."""
    assert unsupported(answer, context) == expected
