"""Writes rules_test.yml: a firing and a non-firing case for every alert in rules.yml, and
the situations of scenarios.py (at their expected values, without noise) for the refusal alert.

    python deploy/prometheus/gen_rules_test.py   # then: promtool test rules rules_test.yml

Expected annotations are the rules' own, with ``{{ $labels.x }}`` filled in, so the test file
stays in step with the rules (a test checks the committed file equals the generated one). An
alert defined twice with two severities is expected once per severity listed in the case.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from scenarios import Scenario, mean_series  # noqa: E402

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
HIST = 180  # minutes of history before a change: three hourly baseline samples, cheap to test
LONG = 720  # 12 hours: a baseline firm enough for the table (wider than a week's)
REFUSAL = {**ROUTE, "check": "refusal"}
NUMBERS, EMPTY = {**ROUTE, "check": "unsupported_numbers"}, {**ROUTE, "check": "empty_context"}
PAGE, TICKET = {**REFUSAL, "severity": "page"}, {**REFUSAL, "severity": "ticket"}
ES = {"dimension": "language", "segment": "es"}


def refusal(s: Scenario) -> list[dict[str, str]]:
    return mean_series(s, "billing")


def step(base: float, mult: float, hist: int = HIST, **kw: Any) -> Scenario:
    """`hist` minutes at `base`, then `base * mult`, at 10 answers a minute."""
    return Scenario("", 10, base, hist + 180, mult=mult, change_at=hist, **kw)


def burst(minutes: int) -> Scenario:
    return Scenario("", 10, 0.02, HIST + 60, mult=15, change_at=HIST, shape="burst", burst=minutes)


def probes(recall: list[tuple[float, int]], per_minute: float = 1.0) -> list[dict[str, str]]:
    """Probe recall counters (binary recall: the squares equal the values) per phase of
    (mean recall, minutes)."""
    sel = '{name}{{golden_version="v0001",route="billing",metric="recall",depth="retrieved"}}'
    mean = [(m * per_minute, n) for m, n in recall]
    return [
        {
            "series": sel.format(name="ragmon_probe_retrieval_count"),
            "values": phases(*[(per_minute, n) for _, n in recall]),
        },
        {"series": sel.format(name="ragmon_probe_retrieval_sum"), "values": phases(*mean)},
        {
            "series": sel.format(name="ragmon_probe_retrieval_squares_total"),
            "values": phases(*mean),
        },
    ]


Phases = list[tuple[float, int]] | tuple[float, int]


def judged(hard: Phases, other: Phases, hard_n: Phases, other_n: Phases) -> list[dict[str, str]]:
    """Weighted and unweighted verdict counters of the heuristic judge: hard_fail and pass."""
    out = []
    for metric, verdict, parts in (("weight", "hard_fail", hard), ("weight", "pass", other),
                                   ("s", "hard_fail", hard_n), ("s", "pass", other_n)):  # fmt: skip
        name = (
            "ragmon_judge_verdict_weight_total"
            if metric == "weight"
            else "ragmon_judge_verdicts_total"
        )
        phased = parts if isinstance(parts, list) else [parts]
        out.append({"series": f'{name}{{judge="heuristic",verdict="{verdict}",rubric="r"}}',
                    "values": phases(*phased)})  # fmt: skip
    return out


SEG = (
    'ragmon_segment_check_results_total{{dimension="{dimension}",segment="{segment}",'
    'check="refusal",result="{result}"}}'
)


def segment(dimension: str, segment: str, flagged: list[tuple[float, int]],
            passed: list[tuple[float, int]]) -> list[dict[str, str]]:  # fmt: skip
    """A segment's refusal counters per phase of (per minute, minutes)."""
    out = []
    for result, parts in (("flagged", flagged), ("passed", passed)):
        series = SEG.format(dimension=dimension, segment=segment, result=result)
        out.append({"series": series, "values": phases(*parts)})
    return out


