"""A shadow candidate: other check definitions run beside the live ones on the same traces.

The candidate's suite runs on the live suite's ``TraceView`` (the per-trace analysis is
shared: only the checks themselves run twice) and on a share of the traces chosen by a hash
of the trace id, so every replica and every re-run takes the same traces. Its results ride
on the evaluation (``Evaluation.shadow``): the lines carry them beside the live ones, the
Prometheus sink counts each check's (live, shadow) outcome pair, and nothing else reads them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from monitor.checks import CheckSuite
from monitor.checks.view import TraceView
from monitor.core.model import Evaluation, ShadowResults

_SPACE = 2**64
_SALT = b"ragmon-shadow:"  # not the judge's sample: the two choices must not correlate


class ShadowSuite:
    """The candidate's checks, on ``share`` of the traces."""

    def __init__(self, suite: CheckSuite, share: float, evaluators: Mapping[str, str]) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"share {share} is not in (0, 1]")
        self.suite = suite
        self.share = share
        self.evaluators = dict(evaluators)
        self._bound = int(share * _SPACE)

    def takes(self, trace_id: str) -> bool:
        """Whether the candidate runs on the trace ``trace_id`` (by its hash, not by chance)."""
        if self._bound >= _SPACE:
            return True
        digest = hashlib.blake2b(_SALT + trace_id.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") < self._bound

    def __call__(self, view: TraceView) -> ShadowResults | None:
        """The candidate's results on the trace of ``view``, or None when it does not take it."""
        if not self.takes(view.trace.trace_id):
            return None
        return ShadowResults(self.suite(view.trace, view), self.evaluators)


def check_pairs(evaluation: Evaluation) -> list[tuple[str, str, str]]:
    """(check, live outcome, shadow outcome) of each check, where the candidate checks ran on
    the trace; a check only one side runs is ``absent`` on the other."""
    shadow = evaluation.shadow
    if shadow is None or shadow.checks is None:
        return []
    live, cand = evaluation.checks, shadow.checks
    out: list[tuple[str, str, str]] = []
    for name in (*live, *(n for n in cand if n not in live)):
        a, b = live.get(name), cand.get(name)
        out.append((name, a.outcome if a else "absent", b.outcome if b else "absent"))
    return out


def verdict_pair(evaluation: Evaluation) -> tuple[str, str] | None:
    """(live verdict, shadow judge's verdict or why it gave none: over_budget, circuit_open,
    error), where a shadow judge ran (its version is there) on a trace the live judge
    judged; else None."""
    shadow, live = evaluation.shadow, evaluation.judge
    if shadow is None or live is None or "judge" not in shadow.evaluators:
        return None
    if shadow.judge is not None:
        return live.verdict, shadow.judge.verdict
    return live.verdict, (shadow.judge_skipped or "none").split(":")[0]
