"""Retrieval metrics equal trec_eval's (through pytrec_eval, the trec_eval C code) on
generated qrels and runs: ties, queries without relevant documents, cut-offs past the run's
depth, graded labels."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.golden.retrieval import TrecFormatError, evaluate, ranking, read_qrels, read_run

KS = (1, 3, 5, 10)
DOCS = [f"d{i}" for i in range(12)]


@st.composite
def qrels_and_run(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    queries = draw(st.lists(st.sampled_from([f"q{i}" for i in range(6)]), min_size=1,
                            max_size=6, unique=True))  # fmt: skip
    qrels, run = {}, {}
    for q in queries:
        # grades 0-3, sometimes no relevant document at all
        qrels[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1))
        # few distinct scores, so ties are common; depth 1..12 (shorter than k = 10 too)
        scores = st.sampled_from([0.1, 0.5, 0.5, 2.0, -1.0])
        run[q] = draw(st.dictionaries(st.sampled_from(DOCS), scores, min_size=1))
    return qrels, run


@given(qrels_and_run())
@settings(max_examples=400, deadline=None)
def test_every_metric_equals_trec_eval(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
) -> None:
    qrels, run = data
    cut = ",".join(map(str, KS))
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {f"P.{cut}", f"recall.{cut}", f"ndcg_cut.{cut}", "recip_rank"}
    ).evaluate(run)
    # trec_eval without -c, as pytrec_eval; a query with no relevant document scored 0
    ours = evaluate(qrels, run, KS, complete=False, skip_unanswerable=False)
    per_query = ours["per_query"]
    assert isinstance(per_query, dict)
    assert set(per_query) == set(reference)
    for q, ref in reference.items():
        got = per_query[q]
        for k in KS:
            assert got[f"precision@{k}"] == pytest.approx(ref[f"P_{k}"], abs=1e-9)
            assert got[f"recall@{k}"] == pytest.approx(ref[f"recall_{k}"], abs=1e-9)
            assert got[f"ndcg@{k}"] == pytest.approx(ref[f"ndcg_cut_{k}"], abs=1e-9)
        assert got["mrr"] == pytest.approx(ref["recip_rank"], abs=1e-9)
    metrics = ours["metrics"]
    assert isinstance(metrics, dict)
    for k in KS:
        mean = sum(r[f"ndcg_cut_{k}"] for r in reference.values()) / len(reference)
        assert metrics[f"ndcg@{k}"] == pytest.approx(mean, abs=1e-9)


def test_ties_break_by_descending_docid_and_chunks_count_once() -> None:
    assert ranking({"a": 0.5, "b": 0.5, "d": 0.5, "c": 0.9}) == ["c", "d", "b", "a"]
    chunks = {"doc1#0": 0.9, "doc2#1": 0.8, "doc1#3": 0.7, "doc3#0": 0.6}
    assert ranking(chunks, "#") == ["doc1", "doc2", "doc3"]
    result = evaluate({"q": {"doc3": 1}}, {"q": chunks}, (2, 3), chunk_separator="#")
    per_query = result["per_query"]
    assert isinstance(per_query, dict)
    assert per_query["q"]["first_hit_rank"] == 3  # doc1 once, not twice
    assert per_query["q"]["recall@2"] == 0.0 and per_query["q"]["recall@3"] == 1.0


def test_zero_recall_share_and_first_hit() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"z": 2}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 1.0}}
    result = evaluate(qrels, run, (1,))
    metrics, per_query = result["metrics"], result["per_query"]
    assert isinstance(metrics, dict) and isinstance(per_query, dict)
    assert metrics["zero_recall@1"] == 0.5 and metrics["queries"] == 2
    assert per_query["q1"]["first_hit_rank"] == 1 and per_query["q2"]["first_hit_rank"] is None


def test_bad_lines_name_file_and_line(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(TrecFormatError, match=r"qrels line 2: 3 fields, want 4"):
        read_qrels(qrels)
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 high tag\n")
    with pytest.raises(TrecFormatError, match=r"run line 1: score 'high' is not a number"):
        read_run(run)


def test_a_published_golden_set_reads_as_qrels(tmp_path: Path) -> None:
    """Items of `ragmon golden publish` are qrels: item id = query, gold_docs = grades; an
    item without gold documents is a query with nothing relevant."""
    from monitor.golden import review

    rows = {  # a question pasted from a web page: U+2028 inside, as JSON writes it
        "a": {
            "id": "a",
            "user_input": "q\u2028?",
            "retrieved_context_ids": ["d1", "d2"],
            "ragmon": {},
        },
        "b": {"id": "b", "user_input": "r?", "retrieved_context_ids": ["d3"], "ragmon": {}},
    }
    log = review.ReviewLog(tmp_path)
    review.decide(log, rows["a"], "accept", "ana", reference="x", gold_docs={"d1": 3, "d2": 1})
    review.decide(log, rows["b"], "accept", "ana", expected="refuse")
    version, _ = review.publish(review.golden_items(rows, log.read().decisions), tmp_path / "set")
    assert read_qrels(version.path) == {"a": {"d1": 3, "d2": 1}, "b": {}}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "gold_docs": [{"grade": 2}]}\n')
    with pytest.raises(TrecFormatError, match=r"line 1: not a ragmon\.golden/v1 item"):
        read_qrels(bad)


def test_a_query_with_no_relevant_document_is_left_out_and_counted() -> None:
    """A golden item expected to be refused (no gold document, or only grade 0) has no
    recall: it is not a zero in the means (zero_recall@k 0.33 where every answerable query
    has recall 1 was the old figure), it is counted apart."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}, "refuse": {}, "graded-0": {"c": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}, "refuse": {"z": 1.0}}
    result = evaluate(qrels, run, (10,))
    metrics = result["metrics"]
    assert isinstance(metrics, dict)
    assert (metrics["queries"], metrics["recall@10"], metrics["zero_recall@10"]) == (2, 1.0, 0.0)
    assert (result["unanswerable"], result["unretrieved"]) == (2, 0)
    scored = evaluate(qrels, run, (10,), skip_unanswerable=False)["metrics"]
    assert isinstance(scored, dict) and scored["zero_recall@10"] == 0.5


def test_a_judged_query_with_nothing_retrieved_scores_zero() -> None:
    """trec_eval -c: a judged query the run has nothing for is scored 0 in every metric
    and counted, not dropped from the means; complete=False is the old, intersected mean."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}}
    run = {"q1": {"a": 1.0}}
    full = evaluate(qrels, run, (1,))
    metrics, per_query = full["metrics"], full["per_query"]
    assert isinstance(metrics, dict) and isinstance(per_query, dict)
    assert full["unretrieved"] == 1 and metrics["queries"] == 2
    assert metrics["recall@1"] == 0.5 and metrics["mrr"] == 0.5 and metrics["ndcg@1"] == 0.5
    assert per_query["q2"]["recall@1"] == 0.0 and per_query["q2"]["first_hit_rank"] is None
    old = evaluate(qrels, run, (1,), complete=False)
    assert isinstance(old["metrics"], dict) and old["metrics"]["recall@1"] == 1.0