def spanish_spike(dimension: str = "language") -> list[dict[str, str]]:
    """es at 10 answers a minute, 2% -> 20% after three hours; en at 40 a minute, steady 2%."""
    return (segment(dimension, "es", [(0.2, HIST), (2, 90)], [(9.8, HIST), (8, 90)])
            + segment(dimension, "en", [(0.8, HIST + 90)], [(39.2, HIST + 90)]))  # fmt: skip


def followups(
    escalations: list[tuple[float, int]], pairs: list[tuple[float, int]]
) -> list[dict[str, str]]:
    """The follow-up counters: escalations and all pairs, per phase of (per minute, minutes)."""
    labels = 'after="clean",language="en"'
    return [{"series": f'ragmon_followups_total{{signal="escalation",{labels}}}', "values": phases(*escalations)},
            {"series": f"ragmon_followup_pairs_total{{{labels}}}", "values": phases(*pairs)}]  # fmt: skip


def sessions(
    abandoned: list[tuple[float, int]], others: list[tuple[float, int]]
) -> list[dict[str, str]]:
    """Closed sessions: the abandoned and the rest (resolved), per phase of (per minute,
    minutes)."""
    at = 'closed_by="idle",route="billing"'
    return [{"series": f'ragmon_session_outcomes_total{{outcome="abandoned",{at}}}', "values": phases(*abandoned)},
            {"series": f'ragmon_session_outcomes_total{{outcome="resolved",{at}}}', "values": phases(*others)}]  # fmt: skip


def tail_sampled(phased: list[tuple[float, float, int]], per_minute: float = 40,
                 where: dict[str, str] | None = None) -> list[dict[str, str]]:  # fmt: skip
    """A tail sampler in front of ragmon: every refusal kept, the rest with probability
    `kept` (adjusted count 1/kept), per phase of (the traffic's refusal rate, kept, minutes);
    the counts, weights and squares ragmon exports for route billing or, given `where`
    (dimension and segment), for that segment."""
    flagged, passed, w_passed, traces, squares = [], [], [], [], []
    for rate, kept, minutes in phased:
        refused, rest = per_minute * rate, per_minute * (1 - rate)
        flagged.append((refused, minutes))
        passed.append((rest * kept, minutes))
        w_passed.append((rest, minutes))
        traces.append((refused + rest * kept, minutes))
        squares.append((refused + rest / kept, minutes))
    weight = [(per_minute, m) for _, _, m in phased]
    if where is None:
        at = 'app="support",route="billing"'
        results, total = "ragmon_check_results", "ragmon_traces"
    else:
        at = f'dimension="{where["dimension"]}",segment="{where["segment"]}"'
        results, total = "ragmon_segment_check_results", "ragmon_segment_traces"
    check = 'check="refusal",result="{}"'
    out = []
    for name, result, parts in ((f"{results}_total", "flagged", flagged),
                                (f"{results}_total", "passed", passed),
                                (f"{results}_weight_total", "flagged", flagged),
                                (f"{results}_weight_total", "passed", w_passed)):  # fmt: skip
        out.append({"series": f"{name}{{{at},{check.format(result)}}}", "values": phases(*parts)})
    for name, parts in ((f"{total}_total", traces), (f"{total}_weight_total", weight),
                        (f"{total}_weight_squares_total", squares)):  # fmt: skip
        out.append({"series": f"{name}{{{at}}}", "values": phases(*parts)})
    return out


