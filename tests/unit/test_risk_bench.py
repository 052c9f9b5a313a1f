"""The risk benchmark's RAGTruth reader (``bench/risk.py --ragtruth``): responses become
traces of their task type and split, the passages of a QA item are its passages, and a
response is unfaithful exactly when a span of it is labelled."""

from __future__ import annotations

import json
from pathlib import Path

from bench.longform import (
    HAGRID_FILES,
    SUMMEDITS_DOMAINS,
    bump,
    expertqa,
    hagrid,
    half,
    polytope,
    qags,
    summedits,
)
from bench.risk import auroc, load_frank, load_longform, load_ragtruth

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


# ExpertQA's README (chaitanyamalaviya/ExpertQA): "answers - Dict mapping model names to an
# Answer object"; an Answer has "answer_string" and "claims"; a Claim has "claim_string",
# "evidence" ("List of evidences for the claim (URL+passage or URL)") and "support"
# ("Attribution marked by annotator"). Evidence as its files write it: "[n] URL\n\npassage".
def _expertqa_item(question: str, answers: dict[str, object]) -> str:
    return json.dumps({"question": question, "annotator_id": "7", "answers": answers})


def _claim(text: str, evidence: list[str], support: str) -> dict[str, object]:
    return {"claim_string": text, "evidence": evidence, "support": support}


def test_expertqa_answers_become_long_form_rows(tmp_path: Path) -> None:
    """An answer with passages is a row; its passages are the distinct cited passages in
    index order; it is unfaithful exactly when a cited claim is Partial or Incomplete; an
    uncited (Missing) claim is not read; a system with URLs only, no passage, is left out."""
    one = "[1] https://a.example/x\n\nBoil the egg for nine minutes."
    two = "[2] https://b.example/y\n\nCool it in cold water."
    answers = {
        "rr_gs_gpt4": {"answer_string": "Boil it nine minutes [1]. Cool it [2].", "claims": [
            _claim("Boil it nine minutes [1].", [one], "Complete"),
            _claim("Cool it [2].", [two, one], "Complete"),
            _claim("Eggs are healthy.", [], "Missing"),
        ]},
        "post_hoc_gs_gpt4": {"answer_string": "Boil it ten minutes [1].", "claims": [
            _claim("Boil it ten minutes [1].", [one], "Partial"),
        ]},
        "bing_chat": {"answer_string": "Nine minutes [1].", "claims": [
            _claim("Nine minutes [1].", ["[1] https://a.example/x"], "Complete"),
        ]},
    }  # fmt: skip
    (tmp_path / "rand_val.jsonl").write_text(_expertqa_item("egg?", answers) + "\n", "utf-8")
    (tmp_path / "rand_test.jsonl").write_text(_expertqa_item("tea?", {}) + "\n", "utf-8")
    rows = list(expertqa(tmp_path))
    assert [(r["id"], r["hallucinated"]) for r in rows] == [
        ("dev-0-post_hoc_gs_gpt4", True),
        ("dev-0-rr_gs_gpt4", False),
    ]
    assert rows[1]["passages"] == ["Boil the egg for nine minutes.", "Cool it in cold water."]
    out = tmp_path / "long.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    by_set = load_longform(out, "dev")
    traces = by_set["expertqa"]
    assert [bad for _, bad in traces] == [True, False]
    assert traces[1][0].query == "egg?"
    assert [p.text for p in traces[1][0].context] == rows[1]["passages"]
    assert load_longform(out, "test") == {}


def test_a_set_without_a_split_of_its_own_is_halved_by_a_hash_of_its_key() -> None:
    keys = [f"article {i}" for i in range(400)]
    sides = [half(k) for k in keys]
    assert sides == [half(k) for k in keys]  # the same key, the same side
    assert 160 < sides.count("dev") < 240


