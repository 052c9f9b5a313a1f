"""`ragmon compare --gate`: a release that improves the mean while breaking the trap rows
fails the gate, naming the rule and the probes; a large category needs a significant drop; a
bad gate file is one clear error; the JUnit report is what CI reads."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from monitor.checks import CheckSuite
from monitor.core.model import RagTrace
from monitor.golden import review
from monitor.golden.compare import compare, metrics_of
from monitor.golden.gate import Gate, GateError, GateRule, load_gate, run_gate
from tests.integration.conftest import ragmon

ROOT = Path(__file__).resolve().parents[2]
POLICY = "Refunds are possible within 30 days of purchase."
LOOKALIKE = "Refunds of gift cards are possible within 60 days of purchase."
HOURS = "Our offices are closed on public holidays."
STALE = "Refunds were possible within 90 days of purchase."


def trace(n: int, release: str, gid: str, packed: list[tuple[str, str]], answer: str) -> RagTrace:
    return RagTrace.from_data({
        "trace_id": f"{n + 1:032x}", "release": release, "golden_id": gid, "route": "billing",
        "query": "How long do I have to ask for a refund?",
        "retrieved": [{"doc_id": d, "rank": i + 1} for i, (d, _) in enumerate(packed)],
        "context": [{"doc_id": d, "text": t} for d, t in packed],
        "answer": answer,
    })  # fmt: skip


def item(gid: str, category: str) -> dict[str, object]:
    return {"id": gid, "reference": "Within 30 days.", "expected": "answer", "category": category,
            "gold_docs": [{"id": "policy", "grade": 3}]}  # fmt: skip


def release_pair(happy: int, near: int, break_near: bool) -> tuple[list[RagTrace], dict]:
    """Release r2 fixes the retriever on the happy rows that r1 missed half the time, and
    (``break_near``) loses the right page to a look-alike on every near-miss row."""
    items, traces = {}, []
    good = [("policy", POLICY)]
    for i in range(happy):
        gid = f"happy{i}"
        items[gid] = item(gid, "answerable")
        r1 = good if i % 2 else [("hours", HOURS)]
        traces.append(trace(i, "r1", gid, r1, "Within 30 days [1]." if i % 2 else "Not found."))
        traces.append(trace(1000 + i, "r2", gid, good, "Within 30 days [1]."))
    for i in range(near):
        gid = f"near{i}"
        items[gid] = item(gid, "near_miss")
        traces.append(trace(2000 + i, "r1", gid, good, "Within 30 days [1]."))
        r2 = [("giftcards", LOOKALIKE)] if break_near else good
        traces.append(trace(3000 + i, "r2", gid, r2, "Within 45 days [1]." if break_near
                            else "Within 30 days [1]."))  # fmt: skip
    return traces, items


NEAR_MISS_GATE = Gate(rules=[
    GateRule(category="near_miss", metric="recall@retrieved", rule="no_drop"),
    GateRule(category="all", metric="recall@retrieved", rule="no_drop"),
])  # fmt: skip


def categories(items: dict) -> dict[str, str]:
    return {gid: i["category"] for gid, i in items.items()}


def test_a_better_mean_does_not_hide_broken_near_miss_rows() -> None:
    traces, items = release_pair(happy=20, near=5, break_near=True)
    result = compare(traces, items, "r1", "r2")
    recall = next(m for m in result.metrics if m.metric == "recall@retrieved")
    assert recall.diff > 0  # the mean improved: 10 rows fixed, 5 broken
    report = run_gate(NEAR_MISS_GATE, result, categories(items))
    (failed,) = report.failed
    assert failed.rule.category == "near_miss"
    assert failed.probes == [f"near{i}" for i in range(5)]
    assert "FAILED  near_miss: recall@retrieved no_drop" in report.table()
    assert "near0, near1" in report.table()
    # the same release without the regression passes
    fixed, items = release_pair(happy=20, near=5, break_near=False)
    assert not run_gate(NEAR_MISS_GATE, compare(fixed, items, "r1", "r2"), categories(items)).failed


def test_a_large_category_needs_a_significant_drop_a_small_one_any_drop() -> None:
    """One probe of 40 worse (sign p = 1): noise on a large category passes; one of 5 worse
    on a trap category fails; five of 40 worse and none better (p = 0.0625) passes at 0.05,
    fails at alpha 0.1."""

    def one_worse(n: int, worse: int) -> tuple[list[RagTrace], dict]:
        items, traces = {}, []
        for i in range(n):
            gid = f"g{i}"
            items[gid] = item(gid, "near_miss")
            traces.append(trace(i, "r1", gid, [("policy", POLICY)], "Within 30 days [1]."))
            r2 = [("hours", HOURS)] if i < worse else [("policy", POLICY)]
            traces.append(trace(500 + i, "r2", gid, r2, "Within 30 days [1]."))
        return traces, items

    rule = [GateRule(category="near_miss", metric="recall@retrieved", rule="no_drop")]
    for n, worse, alpha, fails in ((40, 1, 0.05, False), (5, 1, 0.05, True),
                                   (40, 5, 0.05, False), (40, 5, 0.1, True)):  # fmt: skip
        traces, items = one_worse(n, worse)
        gate = Gate(rules=rule, alpha=alpha)
        report = run_gate(gate, compare(traces, items, "r1", "r2"), categories(items))
        assert bool(report.failed) is fails, (n, worse, alpha, report.table())
    traces, items = one_worse(5, 1)
    tolerant = Gate(rules=[rule[0].model_copy(update={"tolerance": 0.25})])
    assert not run_gate(tolerant, compare(traces, items, "r1", "r2"), categories(items)).failed


def test_max_and_min_rules_and_empty_categories() -> None:
    traces, items = release_pair(happy=4, near=3, break_near=True)
    result = compare(traces, items, "r1", "r2")
    gate = Gate(rules=[
        GateRule(category="near_miss", metric="answered_ok", rule="min", value=1.0),
        GateRule(category="answerable", metric="flagged:unsupported_numbers", rule="max",
                 value=0),
        GateRule(category="near_miss", metric="flagged:unsupported_numbers", rule="max",
                 value=0),
        GateRule(category="multi_hop", metric="recall@context", rule="no_drop"),
    ])  # fmt: skip
    report = run_gate(gate, result, categories(items))
    assert [o.status for o in report.outcomes] == ["failed", "passed", "failed", "failed"]
    assert report.outcomes[0].probes == ["near0", "near1", "near2"]  # the look-alike's answer
    assert report.outcomes[2].probes == ["near0", "near1", "near2"]  # "45 days": in no passage
    assert "no probe of multi_hop" in report.outcomes[3].message
    skipping = gate.model_copy(update={"on_empty": "skip"})
    assert run_gate(skipping, result, categories(items)).outcomes[3].status == "skipped"


def test_junit_report_counts_rules_and_failures() -> None:
    traces, items = release_pair(happy=6, near=3, break_near=True)
    report = run_gate(NEAR_MISS_GATE, compare(traces, items, "r1", "r2"), categories(items))
    suite = ET.fromstring(report.junit()).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failures = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["near_miss: recall@retrieved no_drop"]
    assert "near0, near1, near2" in (failures[0].find("failure").text or "")  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "says"), [
    ("rules: [{category: nearmiss, metric: answered_ok, rule: no_drop}]", "category 'nearmiss'"),
    ("rules: [{category: near_miss, metric: recall, rule: no_drop}]", "metric 'recall'"),
    ("rules: [{category: near_miss, metric: answered_ok, rule: max}]", "needs a value"),
    ("rules: [{category: all, metric: answered_ok, rule: no_drop, value: 1}]", "takes no value"),
    ("rules: [{category: all, metric: answered_ok, rule: at_most}]", "rules.0.rule"),
    ("rules: []", "rules"),
    ("rule: []", "rule"),
    ("rules: [{", "not YAML"),
])  # fmt: skip
def test_a_bad_gate_is_one_clear_error(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "gate.yaml"
    path.write_text(text)
    with pytest.raises(GateError, match="gate") as err:
        load_gate(path, metrics_of(CheckSuite()))
    assert says in str(err.value)


def test_the_example_gate_loads_and_covers_every_trap_category() -> None:
    gate = load_gate(ROOT / "examples" / "gate.yaml", metrics_of(CheckSuite()))
    covered = {r.category for r in gate.rules}
    assert set(review.TRAP_CATEGORIES) - {"answerable"} <= covered


def test_compare_gate_command(tmp_path: Path) -> None:
    traces, items = release_pair(happy=20, near=5, break_near=True)
    review.publish([{"schema": "ragmon.golden/v1", **i} for i in items.values()], tmp_path / "set")
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(t.to_json() + "\n" for t in traces))
    gate = tmp_path / "gate.yaml"
    gate.write_text("rules:\n  - {category: near_miss, metric: recall@retrieved, rule: no_drop}\n"
                    "  - {category: all, metric: recall@retrieved, rule: no_drop}\n")  # fmt: skip
    args = ("compare", str(src), "--golden", str(tmp_path / "set"), "--release", "r1",
            "--release", "r2", "--gate", str(gate))  # fmt: skip
    out = ragmon(*args, "--junit", str(tmp_path / "gate.xml"), "--output-json",
                 str(tmp_path / "cmp.json"))  # fmt: skip
    assert out.returncode == 1, out.stderr
    assert "gate: 1 of 2 rules failed" in out.stdout and "probes: near0" in out.stdout
    assert ET.parse(tmp_path / "gate.xml").getroot().find("testsuite").get("failures") == "1"  # type: ignore[union-attr]
    saved = json.loads((tmp_path / "cmp.json").read_text())
    assert [g["status"] for g in saved["gate"]] == ["failed", "passed"]
    gate.write_text("rules: [{category: near_miss, metric: recal, rule: no_drop}]\n")
    bad = ragmon(*args)
    assert bad.returncode == 2 and "metric 'recal'" in bad.stderr
    assert ragmon(*args[:-2], "--junit", str(tmp_path / "x.xml")).returncode == 2
