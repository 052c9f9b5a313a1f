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
from monitor.model import ShadowResults

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
