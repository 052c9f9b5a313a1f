"""Long-form answers with faithfulness labels, from public sets, into one file format that
``bench/risk.py --longform FILE`` measures the risk on.

Run: ``python bench/longform.py SET SOURCE OUT`` (``OUT`` ``-`` for standard output). Each
line written is one answer: ``{"set", "split", "id", "query", "passages", "answer",
"hallucinated"}``; ``split`` is ``dev`` (to develop on) or ``test`` (held out: read once, at the
end of a round). Nothing of the sets is committed here. The sets:

* ``expertqa`` (``chaitanyamalaviya/ExpertQA`` on GitHub; ``SOURCE`` is its ``data/lfqa``
  folder, of which ``rand_val.jsonl`` is read as ``dev`` and ``rand_test.jsonl`` as ``test``;
  the ``domain_*`` files are the same answers split another way and are not read): experts'
  questions answered in several sentences by GPT-4 from retrieved web passages
  (``rr_gs_gpt4``, ``rr_sphere_gpt4``) or with passages found after the answer
  (``post_hoc_*``); the systems whose evidence carries no passage text (``gpt4``,
  ``bing_chat``) are left out. The passages of a trace are the distinct evidence passages
  its claims cite. Each claim with evidence was judged by an expert against it: an answer is
  unfaithful when some cited claim is only ``Partial``-ly or ``Incomplete``-ly supported.
  Labels are a claim's support by its own evidence, so they are noisy as a faithfulness
  label of the whole answer against all its passages (a claim can be in another cited
  passage); uncited claims (``Missing``) and ``N/A`` are not read.
* ``hagrid`` (HAGRID's GPT-3.5 answers with quotes, through AttributionBench,
  ``OSU-NLP-Group/AttributionBench``; ``SOURCE`` is its ``data`` folder): AttributionBench
  labels a balanced sample of the answers' sentences against the quotes they cite
  (``attribution_label``); the sentences of one answer are put back together, and an answer
  is kept when its labelled sentences cover 80 % of its characters or more (an error could
  sit in the rest). Its passages are the quotes its labelled sentences cite; it is
  unfaithful when a labelled sentence is not attributable. Split by a hash of the question.
* ``qags`` (QAGS's CNN/DM summaries, ``W4ngatang/qags``; ``SOURCE`` is its
  ``data/mturk_cnndm.jsonl``): each summary sentence was asked of three crowd workers
  ("is it supported by the article?"); a sentence most of them say no to is unsupported, and
  a summary with one is unfaithful. The article is the (truncated) text they saw. Split by a
  hash of the article.
* ``polytope`` (Polytope's CNN/DM summaries of ten systems, as AggreFact's ``val`` cut; its
  ``data/polytope.json``, found in the history of ``tingofurro/summac``; ``SOURCE`` is that
  file): unfaithful when the annotators marked an inaccuracy, intrinsic or extrinsic
  (``inaccuracy_label`` 0); omissions, additions of supported content and duplications are
  not faithfulness errors and are not read. Lower-cased, tokenised text. Split by a hash of
  the article.
* ``summedits`` (SummEdits, ``salesforce/factualNLG``; ``SOURCE`` is its ``data/summedits``
  folder; the eight domains whose files are small enough to be stored, not ``billsum`` or
  ``shakespeare``): LLM edits of verified summaries that people judged consistent (label 1)
  or not (label 0). Its own split: ``evaluation`` is ``dev``.
* ``bump`` (BUMP, ``dataminr-ai/BUMP``; ``SOURCE`` is its ``data`` folder): CNN/DM reference
  summaries (faithful) and human minimal edits of them that introduce one error
  (unfaithful). Split by a hash of the article id.
* ``attribution`` (AttributionBench's claims, ``OSU-NLP-Group/AttributionBench``; ``SOURCE``
  is its ``data`` folder, the three files ``hagrid`` reads): one answer sentence or claim
  against the passages it cites, labelled ``attributable`` or not, from five of its sources,
  each its own set (``ab-attributedqa``, ``ab-expertqa``, ``ab-stanford-gensearch``,
  ``ab-attrscore-gensearch``, ``ab-begin``). HAGRID's are put back together by ``hagrid``;
  LFQA's are never read (they are LFQA-Verification, which the project holds out). Split by
  a hash of the question, or of the claim where there is none. These are where the risk
  ranks at or below a naive lexical novelty (wave 15's note), as on the held-out long-form
  answers.

Where a set has no split of its own, an item's split is ``dev`` when the first eight hex
digits of the SHA-256 of its group key (question or article) are even, else ``test``: all
the answers of one question or article fall on one side.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

EXPERTQA_SYSTEMS = ("rr_gs_gpt4", "rr_sphere_gpt4", "post_hoc_gs_gpt4", "post_hoc_sphere_gpt4")
EXPERTQA_UNSUPPORTED = frozenset({"Partial", "Incomplete"})
_EVIDENCE = re.compile(r"\[(\d+)\]\s*(\S+)\s*\n+(.*)", re.DOTALL)


def expertqa(folder: Path) -> Iterator[dict[str, object]]:
    """ExpertQA's answers with passages, as long-form rows (see the module)."""
    for split, name in (("dev", "rand_val.jsonl"), ("test", "rand_test.jsonl")):
        for n, item in enumerate(_lines(folder / name)):
            for system, answer in sorted(item.get("answers", {}).items()):
                if system not in EXPERTQA_SYSTEMS:
                    continue
                passages: dict[int, str] = {}
                judged = unsupported = 0
                for claim in answer.get("claims") or []:
                    evidence = claim.get("evidence") or []
                    for text in evidence:
                        found = _EVIDENCE.match(text)
                        if found and found.group(3).strip():
                            passages.setdefault(int(found.group(1)), found.group(3).strip())
                    if evidence:
                        judged += 1
                        unsupported += claim.get("support") in EXPERTQA_UNSUPPORTED
                if passages and judged:
                    yield _row("expertqa", split, f"{split}-{n}-{system}",
                               [passages[k] for k in sorted(passages)],
                               answer.get("answer_string", ""), unsupported > 0,
                               item.get("question", ""))  # fmt: skip


