"""``unsupported_numbers``: figures the answer states that neither the context nor the query
contains. See ``monitor.checks.numbers`` for what counts as the same figure."""

from __future__ import annotations

from monitor.checks.view import TraceView
from monitor.model import CheckResult


class UnsupportedNumbers:
    """Flags answers stating numbers, amounts, percentages or dates absent from the context.

    Evidence lists the unsupported figures as they appear in the answer.
    """

    name = "unsupported_numbers"

    def __call__(self, view: TraceView) -> CheckResult:
        mentions = view.answer_numbers
        if not mentions:
            return CheckResult(
                name=self.name, flagged=False, evidence={"numbers": [], "checked": 0}
            )
        unsupported: list[str] = []
        for m in mentions:
            if m.raw in unsupported:
                continue
            if view.context_numbers.supports(m) or view.query_numbers.supports(m):
                continue
            unsupported.append(m.raw)
        return CheckResult(
            name=self.name,
            flagged=bool(unsupported),
            evidence={"numbers": unsupported, "checked": len(mentions)},
        )
