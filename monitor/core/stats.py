"""Small statistics used in summaries and comparisons: Wilson score intervals for
proportions, the exact sign test, a percentile bootstrap of a mean, and the paired
difference of two flagged shares (the shadow candidate against the live definition)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` (0, 0 when ``n`` is 0).

    Unlike the normal approximation it stays inside [0, 1] and behaves at 0 and n successes,
    which is where monitoring rates (a 0.3 % refusal rate) usually live.
    """
    if n <= 0:
        return (0.0, 0.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes={successes} outside 0..{n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test p-value (ties left out)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / float(2**n)
    return min(1.0, 2.0 * tail)


def bootstrap_interval(
    diffs: list[float], reps: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean of ``diffs``."""
    if not diffs:
        return math.nan, math.nan
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(reps))
    return means[int(0.025 * reps)], means[int(0.975 * reps) - 1]


@dataclass
class PairedFlags:
    """One check's outcomes on the same traces under two definitions (live A, shadow B):
    counts of (A outcome, B outcome) pairs, outcomes flagged, passed, not_applicable or
    absent. The statistics are over the pairs both applied to."""

    pairs: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, a: str, b: str, n: int = 1) -> None:
        """Count ``n`` traces whose outcomes were ``a`` (live) and ``b`` (shadow)."""
        self.pairs[a, b] = self.pairs.get((a, b), 0) + n

    @property
    def both(self) -> int:
        """Traces both definitions judged (flagged or passed on each side)."""
        return sum(n for (a, b), n in self.pairs.items() if _judged(a) and _judged(b))

    @property
    def agreement(self) -> float:
        """Share of those traces with the same outcome."""
        same = sum(n for (a, b), n in self.pairs.items() if _judged(a) and a == b)
        return same / self.both if self.both else math.nan

    @property
    def flips(self) -> tuple[int, int]:
        """(flagged live, passed by the shadow), (passed live, flagged by the shadow)."""
        return (self.pairs.get(("flagged", "passed"), 0), self.pairs.get(("passed", "flagged"), 0))

    def shares(self) -> tuple[float, float]:
        """The flagged share of each definition over the traces both judged."""
        n = self.both
        if not n:
            return math.nan, math.nan
        a = sum(v for (x, y), v in self.pairs.items() if x == "flagged" and _judged(y))
        b = sum(v for (x, y), v in self.pairs.items() if y == "flagged" and _judged(x))
        return a / n, b / n

    def difference(self) -> tuple[float, float, float, float]:
        """The paired difference of the flagged shares B - A, its 95 % interval (normal
        approximation of the paired binary differences: the bootstrap's large-sample limit,
        and what a dashboard computes from the counters), and the exact sign test of the
        flips."""
        n = self.both
        if not n:
            return math.nan, math.nan, math.nan, 1.0
        down, up = self.flips
        d = (up - down) / n
        half = Z95 * math.sqrt(max((up + down) / n - d * d, 0.0) / n)
        return d, d - half, d + half, sign_test(up, down)


def _judged(outcome: str) -> bool:
    return outcome in ("flagged", "passed")