def half(key: str) -> str:
    """``dev`` or ``test`` by a hash of ``key`` (see the module)."""
    return "dev" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 2 == 0 else "test"


def _row(name: str, split: str, ident: str, passages: list[str], answer: str, bad: bool,
         query: str = "") -> dict[str, object]:  # fmt: skip
    return {"set": name, "split": split, "id": ident, "query": query, "passages": passages,
            "answer": answer, "hallucinated": bad}  # fmt: skip


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            yield json.loads(raw)


HAGRID_FILES = (
    "test_ood_all_subset_balanced.jsonl",
    "dev_all_subset_balanced.jsonl",
    "test_all_subset_balanced_sampled500.jsonl",
)
HAGRID_COVERAGE = 0.8


def _references(item: dict[str, Any]) -> list[Any]:
    """An AttributionBench row's ``references``: a list, or its text (a Python list's repr,
    or one passage)."""
    refs = item["references"]
    if isinstance(refs, str):
        return list(ast.literal_eval(refs)) if refs.startswith("[") else [refs]
    return list(refs)


def hagrid(folder: Path) -> Iterator[dict[str, object]]:
    """HAGRID's answers put back together from AttributionBench's labelled sentences."""
    answers: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for name in HAGRID_FILES:
        for item in _lines(folder / name):
            if item.get("src_dataset") == "HAGRID":
                answers.setdefault((item["question"], item["response"]), {})[item["claim"]] = item
    for (question, response), claims in answers.items():
        if sum(len(c) for c in claims) / max(1, len(response)) < HAGRID_COVERAGE:
            continue
        quotes: list[str] = []
        for claim in claims.values():
            for quote in _references(claim):
                if quote.strip() and quote not in quotes:
                    quotes.append(quote)
        if quotes:
            bad = any(c["attribution_label"] != "attributable" for c in claims.values())
            ident = str(next(iter(claims.values()))["id"])
            yield _row("hagrid", half(question), ident, quotes, response, bad, question)


