"""The per-segment and input-drift rules through the real promtool: the drift score is 0 for
an unchanged input and 1 for one that moved past every bucket it had, the medians follow, and
the dashboard's input panels have data over the recorded series."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy" / "prometheus"))
sys.path.insert(0, str(ROOT / "dashboards"))
import build as dashboard  # noqa: E402
import scenarios  # noqa: E402

from monitor.telemetry.segments import INPUT_BUCKETS  # noqa: E402

RULES = scenarios.RULES.read_text()
HIST = 180  # minutes before the change: three hourly samples of the baseline


def passages(
    before: int, after: int, minutes_after: int, per_minute: float = 10, after_rate: float = 10
) -> list[dict[str, str]]:
    """ragmon_input_passages buckets: ``per_minute`` traces with ``before`` packed passages each
    for HIST minutes, then ``after_rate`` traces a minute with ``after``."""
    edges = [*INPUT_BUCKETS["passages"][0], float("inf")]
    out = []
    for le in edges:
        label = "+Inf" if le == float("inf") else f"{le:g}"
        a, b = per_minute * (before <= le), after_rate * (after <= le)
        values = f"0+{a}x{HIST}" + (
            f" {HIST * a + b}+{b}x{minutes_after - 1}" if minutes_after else ""
        )
        out.append({"series": f'ragmon_input_passages_bucket{{le="{label}"}}', "values": values})
    return out


def _query(series: list[dict[str, str]], minute: int, exprs: dict[str, str]) -> dict[str, float]:
    got = scenarios.query_values(RULES, series, minute, exprs)
    return {k: v[""] for k, v in got.items()}


DRIFT = 'input:ragmon_input:drift1h{input="passages"}'
MEDIANS = {"m1h": 'input:ragmon_input:median1h{input="passages"}',
           "m7d": 'input:ragmon_input:median7d{input="passages"}'}  # fmt: skip


def test_a_packer_that_drops_passages_drifts_fully_and_its_median_falls() -> None:
    got = _query(passages(5, 2, 90), HIST + 80, {"drift": DRIFT, **MEDIANS})
    assert got["drift"] == pytest.approx(1.0)
    assert got["m1h"] <= 2 < 4 <= got["m7d"] <= 5


def test_an_unchanged_input_does_not_drift() -> None:
    got = _query(passages(5, 5, 90), HIST + 80, {"drift": DRIFT, **MEDIANS})
    assert got["drift"] == pytest.approx(0.0)
    assert got["m1h"] == pytest.approx(got["m7d"])


def test_a_quiet_hour_gets_no_drift_score() -> None:
    """Under 30 traces in the hour: no score (a handful of traces is no distribution)."""
    got = _query(passages(5, 2, 90, after_rate=0.4), HIST + 80, {"drift": DRIFT})
    assert "drift" not in got


@pytest.mark.parametrize("expr", dashboard.expressions(recorded="inputs"))
def test_the_input_drift_panels_have_data(expr: str) -> None:
    got = _query(passages(5, 2, 90), HIST + 80, {"v": expr.replace("{{input}}", "")})
    assert "v" in got, expr
