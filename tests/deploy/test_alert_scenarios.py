"""The alert scenario harness and the statistics in the rules, through the real promtool:
the recorded Wilson bounds equal scipy's, the harness reads detection times and false alarms
back from Prometheus, and the dashboard's alert panel has data over the recorded series."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom, binomtest, norm

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy" / "prometheus"))
sys.path.insert(0, str(ROOT / "dashboards"))
import build as dashboard  # noqa: E402
import scenarios  # noqa: E402
from scenarios import Scenario  # noqa: E402

R = "route_check:ragmon_check_flagged"
RULES = scenarios.RULES.read_text()


def _counters(flagged_per_min: int, passed_per_min: int, minutes: int) -> list[dict[str, str]]:
    sel = 'ragmon_check_results_total{{app="a",route="r",check="refusal",result="{}"}}'
    return [
        {"series": sel.format("flagged"), "values": f"0+{flagged_per_min}x{minutes}"},
        {"series": sel.format("passed"), "values": f"0+{passed_per_min}x{minutes}"},
    ]


def _query(series: list[dict[str, str]], minute: int, exprs: dict[str, str]) -> dict[str, float]:
    got = scenarios.query_values(RULES, series, minute, exprs)
    return {k: v["r"] for k, v in got.items()}


def _wilson(x: float, n: float, z: float) -> tuple[float, float]:
    ci = binomtest(round(x), round(n)).proportion_ci(1 - 2 * norm.sf(z), method="wilson")
    return ci.low, ci.high


def test_recorded_bounds_and_rise_equal_scipys() -> None:
    """Bounds recorded for the 15 min (z = 4), 1 h (z = 3.5) and 7-day (z = 2) windows,
    against scipy's Wilson interval on the counts Prometheus recorded; the rise score is the
    arcsine distance of the window's share from a multiple of the baseline's upper bound."""
    E = R.replace("flagged", "evaluated")
    got = _query(_counters(3, 7, 300), 299, {
        "n15m": f"{E}:increase15m", "x15m": f"{R}:increase15m",
        "n1h": f"{E}:increase1h", "x1h": f"{R}:increase1h",
        "n7d": f"{E}:sum7d", "x7d": f"{R}:sum7d",
        "low15": f"{R}:ratio15m_low", "low1h": f"{R}:ratio1h_low", "high7d": f"{R}:ratio7d_high",
        **{f"z{w}x{k}": f'{R}:rise_z{{window="{w}",over="{k}"}}'
           for w in ("15m", "1h") for k in ("1.25", "2")},
    })  # fmt: skip
    assert (got["n15m"], got["x15m"], got["n1h"], got["x1h"]) == (150, 45, 600, 180)
    # the hours ending at minutes 60, 120 and 180; the one ending at 240 is within the last
    # hour, which the baseline leaves out
    assert got["n7d"] == 1800
    assert got["low15"] == pytest.approx(_wilson(got["x15m"], got["n15m"], 4.0)[0], rel=1e-9)
    assert got["low1h"] == pytest.approx(_wilson(got["x1h"], got["n1h"], 3.5)[0], rel=1e-9)
    high = _wilson(got["x7d"], got["n7d"], 2.0)[1]
    assert got["high7d"] == pytest.approx(high, rel=1e-9)
    for w in ("15m", "1h"):
        n, x = got[f"n{w}"], got[f"x{w}"]
        for k in ("1.25", "2"):
            share = math.asin(math.sqrt((x + 0.375) / (n + 0.75)))
            want = 2 * math.sqrt(n) * (share - math.asin(math.sqrt(min(float(k) * high, 1))))
            assert got[f"z{w}x{k}"] == pytest.approx(want, rel=1e-9), (w, k)


def test_recorded_jump_equals_the_two_sample_arcsine_score() -> None:
    """The jump score: the 15-minute share against 1.15 x the share of the three hours before
    the last half hour (both shares' noise counted), recorded only where the window is also
    2 standard errors over the 7-day baseline's upper bound; a steady route records none."""
    E = R.replace("flagged", "evaluated")
    sel = 'ragmon_check_results_total{{app="a",route="r",check="refusal",result="{}"}}'
    step = [  # 4 h at 10 %, then 30 %, 10 answers a minute
        {"series": sel.format("flagged"), "values": "0+1x240 243+3x20"},
        {"series": sel.format("passed"), "values": "0+9x240 2167+7x20"},
    ]
    names = {
        "n15": f"{E}:increase15m", "x15": f"{R}:increase15m",
        "nr": f"{E}:increase3h_before30m", "xr": f"{R}:increase3h_before30m",
        "jump": f"{R}:jump_z",
    }  # fmt: skip
    got = _query(step, 255, names)
    # minutes 241-255 after the step; the three hours ending at minute 225 all before it
    assert (got["n15"], got["x15"], got["nr"], got["xr"]) == (150, 45, 1800, 180)
    share = math.asin(math.sqrt((got["x15"] + 0.375) / (got["n15"] + 0.75)))
    recent = math.asin(math.sqrt(1.15 * (got["xr"] + 0.375) / (got["nr"] + 0.75)))
    want = 2 * (share - recent) / math.sqrt(1 / got["n15"] + 1 / got["nr"])
    assert want > 3.5 and got["jump"] == pytest.approx(want, rel=1e-9)
    assert "jump" not in _query(_counters(3, 7, 300), 299, {"jump": f"{R}:jump_z"})


def test_rise_score_tail_is_honest_for_small_counts() -> None:
    """Why the rise is an arcsine score: at the alert's threshold (3.5), the exact chance
    that an unchanged route crosses it is never above the normal tail, for every window size
    and base rate the rules see, where the plain score (what a Wilson bound tests) crosses it
    up to 30 times as often once only a handful of flags are expected."""
    z, nominal = 3.5, norm.sf(3.5)
    worst_arcsine = worst_score = 0.0
    for n in (30, 60, 150, 600, 1500):
        for p in (0.01, 0.02, 0.05, 0.2):
            xs = np.arange(n + 1)
            arcsine = 2 * np.sqrt(n) * (np.arcsin(np.sqrt((xs + 0.375) / (n + 0.75)))
                                        - np.arcsin(np.sqrt(p)))  # fmt: skip
            score = (xs - n * p) / np.sqrt(n * p * (1 - p))
            for stat, name in ((arcsine, "arcsine"), (score, "score")):
                cross = xs[(stat >= z) & (xs >= 5)]
                tail = binom.sf(cross[0] - 1, n, p) if len(cross) else 0.0
                if name == "arcsine":
                    worst_arcsine = max(worst_arcsine, tail / nominal)
                else:
                    worst_score = max(worst_score, tail / nominal)
    assert worst_arcsine <= 1, worst_arcsine
    assert worst_score >= 20, worst_score


def test_rise_needs_enough_answers_and_flags() -> None:
    """A window with under 5 flagged answers records no rise, whatever the share."""
    series = _counters(0, 10, 200)
    sel = 'ragmon_check_results_total{app="a",route="r",check="refusal",result="flagged"}'
    series[0] = {"series": sel, "values": "0x189 1+1x3 4x6"}  # 4 refusals in minutes 190-193
    got = _query(series, 196, {"low": f"{R}:ratio15m_low", "rise": f"max({R}:rise_z) by (route)"})
    assert got["low"] > 0  # the bound exists
    assert "rise" not in got


def test_harness_reads_detection_and_false_alarms_from_promtool() -> None:
    """A clear step (5 % -> 40 %) is detected on every replica, within 15 minutes by the
    current rules and later by the previous ones (their 10-minute `for`); a steady route
    raises nothing."""
    cases = [
        Scenario("clear step", 10, 0.05, 240, mult=8, change_at=180, routes=2, quiet_from=60),
        Scenario("steady", 10, 0.05, 240, routes=2),
    ]
    ttd = {}
    for name, rules in (
        ("current", scenarios.refusal_rules(RULES)),
        ("previous", scenarios.PREVIOUS_RULES),
    ):
        step, steady = scenarios.evaluate(cases, rules, name, seed=1, workers=1)
        assert len(step.ttd) == 2 and all(0 <= t <= 30 for t in step.ttd), (name, step.ttd)
        assert step.false_alarms == 0 and steady.false_alarms == 0
        assert steady.quiet_route_days == pytest.approx(2 * 240 / 1440)
        ttd[name] = step.ttd
    assert all(c <= 15 and c < p for c, p in zip(ttd["current"], ttd["previous"], strict=True)), ttd


def test_harness_counts_a_false_alarm() -> None:
    """An alarm where nothing changed is counted: a step the harness is told is not there
    (no change_at) shows up as one false-alarm episode per route."""
    s = Scenario("unannounced step", 10, 0.05, 240, routes=2)
    loud = Scenario("unannounced step", 10, 0.05, 240, routes=2, mult=8, change_at=180)
    quiet = scenarios.evaluate([s], scenarios.refusal_rules(RULES), "r", seed=1, workers=1)[0]
    assert quiet.false_alarms == 0
    # same series, read as quiet: the step must be counted as an alarm on each route
    fake = {"interval": "1m", "input_series": scenarios.sampled_series(loud, 1, "s0r"),
            "promql_expr_test": scenarios._queries(s, "s0")}  # fmt: skip
    got = scenarios.run_promtool(scenarios.refusal_rules(RULES), [fake])
    assert got["s0/fa"] == {"s0r0": 1.0, "s0r1": 1.0}


def test_ceiling_is_a_probability_that_grows_with_the_step() -> None:
    low, high = (
        scenarios.ceiling(Scenario("", 10, 0.02, 100, mult=m, change_at=50)) for m in (2, 4)
    )
    assert 0 <= low < high <= 1


@pytest.mark.parametrize("expr", dashboard.expressions(recorded=True))
def test_dashboard_alert_panel_has_data(expr: str) -> None:
    """The panel over recorded series returns data once the rules have run for hours."""
    q = expr.replace("$app", ".*").replace("$route", ".*")
    got = _query(_counters(3, 7, 300), 299, {"v": q.replace('app=~".*",route=~".*"', 'route="r"')})
    assert "v" in got, expr