def test_the_summary_sets_are_read_with_their_label_rules(tmp_path: Path) -> None:
    """Items shaped as each set's files are (field names from the files as published):
    QAGS, a summary unfaithful when most of a sentence's workers said "no"; Polytope, when
    ``inaccuracy_label`` is 0 (an addition alone is not read); SummEdits, label 0 and its own
    split; BUMP, a reference faithful (once) and each edit unfaithful."""
    article = "The council met on Monday and approved the new park."
    no, yes = {"response": "no"}, {"response": "yes"}
    mturk = tmp_path / "mturk_cnndm.jsonl"
    mturk.write_text("\n".join(json.dumps(x) for x in [
        {"article": article, "summary_sentences": [
            {"sentence": "The council met.", "responses": [yes, yes, no]},
            {"sentence": "It approved a park.", "responses": [yes, no, yes]}]},
        {"article": article, "summary_sentences": [
            {"sentence": "The council met on Tuesday.", "responses": [no, no, yes]}]},
    ]), "utf-8")  # fmt: skip
    got = [(r["answer"], r["hallucinated"]) for r in qags(mturk)]
    assert got == [("The council met. It approved a park.", False),
                   ("The council met on Tuesday.", True)]  # fmt: skip
    poly = tmp_path / "polytope.json"
    poly.write_text(json.dumps({
        "a": {"ID": 1, "document": article, "claim": "the council met .", "inaccuracy_label": 1,
              "addition_label": 0, "label": 0, "errors": "[]"},
        "b": {"ID": 2, "document": article, "claim": "the mayor met .", "inaccuracy_label": 0,
              "addition_label": 1, "label": 0, "errors": "[]"},
    }), "utf-8")  # fmt: skip
    assert [r["hallucinated"] for r in polytope(poly)] == [False, True]
    edits = tmp_path / "summedits"
    edits.mkdir()
    for domain in SUMMEDITS_DOMAINS:
        rows = [
            {"id": 1, "doc": article, "summary": "It met.", "label": 1, "split": "evaluation"},
            {"id": 2, "doc": article, "summary": "It did not.", "label": 0, "split": "test"},
        ]
        (edits / f"summedits_{domain}.json").write_text(json.dumps(rows), "utf-8")
    got_edits = [(r["split"], r["hallucinated"]) for r in summedits(edits)]
    assert got_edits == [("dev", False), ("test", True)] * len(SUMMEDITS_DOMAINS)
    data = tmp_path / "bump"
    data.mkdir()
    ref = {"article_id": 7, "article": article, "reference_summary": "The council met."}
    (data / "task1_dataset.json").write_text(json.dumps([
        {**ref, "id": 1, "edited_summary": "The mayor met."},
        {**ref, "id": 2, "edited_summary": "The council fled."}]), "utf-8")  # fmt: skip
    (data / "task2_dataset.json").write_text(json.dumps([
        {**ref, "id": 1, "edited_summary": "The council met twice."}]), "utf-8")  # fmt: skip
    got_bump = [(r["answer"], r["hallucinated"]) for r in bump(data)]
    assert got_bump[0] == ("The council met.", False)
    assert [bad for _, bad in got_bump[1:]] == [True, True, True]


def test_hagrid_answers_are_put_back_together_from_their_labelled_sentences(
    tmp_path: Path,
) -> None:
    """AttributionBench's rows (``src_dataset``, ``question``, ``response``, ``claim``,
    ``references``, ``attribution_label``): an answer whose labelled sentences cover most of
    it is one row, its passages the quotes they cite, unfaithful when one is not
    attributable; an answer mostly unlabelled is left out."""
    response = "Paris is the capital. It is on the Seine."
    rows = [
        {"src_dataset": "HAGRID", "id": "h1", "question": "capital?", "response": response,
         "claim": "Paris is the capital.", "references": "['Paris is the capital of France.']",
         "attribution_label": "attributable"},
        {"src_dataset": "HAGRID", "id": "h1", "question": "capital?", "response": response,
         "claim": "It is on the Seine.", "references": ["Paris lies on the Loire."],
         "attribution_label": "not attributable"},
        {"src_dataset": "HAGRID", "id": "h2", "question": "river?", "response": response * 3,
         "claim": "It is on the Seine.", "references": ["Paris lies on the Seine."],
         "attribution_label": "attributable"},
        {"src_dataset": "ExpertQA", "id": "e1", "question": "x?", "response": "y",
         "claim": "y", "references": ["y"], "attribution_label": "attributable"},
    ]  # fmt: skip
    for name in HAGRID_FILES:
        (tmp_path / name).write_text("", "utf-8")
    (tmp_path / HAGRID_FILES[0]).write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    got = list(hagrid(tmp_path))
    assert len(got) == 1
    assert got[0]["passages"] == ["Paris is the capital of France.", "Paris lies on the Loire."]
    assert got[0]["hallucinated"] is True