Expected = dict[str, str] | list[dict[str, str]] | None
# alert -> list of (case name, input series, eval minute, labels of the expected alerts or None)
CASES: dict[str, list[tuple[str, list[dict[str, str]], int, Expected]]] = {
    "RagmonRefusalRateSpike": [
        # steps at 10 answers a minute; the table after 12 hours at the base rate, the
        # others after 3 hours (a thinner baseline: wider bounds, slower to fire)
        ("2% -> 8% (4x) after 12 hours, 30 min after", refusal(step(0.02, 4, LONG)), LONG + 30, None),
        ("2% -> 8% (4x) after 12 hours, 60 min after", refusal(step(0.02, 4, LONG)), LONG + 60, [TICKET]),
        ("20% -> 35% (1.75x) after 12 hours, 90 min after", refusal(step(0.20, 1.75, LONG)), LONG + 90, [TICKET]),
        ("5% -> 15% (3x) after 12 hours, 60 min after", refusal(step(0.05, 3, LONG)), LONG + 60, [TICKET]),
        ("20% -> 40% (2x) after 12 hours, 10 min after", refusal(step(0.20, 2, LONG)), LONG + 10, None),
        ("20% -> 40% (2x) after 12 hours, 15 min after", refusal(step(0.20, 2, LONG)), LONG + 15, [TICKET]),
        # the jump over the last three hours sees it first; the week's 1.25x margin not yet
        ("5% -> 15% (3x) after 12 hours, 15 min after", refusal(step(0.05, 3, LONG)), LONG + 15, [TICKET]),
        # a jump on the last three hours, but only back to the week's level
        ("10% -> 2% for 4 hours -> 10%, 15 min after",
         checks("refusal", [(1, LONG), (0.2, 240), (1, 15)], [(9, LONG), (9.8, 240), (9, 15)]), LONG + 255, None),
        ("2% -> 30%, 15 min after", refusal(step(0.02, 15)), HIST + 15, [PAGE, TICKET]),
        ("2% -> 8% (4x), 90 min after", refusal(step(0.02, 4)), HIST + 90, [TICKET]),
        ("5% -> 6% (1.2x), 3 h after", refusal(step(0.05, 1.2)), HIST + 180, None),
        ("steady 2%", refusal(Scenario("", 10, 0.02, HIST + 180)), HIST + 120, None),
        ("steady 20% at 100 answers a minute", refusal(Scenario("", 100, 0.20, HIST + 180)), HIST + 120, None),
        ("5-minute burst 2% -> 30%, 8 min after", refusal(burst(5)), HIST + 8, [TICKET]),
        ("5-minute burst 2% -> 30%, 30 min after", refusal(burst(5)), HIST + 30, None),
        ("steady 2%, 5 min after a restart", refusal(Scenario("", 10, 0.02, HIST + 60, restarts=(HIST,))), HIST + 5, None),
        ("2% -> 30% across a restart", refusal(step(0.02, 15, restarts=(HIST + 5,))), HIST + 15, [PAGE, TICKET]),
        ("a new route at 5%, after 30 min", refusal(Scenario("", 10, 0.05, 180)), 30, None),
        ("a new route at 5%, after 90 min", refusal(Scenario("", 10, 0.05, 180)), 90, None),
        ("nights at 0.2 answers a minute, steady 2%", refusal(Scenario("", 10, 0.02, HIST + 400, night=0.2)), HIST + 300, None),
        ("4 refusals in 20 quiet night minutes", checks("refusal", [(0.2, HIST), (0.2, 20)], [(9.8, HIST), (0, 20)]), HIST + 19, None),
        # upstream sampling: a tail sampler keeping every refusal and a tenth of the rest is
        # switched on at a steady 5%: 34% of the traces ragmon sees refuse, the traffic's share
        # (the weights) stays 5% (the rules before the weights paged here)
        ("tail sampling switched on at a steady 5%", tail_sampled([(0.05, 1, HIST), (0.05, 0.1, 90)]), HIST + 60, None),
        ("steady 5% tail-sampled throughout", tail_sampled([(0.05, 0.1, HIST + 90)]), HIST + 60, None),
        ("5% -> 25% tail-sampled throughout, 60 min after", tail_sampled([(0.05, 0.1, HIST), (0.25, 0.1, 90)]), HIST + 60, [PAGE, TICKET]),
    ],
    "RagmonUnsupportedNumbersHigh": [
        ("20% of answers", checks("unsupported_numbers", [(20, 60)], [(80, 60)]), 50, NUMBERS),
        ("5% of answers", checks("unsupported_numbers", [(5, 60)], [(95, 60)]), 50, None),
        ("2% -> 10% after 3 hours", checks("unsupported_numbers", [(0.2, HIST), (1, 90)], [(9.8, HIST), (9, 90)]), HIST + 80, NUMBERS),
    ],
    "RagmonEmptyContextSpike": [
        ("20% empty", checks("empty_context", [(20, 40)], [(80, 40)]), 30, EMPTY),
        ("2% empty", checks("empty_context", [(2, 40)], [(98, 40)]), 30, None),
        ("0.5% -> 10% after 3 hours", checks("empty_context", [(0.05, HIST), (1, 90)], [(9.95, HIST), (9, 90)]), HIST + 75, EMPTY),
    ],
    "RagmonFaithfulnessHardFails": [
        ("10% weighted hard fails", judged((2, 100), (18, 100), (1, 100), (9, 100)), 90, {"judge": "heuristic"}),
        ("1% weighted hard fails", judged((0.2, 100), (19.8, 100), (0, 100), (10, 100)), 90, None),
        ("2% -> 8% weighted hard fails after 12 hours", judged(
            [(0.2, LONG), (0.8, 90)], [(9.8, LONG), (9.2, 90)], [(0.2, LONG), (0.8, 90)], [(9.8, LONG), (9.2, 90)]),
         LONG + 80, {"judge": "heuristic"}),
    ],
    "RagmonSegmentCheckRise": [
        ("a spike confined to language=es (2% -> 20%), 60 min after", spanish_spike(), HIST + 60,
         {"dimension": "language", "segment": "es", "check": "refusal"}),
        ("a spike confined to language=es (2% -> 20%), 5 min after", spanish_spike(), HIST + 5, None),
        ("the same spike on a route: the route alerts' part", spanish_spike("route"), HIST + 60, None),
        ("a small segment: 1 answer a minute at 2%, then 4 refusals in 20 minutes",
         segment("language", "ko", [(0.02, HIST), (0.2, 20)], [(0.98, HIST), (0.8, 20)]), HIST + 19, None),
        ("steady 2% in every segment", segment("query_shape", "keyword", [(0.2, HIST + 90)], [(9.8, HIST + 90)]),
         HIST + 60, None),
        ("tail sampling switched on at a steady 5% in language=es",
         tail_sampled([(0.05, 1, HIST), (0.05, 0.1, 90)], where=ES), HIST + 60, None),
        ("5% -> 25% in language=es, tail-sampled throughout, 60 min after",
         tail_sampled([(0.05, 0.1, HIST), (0.25, 0.1, 90)], where=ES), HIST + 60, {**ES, "check": "refusal"}),
    ],
    "RagmonEscalationSpike": [
        ("2% -> 20% of follow-ups after 3 hours, 30 min after", followups([(0.2, HIST), (2, 60)], [(10, HIST + 60)]), HIST + 30, {}),
        ("2% -> 20% of follow-ups after 3 hours, 3 min after", followups([(0.2, HIST), (2, 60)], [(10, HIST + 60)]), HIST + 3, None),
        ("steady 2% of follow-ups", followups([(0.2, HIST + 60)], [(10, HIST + 60)]), HIST + 30, None),
        ("2% -> 3% (1.5x) of follow-ups", followups([(0.2, HIST), (0.3, 60)], [(10, HIST + 60)]), HIST + 45, None),
        ("4 escalations in 15 quiet minutes", followups([(0.02, HIST), (0.27, 15)], [(1, HIST), (1, 15)]), HIST + 15, None),
    ],
    "RagmonAbandonedSessionsRise": [
        ("10% -> 30% of 5 sessions a minute after 3 hours, 60 min after",
         sessions([(0.5, HIST), (1.5, 60)], [(4.5, HIST), (3.5, 60)]), HIST + 60, {}),
        ("10% -> 30% of 5 sessions a minute after 3 hours, 5 min after",
         sessions([(0.5, HIST), (1.5, 60)], [(4.5, HIST), (3.5, 60)]), HIST + 5, None),
        ("steady 10%", sessions([(0.5, HIST + 60)], [(4.5, HIST + 60)]), HIST + 45, None),
        ("10% -> 13%", sessions([(0.5, HIST), (0.65, 60)], [(4.5, HIST), (4.35, 60)]), HIST + 45, None),
        ("10% -> 50% of one session every 5 minutes", sessions([(0.02, HIST), (0.1, 60)],
         [(0.18, HIST), (0.1, 60)]), HIST + 60, None),
    ],
    "RagmonProbeRecallDrop": [
        ("recall 0.9 -> 0.5 after 3 hours", probes([(0.9, HIST), (0.5, 90)]), HIST + 80, {"route": "billing"}),
        ("recall steady at 0.9", probes([(0.9, HIST + 90)]), HIST + 80, None),
        ("recall 0.9 -> 0.5 at one probe every 5 minutes", probes([(0.9, HIST), (0.5, 90)], per_minute=0.2), HIST + 80, None),
    ],
    "RagmonUnanswerableProbeAnswered": [
        ("one answered", [{"series": 'ragmon_probe_traces_total{golden_version="v0001",route="billing",category="unanswerable",stage="answered"}', "values": "0x10 1x20"}], 15, {"route": "billing"}),
        ("abstained only", [{"series": 'ragmon_probe_traces_total{golden_version="v0001",route="billing",category="unanswerable",stage="abstained"}', "values": "0+1x30"}], 15, None),
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
    "RagmonAgentLoops": [
        ("a trace a minute runs one call 6 times in a row", [
            {"series": "ragmon_input_longest_repeat_count", "values": phases((10, 40))},
            {"series": 'ragmon_input_longest_repeat_bucket{le="4"}', "values": phases((9, 40))},
        ], 30, {}),
        ("repeats, never 5 in a row", [
            {"series": "ragmon_input_longest_repeat_count", "values": phases((10, 40))},
            {"series": 'ragmon_input_longest_repeat_bucket{le="4"}', "values": phases((10, 40))},
        ], 30, None),
        ("one such trace every ten minutes", [
            {"series": "ragmon_input_longest_repeat_count", "values": phases((10, 40))},
            {"series": 'ragmon_input_longest_repeat_bucket{le="4"}', "values": phases((9.9, 40))},
        ], 30, None),
    ],
    "RagmonAgentToolRepeats": [
        ("half the calls repeat", [
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="ok"}', "values": phases((10, 70))},
            {"series": 'ragmon_agent_tool_repeats_total{tool="search_help"}', "values": phases((5, 70))},
        ], 60, {"tool": "search_help"}),
        ("one call in ten repeats", [
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="ok"}', "values": phases((10, 70))},
            {"series": 'ragmon_agent_tool_repeats_total{tool="search_help"}', "values": phases((1, 70))},
        ], 60, None),
        ("half repeat at a call a minute", [
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="ok"}', "values": phases((1, 70))},
            {"series": 'ragmon_agent_tool_repeats_total{tool="search_help"}', "values": phases((0.5, 70))},
        ], 60, None),
    ],
    "RagmonAgentToolErrors": [
        ("three calls in ten fail", [
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="ok"}', "values": phases((7, 70))},
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="error"}', "values": phases((3, 70))},
        ], 60, {"tool": "search_help"}),
        ("one call in ten fails", [
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="ok"}', "values": phases((9, 70))},
            {"series": 'ragmon_agent_tool_calls_total{tool="search_help",outcome="error"}', "values": phases((1, 70))},
        ], 60, None),
    ],
    "RagmonDown": [
        ("scrapes fail", [{"series": 'up{job="ragmon"}', "values": "0x10"}], 5, {"job": "ragmon"}),
        ("scrapes succeed", [{"series": 'up{job="ragmon"}', "values": "1x10"}], 5, None),
    ],
}  # fmt: skip


