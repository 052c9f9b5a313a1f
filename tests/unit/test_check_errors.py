"""A check that raises is a counted error: its result names the error in the evaluation line,
``ragmon_check_errors_total`` counts it, the replay summary says it, and the log says it once
per check and exception type; the trace and the other checks' results are kept."""

from __future__ import annotations

from typing import ClassVar

from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.checks import CheckSuite, Refusal, TraceView, evidence_of
from monitor.core.evidence import CheckOutput, Evidence, NotApplicable
from monitor.core.log import CheckErrors
from monitor.core.model import CheckResult, Evaluation
from monitor.telemetry import Metrics
from sinks.prometheus import PrometheusSink
from sinks.summary import SummarySink
from tests.conftest import make_trace


class Broken:
    """A check with a bug: it raises what the number check raised on a plain sentence."""

    name: ClassVar[str] = "broken"
    evidence: ClassVar[type[Evidence]] = Evidence
    output: ClassVar[CheckOutput] = "flag"

    def __call__(self, view: TraceView) -> CheckResult:
        raise KeyError(" 5")


def evaluations(n: int) -> tuple[CheckSuite, list[Evaluation]]:
    suite = CheckSuite([Broken(), Refusal()], on_error=CheckErrors())
    out = []
    for i in range(n):
        trace = make_trace(f"It takes {i} days.", ["It takes 5 days."], app="a", route="r")
        out.append(Evaluation(trace, suite(trace)))
    return suite, out


def test_the_line_names_the_error_and_the_other_checks_run() -> None:
    _, (evaluation,) = evaluations(1)
    line = evaluation.to_line()["checks"]
    assert line["broken"] == {
        "flagged": False,
        "applicable": False,
        "error": "KeyError: ' 5'",
        "evidence": {"reason": "error: KeyError: ' 5'"},
    }
    assert "error" not in line["refusal"] and line["refusal"]["applicable"]
    assert isinstance(evidence_of("broken", line["broken"]), NotApplicable)
    # a check that had nothing to judge is not an error
    assert "error" not in CheckResult.not_applicable("x", "empty_answer").to_line()


def test_every_error_is_counted_by_check_and_type() -> None:
    metrics = Metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    _, evaluated = evaluations(3)
    for evaluation in evaluated:
        sink.write(evaluation)
    sink.flush()
    value = metrics.registry.get_sample_value(
        "ragmon_check_errors_total", {"check": "broken", "error": "KeyError"}
    )
    assert value == 3
    applied = {"check": "broken", "result": "not_applicable", "app": "a", "route": "r"}
    assert metrics.registry.get_sample_value("ragmon_check_results_total", applied) == 3
    assert (
        metrics.registry.get_sample_value(
            "ragmon_check_errors_total", {"check": "refusal", "error": "KeyError"}
        )
        is None
    )


def test_the_summary_says_the_errors() -> None:
    summary = SummarySink(["broken", "refusal"])
    for evaluation in evaluations(2)[1]:
        summary.write(evaluation)
    assert "check errors (a bug of ragmon's, not counted in the rates): broken 2 (KeyError)" in (
        summary.table()
    )


def test_the_log_says_it_once_per_check_and_exception_type() -> None:
    with capture_logs() as logs:
        suite, _ = evaluations(3)
        assert suite.on_error is not None
        suite.on_error("broken", ValueError("another"))
    failed = [(e["check"], e["error"]) for e in logs if e["event"] == "check_failed"]
    assert failed == [("broken", "KeyError: ' 5'"), ("broken", "ValueError: another")]


def test_the_daemon_suite_logs_its_errors() -> None:
    """The suite the registry builds for ``run`` and ``replay`` (and the shadow candidate's)
    logs a raising check through ``CheckErrors``."""
    from monitor import registry
    from monitor.config import Settings

    assert isinstance(registry.build_suite(Settings()).on_error, CheckErrors)
