"""``JuryJudge``: two judges of different model families on the same sampled traces.

The second judge sees a deterministic share of the traces the first one judges (``share``,
decided by a hash of the trace id, so replicas and replays agree). Where both judged, the
verdict follows one explicit rule:

* ``hard_fail`` — with ``hard_fail: both`` (the default) only when both judges found a
  contradiction; with ``either``, when one did. A hard fail pages someone, and one model
  misreading a passage should not: two families agreeing is the stronger evidence. Choose
  ``either`` where a missed contradiction costs more than a false page.
* otherwise ``fail`` when either judge failed the answer (or found a contradiction the rule
  did not take as a hard fail), ``pass`` when both passed, ``not_applicable`` when neither
  had a claim to grade (one judge's claims decide when only it had any).

The claims shown are the first judge's; each member's own verdict is kept in ``members`` (the
evaluation line's ``judge.members``); tokens, cost and latency are the sum of both. Every
pair is reported to ``on_pair(route, agreed)``, which the daemon counts per route as the
jury's disagreement rate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Literal

from monitor.core.model import RagTrace
from monitor.core.verdict import MemberVerdict, Verdict
from monitor.judge.stage import Judge

Rule = Literal["both", "either"]
_SCALE = 1 << 64


class JuryJudge:
    """A first judge on every judged trace and a second one on ``share`` of them."""

    def __init__(
        self,
        first: Judge,
        second: Judge,
        share: float = 1.0,
        hard_fail: Rule = "both",
        on_pair: Callable[[str | None, bool], None] | None = None,
    ) -> None:
        self.first, self.second = first, second
        self.share = share
        self.rule = hard_fail
        self.on_pair = on_pair
        self.name = f"jury({first.name}+{second.name})"
        self.model = f"{first.model}+{second.model}"

    def selected(self, trace: RagTrace) -> bool:
        """Whether the second judge sees this trace (the same answer everywhere)."""
        digest = hashlib.blake2b(b"ragmon-jury" + trace.trace_id.encode(), digest_size=8)
        return int.from_bytes(digest.digest(), "big") < int(self.share * _SCALE)

    def judge(self, trace: RagTrace) -> Verdict:
        """The first judge's verdict, and on the jury's share also the second's, combined by the
        hard-fail rule."""
        one = self.first.judge(trace)
        if not self.selected(trace):
            return one
        two = self.second.judge(trace)
        if self.on_pair is not None:
            self.on_pair(trace.route, one.verdict == two.verdict)
        return combine(one, two, self.rule, self.name, self.model)

    def close(self) -> None:
        """Close both judges."""
        try:
            self.first.close()
        finally:
            self.second.close()


def combine(one: Verdict, two: Verdict, rule: Rule, name: str, model: str) -> Verdict:
    """The jury's verdict of two (see the module doc for the rule)."""
    labels = {one.verdict, two.verdict}
    contradicted = "hard_fail" in labels
    if contradicted and (rule == "either" or labels == {"hard_fail"}):
        verdict = "hard_fail"
    elif contradicted or "fail" in labels:
        verdict = "fail"
    elif labels == {"not_applicable"}:
        verdict = "not_applicable"
    else:
        verdict = "pass"
    scores = [v.score for v in (one, two) if v.score is not None]
    return one.model_copy(update={
        "judge": name, "model": model, "verdict": verdict,
        "score": min(scores) if scores else None,
        "claims": one.claims if one.claims or not two.claims else two.claims,
        "input_tokens": one.input_tokens + two.input_tokens,
        "output_tokens": one.output_tokens + two.output_tokens,
        "cache_read_tokens": one.cache_read_tokens + two.cache_read_tokens,
        "cache_write_tokens": one.cache_write_tokens + two.cache_write_tokens,
        "cost_usd": one.cost_usd + two.cost_usd,
        "latency_seconds": one.latency_seconds + two.latency_seconds,
        "usage_estimated": one.usage_estimated or two.usage_estimated,
        "members": (*_members(one), *_members(two)),
        # the first judge's relevance, the second's where the first cannot say it (a profile)
        "answer_relevance": one.answer_relevance if one.answer_relevance is not None
        else two.answer_relevance,
        "context_relevance": one.context_relevance if one.context_relevance is not None
        else two.context_relevance,
    })  # fmt: skip


def _members(v: Verdict) -> tuple[MemberVerdict, ...]:
    """A judge's own verdict, or a nested jury's members."""
    if v.members:
        return v.members
    return (MemberVerdict(judge=v.judge, model=v.model, rubric_version=v.rubric_version,
                          verdict=v.verdict, score=v.score),)  # fmt: skip