def effective_hour(rate: float, kept: float, per_minute: float = 40) -> dict[str, Any]:
    """The recorded effective counts of a tail-sampled hour against Kish's formula worked out
    here: n_eff = n / (n * sum(w^2) / sum(w)^2) over the route's traces, and the flagged
    count n_eff times the weighted share (the traffic's rate)."""
    refused, rest = per_minute * rate, per_minute * (1 - rate)
    n, weight, squares = refused + rest * kept, per_minute, refused + rest / kept
    evaluated = 60 * n / (n * squares / weight**2)
    labels = '{app="support",check="refusal",route="billing"}'
    recorded = (("route_check:ragmon_check_evaluated:increase1h", evaluated),
                ("route_check:ragmon_check_flagged:increase1h", evaluated * rate))  # fmt: skip
    return {
        "name": f"effective counts of an hour at {rate:.0%}, a {1 / kept:g}th of the rest kept",
        "interval": "1m",
        "input_series": tail_sampled([(rate, kept, 90)]),
        "promql_expr_test": [
            {
                "expr": f"round({m}, 0.01)",
                "eval_time": "80m",
                "exp_samples": [{"labels": labels, "value": round(v, 2)}],
            }
            for m, v in recorded
        ],
    }


def _render(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)


def _expected(variants: list[dict[str, Any]], labels: dict[str, str]) -> dict[str, Any]:
    """The alert one rule variant fires with these labels (its severity picks the variant)."""
    rule = next(r for r in variants
                if len(variants) == 1 or r["labels"]["severity"] == labels["severity"])  # fmt: skip
    full = {**labels, **rule.get("labels", {})}
    return {
        "exp_labels": full,
        "exp_annotations": {k: _render(v, full) for k, v in rule["annotations"].items()},
    }


