"""unsupported_numbers: identifiers written in groups (``numbers/grouped.py``): an IBAN, a
tracking, meter or account number in spaced groups, a sort code, a UK postcode, read whole
(the third wave of issue 75's common-sense misses). docs/checks.md writes the rule."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported

IBAN = "Your deposit will be returned to IBAN DE89 3704 0044 0532 0130 00 within 10 days."
UPS = "Parcel 1: UPS 1Z999AA10123456784, delivered."
ACCOUNT = "Current account: sort code 20-00-00, account number 55779911."
RETURNS = "Return address: Returns Dept, Unit 4, Kingsway Park, Derby DE22 3FT."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # one group off is another identifier, reported whole (not by its groups)
        (
            "It goes back to **DE89 3704 0044 0523 0130 00** within 10 days.",
            IBAN,
            ["DE89 3704 0044 0523 0130 00"],
        ),
        ("It goes back to DE89370400440532013000 within 10 days.", IBAN, []),
        ("It goes back to **DE89 3704 0044 0532 0130 00** within 10 days.", IBAN, []),
        ("The tracking number is **1Z 999 AA1 0123 4567 84**.", UPS, []),
        ("The tracking number is **1Z 999 AA1 0123 4567 91**.", UPS, ["1Z 999 AA1 0123 4567 91"]),
        ("Track it with **1550 1234 5678 90**.", "Tracking: 15501234567890.", []),
        (
            "Track it with **1550 1234 5678 09**.",
            "Tracking: 15501234567890.",
            ["1550 1234 5678 09"],
        ),
        ("Your MPRN is 73 6491 2808.", "Gas meter point reference (MPRN): 7364912808.", []),
        ("| Sort code | **20 00 00** |\n| Account number | **5577 9911** |", ACCOUNT, []),
        (
            "| Sort code | **20 00 00** |\n| Account number | **5577 9191** |",
            ACCOUNT,
            ["5577 9191"],
        ),
        # a code's letters beside its groups: the context may write it whole
        ("Track it with **JD 123 456 789 GB**.", "Tracking number: JD123456789GB.", []),
        (
            "Track it with **JD 123 456 780 GB**.",
            "Tracking number: JD123456789GB.",
            ["123 456 780"],
        ),
        # a postcode holds no figure of its own: it was not read at all
        ("Send it to Kingsway Park, Derby **DE22 3TF**.", RETURNS, ["DE22 3TF"]),
        ("Send it to Kingsway Park, Derby DE22 3FT.", RETURNS, []),
        ("Send it to Kingsway Park, Derby DE223FT.", RETURNS, []),
        # hard negatives: not identifiers in groups
        ("It costs €5 000 000.", "It costs €5,000,000.", []),
        ("The seasons 2019 2020 2021 were the best.", "Best seasons: 2019, 2020, 2021.", []),
        ("Your PCN (6104 2288 7301) is £70.", "PCN number 6104 2288 7301, amount £70.", []),
        ("Call +44 20 7946 0958.", "Call 020 7946 0958.", []),
        ("Scores were 10 11 12.", "Scores were 10, 11 and 12.", []),
    ],
)
def test_an_identifier_in_groups_is_read_whole(
    answer: str, context: str, expected: list[str]
) -> None:
    """The groups were figures of their own ("0044 0523 0130 00" of a wrong IBAN was
    reported, "00" and "84" of a right one were backed anywhere) and a postcode was no
    figure at all."""
    assert unsupported(answer, context) == expected
