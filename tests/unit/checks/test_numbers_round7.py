"""unsupported_numbers, the seventh blind round (issue 75): markdown emphasis around a figure
and a figure whose digits also stand inside an earlier figure, each with the wrong figure
beside it and the look-alikes it must leave."""

from __future__ import annotations

import pytest

from monitor.checks import UnsupportedNumbers
from tests.conftest import view

check = UnsupportedNumbers()


def unsupported(answer: str, context: str) -> list[str]:
    result = check(view(answer, [context], ""))
    numbers: list[str] = result.evidence.to_line()["numbers"]
    assert result.flagged == bool(numbers)
    return numbers


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
