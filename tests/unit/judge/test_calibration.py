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
