"""Provenance: every result names the definition that produced it, and a change of a
check's options changes that check's version only."""

from __future__ import annotations

from monitor import registry
from monitor.checks import CHECK_NAMES
from monitor.checks.risk import RISK_VERSION
from monitor.config import Settings
from monitor.core.version import ragmon_version
from sinks.otel import judge_events
from tests.conftest import run_daemon_pipeline


def _versions(**settings: object) -> dict[str, str]:
    return registry.evaluators(Settings.model_validate(settings))


def test_each_check_and_the_judge_have_a_version() -> None:
    got = _versions(judge={"backend": "heuristic"})
    assert set(got) == {*CHECK_NAMES, "risk", "judge"}
    checks = {k: v for k, v in got.items() if k in CHECK_NAMES}
    assert all(v.startswith(f"{ragmon_version()}+") for v in checks.values())
    assert got["risk"] == RISK_VERSION  # the risk's own definition
    assert got["judge"].startswith("heuristic/heuristic-v1/faithfulness-")
    assert "judge" not in _versions()  # no judge, no judge version


def test_an_option_changes_the_version_of_its_check_only() -> None:
    before = _versions()
    after = _versions(checks={"context_conflict": {"similarity": 0.9}})
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"context_conflict"}
    assert _versions(checks={"enabled": ["refusal"]}).keys() == {"refusal", "risk"}


def test_evaluation_lines_and_metrics_carry_the_versions() -> None:
    settings = Settings.model_validate({"judge": {"backend": "heuristic"}})
    metrics, sink, _ = run_daemon_pipeline(settings, 5)
    versions = registry.evaluators(settings)
    assert all(e.to_line()["evaluators"] == versions for e in sink.evaluations)
    get = metrics.registry.get_sample_value
    for evaluator, version in versions.items():
        labels = {"evaluator": evaluator, "version": version, "variant": "live"}
        assert get("ragmon_evaluator_info", labels) == 1


def test_the_judges_events_name_its_version() -> None:
    from monitor.core.verdict import Claim, JudgeOutput, Verdict

    out = JudgeOutput(claims=[Claim(text="c", label="SUPPORTED", passage=1)])
    v = Verdict.from_output(out, judge="heuristic", model="h", rubric_version="r")
    (event,) = judge_events(v, "heuristic/h/r")
    assert event["ragmon.evaluator.version"] == "heuristic/h/r"
