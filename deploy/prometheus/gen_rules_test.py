"""Writes rules_test.yml: a firing and a non-firing case for every alert in rules.yml.

    python deploy/prometheus/gen_rules_test.py   # then: promtool test rules rules_test.yml

Expected annotations are the rules' own, with ``{{ $labels.x }}`` filled in, so the test file
stays in step with the rules (a test checks the committed file equals the generated one).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
RULES = HERE / "rules.yml"
OUT = HERE / "rules_test.yml"


def phases(*parts: tuple[float, int]) -> str:
    """Counter samples, one a minute: (increase per minute, minutes) per phase."""
    out, value = [], 0.0
    for i, (rate, minutes) in enumerate(parts):
        start = value if i == 0 else value + rate
        steps = minutes if i == 0 else minutes - 1
        out.append(f"{start:g}+{rate:g}x{steps}")
        value = start + rate * steps
    return " ".join(out)


CR = 'ragmon_check_results_total{{app="support",route="billing",check="{check}",result="{result}"}}'


def checks(
    check: str, flagged: list[tuple[float, int]], passed: list[tuple[float, int]]
) -> list[dict[str, str]]:
    return [
        {"series": CR.format(check=check, result="flagged"), "values": phases(*flagged)},
        {"series": CR.format(check=check, result="passed"), "values": phases(*passed)},
    ]


ROUTE = {"app": "support", "route": "billing"}

# alert -> list of (case name, input series, eval minute, expected labels or None)
CASES: dict[str, list[tuple[str, list[dict[str, str]], int, dict[str, str] | None]]] = {
    "RagmonRefusalRateSpike": [
        ("spike to 30% after a day at 2%", checks("refusal", [(2, 1440), (30, 60)], [(98, 1440), (70, 60)]), 1490, ROUTE),
        ("same spike at two answers a minute", checks("refusal", [(0.04, 1440), (0.6, 60)], [(1.96, 1440), (1.4, 60)]), 1490, None),
        ("steady 2%", checks("refusal", [(2, 1500)], [(98, 1500)]), 1490, None),
    ],
    "RagmonUnsupportedNumbersHigh": [
        ("20% of answers", checks("unsupported_numbers", [(20, 60)], [(80, 60)]), 50, ROUTE),
        ("5% of answers", checks("unsupported_numbers", [(5, 60)], [(95, 60)]), 50, None),
    ],
    "RagmonEmptyContextSpike": [
        ("20% empty", checks("empty_context", [(20, 40)], [(80, 40)]), 30, ROUTE),
        ("2% empty", checks("empty_context", [(2, 40)], [(98, 40)]), 30, None),
    ],
    "RagmonFaithfulnessHardFails": [
        ("10% weighted hard fails", [
            {"series": 'ragmon_judge_verdict_weight_total{judge="heuristic",verdict="hard_fail",rubric="r"}', "values": phases((2, 100))},
            {"series": 'ragmon_judge_verdict_weight_total{judge="heuristic",verdict="pass",rubric="r"}', "values": phases((18, 100))},
            {"series": 'ragmon_judge_verdicts_total{judge="heuristic",verdict="hard_fail",rubric="r"}', "values": phases((1, 100))},
            {"series": 'ragmon_judge_verdicts_total{judge="heuristic",verdict="pass",rubric="r"}', "values": phases((9, 100))},
        ], 90, {"judge": "heuristic"}),
        ("1% weighted hard fails", [
            {"series": 'ragmon_judge_verdict_weight_total{judge="heuristic",verdict="hard_fail",rubric="r"}', "values": phases((0.2, 100))},
            {"series": 'ragmon_judge_verdict_weight_total{judge="heuristic",verdict="pass",rubric="r"}', "values": phases((19.8, 100))},
            {"series": 'ragmon_judge_verdicts_total{judge="heuristic",verdict="pass",rubric="r"}', "values": phases((10, 100))},
        ], 90, None),
    ],
    "RagmonJudgeErrors": [
        ("half the calls fail", [
            {"series": 'ragmon_judge_decisions_total{outcome="error"}', "values": phases((5, 40))},
            {"series": 'ragmon_judge_decisions_total{outcome="judged"}', "values": phases((5, 40))},
        ], 30, {}),
        ("one in a hundred fails", [
            {"series": 'ragmon_judge_decisions_total{outcome="error"}', "values": phases((0.1, 40))},
            {"series": 'ragmon_judge_decisions_total{outcome="judged"}', "values": phases((10, 40))},
        ], 30, None),
    ],
    "RagmonJudgeBudgetExhausted": [
        ("skips for an hour", [{"series": 'ragmon_judge_decisions_total{outcome="over_budget"}', "values": phases((1, 70))}], 65, {}),
        ("never over budget", [{"series": 'ragmon_judge_decisions_total{outcome="over_budget"}', "values": "0x70"}], 65, None),
    ],
    "RagmonJudgePaused": [
        ("paused", [{"series": "ragmon_judge_paused", "values": "1x5"}], 3, {}),
        ("running", [{"series": "ragmon_judge_paused", "values": "0x5"}], 3, None),
    ],
    "RagmonConsumerLag": [
        ("60k behind", [{"series": 'ragmon_kafka_consumer_lag{topic="rag_traces",partition="0"}', "values": "60000x30"}], 20, {"topic": "rag_traces"}),
        ("100 behind", [{"series": 'ragmon_kafka_consumer_lag{topic="rag_traces",partition="0"}', "values": "100x30"}], 20, None),
    ],
    "RagmonDeadLetters": [
        ("two a minute", [{"series": 'ragmon_dead_letters_total{reason="invalid_json"}', "values": phases((2, 30))}], 20, {"reason": "invalid_json"}),
        ("one every ten minutes", [{"series": 'ragmon_dead_letters_total{reason="invalid_json"}', "values": phases((0.1, 30))}], 20, None),
    ],
    "RagmonAssemblyEvictions": [
        ("two evictions a minute", [{"series": 'ragmon_assembly_traces_total{convention="openinference",outcome="evicted"}', "values": phases((2, 40))}], 30, {}),
        ("one every ten minutes", [{"series": 'ragmon_assembly_traces_total{convention="openinference",outcome="evicted"}', "values": phases((0.1, 40))}], 30, None),
    ],
    "RagmonOtlpUnrecognised": [
        ("80% unrecognised", [
            {"series": 'ragmon_assembly_traces_total{convention="unrecognised",outcome="complete"}', "values": phases((8, 60))},
            {"series": 'ragmon_assembly_traces_total{convention="openinference",outcome="complete"}', "values": phases((2, 60))},
        ], 50, {}),
        ("80% unrecognised at a trace every two minutes", [
            {"series": 'ragmon_assembly_traces_total{convention="unrecognised",outcome="complete"}', "values": phases((0.4, 60))},
            {"series": 'ragmon_assembly_traces_total{convention="openinference",outcome="complete"}', "values": phases((0.1, 60))},
        ], 50, None),
        ("10% unrecognised", [
            {"series": 'ragmon_assembly_traces_total{convention="unrecognised",outcome="complete"}', "values": phases((1, 60))},
            {"series": 'ragmon_assembly_traces_total{convention="openinference",outcome="complete"}', "values": phases((9, 60))},
        ], 50, None),
    ],
    "RagmonDown": [
        ("scrapes fail", [{"series": 'up{job="ragmon"}', "values": "0x10"}], 5, {"job": "ragmon"}),
        ("scrapes succeed", [{"series": 'up{job="ragmon"}', "values": "1x10"}], 5, None),
    ],
}  # fmt: skip


def _render(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)


def build() -> str:
    rules = {
        r["alert"]: r
        for g in yaml.safe_load(RULES.read_text())["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    missing = set(rules) - set(CASES)
    if missing:
        raise SystemExit(f"alerts without test cases: {sorted(missing)}")
    tests: list[dict[str, Any]] = []
    for alert, cases in CASES.items():
        rule = rules[alert]
        for name, series, minute, labels in cases:
            exp = []
            if labels is not None:
                full = {**labels, **rule.get("labels", {})}
                exp.append({
                    "exp_labels": full,
                    "exp_annotations": {k: _render(v, full) for k, v in rule["annotations"].items()},
                })  # fmt: skip
            tests.append({
                "name": f"{alert}: {name}",
                "interval": "1m",
                "input_series": series,
                "alert_rule_test": [{"eval_time": f"{minute}m", "alertname": alert, "exp_alerts": exp}],
            })  # fmt: skip
    header = "# Generated by gen_rules_test.py from rules.yml; do not edit by hand.\n"
    body = {"rule_files": ["rules.yml"], "evaluation_interval": "1m", "tests": tests}
    return header + yaml.safe_dump(body, sort_keys=False, width=120)


if __name__ == "__main__":
    OUT.write_text(build())
    print(f"wrote {OUT.name}: {sum(len(c) for c in CASES.values())} cases", file=sys.stderr)
