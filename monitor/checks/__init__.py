"""Model-free checks run on every trace.

A check is a small callable class: configuration in ``__init__``, work in ``__call__``, a
stable snake_case ``name`` used as a metric label. It is pure (no I/O, deterministic) and
reads the trace through a ``TraceView`` that memoises derived text shared between checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from monitor.checks import native

native.extend(__path__)  # the compiled build's modules first, when it runs

from monitor.checks.citation import Citation
from monitor.checks.context import ContextConflict, EmptyContext, GroundingOverlap
from monitor.checks.memo import PassageMemo
from monitor.checks.names import UnsupportedNames
from monitor.checks.refusal import Refusal
from monitor.checks.risk import RISK
from monitor.checks.risk import risk as trace_risk
from monitor.checks.unsupported import UnsupportedNumbers
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput, Evidence, NotApplicable
from monitor.core.model import CheckResult, ConfigSection, RagTrace, error_text

__all__ = [
    "CHECK_NAMES",
    "CHECK_TYPES",
    "MEASURES",
    "Check",
    "CheckSuite",
    "CheckType",
    "Citation",
    "ContextConflict",
    "EmptyContext",
    "GroundingOverlap",
    "PassageMemo",
    "Refusal",
    "TraceView",
    "UnsupportedNames",
    "UnsupportedNumbers",
    "default_checks",
    "evidence_of",
    "make",
    "output_of",
]


class Check(Protocol):
    """A model-free check: ``TraceView -> CheckResult``, its evidence of type ``evidence``."""

    @property
    def name(self) -> str:
        """The check's name."""

    @property
    def evidence(self) -> type[Evidence]:
        """Its evidence type."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""


class CheckType(Protocol):
    """A check's class: its ``name``, its ``evidence`` type and its ``options`` type (a
    config section, ``checks.<name>``, derived from this declaration; None: nothing to
    configure). Built with its options object (``make``), so a setting always reaches it."""

    @property
    def name(self) -> str:
        """The check's name (a metric label, its ``checks.<name>`` section)."""

    @property
    def evidence(self) -> type[Evidence]:
        """Its evidence type."""

    @property
    def options(self) -> type[ConfigSection] | None:
        """Its options type (None: nothing to configure)."""

    @property
    def output(self) -> CheckOutput:
        """What its result is: a verdict (``flag``), a continuous signal (``score``), or
        both; the summary and the sinks report it as declared, not by guessing."""

    @property
    def measures(self) -> tuple[CheckMeasure, ...]:
        """The metrics it exports of its own (its evidence gives their values)."""

    def __call__(self, options: Any = None, /) -> Check:
        """The check, configured (None: its defaults; always None without options)."""


def make(cls: CheckType, options: ConfigSection | None = None) -> Check:
    """Check ``cls`` built with ``options`` (its defaults when None)."""
    wanted = cls.options
    if options is not None and (wanted is None or not isinstance(options, wanted)):
        what = "no options" if wanted is None else wanted.__name__
        raise TypeError(f"{cls.name} takes {what}, not {type(options).__name__}")
    return cls(options)


# Every check, in the order they run and report: the one list (the registry builds the
# configured ones from it; the ``checks`` config has a section per check with ``options``,
# named as the check and of its options type, mounted from the check's row of the
# component table, monitor.components, which derives a row from each of these).
CHECK_TYPES: tuple[CheckType, ...] = (
    UnsupportedNumbers,
    UnsupportedNames,
    Refusal,
    Citation,
    EmptyContext,
    ContextConflict,
    GroundingOverlap,
)


def default_checks() -> list[Check]:
    """Every check with its default options."""
    return [make(cls) for cls in CHECK_TYPES]


CHECK_NAMES: tuple[str, ...] = tuple(c.name for c in default_checks())
_EVIDENCE: dict[str, type[Evidence]] = {c.name: c.evidence for c in CHECK_TYPES}
_OUTPUT: dict[str, CheckOutput] = {c.name: c.output for c in CHECK_TYPES}
MEASURES: tuple[CheckMeasure, ...] = tuple(m for c in CHECK_TYPES for m in c.measures)


def output_of(name: str) -> CheckOutput:
    """What check ``name``'s results are (a check ragmon does not know, a line from another
    version: a verdict)."""
    return _OUTPUT.get(name, "flag")


def evidence_of(name: str, line: Mapping[str, object]) -> Evidence:
    """The typed evidence of check ``name``'s result as an evaluation line or a candidate row
    stores it (``{"flagged": ..., "applicable": ..., "evidence": {...}}``); a check ragmon
    does not know (a line from another version) has evidence without highlights."""
    raw = line.get("evidence")
    raw = raw if isinstance(raw, Mapping) else {}
    if line.get("applicable") is False:
        return NotApplicable.from_line(raw)
    try:
        return _EVIDENCE.get(name, Evidence).from_line(raw)
    except (TypeError, ValueError):  # a stored line of another shape: show it, mark nothing
        return Evidence()


class CheckSuite:
    """Runs a fixed list of checks on a trace. A check that raises is a bug; the suite turns
    it into a failed result (``CheckResult.failed``: not applicable, its ``error`` named,
    which the sinks count) rather than losing the trace, and tells ``on_error`` (the
    daemon logs it). With a ``memo``, passage-side analysis is kept across traces (results
    are the same)."""

    def __init__(
        self,
        checks: Sequence[Check] | None = None,
        memo: PassageMemo | None = None,
        on_error: Callable[[str, Exception], None] | None = None,
    ) -> None:
        self.checks = list(checks) if checks is not None else default_checks()
        self.memo = memo
        self.on_error = on_error
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate check names: {names}")

    @property
    def names(self) -> list[str]:
        """The names of the checks, in the order they run."""
        return [c.name for c in self.checks]

    def view(self, trace: RagTrace) -> TraceView:
        """The per-trace analysis the checks share (a shadow suite may share it too)."""
        return TraceView(trace, self.memo)

    def __call__(self, trace: RagTrace, view: TraceView | None = None) -> dict[str, CheckResult]:
        """Every check's result on ``trace``, by check name (on ``view``, when given)."""
        if view is None:
            view = TraceView(trace, self.memo)
        out: dict[str, CheckResult] = {}
        for check in self.checks:
            try:
                out[check.name] = check(view)
            except Exception as exc:
                out[check.name] = CheckResult.failed(check.name, exc)
                if self.on_error is not None:
                    self.on_error(check.name, exc)
        return out

    def risk(
        self, checks: Mapping[str, CheckResult], view: TraceView
    ) -> tuple[float | None, str | None]:
        """The trace's risk (``monitor.checks.risk``) from its results ``checks``, and None;
        or, when computing it raised (a bug, as a check's), None and the error
        (``error_text``), told to ``on_error`` as the check ``risk``: the evaluation line
        carries ``risk_error``, the sinks count it in ``ragmon_check_errors_total``."""
        try:
            return trace_risk(checks, view), None
        except Exception as exc:
            if self.on_error is not None:
                self.on_error(RISK, exc)
            return None, error_text(exc)
