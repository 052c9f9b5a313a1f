"""Generates dashboards/ragmon.json, the Grafana dashboard (provisioned from files, or
imported: its ``__inputs`` ask for the Prometheus data source).

    python dashboards/build.py

Dashboards as code, with Grafana's typed SDK (``grafana-foundation-sdk``, generated from
Grafana's schemas): every PromQL expression lives in one table that the tests evaluate
against a real Prometheus scraping ragmon (tests/deploy/test_dashboard_queries.py), and a
test checks the committed JSON equals what this script produces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grafana_foundation_sdk.builders import common, dashboard, prometheus, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common as common_models
from grafana_foundation_sdk.models import dashboard as dashboard_models

OUT = Path(__file__).resolve().parent / "ragmon.json"
SEL = 'app=~"$app",route=~"$route"'
Z2 = 1.959963984540054**2  # z² for a 95 % interval


def effective(results: str, traces: str, where: str, check: str, by: str = "") -> tuple[str, str]:
    """A check's flagged and evaluated counts over 5 minutes as the alert rules read them
    (deploy/prometheus/rules.yml): under upstream sampling the evaluated count divided by the
    weights' design effect n * sum(w^2) / sum(w)^2 (Kish) and the flagged one that times the
    weighted share; the plain counts where no weight counters are exported. ``where`` selects
    the traces, ``check`` adds the check (and ``result`` is added), ``by`` is the grouping."""

    def inc(name: str, sel: str) -> str:
        return f"sum {by} (increase({name}{{{sel}}}[5m]))".replace("  ", " ")

    outcomes = ('!="not_applicable"', '="flagged"')
    n, f = (inc(f"{results}_total", f"{where},{check},result{r}") for r in outcomes)
    wn, wf = (inc(f"{results}_weight_total", f"{where},{check},result{r}") for r in outcomes)
    deff = (f"clamp_min({inc(f'{traces}_total', where)} * {inc(f'{traces}_weight_squares_total', where)}"
            f" / ({inc(f'{traces}_weight_total', where)} ^ 2 > 0), 1)")  # fmt: skip
    evaluated = f"clamp_min(({n} / {deff} or {n}), 1)"
    flagged = f"({evaluated} * ({wf} or 0 * {wn}) / ({wn} > 0) or {f})"
    return flagged, evaluated


def _counts(check: str) -> tuple[str, str]:
    return effective("ragmon_check_results", "ragmon_traces", SEL, f'check="{check}"')


def wilson(f: str, n: str, legend: str = "") -> list[tuple[str, str]]:
    """The share ``f / n`` and its 95 % Wilson interval, all in PromQL (``legend`` before
    each line's name: ``{{segment}}`` for a share per segment)."""
    p = f"({f} / {n})"
    centre = f"({p} + {Z2 / 2:.6f} / {n})"
    half = f"(1.959964 * sqrt({p} * (1 - {p}) / {n} + {Z2 / 4:.6f} / ({n} * {n})))"
    denom = f"(1 + {Z2:.6f} / {n})"
    return [
        (p, legend or "rate"),
        (f"clamp_min(({centre} - {half}) / {denom}, 0)", f"{legend} 95% low".strip()),
        (f"clamp_max(({centre} + {half}) / {denom}, 1)", f"{legend} 95% high".strip()),
    ]


def wilson_targets(check: str) -> list[tuple[str, str]]:
    """The share flagged over 5 minutes and its 95 % Wilson interval."""
    return wilson(*_counts(check))


def alert_targets(check: str) -> list[tuple[str, str]]:
    """What the rate alerts compare (deploy/prometheus/rules.yml): the 15-minute share
    against the 7-day baseline and the shares at which the ticket (1.25x) and the page (2x)
    would fire for the answers the window holds (the rise score of 3.5 turned back into a
    share: sin(asin(sqrt(k * baseline upper bound)) + 3.5 / (2 sqrt(n)))^2), and the share at
    which the jump over the last three hours raises a ticket (the jump score of 3.5 turned back
    the same way, but at least 2 standard errors over the baseline's upper bound)."""
    sel = f'check="{check}",{SEL}'
    r = "route_check:ragmon_check_flagged"
    n = f"route_check:ragmon_check_evaluated:increase15m{{{sel}}}"

    def fires_at(k: str) -> str:
        base = f"asin(sqrt(clamp_max({k} * {r}:ratio7d_high{{{sel}}}, 1)))"
        return f"sin(clamp_max({base} + 1.75 / sqrt({n}), 1.5708)) ^ 2"

    e3h = f"route_check:ragmon_check_evaluated:increase3h_before30m{{{sel}}}"
    recent = f"(({r}:increase3h_before30m{{{sel}}} + 0.375) / ({e3h} + 0.75))"
    jump = f"(asin(sqrt(clamp_max(1.15 * {recent}, 1))) + 1.75 * sqrt(1 / {n} + 1 / {e3h}))"
    week = f"(asin(sqrt(clamp_max({r}:ratio7d_high{{{sel}}}, 1))) + 1 / sqrt({n}))"
    return [
        (f"{r}:ratio7d{{{sel}}}", "{{route}} 7-day baseline"),
        (f"{r}:ratio15m{{{sel}}}", "{{route}} last 15 min"),
        (fires_at("1.25"), "{{route}} ticket at"),
        (
            f"sin(clamp_max(({jump} > {week}) or {week}, 1.5708)) ^ 2",
            "{{route}} ticket at (jump on last 3 h)",
        ),
        (fires_at("2"), "{{route}} page at"),
    ]


def probe_targets(metric: str) -> list[tuple[str, str]]:
    """Golden probes: the mean of `metric` over 1 h at both depths, with the 95 % interval of
    the retriever-depth mean (from the sum of squares)."""

    def total(name: str, depth: str) -> str:
        sel = f'metric="{metric}",depth="{depth}",route=~"$route"'
        return f"sum(increase(ragmon_probe_retrieval_{name}{{{sel}}}[1h]))"

    n = f"clamp_min({total('count', 'retrieved')}, 1)"
    mean = f"({total('sum', 'retrieved')} / {n})"
    half = (
        f"1.96 * sqrt(clamp_min({total('squares_total', 'retrieved')} / {n} - {mean} ^ 2, 0) / {n})"
    )
    packed = f"{total('sum', 'context')} / clamp_min({total('count', 'context')}, 1)"
    return [
        (mean, "retrieved"),
        (f"clamp_min({mean} - {half}, 0)", "retrieved, 95% low"),
        (f"clamp_max({mean} + {half}, 1)", "retrieved, 95% high"),
        (packed, "packed context"),
    ]


def segment_targets() -> list[tuple[str, str]]:
    """The flagged share of check $check in each segment of dimension $dimension over 5
    minutes, with its 95 % Wilson interval (one dimension per series: never a cross product)."""
    f, n = effective("ragmon_segment_check_results", "ragmon_segment_traces",
                     'dimension="$dimension"', 'check="$check"', "by (segment)")  # fmt: skip
    return wilson(f, n, "{{segment}}")


SHADOW = "ragmon_shadow_results_total"
SHADOW_JUDGE = "ragmon_shadow_judge_verdicts_total"
VERDICTS = ("pass", "fail", "hard_fail", "not_applicable")
SHADOW_BOTH = (
    f'sum by (check) (increase({SHADOW}{{live=~"flagged|passed",shadow=~"flagged|passed"}}[1h]))'
)


def flips(live: str, shadow: str) -> str:
    """Traces per check whose outcome went from ``live`` to ``shadow`` in the last hour (0,
    not absent, where none did)."""
    return f'(sum by (check) (increase({SHADOW}{{live="{live}",shadow="{shadow}"}}[1h])) or 0 * {SHADOW_BOTH})'


def shadow_judge_agreement() -> str:
    """The share of the traces both judges gave a verdict on where they gave the same."""
    same = " or ".join(f'increase({SHADOW_JUDGE}{{live="{v}",shadow="{v}"}}[1h])' for v in VERDICTS)
    both = f'sum(increase({SHADOW_JUDGE}{{shadow=~"{"|".join(VERDICTS)}"}}[1h]))'
    return f"(sum({same}) or vector(0)) / {both}"


def shadow_targets() -> list[tuple[str, str]]:
    """The shadow candidate against the live checks over the last hour, per check: the paired
    difference of the flagged share (shadow - live) with its 95 % interval (the normal
    approximation of paired binary differences, as the replay summary computes it)."""
    up, down = flips("passed", "flagged"), flips("flagged", "passed")
    both = SHADOW_BOTH
    diff = f"(({up} - {down}) / {both})"
    half = f"(1.96 * sqrt(clamp_min(({up} + {down}) / {both} - {diff} ^ 2, 0) / {both}))"
    return [(diff, "{{check}} shadow - live"), (f"{diff} - {half}", "{{check}} 95% low"),
            (f"{diff} + {half}", "{{check}} 95% high")]  # fmt: skip


def input_quantiles(*inputs: str) -> list[tuple[str, str]]:
    """Median and 90th percentile of measured inputs over 5 minutes."""
    out = []
    for name in inputs:
        buckets = f"sum by (le) (rate(ragmon_input_{name}_bucket[5m]))"
        out += [(f"histogram_quantile(0.5, {buckets})", f"{name} median"),
                (f"histogram_quantile(0.9, {buckets})", f"{name} p90")]  # fmt: skip
    return out


PANELS: list[dict[str, Any]] = [
    {"title": "Traces evaluated per second", "unit": "reqps", "targets": [
        (f"sum by (route) (rate(ragmon_traces_total{{{SEL}}}[$__rate_interval]))", "{{route}}")]},
    {"title": "Refusal rate (95% Wilson band)", "unit": "percentunit", "targets": wilson_targets("refusal")},
    {"title": "Refusal alert: the 15-minute share against its baseline and the shares that raise a ticket or a page", "unit": "percentunit",
     "targets": alert_targets("refusal"), "recorded": True},
    {"title": "What users did next: rephrase and escalation shares of follow-ups, after refusals and after clean answers",
     "unit": "percentunit", "targets": [
        ('sum by (signal, after) (rate(ragmon_followups_total{signal=~"rephrase|escalation",after=~"refusal|clean"}[5m])) '
         '/ ignoring(signal) group_left sum by (after) (rate(ragmon_followup_pairs_total{after=~"refusal|clean"}[5m]))',
         "{{signal}} after {{after}}")]},
    {"title": "How conversations ended: share of the sessions closed by outcome (resolved, escalated, abandoned after a failure, unresolved)",
     "unit": "percentunit", "targets": [
        ('sum by (outcome) (rate(ragmon_session_outcomes_total{route=~"$route"}[5m])) '
         '/ ignoring(outcome) group_left sum(rate(ragmon_session_outcomes_total{route=~"$route"}[5m]))',
         "{{outcome}}")]},
    {"title": "Conversations: time from the first turn to the outcome (median), by outcome",
     "unit": "s", "targets": [
        ('histogram_quantile(0.5, sum by (le, outcome) '
         '(rate(ragmon_session_to_outcome_seconds_bucket{route=~"$route"}[5m])))', "{{outcome}}")]},
    {"title": "Reviewed precision of each check (95% Wilson band, from golden review decisions)",
     "unit": "percentunit", "targets": [
        ('max by (check) (ragmon_check_review_precision{bound="estimate",route=~"$route"})', "{{check}}"),
        ('max by (check) (ragmon_check_review_precision{bound="low",route=~"$route"})', "{{check}} 95% low"),
        ('max by (check) (ragmon_check_review_precision{bound="high",route=~"$route"})', "{{check}} 95% high")]},
    {"title": "Answers with unsupported numbers (95% Wilson band)", "unit": "percentunit",
     "targets": wilson_targets("unsupported_numbers")},
    {"title": "Answers with names not in the context (95% Wilson band)", "unit": "percentunit",
     "targets": wilson_targets("unsupported_names")},
    {"title": "Answers without a valid citation (95% Wilson band)", "unit": "percentunit",
     "targets": wilson_targets("citation")},
    {"title": "Invalid citations per second", "unit": "reqps", "targets": [
        (f"sum by (route) (rate(ragmon_invalid_citations_total{{{SEL}}}[5m]))", "{{route}}")]},
    {"title": "Empty context: check retrieval first (95% Wilson band)", "unit": "percentunit",
     "targets": wilson_targets("empty_context")},
    {"title": "Conflicting passages in context (95% Wilson band)", "unit": "percentunit",
     "targets": wilson_targets("context_conflict")},
    {"title": "Grounding overlap (median, p10)", "unit": "percentunit", "targets": [
        (f"histogram_quantile(0.5, sum by (le) (rate(ragmon_grounding_overlap_ratio_bucket{{{SEL}}}[5m])))", "median"),
        (f"histogram_quantile(0.1, sum by (le) (rate(ragmon_grounding_overlap_ratio_bucket{{{SEL}}}[5m])))", "p10")]},
    {"title": "Judged faithfulness: weighted (unbiased) shares", "unit": "percentunit", "targets": [
        ('sum by (verdict) (rate(ragmon_judge_verdict_weight_total{verdict!="not_applicable"}[5m])) '
         '/ ignoring(verdict) group_left sum(rate(ragmon_judge_verdict_weight_total{verdict!="not_applicable"}[5m]))',
         "{{verdict}}")]},
    {"title": "Judged answer relevance: weighted (unbiased) shares", "unit": "percentunit", "targets": [
        ('sum by (relevance) (rate(ragmon_judge_answer_relevance_weight_total[5m])) '
         '/ ignoring(relevance) group_left sum(rate(ragmon_judge_answer_relevance_weight_total[5m]))',
         "{{relevance}}")]},
    {"title": "Judged context precision: relevant share of the packed passages (weighted)",
     "unit": "percentunit", "targets": [
        ('sum(rate(ragmon_judge_context_passages_weight_total{relevance="relevant"}[5m])) '
         '/ sum(rate(ragmon_judge_context_passages_weight_total[5m]))', "context precision")]},
    {"title": "Judged traces (count, 5m)", "unit": "short", "targets": [
        ("sum by (verdict) (increase(ragmon_judge_verdicts_total[5m]))", "{{verdict}}")]},
    {"title": "Claims by label", "unit": "short", "targets": [
        ("sum by (label) (rate(ragmon_judge_claims_total[5m]))", "{{label}}")]},
    {"title": "Judge funnel", "unit": "reqps", "targets": [
        ("sum by (outcome) (rate(ragmon_judge_decisions_total[5m]))", "{{outcome}}")]},
    {"title": "Judge cost (USD per day at the current pace)", "unit": "currencyUSD", "targets": [
        ("sum(rate(ragmon_judge_cost_usd_total[5m])) * 86400", "USD/day")]},
    {"title": "Judge tokens per second", "unit": "short", "targets": [
        ("sum by (kind) (rate(ragmon_judge_tokens_total[5m]))", "{{kind}}")]},
    {"title": "Judge latency (p50, p95)", "unit": "s", "targets": [
        ("histogram_quantile(0.5, sum by (le) (rate(ragmon_judge_latency_seconds_bucket[5m])))", "p50"),
        ("histogram_quantile(0.95, sum by (le) (rate(ragmon_judge_latency_seconds_bucket[5m])))", "p95")]},
    {"title": "Judge errors by kind", "unit": "reqps", "targets": [
        ("sum by (kind) (rate(ragmon_judge_errors_total[5m]))", "{{kind}}")]},
    {"title": "Judge calibration (how far to trust it)", "unit": "percentunit", "targets": [
        ('max by (measure) (ragmon_judge_calibration{measure=~"kappa|agreement|hard_fail_sensitivity|hard_fail_specificity"})',
         "{{measure}}")]},
    {"title": "Golden probes: recall at the retriever's and the packed context's depth (1 h mean)",
     "unit": "percentunit", "targets": probe_targets("recall")},
    {"title": "Golden probes: nDCG (1 h mean)", "unit": "percentunit", "targets": probe_targets("ndcg")},
    {"title": "Golden probes by the stage that lost the answer (1 h)", "unit": "short", "targets": [
        ('sum by (stage) (increase(ragmon_probe_traces_total{route=~"$route"}[1h]))', "{{stage}}")]},
    {"title": "Flagged share of $check per segment of $dimension (95% Wilson band)",
     "unit": "percentunit", "targets": segment_targets()},
    {"title": "Traces per segment of $dimension", "unit": "reqps", "targets": [
        ('sum by (segment) (rate(ragmon_segment_traces_total{dimension="$dimension"}[$__rate_interval]))',
         "{{segment}}")]},
    {"title": "Judged hard fails per segment of $dimension (weighted share)", "unit": "percentunit", "targets": [
        ('sum by (segment) (rate(ragmon_segment_judge_verdict_weight_total{dimension="$dimension",verdict="hard_fail"}[5m])) '
         '/ sum by (segment) (rate(ragmon_segment_judge_verdict_weight_total{dimension="$dimension",verdict!="not_applicable"}[5m]))',
         "{{segment}}")]},
    {"title": "Inputs: packed passages and retrieved candidates (median, p90)", "unit": "short",
     "targets": input_quantiles("passages", "retrieved")},
    {"title": "Inputs: context, query and answer size in characters (median, p90)", "unit": "short",
     "targets": input_quantiles("context_chars", "query_chars", "answer_chars")},
    {"title": "Inputs: best retrieval score and its gap to the second (median, p90)", "unit": "short",
     "targets": input_quantiles("top_score", "score_gap")},
    {"title": "Inputs: packed documents' age (median, p90)", "unit": "s",
     "targets": input_quantiles("doc_age_seconds")},
    {"title": "Input drift: last hour against the 7 days before (0 the same, 1 disjoint)", "unit": "short",
     "targets": [("input:ragmon_input:drift1h", "{{input}}")], "recorded": "inputs"},
    {"title": "Input medians: last hour and the 7 days before", "unit": "short", "targets": [
        ("input:ragmon_input:median1h", "{{input}} last hour"),
        ("input:ragmon_input:median7d", "{{input}} 7 days before")], "recorded": "inputs"},
    {"title": "Shadow candidate: agreement with the live checks on the same traces (1 h)",
     "unit": "percentunit", "targets": [
        (f'sum by (check) (increase({SHADOW}{{live="flagged",shadow="flagged"}}[1h]) or increase({SHADOW}{{live="passed",shadow="passed"}}[1h])) '
         f"/ {SHADOW_BOTH}", "{{check}}")]},
    {"title": "Shadow candidate: flips each way (1 h)", "unit": "short", "targets": [
        (flips("flagged", "passed"), "{{check}} flagged live, passed by the shadow"),
        (flips("passed", "flagged"), "{{check}} passed live, flagged by the shadow")]},
    {"title": "Shadow candidate: flagged share, shadow minus live, with its 95% interval (1 h)",
     "unit": "percentunit", "targets": shadow_targets()},
    {"title": "Shadow judge: agreement with the live judge, and hard fails only one of them gave (1 h)",
     "unit": "short", "targets": [
        (shadow_judge_agreement(), "agreement (share)"),
        (f'sum(increase({SHADOW_JUDGE}{{live="hard_fail",shadow=~"pass|fail|not_applicable"}}[1h])) or vector(0)',
         "hard fail live only"),
        (f'sum(increase({SHADOW_JUDGE}{{live=~"pass|fail|not_applicable",shadow="hard_fail"}}[1h])) or vector(0)',
         "hard fail shadow only")]},
    {"title": "Consumer lag (records)", "unit": "short", "targets": [
        ("sum by (topic) (ragmon_kafka_consumer_lag)", "{{topic}}")]},
    {"title": "Dead letters by reason", "unit": "reqps", "targets": [
        ("sum by (reason) (rate(ragmon_dead_letters_total[5m]))", "{{reason}}")]},
    {"title": "OTLP traces by recognised convention", "unit": "reqps", "targets": [
        ('sum by (convention) (rate(ragmon_assembly_traces_total{outcome!="late"}[5m]))', "{{convention}}")]},
    {"title": "OTLP traces by instrumentation version (watch after an upgrade)", "unit": "reqps", "targets": [
        ('sum by (instrumentation, version, convention) (rate(ragmon_otlp_instrumentation_traces_total[5m]))',
         "{{instrumentation}} {{version}}: {{convention}}")]},
    {"title": "OTLP passages whose document id the spans do not tell", "unit": "reqps", "targets": [
        ("sum by (convention) (rate(ragmon_otlp_ids_unresolved_total[5m]))", "{{convention}}")]},
    {"title": "Agent tool calls per second, by tool", "unit": "reqps", "targets": [
        ("sum by (tool) (rate(ragmon_agent_tool_calls_total[5m]))", "{{tool}}")]},
    {"title": "Agent tool calls that failed (share), by tool", "unit": "percentunit", "targets": [
        ('sum by (tool) (rate(ragmon_agent_tool_calls_total{outcome="error"}[5m])) '
         '/ sum by (tool) (rate(ragmon_agent_tool_calls_total[5m])) '
         'or 0 * sum by (tool) (rate(ragmon_agent_tool_calls_total[5m]))', "{{tool}}")]},
    {"title": "Agent tool latency (mean seconds a call), by tool", "unit": "s", "targets": [
        ("sum by (tool) (rate(ragmon_agent_tool_seconds_total[5m])) "
         "/ sum by (tool) (rate(ragmon_agent_tool_calls_total[5m]))", "{{tool}}")]},
    {"title": "Agent loops: repeated tool calls by tool, and traces running one call 5+ times in a row",
     "unit": "reqps", "targets": [
        ("sum by (tool) (rate(ragmon_agent_tool_repeats_total[5m]))", "{{tool}} repeated calls"),
        ('sum(rate(ragmon_input_longest_repeat_count[5m])) '
         '- sum(rate(ragmon_input_longest_repeat_bucket{le="4"}[5m]))', "traces with a run of 5+")]},
    {"title": "Agent steps to the answer and the longest run of one tool call", "unit": "short",
     "targets": input_quantiles("agent_steps", "longest_repeat")},
    {"title": "OTLP assembly: evicted and incomplete traces", "unit": "reqps", "targets": [
        ('sum by (outcome) (rate(ragmon_assembly_traces_total{outcome!="complete"}[5m]))', "{{outcome}}")]},
    {"title": "OTLP assembly buffer (traces waiting) and partitions held", "unit": "short", "targets": [
        ("sum(ragmon_assembly_buffered_traces)", "buffered"),
        ("sum(ragmon_kafka_partitions_held)", "partitions held (catching up in step)")]},
    {"title": "Seconds since the last offset commit", "unit": "s", "targets": [
        ("time() - max(ragmon_last_commit_timestamp_seconds)", "commit age")]},
]  # fmt: skip


_DS = dashboard_models.DataSourceRef(type_val="prometheus", uid="${datasource}")
GRAFANA = "11.1.0"  # the version deploy/compose.yaml runs; __requires names it


def _panel(i: int, spec: dict[str, Any]) -> timeseries.Panel:
    panel = (
        timeseries.Panel()
        .id(i + 1)
        .title(spec["title"])
        .datasource(_DS)
        .grid_pos(dashboard_models.GridPos(h=8, w=12, x=12 * (i % 2), y=8 * (i // 2)))
        .unit(spec["unit"])
        .legend(
            common.VizLegendOptions()
            .display_mode(common_models.LegendDisplayMode.LIST)
            .placement(common_models.LegendPlacement.BOTTOM)
            .show_legend(True)
        )
    )
    for k, (expr, legend) in enumerate(spec["targets"]):
        query = prometheus.Dataquery().ref_id(chr(65 + k)).expr(expr).legend_format(legend)
        # a flagged share shows the counter's exemplars: the last flagged trace of each label
        # set, linked (the data source's exemplar destinations) to its candidate row on the
        # review page, and to the trace in a tracing backend
        if 'result="flagged"' in expr:
            query = query.exemplar(True)
        panel = panel.with_target(query.datasource(_DS))
    return panel


def _variable(name: str, label: str, query: str, many: bool = True) -> dashboard.QueryVariable:
    variable = (
        dashboard.QueryVariable(name)
        .label(label)
        .datasource(_DS)
        .query({"query": query, "refId": name})
        .refresh(dashboard_models.VariableRefresh.ON_TIME_RANGE_CHANGED)
    )
    if not many:  # one value at a time (a segment dimension, a check)
        return variable.include_all(False).multi(False)
    return variable.include_all(True).multi(True).all_value(".*")


def build() -> dict[str, Any]:
    """The dashboard, built with Grafana's typed SDK, with the import metadata that makes
    "Import dashboard" ask for the Prometheus data source."""
    board = (
        dashboard.Dashboard("ragmon: RAG quality")
        .uid("ragmon-overview")
        .tags(["ragmon", "rag"])
        .timezone("browser")
        .refresh("30s")
        .time("now-6h", "now")
        .with_variable(
            dashboard.DatasourceVariable("datasource")
            .label("Data source")
            .type("prometheus")
            .current(dashboard_models.VariableOption(text="Prometheus", value="${DS_PROMETHEUS}"))
        )
        .with_variable(_variable("app", "App", "label_values(ragmon_traces_total, app)"))
        .with_variable(
            _variable("route", "Route", 'label_values(ragmon_traces_total{app=~"$app"}, route)')
        )
        .with_variable(
            _variable(
                "dimension",
                "Segment dimension",
                "label_values(ragmon_segment_traces_total, dimension)",
                many=False,
            )
        )
        .with_variable(
            _variable(
                "check", "Check", "label_values(ragmon_check_results_total, check)", many=False
            )
        )
    )
    for i, spec in enumerate(PANELS):
        board = board.with_panel(_panel(i, spec))
    out: dict[str, Any] = json.loads(JSONEncoder(sort_keys=False).encode(board.build()))
    return {
        "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "description": "",
                      "type": "datasource", "pluginId": "prometheus",
                      "pluginName": "Prometheus"}],
        "__requires": [
            {"type": "grafana", "id": "grafana", "name": "Grafana", "version": GRAFANA},
            {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"},
            {"type": "panel", "id": "timeseries", "name": "Time series", "version": ""},
        ],
        **out,
    }  # fmt: skip


def expressions(recorded: bool | str = False) -> list[str]:
    """The dashboard's PromQL expressions over ragmon's own metrics, or (`recorded`) over the
    series the alert rules record, which need an hour of rule history (tests evaluate both:
    the first against a live Prometheus, the second with promtool); `recorded="inputs"`: the
    input drift panels' recorded series."""
    return [
        expr for p in PANELS if p.get("recorded", False) == recorded for expr, _ in p["targets"]
    ]


def render() -> str:
    return json.dumps(build(), indent=2) + "\n"


if __name__ == "__main__":
    OUT.write_text(render())
