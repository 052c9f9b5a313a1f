"""Shadow runs: a candidate definition of the checks beside the live one on the same traces.
Its results ride in the evaluation lines and in their own counters; the live counters, the
golden rows and everything alerting reads stay exactly as without it; the statistics are the
paired ones of `ragmon compare`."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from monitor import config
from monitor.checks import CheckSuite
from monitor.checks.shadow import ShadowSuite
from monitor.config import Settings
from monitor.core.stats import PairedFlags, bootstrap_interval, sign_test
from sinks.summary import SummarySink
from tests.conftest import run_daemon_pipeline

CANDIDATE = {
    "checks": {"context_conflict": {"similarity": 0.2}, "grounding_overlap": {"min_words": 30}}
}


def test_the_candidate_is_the_live_checks_with_its_settings_on_top() -> None:
    live = {"enabled": ["refusal", "context_conflict", "grounding_overlap"],
            "context_conflict": {"similarity": 0.6}}  # fmt: skip
    s = Settings.model_validate({"checks": live, "shadow": CANDIDATE})
    cand = s.shadow.candidate(s.checks)
    assert cand is not None
    assert cand.enabled == live["enabled"]  # not set by the shadow: the live value
    assert (cand.context_conflict.similarity, cand.grounding_overlap.min_words) == (0.2, 30)
    assert s.checks.context_conflict.similarity == 0.6  # the live settings are untouched
    assert Settings().shadow.candidate(Settings().checks) is None


@pytest.mark.parametrize(("shadow", "says"), [
    ({"checks": {"context_conflit": {}}}, "shadow.checks.context_conflit: unknown key"),
    ({"checks": {"enabled": ["refusl"]}}, "unknown check"),
    ({"checks": {}, "share": 0}, "shadow.share"),
    ({"checks": {}, "shares": 1}, "shadow.shares: unknown key"),
])  # fmt: skip
def test_a_bad_shadow_is_a_clear_config_error(tmp_path: Path, shadow: dict, says: str) -> None:
    path = tmp_path / "ragmon.yaml"
    path.write_text(json.dumps({"shadow": shadow}))
    with pytest.raises(config.ConfigError, match="shadow") as err:
        config.load(path)
    assert says in str(err.value)


def test_the_share_is_chosen_by_trace_id() -> None:
    half = ShadowSuite(CheckSuite(), 0.3, {})
    ids = [f"{random.Random(i).getrandbits(128):032x}" for i in range(4000)]
    taken = [half.takes(t) for t in ids]
    assert 0.27 < sum(taken) / len(ids) < 0.33
    assert taken == [ShadowSuite(CheckSuite(), 0.3, {}).takes(t) for t in ids]  # every replica
    assert all(ShadowSuite(CheckSuite(), 1.0, {}).takes(t) for t in ids[:50])
    with pytest.raises(ValueError):
        ShadowSuite(CheckSuite(), 0.0, {})


def test_the_daemon_runs_the_shadow_beside_the_live_checks_and_counts_nothing_twice() -> None:
    """The same 300 demo traces with and without a shadow: identical live results and live
    counters; the shadow's results in the lines of its share of the traces, its outcome
    pairs in ragmon_shadow_results_total, its versions with variant="shadow"."""
    base = Settings()
    shadowed = Settings.model_validate({"shadow": {**CANDIDATE, "share": 0.5}})
    m0, plain, _ = run_daemon_pipeline(base, 300)
    m1, sink, _ = run_daemon_pipeline(shadowed, 300)
    assert [e.checks for e in sink.evaluations] == [e.checks for e in plain.evaluations]
    lines = [e.to_line() for e in sink.evaluations]
    with_shadow = [ln for ln in lines if "shadow" in ln]
    assert 100 < len(with_shadow) < 200
    assert not any("shadow" in e.to_line() for e in plain.evaluations)
    versions = with_shadow[0]["shadow"]["evaluators"]
    live_versions = with_shadow[0]["evaluators"]
    assert versions["context_conflict"] != live_versions["context_conflict"]
    assert versions["refusal"] == live_versions["refusal"]  # the same definition
    get0, get1 = m0.registry.get_sample_value, m1.registry.get_sample_value
    for check in ("refusal", "context_conflict", "grounding_overlap"):
        for result in ("flagged", "passed", "not_applicable"):
            labels = {"check": check, "result": result, "app": "unknown", "route": "billing"}
            assert get0("ragmon_check_results_total", labels) == get1(
                "ragmon_check_results_total", labels
            )
    pairs = sum(
        get1("ragmon_shadow_results_total", {"check": "grounding_overlap", "live": a, "shadow": b})
        or 0
        for a in ("flagged", "passed", "not_applicable")
        for b in ("flagged", "passed", "not_applicable")
    )
    assert pairs == len(with_shadow)
    # the candidate scores only answers of 30 content words: most become not applicable
    became_na = sum(
        get1(
            "ragmon_shadow_results_total",
            {"check": "grounding_overlap", "live": a, "shadow": "not_applicable"},
        )
        or 0
        for a in ("flagged", "passed")
    )
    assert became_na > 0
    info = {"evaluator": "context_conflict", "version": versions["context_conflict"],
            "variant": "shadow"}  # fmt: skip
    assert get1("ragmon_evaluator_info", info) == 1


def test_golden_rows_come_from_the_live_checks_only(tmp_path: Path) -> None:
    """Live runs the refusal check only; a candidate that adds the citation and number checks
    flags many more traces, and writes no golden row."""
    live = {"enabled": ["refusal"]}
    cand = {"checks": {"enabled": ["refusal", "citation", "unsupported_numbers"]}}
    rows = {}
    for name, shadow in (("plain", {}), ("shadowed", cand)):
        golden = tmp_path / name
        settings = Settings.model_validate(
            {"checks": live, "golden": {"dir": str(golden)}, "shadow": shadow}
        )
        _, sink, _ = run_daemon_pipeline(settings, 200)
        rows[name] = sorted(p.read_text() for p in golden.rglob("*.jsonl"))
        if shadow:
            more = sum(
                any(r.flagged for r in e.shadow.checks.values()) and not e.any_flagged
                for e in sink.evaluations if e.shadow is not None
            )  # fmt: skip
            assert more > 20  # the candidate did flag more
    assert rows["plain"] == rows["shadowed"] and rows["plain"]


def test_paired_flags_match_the_statistics_of_compare() -> None:
    """Agreement, flips, shares; the interval agrees with compare's bootstrap over the
    expanded differences within resampling noise; the sign test is compare's."""
    p = PairedFlags()
    for a, b, n in (("flagged", "flagged", 30), ("passed", "passed", 140), ("flagged", "passed", 4),
                    ("passed", "flagged", 16), ("not_applicable", "flagged", 9),
                    ("passed", "absent", 3)):  # fmt: skip
        p.add(a, b, n)
    assert p.both == 190 and p.agreement == pytest.approx(170 / 190)
    assert p.flips == (4, 16)
    assert p.shares() == pytest.approx((34 / 190, 46 / 190))
    d, low, high, pv = p.difference()
    diffs = [1.0] * 16 + [-1.0] * 4 + [0.0] * 170
    blow, bhigh = bootstrap_interval(diffs, reps=20_000)
    assert d == pytest.approx(sum(diffs) / len(diffs))
    assert low == pytest.approx(blow, abs=0.01) and high == pytest.approx(bhigh, abs=0.01)
    assert pv == sign_test(16, 4) and pv < 0.05
    assert PairedFlags().difference()[3] == 1.0


