"""Candidate golden rows: shapes, categories, redaction, deduplication, export."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.core.pii import Redactor
from monitor.golden import export as golden_export
from monitor.golden.rows import CATEGORIES, build_row, row_id
from monitor.sources import demo
from sinks.golden import GoldenRowSink, load_rows

SUITE = CheckSuite()


def evaluate(record: dict[str, Any]) -> Evaluation:
    trace = RagTrace.from_data(record)
    return Evaluation(trace=trace, checks=SUITE(trace))


def demo_evaluations(n: int) -> list[Evaluation]:
    return [evaluate(demo.generate(i)) for i in range(n)]


# The documented field types of the importers (conventions §8), strict: a None where a list
# is required, or a wrong type, fails validation.
class RagasSample(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    user_input: str
    retrieved_contexts: list[str]
    retrieved_context_ids: list[str]
    response: str
    reference: str | None


class DeepEvalGolden(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    input: str
    actual_output: str | None
    expected_output: str | None
    retrieval_context: list[str]
    additional_metadata: dict[str, Any]


class LangfuseItem(BaseModel):
    """The keyword arguments of ``Langfuse.create_dataset_item`` (``dataset_name`` is required
    there: rows without it failed with a TypeError)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    dataset_name: str
    id: str
    input: dict[str, Any]
    expected_output: str | None
    metadata: dict[str, Any]
    source_trace_id: str


def test_healthy_trace_makes_no_row() -> None:
    """A grounded, cited answer is not a candidate."""
    ev = next(e for e in demo_evaluations(50) if not e.flagged)
    assert build_row(ev, Redactor()) is None


@pytest.mark.parametrize(
    ("mode", "category"),
    [
        ("invented_number", "hallucination"),
        ("stale_duplicate", "stale_policy"),
        ("empty_retrieval", "empty_retrieval"),
        ("missing_citation", "citation"),
        ("invalid_citation", "citation"),
        ("false_refusal", "false_refusal"),
        ("correct_abstention", "unanswerable"),
    ],
)
def test_suggested_category_matches_the_demo_label(mode: str, category: str) -> None:
    """Each labelled failure mode of the demo gets the expected trap category."""
    evaluations = [
        e for e in demo_evaluations(600) if e.trace.attributes["ragmon.demo.failure_mode"] == mode
    ]
    assert evaluations
    categories = Counter(build_row(e, Redactor())["ragmon"]["category"] for e in evaluations)  # type: ignore[index]
    assert categories.most_common(1)[0][0] == category, categories


def test_row_carries_every_importer_key_and_is_redacted() -> None:
    """One row has the Ragas, DeepEval and Langfuse keys; PII is gone from all text."""
    record = demo.generate(0)
    record["query"] = "My e-mail is jane@example.com, what is the refund window?"
    record["answer"] = "Write to jane@example.com; refunds take 45 days."
    record["context"][0]["text"] += " Call +1 415 555 0132."
    row = build_row(evaluate(record), Redactor())
    assert row is not None
    text = json.dumps(row)
    assert "jane@example.com" not in text and "555 0132" not in text
    assert row["user_input"] == row["input"]
    assert row["retrieved_contexts"] == row["retrieval_context"]
    assert row["response"] == row["actual_output"]
    assert row["reference"] is None and row["expected_output"] is None
    assert row["ragmon"]["status"] == "needs_review"
    assert row["ragmon"]["reason"] == "unsupported_numbers"
    assert row["id"] == row_id(record["query"], "unsupported_numbers")


def test_row_id_ignores_case_and_punctuation() -> None:
    """The same question asked twice with other casing is one row."""
    assert row_id("How long is the refund window?", "refusal") == row_id(
        "how long is the refund  window", "refusal"
    )
    assert row_id("How long?", "refusal") != row_id("How long?", "citation")


def test_sink_deduplicates_and_survives_restart(tmp_path: Path) -> None:
    """Repeated questions collapse into counted rows; a replay after restart adds no row and
    does not recount examples already on disk."""
    evaluations = demo_evaluations(400)
    sink = GoldenRowSink(tmp_path, max_examples=3)
    sink.start()
    for ev in evaluations:
        sink.write(ev)
    sink.flush()
    rows = load_rows(tmp_path)
    flagged = [ev for ev in evaluations if build_row(ev, Redactor()) is not None]
    assert sum(r["ragmon"]["count"] for r in rows.values()) == len(flagged)
    assert len(rows) < len(flagged)  # demo questions repeat
    assert all(len(r["ragmon"]["examples"]) <= 3 for r in rows.values())
    assert {r["ragmon"]["category"] for r in rows.values()} <= set(CATEGORIES)

    again = GoldenRowSink(tmp_path, max_examples=3)
    again.start()
    for ev in evaluations:
        if any(ev.trace_id in r["ragmon"]["examples"] for r in rows.values()):
            again.write(ev)  # replay of traces the rows already hold
    again.flush()
    assert load_rows(tmp_path) == rows


