"""Golden probes scored in the daemon: a trace that carries a ``golden_id`` is joined to the
published golden set and scored (``sinks.probes.ProbeSink`` writes the scores as metrics).

For each probe: retrieval metrics (recall, precision, nDCG, MRR; trec_eval's definitions, as in
``ragmon eval-retrieval``) at the retriever's depth (``retrieved``) and at the packed-context
depth (``context``), and the stage that lost the answer:

* ``retrieval_miss``: no gold document was retrieved;
* ``packing_miss``: a gold document was retrieved but none reached the prompt;
* ``generation_miss``: a gold document was in the context, yet the answer refused, the judge
  failed it, or figures of the reference answer are missing from it;
* ``ok``;
* for a probe whose expected behaviour is to refuse: ``abstained`` (right) or ``answered``.

The golden set is a version file from ``ragmon golden publish`` or their directory (the
newest version is used, and a newer one is picked up while running); its version is a label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from monitor.checks import Refusal
from monitor.core.lines import GoldenItem
from monitor.core.model import Evaluation
from monitor.golden import review
from monitor.golden.retrieval import score_query

STAGES = (
    "ok", "retrieval_miss", "packing_miss", "generation_miss", "abstained", "answered",
    "unknown_golden_id",
)  # fmt: skip
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class LoadedSet:
    """A published golden-set version: its name, items by id, and its file."""

    version: str  # "v0003"
    items: dict[str, GoldenItem]
    path: Path


def load_set(path: Path) -> LoadedSet:
    """A version file, or the newest version in a directory of them."""
    if path.is_dir():
        found = review.versions(path)
        if not found:
            raise review.ReviewError(f"no golden-set version (golden-vNNNN-*.jsonl) in {path}")
        path = found[-1].path
    items = {str(i["id"]): i for i in review.load_version(path)}
    m = re.match(r"golden-(v\d+)-", path.name)
    return LoadedSet(m.group(1) if m else path.stem, items, path)


def stage_of(item: GoldenItem, evaluation: Evaluation) -> str:
    """The stage that lost the answer of a golden probe (retrieval_miss, packing_miss,
    generation_miss, answered, abstained) or ok."""
    trace = evaluation.trace
    refused = bool((c := evaluation.checks.get(Refusal.name)) and c.flagged)
    if item.get("expected") == "refuse":
        return "abstained" if refused else "answered"
    gold = {str(d["id"]) for d in item.get("gold_docs") or [] if int(d["grade"]) >= 1}
    retrieved = {d.doc_id for d in trace.retrieved}
    packed = {p.doc_id for p in trace.context if p.doc_id}
    if gold and not gold & (retrieved | packed):
        return "retrieval_miss"
    if gold and not gold & packed:
        return "packing_miss"
    judged_bad = evaluation.judge is not None and evaluation.judge.verdict in ("fail", "hard_fail")
    missing = set(_FIGURE.findall(item.get("reference") or "")) - set(_FIGURE.findall(trace.answer))
    return "generation_miss" if refused or judged_bad or missing else "ok"


def retrieval_scores(item: GoldenItem, evaluation: Evaluation) -> dict[tuple[str, str], float]:
    """{(metric, depth): value} at the retriever's and at the packed context's depth; empty
    when the probe has no graded gold document."""
    grades = {str(d["id"]): int(d["grade"]) for d in item.get("gold_docs") or []}
    if not any(g >= 1 for g in grades.values()):
        return {}
    trace = evaluation.trace
    ranked = sorted(trace.retrieved, key=lambda d: (d.rank is None, d.rank or 0))
    depths = {
        "retrieved": list(dict.fromkeys(d.doc_id for d in ranked)),
        "context": list(dict.fromkeys(p.doc_id for p in trace.context if p.doc_id)),
    }
    out = {}
    for depth, docs in depths.items():
        k = max(len(docs), 1)
        s = score_query(docs, grades, [k])
        out.update({
            ("recall", depth): s.recall[k], ("precision", depth): s.precision[k],
            ("ndcg", depth): s.ndcg[k], ("mrr", depth): s.mrr,
        })  # fmt: skip
    return out
