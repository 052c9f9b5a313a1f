"""The JSON lines ragmon writes, typed at the boundary: an evaluation line, a check's result in
it, a dead letter (README, "Evaluation lines"). Imports nothing of ours."""

from __future__ import annotations

from typing import Any, Required, TypedDict


class CheckLine(TypedDict, total=False):
    """A check's result in an evaluation line (``score`` only for a scored check)."""

    flagged: Required[bool]
    applicable: Required[bool]
    evidence: Required[dict[str, Any]]  # the check's own evidence type, as JSON
    score: float


class EvaluationLine(TypedDict, total=False):
    """The evaluation line (README, "Evaluation lines"): the trace's id, app and route, each
    check's result, and the judge's verdict or why it was not judged."""

    trace_id: Required[str]
    app: Required[str | None]
    route: Required[str | None]
    checks: Required[dict[str, CheckLine]]
    segments: Required[dict[str, str]]  # dimension -> bounded value (monitor.segments)
    inputs: Required[dict[str, float]]  # measured input -> value
    evaluators: dict[str, str]  # check name (and "judge") -> the version of its definition
    judge: dict[str, Any]  # Verdict.to_line(), or {"skipped": reason}
    judge_only: bool
    shadow: ShadowLine  # the shadow candidate's results, where it ran on the trace
    incomplete: str  # assembled from spans before all came: max_wait, evicted, end_of_input


class ShadowLine(TypedDict, total=False):
    """The shadow candidate's results on a trace, beside the live ones (``shadow`` config)."""

    checks: dict[str, CheckLine]  # where the candidate checks ran
    evaluators: Required[dict[str, str]]
    judge: dict[str, Any]  # the shadow judge's Verdict.to_line(), or {"skipped": reason}


class DeadLetterLine(TypedDict):
    """A dead letter as one JSON line."""

    reason: str
    detail: str
    source: str
    partition: int
    offset: int
    raw: str