def test_the_replay_summary_prints_the_shadow_table() -> None:
    settings = Settings.model_validate({"shadow": CANDIDATE})
    _, sink, _ = run_daemon_pipeline(settings, 120)
    summary = SummarySink(CheckSuite().names)
    for e in sink.evaluations:
        summary.write(e)
    table = summary.table()
    assert "shadow candidate on 120 of 120 traces" in table
    shadow_part = table.split("shadow candidate on")[1].splitlines()
    rows = {line.split()[0]: line for line in shadow_part[2:] if line and line[0].isalpha()}
    assert set(CheckSuite().names) <= set(rows)
    p = summary.shadow["refusal"]
    assert rows["refusal"].split()[1:3] == [str(p.both), "100.00%"]  # the same definition


def test_the_shadow_is_set_from_the_environment_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A nested key of the optional shadow.checks section is a known variable; a misspelt
    one is named."""
    monkeypatch.setenv("RAGMON_SHADOW__CHECKS__CONTEXT_CONFLICT__SIMILARITY", "0.3")
    settings = config.load(None)
    cand = settings.shadow.candidate(settings.checks)
    assert cand is not None and cand.context_conflict.similarity == 0.3
    monkeypatch.setenv("RAGMON_SHADOW__CHECKS__CONTEXT_CONFLIT__SIMILARITY", "0.3")
    with pytest.raises(config.ConfigError, match="CONTEXT_CONFLIT"):
        config.load(None)


def judged_run(shadow_judge: dict | None, traces: int = 150) -> tuple:
    from tests.integration.messages_api import MessagesApi, verdict

    live = {"backend": "heuristic", "cache_entries": 0,  # a cached verdict is not asked again
            "sampling": {"base_rate": 0.5, "flagged_rate": 0.5}}  # fmt: skip
    with MessagesApi() as api:
        api.default = verdict("SUPPORTED", "CONTRADICTED")  # the candidate fails them hard
        shadow = (
            {}
            if shadow_judge is None
            else {
                "judge": {
                    "backend": "anthropic",
                    "isolate": False,
                    "max_retries": 0,
                    "anthropic": {"base_url": api.base_url, "api_key": "test-key"},
                    **shadow_judge,
                }
            }
        )
        settings = Settings.model_validate({"judge": live, "shadow": shadow})
        t0 = time.monotonic()
        metrics, sink, _ = run_daemon_pipeline(settings, traces)
        return metrics, sink, len(api.requests), time.monotonic() - t0


def test_a_shadow_judge_judges_the_live_sample_within_its_own_budget() -> None:
    """The heuristic judge live, a Messages API judge as the candidate: the candidate is asked
    about exactly the traces the live judge judged, until its own budget (3 calls a minute:
    3 at once, then one every 20 s) is spent; the live verdicts are those of a run without
    it; its verdict pairs and cost are counted apart."""
    m0, plain, _, _ = judged_run(None)
    m1, sink, calls, seconds = judged_run({"budget": {"calls_per_minute": 3}})
    # the live verdicts as without a candidate (lines come back in the order judged)
    assert {e.trace_id: e.judge for e in sink.evaluations} == {
        e.trace_id: e.judge for e in plain.evaluations
    }
    judged = [e for e in sink.evaluations if e.judge is not None]
    assert len(judged) > 20
    shadow_said = [e.shadow.judge for e in judged if e.shadow and e.shadow.judge]
    skipped = [e.shadow.judge_skipped for e in judged if e.shadow and not e.shadow.judge]
    # its own budget, not the live one's
    assert calls == len(shadow_said) and 3 <= len(shadow_said) <= 3 + int(seconds / 20) + 1
    assert {v.verdict for v in shadow_said} == {"hard_fail"} and set(skipped) == {"over_budget"}
    assert all(e.shadow is None for e in sink.evaluations if e.judge is None)
    assert all(e.shadow.evaluators["judge"].startswith("anthropic/") for e in judged)
    line = judged[0].to_line()["shadow"]
    assert "checks" not in line and line["judge"]
    get = m1.registry.get_sample_value
    pairs = {(a, b): get("ragmon_shadow_judge_verdicts_total", {"live": a, "shadow": b}) or 0
             for a in ("pass", "fail", "hard_fail", "not_applicable")
             for b in ("hard_fail", "over_budget")}  # fmt: skip
    assert sum(v for (_, b), v in pairs.items() if b == "hard_fail") == len(shadow_said)
    assert sum(v for (_, b), v in pairs.items() if b == "over_budget") == len(skipped)
    for verdict in ("pass", "fail", "hard_fail"):
        labels = {"verdict": verdict}
        assert get("ragmon_judge_verdicts_total", labels) == m0.registry.get_sample_value(
            "ragmon_judge_verdicts_total", labels
        )
    version = judged[0].shadow.evaluators["judge"]
    info = {"evaluator": "judge", "variant": "shadow", "version": version}
    assert get("ragmon_evaluator_info", info) == 1


@pytest.mark.parametrize(("config", "says"), [
    ({"shadow": {"judge": {"backend": "openai"}}}, "set judge.backend"),
    ({"judge": {"backend": "heuristic"}, "shadow": {"judge": {"backend": "none"}}},
     "candidate judge's backend"),
    ({"judge": {"backend": "heuristic"},
      "shadow": {"judge": {"backend": "openai", "sampling": {"base_rate": 1}}}}, "judge.sampling"),
    ({"judge": {"backend": "heuristic"},
      "shadow": {"judge": {"backend": "openai", "jury": {"backend": "heuristic"}}}}, "judge.jury"),
])  # fmt: skip
def test_a_shadow_judge_setting_that_would_be_ignored_is_refused(config: dict, says: str) -> None:
    with pytest.raises(ValueError, match="shadow") as err:
        Settings.model_validate(config)
    assert says in str(err.value)
