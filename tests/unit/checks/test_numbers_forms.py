"""unsupported_numbers: the forms issue 75's eighth round fixed, each with a supported and an
unsupported example."""

from __future__ import annotations

import pytest

from monitor.checks import UnsupportedNumbers
from tests.conftest import view

check = UnsupportedNumbers()


def unsupported(answer: str, context: str | list[str], query: str = "") -> list[str]:
    ctx = [context] if isinstance(context, str) else context
    result = check(view(answer, ctx, query))
    numbers: list[str] = result.evidence.to_line()["numbers"]
    return numbers


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("25% of the stalls sell hot food.", "12 of the 48 market stalls sell hot food.", []),
        ("30% of the stalls sell hot food.", "12 of the 48 market stalls sell hot food.", ["30%"]),
        ("She wrote 5 novels.", "She wrote 5 novels and 3 decades of columns.", []),
        ("She wrote 6 novels.", "She wrote 5 novels and 3 decades of columns.", ["6"]),
        ("It opened on 12 March.", "It opened on 12 mars 2024.", []),
    ],
)
def test_a_month_name_ends_its_word(answer: str, context: str, expected: list[str]) -> None:
    """ "48 market" is a figure, not the 48th of March (dropped, so no share was computed),
    and "5 novels" is not the fifth of November; "12 mars" is still a date."""
    assert unsupported(answer, context) == expected
