"""The cascade: rates planned from a cost per 1,000 traces, and the weighted (1/p) rates
unbiased whatever share of the traffic the checks flag."""

from __future__ import annotations

import math
import random

import pytest
from pydantic import ValidationError

from monitor.checks.risk import risk
from monitor.checks.view import TraceView
from monitor.config import Settings
from monitor.core.model import CheckResult, Evaluation, RagTrace
from monitor.judge.sampler import HashSampler, SamplingRules, planned_rates
from monitor.registry.judges import sampling_rates


@pytest.mark.parametrize("target", [0.01, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("flagged_share", [0.0, 0.1, 0.5])
def test_planned_rates_spend_the_target(target: float, flagged_share: float) -> None:
    """1000 x cost x (base (1 - f) + flagged f) is the target, flagged = boost x base, unless
    a rate reached 1 (then less is spent, never more)."""
    cost = 0.00033  # 1,800 input and 300 output tokens at the default prices
    base, flagged = planned_rates(target, cost, flagged_share, 10)
    spent = 1000 * cost * (base * (1 - flagged_share) + flagged * flagged_share)
    assert 0 <= base <= flagged <= 1
    if flagged < 1:
        assert flagged == pytest.approx(10 * base)
    if base < 1:
        assert spent == pytest.approx(target)
    else:
        assert spent <= target


def test_the_rates_follow_from_the_target_and_the_price_table() -> None:
    """The judge's prices, the expected call and flagged share give the rates (batch mode
    at its discount buys twice the calls)."""
    sampling = {"target_cost_per_1k": 0.02, "expected_flagged_share": 0.2}
    settings = Settings.model_validate({"judge": {"backend": "anthropic", "sampling": sampling}})
    base, flagged = sampling_rates(settings)
    call = (1800 * 0.10 + 300 * 0.50) / 1e6
    assert 1000 * call * (0.8 * base + 0.2 * flagged) == pytest.approx(0.02)
    assert flagged == pytest.approx(10 * base)
    batched = {"backend": "anthropic", "sampling": sampling,
               "batch": {"enabled": True, "dir": "outbox"}}  # fmt: skip
    batch = Settings.model_validate({"judge": batched})
    assert sampling_rates(batch)[0] == pytest.approx(2 * base)


@pytest.mark.parametrize(
    ("sampling", "backend", "message"),
    [
        ({"target_cost_per_1k": 0.1, "base_rate": 0.2}, "anthropic", "both set the rates"),
        ({"flagged_boost": 5}, "anthropic", "target_cost_per_1k, which is not set"),
        ({"target_cost_per_1k": 0.1}, "heuristic", "costs nothing"),
    ],
)
def test_settings_the_plan_would_ignore_are_refused(
    sampling: dict[str, float], backend: str, message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings.model_validate({"judge": {"backend": backend, "sampling": sampling}})


def _evaluation(rng: random.Random, flagged_share: float) -> tuple[Evaluation, bool]:
    """A trace a check flags with probability ``flagged_share``, and whether it truly
    hard-fails: 40 % of flagged traces, 3 % of the others."""
    flagged = rng.random() < flagged_share
    trace = RagTrace(trace_id=f"{rng.getrandbits(128):032x}", golden_id=None,
                     route=None, release=None)  # fmt: skip
    result = CheckResult("unsupported_numbers", flagged)
    return Evaluation(trace, {"unsupported_numbers": result}), rng.random() < (
        0.40 if flagged else 0.03
    )


@pytest.mark.parametrize("flagged_share", [0.05, 0.15, 0.40])
def test_weighted_rates_are_unbiased_whatever_share_is_flagged(flagged_share: float) -> None:
    """The rates planned for a 15 % flagged share, applied to traffic whose flagged share is
    5 %, 15 % or 40 %: the 1/p-weighted hard-fail share of the judged traces estimates the
    population's within its sampling error (the unweighted share is biased toward the
    flagged traces' 40 %)."""
    base, flagged = planned_rates(0.02, 0.00033, 0.15, 10)
    sampler = HashSampler(SamplingRules(base_rate=base, flagged_rate=flagged), salt="sim")
    rng = random.Random(int(flagged_share * 1000))
    n = 20_000
    true_fails = weighted_fails = weights = judged_fails = judged = 0.0
    squares = 0.0
    for _ in range(n):
        evaluation, fails = _evaluation(rng, flagged_share)
        true_fails += fails
        decision = sampler.decide(evaluation)
        if decision.sampled:
            w = decision.weight
            weighted_fails += w * fails
            weights += w
            squares += (w * (fails - 0)) ** 2
            judged += 1
            judged_fails += fails
    truth = true_fails / n
    estimate = weighted_fails / n  # Horvitz-Thompson: the weights sum to n in expectation
    se = math.sqrt(squares) / n
    assert abs(estimate - truth) < 4 * se, (estimate, truth, se)
    assert abs(weighted_fails / weights - truth) < 4 * se  # the ratio (Hajek) form too
    naive = judged_fails / judged
    if flagged_share < 0.4:
        assert naive - truth > 4 * se  # what ignoring the weights would report


def _risky(rng: random.Random) -> tuple[Evaluation, bool]:
    """A trace whose answer fails with a chance that rises with its grounding's gap: the
    traffic risk sampling is made for."""
    overlap = rng.random()
    trace = RagTrace.from_data({"trace_id": f"{rng.getrandbits(128):032x}"})
    checks = {"grounding_overlap": CheckResult("grounding_overlap", False, score=overlap)}
    evaluation = Evaluation(trace, checks, risk=risk(checks, TraceView(trace)))
    return evaluation, rng.random() < 0.4 * (1 - overlap) ** 2


def test_risk_sampling_judges_more_failures_and_stays_unbiased() -> None:
    """Sampling by risk (from base_rate at risk 0 to flagged_rate at risk 1): the judged
    traces hold a larger share of failures than uniform sampling at the same number of
    calls, and the 1/p-weighted failure rate still estimates the population's within its
    sampling error."""
    rules = SamplingRules(base_rate=0.02, flagged_rate=0.4, by="risk")
    sampler = HashSampler(rules, salt="risk-sim")
    rng = random.Random(11)
    n = 40_000
    true_fails = weighted = squares = judged = judged_fails = 0.0
    for _ in range(n):
        evaluation, fails = _risky(rng)
        true_fails += fails
        decision = sampler.decide(evaluation)
        assert 0.02 <= decision.probability <= 0.4
        if decision.sampled:
            weighted += decision.weight * fails
            squares += (decision.weight * fails) ** 2
            judged += 1
            judged_fails += fails
    truth, estimate, se = true_fails / n, weighted / n, math.sqrt(squares) / n
    assert abs(estimate - truth) < 4 * se, (estimate, truth, se)
    assert judged_fails / judged > 1.3 * truth  # the budget went where answers fail (1.42x)


def test_by_flagged_ignores_the_risk_and_by_risk_ignores_the_flag() -> None:
    trace = RagTrace.from_data({"trace_id": "ab" * 16})
    flagged = {"unsupported_numbers": CheckResult("unsupported_numbers", True)}
    calm = Evaluation(trace, flagged, risk=0.0)
    assert HashSampler(SamplingRules(0.05, 0.5)).probability(calm) == 0.5
    assert HashSampler(SamplingRules(0.05, 0.5, by="risk")).probability(calm) == 0.05
    assert HashSampler(SamplingRules(0.05, 0.5, by="risk")).probability(
        Evaluation(trace, {}, risk=0.5)) == pytest.approx(0.275)  # fmt: skip
