"""Judge calibration: agreement, Cohen's kappa, sensitivity/specificity, Rogan–Gladen."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.judge.calibration import Calibration, calibrate, cohen_kappa


def test_kappa_known_values() -> None:
    """Perfect agreement is 1; agreement at chance level is 0; a textbook case matches."""
    assert cohen_kappa([("a", "a"), ("b", "b")]) == 1.0
    chance = [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]
    assert cohen_kappa(chance) == 0.0
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po = 0.7, pe = 0.5 -> kappa 0.4
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_sensitivity_specificity_and_correction(tmp_path: Path) -> None:
    """Hard-fail sensitivity/specificity come from the confusion matrix; the Rogan–Gladen
    correction inverts the judge's error rates; the record round-trips through a file."""
    pairs = [("hard_fail", "hard_fail")] * 8 + [("hard_fail", "fail")] * 2
    pairs += [("pass", "pass")] * 85 + [("pass", "hard_fail")] * 5
    cal = calibrate(pairs, "heuristic", "h1", "r1")
    assert cal.sensitivity == pytest.approx(0.8)
    assert cal.specificity == pytest.approx(85 / 90)
    lo, hi = cal.sensitivity_ci
    assert lo < 0.8 < hi
    # true prevalence 10% observed through this judge: 0.1*0.8 + 0.9*(5/90) = 0.13
    assert cal.corrected_rate(0.13) == pytest.approx(0.10, abs=1e-9)
    path = tmp_path / "cal.json"
    cal.save(path)
    assert Calibration.load(path) == cal
    assert cal.confusion["pass"]["hard_fail"] == 5


def test_replay_summary_reports_the_corrected_rate() -> None:
    """With a calibration record, the replay summary prints the Rogan–Gladen rate."""
    from monitor.checks import CheckSuite
    from monitor.core.model import Evaluation, RagTrace
    from monitor.judge.heuristic import HeuristicJudge
    from monitor.sources import demo
    from sinks.summary import SummarySink

    sink = SummarySink(CheckSuite().names)
    sink.calibration = calibrate([("hard_fail", "hard_fail")] * 8 + [("hard_fail", "pass")] * 2
                                 + [("pass", "pass")] * 90, "heuristic", "h", "r")  # fmt: skip
    for i in range(300):
        trace = RagTrace.from_data(demo.generate(i))
        sink.write(Evaluation(trace=trace, checks={}, judge=HeuristicJudge().judge(trace)))
    table = sink.table()
    line = next(x for x in table.splitlines() if "Rogan-Gladen" in x)
    raw = float(line.split("raw ")[1].rstrip("%)")) / 100
    corrected = float(line.split(": ")[1].split("%")[0]) / 100
    assert corrected == pytest.approx(raw / 0.8, abs=1e-3)  # specificity 1, sensitivity 0.8


def test_a_record_of_another_judge_model_or_rubric_is_refused(tmp_path: Path) -> None:
    """A record applies only to the judge, model and rubric it was measured on: one of the
    heuristic judge is refused for the OpenAI judge (it would correct that judge's rate with
    another's errors), and so is one of another model or rubric; the matching one loads."""
    from monitor.config import Settings
    from monitor.core.errors import ConfigError
    from monitor.judge.rubric import RUBRIC_ID
    from monitor.registry import calibration

    path = tmp_path / "cal.json"
    pairs = [("pass", "pass")] * 9 + [("hard_fail", "hard_fail")]

    def settings(backend: str, **openai: str) -> Settings:
        judge: dict[str, object] = {"backend": backend, "calibration_file": str(path)}
        if backend == "openai":  # its section only where it runs (else it is refused)
            judge["openai"] = {"base_url": "http://127.0.0.1:9/v1", **openai}
        return Settings.model_validate({"judge": judge})

    calibrate(pairs, "heuristic", "heuristic-v1", RUBRIC_ID).save(path)
    assert calibration(settings("heuristic")) is not None
    with pytest.raises(ConfigError, match=r"measured on judge heuristic.*running judge is openai"):
        calibration(settings("openai", model="judge-model"))
    calibrate(pairs, "openai", "other-model", RUBRIC_ID).save(path)
    with pytest.raises(ConfigError, match="does not apply"):
        calibration(settings("openai", model="judge-model"))
    calibrate(pairs, "openai", "judge-model", RUBRIC_ID).save(path)
    assert calibration(settings("openai", model="judge-model")) is not None
    with pytest.raises(ConfigError, match="rubric lynx-v1"):  # the same model, another format
        calibration(settings("openai", model="judge-model", profile="lynx"))
    assert calibration(settings("none")) is None  # no judge runs: nothing to correct
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read"):
        calibration(settings("heuristic"))
