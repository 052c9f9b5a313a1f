"""What the number check's unit tests share: the figures it reports for one answer."""

from __future__ import annotations

from monitor.checks import UnsupportedNumbers
from tests.conftest import view

check = UnsupportedNumbers()


def unsupported(answer: str, context: str | list[str], query: str = "") -> list[str]:
    """The figures ``unsupported_numbers`` reports for ``answer`` over ``context`` (one
    passage, or a list of them); the trace is flagged exactly when there is one."""
    ctx = [context] if isinstance(context, str) else context
    result = check(view(answer, ctx, query))
    numbers: list[str] = result.evidence.to_line()["numbers"]
    assert result.flagged == bool(numbers)
    return numbers
