"""Golden probes in the daemon: stage attribution on the real checks' output, retrieval
metrics at both depths, and the sink's metrics with a golden set that changes version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.golden import review
from monitor.golden.probes import load_set, retrieval_scores, stage_of
from monitor.telemetry import LabelLimiter
from sinks.probes import ProbeSink

POLICY = "Refunds are possible within 30 days of purchase."
OTHER = "Our offices are closed on public holidays."


def evaluation(
    answer: str, retrieved: list[str], packed: list[tuple[str, str]], gid: str = "g1"
) -> Evaluation:
    trace = RagTrace.from_data({
        "trace_id": "a" * 32, "query": "How long do I have to ask for a refund?",
        "route": "billing", "answer": answer, "golden_id": gid,
        "retrieved": [{"doc_id": d, "rank": i + 1} for i, d in enumerate(retrieved)],
        "context": [{"doc_id": d, "text": t} for d, t in packed],
    })  # fmt: skip
    return Evaluation(trace, CheckSuite()(trace))


ITEM: dict[str, Any] = {
    "id": "g1", "reference": "Within 30 days.", "expected": "answer",
    "gold_docs": [{"id": "policy", "grade": 3}], "category": "answerable",
}  # fmt: skip


@pytest.mark.parametrize(("answer", "retrieved", "packed", "stage"), [
    ("You can ask within 30 days [1].", ["policy", "hours"], [("policy", POLICY)], "ok"),
    ("You can ask within 30 days.", ["hours"], [("hours", OTHER)], "retrieval_miss"),
    ("You can ask within 30 days.", ["hours", "policy"], [("hours", OTHER)], "packing_miss"),
    ("I cannot find that in the docs.", ["policy"], [("policy", POLICY)], "generation_miss"),
    ("You can ask within 14 days [1].", ["policy"], [("policy", POLICY)], "generation_miss"),
])  # fmt: skip
def test_stage_that_lost_the_answer(
    answer: str, retrieved: list[str], packed: list[tuple[str, str]], stage: str
) -> None:
    assert stage_of(ITEM, evaluation(answer, retrieved, packed)) == stage


def test_unanswerable_probes_should_abstain() -> None:
    item = {**ITEM, "expected": "refuse", "gold_docs": []}
    refused = evaluation("I cannot find that in the documentation.", ["hours"], [("hours", OTHER)])
    answered = evaluation("Refunds take 90 days.", ["hours"], [("hours", OTHER)])
    assert (stage_of(item, refused), stage_of(item, answered)) == ("abstained", "answered")


def test_retrieval_metrics_at_both_depths() -> None:
    item = {**ITEM, "gold_docs": [{"id": "policy", "grade": 3}, {"id": "terms", "grade": 1}]}
    ev = evaluation("Within 30 days.", ["hours", "policy", "terms"], [("policy", POLICY)])
    got = retrieval_scores(item, ev)
    assert got[("recall", "retrieved")] == 1.0 and got[("mrr", "retrieved")] == 0.5
    assert got[("recall", "context")] == 0.5 and got[("mrr", "context")] == 1.0
    assert 0 < got[("ndcg", "retrieved")] < got[("ndcg", "context")] <= 1
    assert retrieval_scores({**ITEM, "gold_docs": []}, ev) == {}


def publish(tmp_path: Path, reference: str) -> None:
    row = {"id": "g1", "user_input": "q?", "retrieved_context_ids": ["policy"], "ragmon": {}}
    log = review.ReviewLog(tmp_path)
    after = log.latest().get("g1")
    review.decide(log, row, "accept", "ana", reference=reference, gold_docs={"policy": 3},
                  category="answerable", after=after.id if after else None)  # fmt: skip
    review.publish(review.golden_items({"g1": row}, log.read().decisions), tmp_path / "set")


def test_sink_counts_stages_and_picks_up_a_new_version(tmp_path: Path) -> None:
    publish(tmp_path, "Within 30 days.")
    registry, now = CollectorRegistry(), [0.0]
    sink = ProbeSink(
        tmp_path / "set", registry, LabelLimiter(), reload_seconds=10, clock=lambda: now[0]
    )
    sink.start()
    ok = evaluation("You can ask within 30 days [1].", ["policy"], [("policy", POLICY)])
    sink.write(ok)
    sink.write(evaluation("x", [], [], gid="nope"))
    sink.write(evaluation("no probe", [], [], gid=""))

    def count(version: str, stage: str, category: str = "answerable") -> float | None:
        labels = {"golden_version": version, "route": "billing", "category": category}
        return registry.get_sample_value("ragmon_probe_traces_total", {**labels, "stage": stage})

    assert count("v0001", "ok") == 1 and count("v0001", "unknown_golden_id", "unknown") == 1
    rec = {"golden_version": "v0001", "route": "billing", "metric": "recall", "depth": "context"}
    assert registry.get_sample_value("ragmon_probe_retrieval_count", rec) == 1
    assert registry.get_sample_value("ragmon_probe_retrieval_sum", rec) == 1.0
    publish(tmp_path, "Within 14 days.")  # the reference changes: v0002
    sink.write(ok)
    assert count("v0001", "ok") == 2  # not reloaded before reload_seconds
    now[0] = 11
    sink.write(ok)
    assert count("v0002", "generation_miss") == 1


def test_a_missing_golden_set_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(review.ReviewError, match="no golden-set version"):
        load_set(tmp_path)


def test_the_sink_refuses_to_start_without_a_golden_set(tmp_path: Path) -> None:
    from monitor.core.errors import ConfigError

    sink = ProbeSink(tmp_path / "missing", CollectorRegistry(), LabelLimiter())
    with pytest.raises(ConfigError, match=r"golden\.set_path"):
        sink.start()