def test_memory_bound_evicts_least_recent_rows(tmp_path: Path) -> None:
    """With max_rows=2 only two rows stay in memory; all rows are on disk."""
    sink = GoldenRowSink(tmp_path, max_rows=2)
    sink.start()
    for ev in demo_evaluations(300):
        sink.write(ev)
        assert len(sink._rows) <= 2
    sink.flush()
    assert len(load_rows(tmp_path)) > 2


@pytest.mark.parametrize("fmt", golden_export.FORMATS)
def test_export_matches_the_importer_shapes(tmp_path: Path, fmt: str) -> None:
    """Rows from demo traffic, once reviewed, export into the exact documented shapes."""
    sink = GoldenRowSink(tmp_path)
    sink.start()
    for ev in demo_evaluations(300):
        sink.write(ev)
    sink.flush()
    rows = list(load_rows(tmp_path).values())
    for row in rows[:5]:
        row["ragmon"]["status"] = "reviewed"
        row["reference"] = "The gold answer."
    out = io.StringIO()
    n = golden_export.export(
        [r for r in rows if golden_export.status_of(r) == "accepted"], fmt, out
    )
    assert n == 5
    text = out.getvalue()
    items = json.loads(text) if fmt == "deepeval" else [json.loads(x) for x in text.splitlines()]
    model = {"ragas": RagasSample, "deepeval": DeepEvalGolden, "langfuse": LangfuseItem}[fmt]
    for item in items:
        parsed = model.model_validate(item)
        ref = getattr(parsed, "reference", None) or getattr(parsed, "expected_output", None)
        assert ref == "The gold answer."


def test_stats_summarise_by_reason_and_category(tmp_path: Path) -> None:
    """Stats count rows and occurrences per reason."""
    sink = GoldenRowSink(tmp_path)
    sink.start()
    for ev in demo_evaluations(200):
        sink.write(ev)
    sink.flush()
    rows = load_rows(tmp_path)
    text = golden_export.stats(rows.values())
    assert "unsupported_numbers" in text and "needs_review" in text
    # a reviewer's hand edit may leave a row without a category: counted as "-", no crash
    # (formatting None raised TypeError)
    first = next(iter(rows.values()))
    first["ragmon"]["category"] = None
    assert "\n-  " in golden_export.stats(rows.values())


def test_judge_verdicts_make_rows_with_the_judge_block() -> None:
    """A hard fail from the judge makes a row (even when no check flagged it) carrying the
    claims, the rubric version and the sampling weight."""
    from dataclasses import replace

    from monitor.judge.heuristic import HeuristicJudge

    record = demo.generate(0)
    record["context"] = [
        {"doc_id": "p", "text": "Refunds are accepted within 30 days of purchase."}
    ]
    record["answer"] = "Refunds are accepted within 45 days of purchase [1]."
    record["query"] = "How long do refunds take to be accepted after a purchase?"
    ev = evaluate(record)
    judged = HeuristicJudge().judge(ev.trace).model_copy(update={"weight": 2.0})
    ev = replace(ev, checks={k: v for k, v in ev.checks.items() if k != "unsupported_numbers"},
                 judge=judged)  # fmt: skip
    row = build_row(ev, Redactor())
    assert row is not None
    meta = row["ragmon"]
    assert meta["reason"] == "judge_hard_fail" and meta["category"] == "hallucination"
    assert meta["judge"]["verdict"] == "hard_fail" and meta["weight"] == 2.0
    assert meta["judge"]["claims"][0]["label"] == "CONTRADICTED"


def test_rows_name_passages_by_document_the_unit_probes_score() -> None:
    """A passage's id in a row is its document id (its chunk id kept beside it), so a gold
    document graded on the review page is the one a probe trace retrieves — whichever of
    its chunks comes back — and not a chunk id no trace ever lists as a document."""
    from monitor.golden import review
    from monitor.golden.probes import stage_of

    record = demo.generate(0)
    record["answer"] = "I don't know."
    record["context"] = [{"doc_id": "refund-policy", "chunk_id": "refund-policy#0",
                          "text": "Refunds take 30 days."}]  # fmt: skip
    row = build_row(evaluate(record), Redactor())
    assert row is not None
    assert row["retrieved_context_ids"] == ["refund-policy"]
    assert row["retrieved_chunk_ids"] == ["refund-policy#0"]
    decision = review.Decision(row_id=row["id"], action="accept", reviewer="ana",
                               reference="30 days.", gold_docs={"refund-policy": 3})  # fmt: skip
    (item,) = review.golden_items({row["id"]: row}, [decision])
    probe = dict(record, answer="Refunds take 30 days.", golden_id=item["id"],
                 context=[{"doc_id": "refund-policy", "chunk_id": "refund-policy#2",
                           "text": "Refunds take 30 days."}])  # fmt: skip
    probe["retrieved"] = [{"doc_id": "refund-policy", "chunk_id": "refund-policy#2", "rank": 1}]
    assert stage_of(item, evaluate(probe)) == "ok"
