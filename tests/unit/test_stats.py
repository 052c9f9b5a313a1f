"""Wilson score intervals."""

from __future__ import annotations

import pytest

from monitor.core.stats import wilson


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (0, 10, 0.0, 0.2775),  # reference values from the closed form (z = 1.96)
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (1, 100, 0.0018, 0.0545),
    ],
)
def test_known_values(k: int, n: int, lo: float, hi: float) -> None:
    """Matches published Wilson intervals to four decimals."""
    got = wilson(k, n)
    assert got == (pytest.approx(lo, abs=1e-4), pytest.approx(hi, abs=1e-4))


def test_empty_sample() -> None:
    """No observations: a degenerate interval, not a division by zero."""
    assert wilson(0, 0) == (0.0, 0.0)


def test_rejects_impossible_counts() -> None:
    """More successes than trials is a caller bug."""
    with pytest.raises(ValueError):
        wilson(3, 2)