def build() -> str:
    rules: dict[str, list[dict[str, Any]]] = {}
    for g in yaml.safe_load(RULES.read_text())["groups"]:
        for r in g["rules"]:
            if "alert" in r:
                rules.setdefault(r["alert"], []).append(r)
    missing = set(rules) - set(CASES)
    if missing:
        raise SystemExit(f"alerts without test cases: {sorted(missing)}")
    tests: list[dict[str, Any]] = []
    for alert, cases in CASES.items():
        for name, series, minute, labels in cases:
            wanted = [] if labels is None else labels if isinstance(labels, list) else [labels]
            check = {"eval_time": f"{minute}m", "alertname": alert,
                     "exp_alerts": [_expected(rules[alert], w) for w in wanted]}  # fmt: skip
            last = tests[-1] if tests else None
            if last and last["input_series"] == series and last["name"].startswith(f"{alert}: "):
                # the same series checked at another time: one test group, one rule run
                last["name"] += f"; {name}"
                last["alert_rule_test"].append(check)
                continue
            tests.append({"name": f"{alert}: {name}", "interval": "1m", "input_series": series,
                          "alert_rule_test": [check]})  # fmt: skip
    tests += [effective_hour(0.05, 0.1), effective_hour(0.2, 0.01)]
    header = "# Generated by gen_rules_test.py from rules.yml; do not edit by hand.\n"
    body = {"rule_files": ["rules.yml"], "evaluation_interval": "1m", "tests": tests}
    return header + yaml.safe_dump(body, sort_keys=False, width=120)


if __name__ == "__main__":
    OUT.write_text(build())
    print(f"wrote {OUT.name}: {sum(len(c) for c in CASES.values())} cases", file=sys.stderr)