def qags(path: Path) -> Iterator[dict[str, object]]:
    """QAGS's CNN/DM summaries, unfaithful when most workers found a sentence unsupported."""
    for n, item in enumerate(_lines(path)):
        sentences = item["summary_sentences"]
        unsupported = any(
            2 * sum(r["response"] == "no" for r in s["responses"]) > len(s["responses"])
            for s in sentences
        )
        answer = " ".join(s["sentence"].strip() for s in sentences)
        article = hashlib.sha1(item["article"].encode()).hexdigest()[:12]
        yield _row("qags", half(article), f"qags-{n}-{article}", [item["article"]], answer,
                   unsupported)  # fmt: skip


def polytope(path: Path) -> Iterator[dict[str, object]]:
    """Polytope's summaries, unfaithful when an inaccuracy was marked."""
    for item in json.loads(path.read_text(encoding="utf-8")).values():
        article = hashlib.sha1(item["document"].encode()).hexdigest()[:12]
        answer = item["claim"].replace(" \n", " ").replace("\n", " ").strip()
        yield _row("polytope", half(article), f"polytope-{item['ID']}", [item["document"]],
                   answer, str(item["inaccuracy_label"]) == "0")  # fmt: skip


SUMMEDITS_DOMAINS = ("ectsum", "news", "podcast", "qmsumm", "sales_call", "sales_email",
                     "samsum", "scitldr")  # fmt: skip


def summedits(folder: Path) -> Iterator[dict[str, object]]:
    """SummEdits' judged edits; label 0 is inconsistent."""
    for domain in SUMMEDITS_DOMAINS:
        text = (folder / f"summedits_{domain}.json").read_text(encoding="utf-8")
        for item in json.loads(text):
            if str(item["label"]) in ("0", "1"):
                split = {"evaluation": "dev", "test": "test"}[item["split"]]
                yield _row("summedits", split, f"summedits-{domain}-{item['id']}",
                           [item["doc"]], item["summary"], str(item["label"]) == "0")  # fmt: skip


def bump(folder: Path) -> Iterator[dict[str, object]]:
    """BUMP's references (faithful) and their edits (unfaithful)."""
    seen: set[tuple[object, str]] = set()
    for task in ("task1", "task2"):
        text = (folder / f"{task}_dataset.json").read_text(encoding="utf-8")
        for item in json.loads(text):
            article, split = item["article_id"], half(f"bump-{item['article_id']}")
            if (article, item["reference_summary"]) not in seen:
                seen.add((article, item["reference_summary"]))
                yield _row("bump", split, f"bump-a{article}-ref", [item["article"]],
                           item["reference_summary"], False)  # fmt: skip
            yield _row("bump", split, f"bump-a{article}-{task}-{item['id']}", [item["article"]],
                       item["edited_summary"], True)  # fmt: skip


ATTRIBUTION_SOURCES = {
    "AttributedQA": "ab-attributedqa",
    "ExpertQA": "ab-expertqa",
    "Stanford-GenSearch": "ab-stanford-gensearch",
    "AttrScore-GenSearch": "ab-attrscore-gensearch",
    "BEGIN": "ab-begin",
}
HELD_OUT = frozenset({"LFQA"})  # LFQA-Verification: the project's held-out set, never read


def attribution(folder: Path) -> Iterator[dict[str, object]]:
    """AttributionBench's claims against their cited passages, one set a source."""
    for name in HAGRID_FILES:
        for item in _lines(folder / name):
            source = item.get("src_dataset")
            if source in HELD_OUT or source not in ATTRIBUTION_SOURCES:
                continue
            passages = [str(r) for r in _references(item) if str(r).strip()]
            claim = item.get("claim") or ""
            if not passages or not claim.strip():
                continue
            question = item.get("question") or ""
            bad = item["attribution_label"] != "attributable"
            yield _row(ATTRIBUTION_SOURCES[source], half(question or claim), str(item["id"]),
                       passages, claim, bad, question)  # fmt: skip


SETS = {
    "attribution": attribution,
    "expertqa": expertqa,
    "hagrid": hagrid,
    "qags": qags,
    "polytope": polytope,
    "summedits": summedits,
    "bump": bump,
}


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("source", type=Path, help="the set's folder or file (see above)")
    parser.add_argument("out", help="the file to write, - for standard output")
    args = parser.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for row in SETS[args.set](args.source):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
