"""The risk benchmark's RAGTruth reader (``bench/risk.py --ragtruth``): responses become
traces of their task type and split, the passages of a QA item are its passages, and a
response is unfaithful exactly when a span of it is labelled."""

from __future__ import annotations

import json
from pathlib import Path

from bench.risk import auroc, load_frank, load_ragtruth

SOURCES = [
    {
        "source_id": "1",
        "task_type": "QA",
        "source_info": {
            "question": "how long to boil an egg",
            "passages": "passage 1: Boil the egg for nine minutes.\n\n"
            "passage 2:Cool it in cold water.\npassage 3: Peel it under the tap.",
        },
    },
    {"source_id": "2", "task_type": "Summary", "source_info": "The council met on Monday."},
    {"source_id": "3", "task_type": "Data2txt", "source_info": {"name": "Cafe Uno", "stars": 4}},
]
SPAN = {"start": 0, "end": 4, "text": "Boil", "label_type": "Evident Baseless Info"}
RESPONSES = [
    {"id": "1", "source_id": "1", "split": "train", "labels": [], "response": "Nine minutes."},
    {"id": "2", "source_id": "1", "split": "train", "labels": [SPAN], "response": "Ten minutes."},
    {"id": "3", "source_id": "1", "split": "test", "labels": [], "response": "Nine minutes."},
    {"id": "4", "source_id": "2", "split": "train", "labels": [], "response": "It met Monday."},
    {"id": "5", "source_id": "3", "split": "train", "labels": [SPAN], "response": "Cafe Uno."},
    {"id": "6", "source_id": "9", "split": "train", "labels": [], "response": "No source."},
]


def _folder(tmp_path: Path) -> Path:
    for name, rows in (("source_info.jsonl", SOURCES), ("response.jsonl", RESPONSES)):
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_responses_are_read_by_task_and_split_with_their_labels(tmp_path: Path) -> None:
    """The train split holds QA's two responses (one labelled), one summary, one Data2txt;
    a response whose source is missing is left out."""
    data = load_ragtruth(_folder(tmp_path), "train")
    assert [(t.answer, bad) for t, bad in data["QA"]] == [
        ("Nine minutes.", False),
        ("Ten minutes.", True),
    ]
    assert [bad for _, bad in data["Summary"]] == [False]
    assert [bad for _, bad in data["Data2txt"]] == [True]
    test = load_ragtruth(tmp_path, "test")
    assert [t.answer for t, _ in test["QA"]] == ["Nine minutes."]
    assert test["Summary"] == [] and test["Data2txt"] == []


def test_a_qa_item_keeps_its_question_and_three_passages(tmp_path: Path) -> None:
    """The passages are split on their 'passage N:' marks; an article or a business's data
    is the one passage."""
    data = load_ragtruth(_folder(tmp_path), "train")
    trace = data["QA"][0][0]
    assert trace.query == "how long to boil an egg"
    assert [p.text for p in trace.context] == [
        "Boil the egg for nine minutes.",
        "Cool it in cold water.",
        "Peel it under the tap.",
    ]
    assert [p.text for p in data["Summary"][0][0].context] == ["The council met on Monday."]
    business = json.loads(data["Data2txt"][0][0].context[0].text)
    assert business == {"name": "Cafe Uno", "stars": 4}


def test_auroc_counts_ties_as_half() -> None:
    """A perfect ranking is 1, a reversed one 0, all ties 0.5."""
    labels = [False, False, True, True]
    assert auroc([0.1, 0.2, 0.8, 0.9], labels) == 1.0
    assert auroc([0.9, 0.8, 0.2, 0.1], labels) == 0.0
    assert auroc([0.5, 0.5, 0.5, 0.5], labels) == 0.5


def test_frank_is_read_as_two_sets_and_by_split(tmp_path: Path) -> None:
    """FRANK's BBC summaries are the XSum set and its CNN/DM ones the long-form set; a split
    file keeps the articles it lists."""
    articles = tmp_path / "articles"
    articles.mkdir()
    judged = []
    for key, dataset in (("101", "bbc"), ("102", "bbc"), ("a" * 40, "cnndm")):
        (articles / f"{key}.json").write_text(
            json.dumps({"hash": key, "article": "The council met.", "BERTS2S": "It met."}),
            encoding="utf-8",
        )
        judged.append({"hash": key, "model_name": "BERTS2S", "dataset": dataset, "Factuality": 0.5})
    annotations = tmp_path / "human_annotations.json"
    annotations.write_text(json.dumps(judged), encoding="utf-8")
    sets = load_frank(annotations, articles)
    assert [len(sets["XSum"]), len(sets["CNN/DM"])] == [2, 1]
    assert all(bad for _, bad in sets["CNN/DM"])
    only = load_frank(annotations, articles, {"102", "a" * 40})
    assert [len(only["XSum"]), len(only["CNN/DM"])] == [1, 1]


def test_the_risk_candidates_read_what_they_say(capsys: object) -> None:
    """bench/risk_candidates.py: a summariser's loop is a repeat, a sentence of new words is
    new trigrams, and the table prints every candidate beside the static risk."""
    from bench import risk_candidates as rc
    from monitor.checks import CheckSuite
    from monitor.core.model import RagTrace

    def trace(answer: str, n: int) -> RagTrace:
        context = [{"doc_id": "a", "text": "Gloucester beat Bath 20-10 at Kingsholm on Friday."}]
        data = {"trace_id": f"{n:032x}", "query": "", "answer": answer, "context": context}
        return RagTrace.from_data(data)

    suite = CheckSuite()
    looped = trace("Gloucester beat Gloucester at Kingsholm.", 1)
    view = suite.view(looped)
    row = (suite(looped, view), view)
    assert rc._sentence_repeats(row) == 1.0
    # "gloucester beat gloucester", "beat gloucester at", "gloucester at kingsholm"
    assert rc._novel_trigrams(row) == 3.0
    faithful = [trace("Gloucester beat Bath at Kingsholm.", i) for i in range(2, 6)]
    wrong = [trace("Leicester lost to Exeter in the rain.", i) for i in range(6, 10)]
    rc.measure({"toy": [(t, False) for t in faithful] + [(t, True) for t in wrong]})
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "static risk" in out and all(c in out for c in rc.CANDIDATES)
