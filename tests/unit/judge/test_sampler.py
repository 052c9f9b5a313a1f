"""Sampling: deterministic, at the configured rates, and unbiased once weighted."""

from __future__ import annotations

import random
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks import CheckSuite
from monitor.core.model import CheckResult, Evaluation, RagTrace
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules, TokenBucket
from monitor.sources import demo


def evaluation(trace_id: str, flagged: bool = False, route: str | None = None,
               golden: str | None = None) -> Evaluation:  # fmt: skip
    trace = RagTrace(trace_id=trace_id, route=route, golden_id=golden, answer="a")
    checks = {"refusal": CheckResult(name="refusal", flagged=flagged)}
    return Evaluation(trace=trace, checks=checks)


def ids(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.getrandbits(128):032x}" for _ in range(n)]


def test_same_decision_in_another_process() -> None:
    """A replica or a replay in another process decides exactly the same."""
    sample = ids(300)
    here = [HashSampler(SamplingRules(base_rate=0.3)).decide(evaluation(t)).sampled for t in sample]
    code = (
        "import sys, json\n"
        "from monitor.judge.sampler import HashSampler, SamplingRules\n"
        "from tests.unit.judge.test_sampler import evaluation\n"
        "s = HashSampler(SamplingRules(base_rate=0.3))\n"
        "print(json.dumps([s.decide(evaluation(t)).sampled for t in json.loads(sys.argv[1])]))\n"
    )
    import json

    out = subprocess.run([sys.executable, "-c", code, json.dumps(sample)], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert json.loads(out) == here


def test_observed_rate_matches_the_configured_rate() -> None:
    """Over 20,000 traces the sampled share is within 1.5 points of 10 %."""
    sampler = HashSampler(SamplingRules(base_rate=0.1))
    share = sum(sampler.decide(evaluation(t)).sampled for t in ids(20_000)) / 20_000
    assert abs(share - 0.1) < 0.015


def test_priority_rules_raise_the_probability() -> None:
    """Flagged traces, chosen routes and golden probes get their own rates; weight is 1/p."""
    s = HashSampler(SamplingRules(base_rate=0.05, flagged_rate=0.5, routes={"billing": 0.2}))
    assert s.decide(evaluation("a" * 32)).probability == 0.05
    assert s.decide(evaluation("a" * 32, flagged=True)).probability == 0.5
    assert s.decide(evaluation("a" * 32, route="billing")).probability == 0.2
    d = s.decide(evaluation("a" * 32, golden="g1"))
    assert d.probability == 1.0 and d.sampled and d.weight == 1.0
    assert s.decide(evaluation("a" * 32, flagged=True)).weight == 2.0


def test_salt_draws_another_sample() -> None:
    """A different salt selects different traces at the same rate."""
    sample = ids(2000)
    a = {t for t in sample if HashSampler(SamplingRules(0.2), "x").decide(evaluation(t)).sampled}
    b = {t for t in sample if HashSampler(SamplingRules(0.2), "y").decide(evaluation(t)).sampled}
    assert a != b


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    prevalence=st.floats(0.05, 0.6),
    base=st.floats(0.05, 0.3),
    flagged_rate=st.floats(0.3, 1.0),
)
def test_weighted_estimate_is_unbiased(seed: int, prevalence: float, base: float,
                                       flagged_rate: float) -> None:  # fmt: skip
    """With flagged traces over-sampled, the plain judged rate is biased but the 1/p-weighted
    estimate recovers the population rate of failures (within sampling error)."""
    rng = random.Random(seed)
    n = 20_000
    sampler = HashSampler(SamplingRules(base_rate=base, flagged_rate=flagged_rate), salt=str(seed))
    total = w_sum = w_fail = 0.0
    for trace_id in ids(n, seed):
        fails = rng.random() < prevalence
        # failures are flagged by a check more often than passes: the priority rule bites
        flagged = rng.random() < (0.8 if fails else 0.1)
        total += fails
        d = sampler.decide(evaluation(trace_id, flagged=flagged))
        if d.sampled:
            w_sum += d.weight
            w_fail += d.weight * fails
    estimate = w_fail / w_sum
    assert abs(estimate - total / n) < 0.04


def test_token_bucket_refills_with_time() -> None:
    """Spent capacity comes back at the configured rate (injected clock)."""
    now = [0.0]
    bucket = TokenBucket(rate=1.0, capacity=2.0, clock=lambda: now[0])
    bucket.take(2)
    assert not bucket.available(1)
    now[0] = 1.5
    assert bucket.available(1)


def test_budget_limits_calls_and_splits_by_share() -> None:
    """60 calls/min globally at a 50 % partition share allows 30 calls now, then refills."""
    now = [0.0]
    budget = Budget(BudgetLimits(calls_per_minute=60, input_tokens_per_minute=1e9,
                                 usd_per_day=1e9), share=0.5, clock=lambda: now[0])  # fmt: skip
    granted = sum(budget.try_acquire(10, 0.0) for _ in range(100))
    assert granted == 30
    now[0] = 10.0  # 10 s at 0.5 calls/s
    assert sum(budget.try_acquire(10, 0.0) for _ in range(100)) == 5


def test_budget_in_usd_per_day() -> None:
    """The daily USD bucket stops calls once spent; settling corrects estimates."""
    budget = Budget(BudgetLimits(calls_per_minute=1e6, input_tokens_per_minute=1e12,
                                 usd_per_day=1.0), clock=lambda: 0.0)  # fmt: skip
    assert budget.try_acquire(0, 0.6)
    assert not budget.try_acquire(0, 0.6)
    budget.settle(0.6, 0.1)  # the call cost less than estimated
    assert budget.try_acquire(0, 0.6)


def test_demo_traffic_sampling_is_reproducible() -> None:
    """The suite plus sampler on demo traffic gives the same sample on every run."""
    suite = CheckSuite()
    sampler = HashSampler(SamplingRules())

    def run() -> list[bool]:
        out = []
        for i in range(200):
            trace = RagTrace.from_data(demo.generate(i))
            out.append(sampler.decide(Evaluation(trace=trace, checks=suite(trace))).sampled)
        return out

    assert run() == run()


def test_no_limits_means_no_budget() -> None:
    """Budget(None) (the heuristic judge) grants every call and ignores shares."""
    budget = Budget(None)
    budget.set_share(0.0)
    assert all(budget.try_acquire(1e9, 1e9) for _ in range(1000))


def test_a_budget_stays_the_groups_however_many_workers_share_it() -> None:
    """``ragmon run --workers 4``: each worker's budget is its partition share of the
    group's, so 60 calls a minute stay 60 in all, not 240: exactly 60 when the partitions are
    dealt evenly, and never more when they are not (1, 2, 2, 3 of 8: a worker's whole calls
    are its share rounded down, 7 + 15 + 15 + 22 = 59), minute after minute."""
    limits = BudgetLimits(calls_per_minute=60, input_tokens_per_minute=1e9, usd_per_day=1e9)
    for dealt, want in (((2, 2, 2, 2), 60), ((1, 2, 2, 3), 59)):
        now = [0.0]

        def clock(now: list[float] = now) -> float:
            return now[0]

        workers = [Budget(limits, share=n / 8, clock=clock) for n in dealt]
        for minute in range(3):
            now[0] = 60.0 * minute
            assert sum(b.try_acquire(10, 0.0) for b in workers for _ in range(100)) == want
