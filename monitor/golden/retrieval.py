"""Retrieval metrics with trec_eval's definitions, for ``ragmon eval-retrieval``.

Inputs are the TREC formats: qrels ``qid iter docid grade`` (grade 0 = judged not relevant,
1-3 relevant, graded) and runs ``qid Q0 docid rank score tag``. Definitions, as trec_eval
(9.x) computes them, so the figures can be compared with any paper or tool that uses it:

* **ranking**: by score, highest first; equal scores in *descending* docid order (trec_eval's
  tie-break; the rank column is ignored). A document counts once: with ``chunk_separator``
  set, ``doc#chunk`` ids map to ``doc`` first and only the best-ranked chunk stays.
* **relevant**: grade ≥ 1. ``precision@k`` = relevant in the top k / k (k even past the run's
  depth); ``recall@k`` = relevant in the top k / relevant in the qrels (0 when the qrels hold
  none); ``mrr`` = 1 / rank of the first relevant document (0 when none);
  ``ndcg@k`` = DCG@k / ideal DCG@k with gain = grade and discount log2(rank + 1) (trec_eval's
  ``ndcg_cut``; 0 when the qrels hold no relevant document).
* **queries**: every judged query (trec_eval ``-c``): one the run retrieved nothing for
  scores 0 in every metric — for a monitor an empty retrieval is the worst failure, not a
  query to leave out. ``complete=False`` averages over the queries in both the run and the
  qrels only (trec_eval without ``-c``). Means are arithmetic. ``first_hit_rank`` (None
  when no hit) and the share of queries with zero recall at k are ragmon's additions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

Qrels = dict[str, dict[str, int]]  # qid -> docid -> grade
Run = dict[str, dict[str, float]]  # qid -> docid -> score


class TrecFormatError(ValueError):
    """A line that is not in the expected TREC format; the message names file and line."""


def read_qrels(path: Path) -> Qrels:
    """``qid iter docid grade`` per line; a document judged twice keeps its last grade. A
    published golden set (``ragmon.golden/v1`` JSONL) is read as qrels too: the item id is the
    query id, its ``gold_docs`` the judged documents."""
    with path.open("rb") as f:
        if f.read(1) == b"{":
            return _golden_qrels(path)
    out: Qrels = {}
    for n, fields in _lines(path, 4):
        qid, _, docid, grade = fields
        try:
            value = int(grade)
        except ValueError:
            raise TrecFormatError(f"{path} line {n}: grade {grade!r} is not an integer") from None
        if value < 0:
            raise TrecFormatError(f"{path} line {n}: grade {value} is negative")
        out.setdefault(qid, {})[docid] = value
    return out


def _golden_qrels(path: Path) -> Qrels:
    out: Qrels = {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TrecFormatError(f"{path}: not UTF-8 text") from None
    for n, line in enumerate(text.split("\n"), 1):  # JSON strings hold U+2028 as it is
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            grades = {str(d["id"]): int(d["grade"]) for d in item.get("gold_docs") or []}
            qid = str(item["id"])
        except (ValueError, KeyError, TypeError) as exc:
            raise TrecFormatError(f"{path} line {n}: not a ragmon.golden/v1 item ({exc})") from None
        if any(g < 0 for g in grades.values()):
            raise TrecFormatError(f"{path} line {n}: a grade is negative")
        out[qid] = grades
    return out


def read_run(path: Path) -> Run:
    """``qid Q0 docid rank score tag`` per line; a document listed twice keeps its best score."""
    out: Run = {}
    for n, fields in _lines(path, 6):
        qid, _, docid, _, score, _ = fields
        try:
            value = float(score)
        except ValueError:
            raise TrecFormatError(f"{path} line {n}: score {score!r} is not a number") from None
        if not math.isfinite(value):
            raise TrecFormatError(f"{path} line {n}: score {score!r} is not finite")
        docs = out.setdefault(qid, {})
        docs[docid] = max(value, docs.get(docid, value))
    return out


def _lines(path: Path, width: int) -> Iterable[tuple[int, list[str]]]:
    with path.open(encoding="utf-8") as fh:
        for n, line in _numbered(fh, path):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != width:
                raise TrecFormatError(
                    f"{path} line {n}: {len(fields)} fields, want {width} "
                    + ("(qid iter docid grade)" if width == 4 else "(qid Q0 docid rank score tag)")
                )
            yield n, fields


def _numbered(fh: Iterable[str], path: Path) -> Iterable[tuple[int, str]]:
    n = 0
    try:
        for n, line in enumerate(fh, 1):
            yield n, line
    except UnicodeDecodeError:
        raise TrecFormatError(f"{path} line {n + 1}: not UTF-8 text (is it a TREC file?)") from None


def ranking(docs: Mapping[str, float], chunk_separator: str | None = None) -> list[str]:
    """Document ids best first: score descending, ties in descending docid order; chunks
    mapped to their document (the best-ranked chunk stands for it)."""
    ordered = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    if chunk_separator is None:
        return [d for d, _ in ordered]
    seen: dict[str, None] = {}
    for d, _ in ordered:
        seen.setdefault(d.split(chunk_separator, 1)[0], None)
    return list(seen)


@dataclass(frozen=True)
class QueryScores:
    """Retrieval metrics of one query at each cut-off."""

    precision: dict[int, float]
    recall: dict[int, float]
    ndcg: dict[int, float]
    mrr: float
    first_hit_rank: int | None

    def as_dict(self) -> dict[str, float | int | None]:
        """The scores as JSON-ready data."""
        out: dict[str, float | int | None] = {}
        for k in sorted(self.precision):
            out[f"precision@{k}"] = self.precision[k]
            out[f"recall@{k}"] = self.recall[k]
            out[f"ndcg@{k}"] = self.ndcg[k]
        out["mrr"] = self.mrr
        out["first_hit_rank"] = self.first_hit_rank
        return out


def score_query(ranked: Sequence[str], grades: Mapping[str, int], ks: Sequence[int]) -> QueryScores:
    """Recall, precision, nDCG and reciprocal rank of ``ranked`` against graded ``grades``."""
    relevant = {d for d, g in grades.items() if g >= 1}
    hits = [d in relevant for d in ranked]
    first = next((i + 1 for i, hit in enumerate(hits) if hit), None)
    ideal = sorted((g for g in grades.values() if g >= 1), reverse=True)
    precision, recall, ndcg = {}, {}, {}
    for k in ks:
        found = sum(hits[:k])
        precision[k] = found / k
        recall[k] = found / len(relevant) if relevant else 0.0
        dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k])
                  if grades.get(d, 0) >= 1)  # fmt: skip
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
        ndcg[k] = dcg / idcg if idcg > 0 else 0.0
    return QueryScores(precision, recall, ndcg, 1.0 / first if first else 0.0, first)


def evaluate(
    qrels: Qrels,
    run: Run,
    ks: Sequence[int] = (1, 3, 5, 10),
    chunk_separator: str | None = None,
    complete: bool = True,
    skip_unanswerable: bool = True,
) -> dict[str, object]:
    """``{"metrics": {...means...}, "per_query": {qid: {...}}, "unretrieved": n,
    "unanswerable": m}``: over every judged query (``complete``; ``unretrieved`` of them had
    nothing in the run), or over the queries in both. A query with no relevant document (a
    golden item expected to be refused) has no recall to measure: it is left out of every
    mean and counted in ``unanswerable``, as ``golden compare`` does (``skip_unanswerable``;
    trec_eval scores it 0)."""
    if not ks or any(k < 1 for k in ks):
        raise ValueError("every k must be 1 or more")
    ks = sorted(set(ks))
    per_query: dict[str, QueryScores] = {}
    unanswerable = {
        qid for qid, grades in qrels.items() if skip_unanswerable and not any(grades.values())
    }
    judged = qrels.keys() - unanswerable
    queries = judged if complete else run.keys() & judged
    for qid in sorted(queries):
        grades = qrels[qid]
        if chunk_separator is not None:
            merged: dict[str, int] = {}
            for d, g in grades.items():
                doc = d.split(chunk_separator, 1)[0]
                merged[doc] = max(g, merged.get(doc, 0))
            grades = merged
        per_query[qid] = score_query(ranking(run.get(qid, {}), chunk_separator), grades, ks)
    n = len(per_query)
    metrics: dict[str, float | int] = {"queries": n}
    scores = list(per_query.values())
    for k in ks:
        metrics[f"precision@{k}"] = _mean([s.precision[k] for s in scores])
        metrics[f"recall@{k}"] = _mean([s.recall[k] for s in scores])
        metrics[f"ndcg@{k}"] = _mean([s.ndcg[k] for s in scores])
        metrics[f"zero_recall@{k}"] = _mean([float(s.recall[k] == 0.0) for s in scores])
    metrics["mrr"] = _mean([s.mrr for s in scores])
    return {
        "metrics": metrics,
        "per_query": {q: s.as_dict() for q, s in per_query.items()},
        "unretrieved": len(judged - run.keys()) if complete else 0,
        "unanswerable": len(unanswerable),
    }


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0
