"""What the judge would take of a stream of evaluations, without calling it (``rescore
--dry-run``): the configured sampling decided on each evaluation as the judge stage decides
it, and each sampled call's estimated input tokens and cost (at batch price in batch mode)."""

from __future__ import annotations

from monitor.core.model import Evaluation
from monitor.judge.config import JudgeConfig
from monitor.judge.rubric import estimate_input_tokens
from monitor.judge.sampler import HashSampler, SamplingRules


class JudgeEstimate:
    """The judge's share of the evaluations it is given (``take``): how many it would judge
    of how many, with how many input tokens, for how many dollars; sampled at the rates the
    stage would use (as set, or planned from ``judge.sampling.target_cost_per_1k``)."""

    def __init__(self, cfg: JudgeConfig, base_rate: float, flagged_rate: float) -> None:
        s = cfg.sampling
        rules = SamplingRules(base_rate, flagged_rate, s.routes, s.releases, s.golden_always,
                              s.by)  # fmt: skip
        self.sampler = HashSampler(rules, salt=s.salt)
        self.prices = cfg.prices.as_prices()
        self.output_tokens = s.expected_output_tokens
        self.discount = cfg.batch.discount if cfg.batch.enabled else 1.0
        self.traces = self.judged = self.input_tokens = 0
        self.usd = 0.0

    def take(self, evaluation: Evaluation) -> None:
        """Decide, as the judge stage would, and add the call's estimate."""
        self.traces += 1
        if not self.sampler.decide(evaluation).sampled:
            return
        tokens = estimate_input_tokens(evaluation.trace)
        self.judged += 1
        self.input_tokens += tokens
        self.usd += self.discount * self.prices.cost(tokens, self.output_tokens, 0, 0)
