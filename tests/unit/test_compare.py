"""`ragmon compare`: the sign test equals scipy's exact binomial test, the bootstrap interval
is scipy's percentile bootstrap within resampling noise, and a release that breaks the
retriever on half the probes shows up as a recall drop with the flipped probes listed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from monitor.core.model import RagTrace
from monitor.golden import review
from monitor.golden.compare import bootstrap_interval, compare, sign_test
from tests.integration.conftest import ragmon

POLICY = "Refunds are possible within 30 days of purchase."
OTHER = "Our offices are closed on public holidays."


@pytest.mark.parametrize(("wins", "losses"), [(0, 0), (1, 0), (7, 3), (2, 15), (30, 30), (0, 12)])
def test_sign_test_equals_scipys_exact_binomial(wins: int, losses: int) -> None:
    want = 1.0 if wins + losses == 0 else binomtest(wins, wins + losses, 0.5).pvalue
    assert sign_test(wins, losses) == pytest.approx(want, rel=1e-12)


def test_bootstrap_interval_agrees_with_scipy() -> None:
    rng = random.Random(3)
    diffs = [rng.choice([-1.0, 0.0, 0.0, 0.5, 1.0]) for _ in range(80)]
    low, high = bootstrap_interval(diffs, reps=20_000)
    ref = bootstrap((np.array(diffs),), np.mean, n_resamples=20_000, method="percentile",
                    random_state=np.random.default_rng(1)).confidence_interval  # fmt: skip
    assert low == pytest.approx(ref.low, abs=0.02) and high == pytest.approx(ref.high, abs=0.02)


def trace(n: int, release: str, gid: str, packed_policy: bool) -> RagTrace:
    doc, text = ("policy", POLICY) if packed_policy else ("hours", OTHER)
    return RagTrace.from_data({
        "trace_id": f"{n + 1:032x}", "release": release, "golden_id": gid, "route": "billing",
        "query": "How long do I have to ask for a refund?",
        "retrieved": [{"doc_id": doc, "rank": 1}], "context": [{"doc_id": doc, "text": text}],
        "answer": "You can ask within 30 days [1]." if packed_policy else "I cannot find that.",
    })  # fmt: skip


def items(k: int) -> dict[str, dict[str, object]]:
    return {f"g{i}": {"id": f"g{i}", "reference": "Within 30 days.", "expected": "answer",
                      "gold_docs": [{"id": "policy", "grade": 3}]} for i in range(k)}  # fmt: skip


def test_a_broken_retriever_shows_as_a_paired_drop() -> None:
    traces = [trace(i, "r1", f"g{i}", True) for i in range(10)]
    traces += [trace(100 + i, "r2", f"g{i}", i % 2 == 0) for i in range(10)]  # half broken
    traces.append(trace(500, "r2", "not-golden", True))
    result = compare(traces, items(10), "r1", "r2")
    recall = next(m for m in result.metrics if m.metric == "recall@retrieved")
    assert (recall.pairs, recall.mean_a, recall.mean_b, recall.diff) == (10, 1.0, 0.5, -0.5)
    assert recall.worse == 5 and recall.better == 0
    assert recall.high < 0 and recall.p_value == pytest.approx(binomtest(0, 5).pvalue)
    assert sorted(f["golden_id"] for f in result.flipped) == ["g1", "g3", "g5", "g7", "g9"]
    assert {f["b"] for f in result.flipped} == {"retrieval_miss"}


def test_compare_command(tmp_path: Path) -> None:
    review.publish(
        [{"schema": "ragmon.golden/v1", **v} for v in items(6).values()], tmp_path / "set"
    )
    src = tmp_path / "traces.jsonl"
    lines = [trace(i, "r1", f"g{i}", True) for i in range(6)]
    lines += [trace(100 + i, "r2", f"g{i}", i > 2) for i in range(6)]
    src.write_text("".join(t.to_json() + "\n" for t in lines) + "not json\n")
    out = ragmon("compare", str(src), "--golden", str(tmp_path / "set"), "--release", "r1",
                 "--release", "r2", "--output-json", str(tmp_path / "cmp.json"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "recall@retrieved" in out.stdout and "flipped: g0" in out.stdout
    assert "skipped 1 lines" in out.stderr
    saved = json.loads((tmp_path / "cmp.json").read_text())
    assert saved["release_b"] == "r2" and len(saved["flipped"]) == 3
    none = ragmon("compare", str(src), "--golden", str(tmp_path / "set"), "--release", "r1",
                  "--release", "r9")  # fmt: skip
    assert none.returncode == 1 and "no golden probe answered under both" in none.stderr
    same = ragmon("compare", str(src), "--golden", str(tmp_path / "set"), "--release", "r1")
    assert same.returncode == 2


def test_the_table_columns_line_up_whatever_the_metric_names() -> None:
    """Every row's numbers start where the header's do (``precision@retrieved`` and the
    ``flagged:<check>`` rows are wider than the 18 characters the column had)."""
    traces = [trace(i, "r1", f"g{i}", True) for i in range(6)]
    traces += [trace(100 + i, "r2", f"g{i}", i % 2 == 0) for i in range(6)]
    lines = compare(traces, items(6), "r1", "r2").table().splitlines()
    rows = [x for x in lines if not x.startswith("flipped")]
    assert any(x.startswith("precision@retrieved ") for x in rows)
    ends = set()
    for x in rows:  # where the right-aligned "pairs" column ends on each row
        name = x.split()[0]
        second = x[len(name) :].split()[0]
        ends.add(x.index(second, len(name)) + len(second))
    assert len(ends) == 1, lines
