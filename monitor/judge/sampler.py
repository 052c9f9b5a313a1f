"""Which traces the judge sees: a deterministic, weighted sample within a budget.

``HashSampler`` gives each trace an inclusion probability ``p`` from a base rate raised by
priority rules (flagged by a check, chosen routes or releases; probe traffic with a
``golden_id`` always), and includes it when ``hash(salt, trace_id)`` falls below ``p`` — the
same decision in every replica and on every replay. A judged trace carries weight ``1/p``,
so weighted counts estimate population rates without bias (Horvitz–Thompson).

``Budget`` enforces calls per minute, input tokens per minute and USD per day with token
buckets; a global budget is split by this replica's share of the assigned partitions.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from monitor.core.model import Evaluation

_SCALE = 1 << 64


@dataclass(frozen=True)
class SamplingRules:
    """Inclusion probabilities: base, for flagged traces, per route and release, golden probes."""

    base_rate: float = 0.05
    flagged_rate: float = 0.5
    routes: Mapping[str, float] | None = None
    releases: Mapping[str, float] | None = None
    golden_always: bool = True
    # "flagged": flagged_rate for a flagged trace; "risk": from base_rate at risk 0 to
    # flagged_rate at risk 1 (monitor.checks.risk), by the trace's risk
    by: str = "flagged"


def planned_rates(
    target_per_1k: float, cost_per_call: float, flagged_share: float, boost: float
) -> tuple[float, float]:
    """(base_rate, flagged_rate) that spend ``target_per_1k`` USD per 1,000 traces when a call
    costs ``cost_per_call``, a share ``flagged_share`` of the traces is flagged and a flagged
    trace is judged ``boost`` times as often: 1000 c (b (1 - f) + min(1, k b) f) = target.
    Rates are capped at 1 (then the target is not reached: less is spent)."""
    if cost_per_call <= 0:
        return 1.0, 1.0
    per_trace = target_per_1k / 1000 / cost_per_call  # judged calls a trace may cost
    f = min(max(flagged_share, 0.0), 1.0)
    base = per_trace / ((1 - f) + boost * f)
    if boost * base > 1:  # the flagged are all judged: the rest of the money to the base
        base = (per_trace - f) / (1 - f) if f < 1 else 1.0
        return min(max(base, 0.0), 1.0), 1.0
    return min(base, 1.0), min(boost * base, 1.0)


class Decision(NamedTuple):
    """Whether a trace is judged, and with what inclusion probability (a tuple: made for
    every trace, at a third of a frozen dataclass's cost)."""

    sampled: bool
    probability: float

    @property
    def weight(self) -> float:
        """1/p: how many traces of the population the judged one stands for."""
        return 1.0 / self.probability if self.probability > 0 else 0.0


class HashSampler:
    """Deterministic Bernoulli sampling keyed by trace id (precomputed integer threshold)."""

    def __init__(self, rules: SamplingRules, salt: str = "ragmon") -> None:
        self.rules = rules
        self.salt = salt.encode()

    def probability(self, evaluation: Evaluation) -> float:
        """The inclusion probability of ``evaluation`` under the rules."""
        r = self.rules
        trace = evaluation.trace
        if r.golden_always and trace.golden_id:
            return 1.0
        p = r.base_rate
        if r.by == "risk":
            if evaluation.risk is not None:
                p = max(p, r.base_rate + (r.flagged_rate - r.base_rate) * evaluation.risk)
        elif evaluation.any_flagged:
            p = max(p, r.flagged_rate)
        if r.routes and trace.route is not None and trace.route in r.routes:
            p = max(p, r.routes[trace.route])
        if r.releases and trace.release is not None and trace.release in r.releases:
            p = max(p, r.releases[trace.release])
        return min(max(p, 0.0), 1.0)

    def position(self, trace_id: str) -> int:
        """The trace's fixed place in [0, 2^64): the same in every process."""
        digest = hashlib.blake2b(self.salt + trace_id.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    def decide(self, evaluation: Evaluation) -> Decision:
        """Sample ``evaluation`` by the hash of its trace id (the same decision on every replica
        and replay)."""
        p = self.probability(evaluation)
        return Decision(self.position(evaluation.trace_id) < int(p * _SCALE), p)


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; ``take`` never blocks."""

    def __init__(self, rate: float, capacity: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.capacity = capacity
        self._tokens = capacity
        self._clock = clock
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def available(self, amount: float) -> bool:
        """Whether ``amount`` could be taken now."""
        self._refill()
        return self._tokens >= amount

    def take(self, amount: float) -> None:
        """Take ``amount`` (the bucket may go negative: a debt paid by refill)."""
        self._refill()
        self._tokens -= amount  # may go negative: actual usage can exceed the estimate


@dataclass(frozen=True)
class BudgetLimits:
    """The judge's spend limits for the whole consumer group."""

    calls_per_minute: float = 60.0
    input_tokens_per_minute: float = 200_000.0
    usd_per_day: float = 5.0


class Budget:
    """Judge spend limits for this replica: the global limits times its partition share.
    ``limits=None`` is no limit (the heuristic judge costs nothing but CPU)."""

    def __init__(
        self,
        limits: BudgetLimits | None,
        share: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._clock = clock
        self.set_share(share)

    def set_share(self, share: float) -> None:
        """``share`` = this replica's assigned partitions / all partitions (1.0 alone)."""
        s = min(max(share, 0.0), 1.0)
        lim = self.limits
        with self._lock:
            self.share = s
            if lim is None:
                return
            self._calls = TokenBucket(
                lim.calls_per_minute * s / 60, lim.calls_per_minute * s, self._clock
            )
            self._tokens = TokenBucket(
                lim.input_tokens_per_minute * s / 60, lim.input_tokens_per_minute * s, self._clock
            )
            self._usd = TokenBucket(lim.usd_per_day * s / 86_400, lim.usd_per_day * s, self._clock)

    def try_acquire(self, input_tokens: float, usd: float) -> bool:
        """Reserve one call of the estimated size; False (nothing taken) when over budget."""
        if self.limits is None:
            return True
        with self._lock:
            if not (
                self._calls.available(1)
                and self._tokens.available(input_tokens)
                and self._usd.available(usd)
            ):
                return False
            self._calls.take(1)
            self._tokens.take(input_tokens)
            self._usd.take(usd)
            return True

    def settle(self, estimated_usd: float, actual_usd: float) -> None:
        """Correct the USD bucket once the real usage of a call is known."""
        if self.limits is None:
            return
        with self._lock:
            self._usd.take(actual_usd - estimated_usd)
