"""``shadow``: a candidate definition run beside the live one on the same traces, whose results
never reach the live counters, the golden rows or the alerts: other check options or another
check set on a share of the traces (``monitor.checks.shadow``), and another judge on the live
judge's sample within its own budget (``monitor.judge.stage``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from monitor.checks.config import ChecksConfig
from monitor.core.model import ConfigSection as _Section
from monitor.judge.config import JudgeConfig

_SHADOW_JUDGE_IGNORES = frozenset({
    "sampling", "batch", "jury", "calibration_file", "cache_entries", "cache_file",
    "concurrency", "max_queue", "drain_seconds",
})  # fmt: skip


class ShadowConfig(_Section):
    """``shadow``: a candidate definition of the checks, run beside the live one on the same
    traces; its results go to the evaluation lines (``shadow``) and to their own metrics,
    never to golden rows or alerts."""

    checks: ChecksConfig | None = Field(
        default=None,
        description="The candidate's check settings, laid over the live `checks` (only what "
        "is given here differs: `enabled`, or a check's options). None: no shadow.",
    )
    judge: JudgeConfig | None = Field(
        default=None,
        description="A candidate judge (a judge section of its own: backend, model, rubric or "
        "profile, prices, budget, timeouts) run on the live judge's sample within its own "
        "budget. None: no shadow judge.",
    )
    share: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="Share of traces the candidate checks run on, chosen by trace id (the "
        "same traces on every replica and every run).",
    )

    @model_validator(mode="after")
    def _judge_reads(self) -> ShadowConfig:
        """The shadow judge takes the live judge's sample, one call a trace: settings of
        sampling, batches, a jury, calibration, caching or the worker pool would be ignored."""
        if self.judge is not None:
            ignored = sorted(self.judge.model_fields_set & _SHADOW_JUDGE_IGNORES)
            if ignored:
                raise ValueError(
                    f"judge.{ignored[0]}: the shadow judge judges the live judge's sample "
                    "with its workers; it would be ignored"
                )
            if self.judge.backend == "none":
                raise ValueError("judge.backend: name the candidate judge's backend")
        return self

    def candidate(self, live: ChecksConfig) -> ChecksConfig | None:
        """The candidate's full check settings: ``live`` with what ``checks`` sets on top
        (None without a shadow)."""
        if self.checks is None:
            return None
        merged = _merged(live.model_dump(), self.checks.model_dump(exclude_unset=True))
        return ChecksConfig.model_validate(merged)


def _merged(base: dict[str, object], top: dict[str, object]) -> dict[str, object]:
    out = dict(base)
    for key, value in top.items():
        under = out.get(key)
        if isinstance(value, dict) and isinstance(under, dict):
            out[key] = _merged(under, value)
        else:
            out[key] = value
    return out
