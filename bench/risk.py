"""Judge sampling by risk against flag boosting and uniform sampling, on public labelled RAG
answers: the share of hallucinated answers among the judged traces at a fixed budget, and
the error of the 1/p-weighted estimate of the hallucination rate.

Run: ``python bench/risk.py FILE [FILE ...] [--frank ANNOTATIONS ARTICLES]``. The files are
HaluEval's question-answering files (``RUCAIBox/HaluEval`` on GitHub:
``generation/qa/qa_one-turn_data.json`` and ``qa_multi-turn_data.json``, one JSON object per
line with ``knowledge``, ``question``, ``right_answer``, ``hallucinated_answer``): short-form
QA, each line two traces with the knowledge as the one passage, the right answer (faithful)
and the hallucinated one. ``--frank`` adds summaries: FRANK's human judgements
(``artidoro/frank`` on GitHub, ``data/human_annotations.json``) of system summaries, with the
folder of their articles (see ``bench/summaries.py``), as two sets: XSum's (``bbc``, one
sentence each) and CNN/DM's (several sentences each, the long-form set); a summary is
unfaithful when its ``Factuality`` is below 1 (some sentence has an error), the article is
the one passage. ``--frank-split FILE`` keeps the articles FRANK's split file lists
(``data/validation_split.txt``, to develop on, or ``data/test_split.txt``). Nothing of either
is committed here. Each set is measured on its own. The traces are subsampled to a
hallucination rate of ``--rate`` (10 %) and every sampler is given the same expected budget,
``--budget`` (10 %) of the traces:

* uniform: every trace at the budget;
* flag boosting (the cascade before risk): a flagged trace ``--boost`` (10) times as likely
  as another, the two rates spending the budget;
* risk: from a floor at risk 0 to ``boost`` times it at risk 1, spending the budget.

Each is drawn ``--draws`` times (Poisson sampling, as the daemon's hash sampler is), and the
mean share of hallucinated answers among the judged, and the mean absolute error of the
Horvitz-Thompson estimate of the hallucination rate, are printed; with the AUROC of the risk,
of the grounding overlap alone and of a naive lexical novelty (the share of the answer's
words, stop words included, absent from the context). The learned risk (``risk/3``,
``monitor/judge/learned_risk.py``) is measured by ``--folds``-fold cross-validation: trained
on the other folds' labels (all of them, and the static risk's Poisson sample at the budget
with 1/p weights), ranking the held-out fold; ``--drop FEATURE`` leaves a feature out.

``--ragtruth DIR`` adds long-form RAG answers: RAGTruth (``ParticleMedia/RAGTruth`` on GitHub,
its ``dataset/response.jsonl`` and ``dataset/source_info.jsonl`` in ``DIR``; Git LFS-sized, so
clone the repository or download the two files). Each response of six LLMs to a QA item (an
MS MARCO question over three passages), a news article to summarise, or a local business's
structured data to describe (Data2txt) is one trace; it is unfaithful when its annotators
marked any span (span-level labels: baseless information or a conflict, evident or subtle).
The QA passages are the trace's passages, the article or the business's data (as JSON) its
one passage. Each task type is measured on its own, on the split ``--ragtruth-split`` names
(``train``, the default, to develop on; ``test`` is RAGTruth's own held-out part).
``--longform FILE`` (repeatable) adds long-form answers from public sets that
``bench/longform.py`` converts into one format (each set measured on its own;
``--longform-split dev`` to develop on, ``test`` held out).
Not a test: figures are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.summaries import frank
from monitor.checks import CheckSuite
from monitor.checks.risk import risk
from monitor.core.model import RagTrace
from monitor.judge.learned_risk import FEATURES, LearnedRisk

_WORD = re.compile(r"[a-z0-9]+")


def load(paths: list[Path]) -> list[tuple[RagTrace, bool]]:
    """(trace, hallucinated) for every answer of the files."""
    out = []
    n = 0
    for path in paths:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            item = json.loads(raw)
            for answer, bad in ((item["right_answer"], False), (item["hallucinated_answer"], True)):
                n += 1
                trace = RagTrace.from_data({
                    "trace_id": f"{n:032x}", "query": item["question"], "answer": answer,
                    "context": [{"doc_id": "k", "text": item["knowledge"]}],
                })  # fmt: skip
                out.append((trace, bad))
    return out


_FRANK_QUERIES = {
    "frank-bbc": "Summarise the article in one sentence.",
    "frank-cnndm": "Summarise the article.",
}


def load_frank(
    annotations: Path, articles: Path, only: set[str] | None = None
) -> dict[str, list[tuple[RagTrace, bool]]]:
    """(trace, unfaithful) for every summary FRANK's annotators judged whose article is in
    ``articles`` (``bench.summaries.frank``), by set: ``XSum`` (the BBC articles' one-sentence
    summaries) and ``CNN/DM`` (summaries of several sentences); with ``only``, of the
    articles whose hash it holds (FRANK's ``data/validation_split.txt`` or ``test_split.txt``)."""
    out: dict[str, list[tuple[RagTrace, bool]]] = {"XSum": [], "CNN/DM": []}
    for n, item in enumerate(frank(annotations, articles), 1):
        if only is not None and item.article_id not in only:
            continue
        trace = RagTrace.from_data({
            "trace_id": f"{n:032x}", "query": _FRANK_QUERIES[item.source],
            "answer": item.summary, "context": [{"doc_id": "article", "text": item.article}],
        })  # fmt: skip
        out["XSum" if item.source == "frank-bbc" else "CNN/DM"].append((trace, item.hallucinated))
    return out


RAGTRUTH_TASKS = ("QA", "Summary", "Data2txt")
_PASSAGE = re.compile(r"(?:^|\n)\s*passage \d+:\s*", re.IGNORECASE)
_QUERIES = {
    "Summary": "Summarise the following news article.",
    "Data2txt": "Write an objective overview of this local business from its structured data.",
}


def load_ragtruth(folder: Path, split: str) -> dict[str, list[tuple[RagTrace, bool]]]:
    """(trace, unfaithful) for every RAGTruth response of ``split`` (``train`` or ``test``),
    by task type (``QA``, ``Summary``, ``Data2txt``); a response is unfaithful when any span
    of it is labelled."""
    sources = {}
    for raw in (folder / "source_info.jsonl").read_text(encoding="utf-8").splitlines():
        if raw.strip():
            item = json.loads(raw)
            sources[str(item["source_id"])] = item
    out: dict[str, list[tuple[RagTrace, bool]]] = {task: [] for task in RAGTRUTH_TASKS}
    for n, raw in enumerate((folder / "response.jsonl").read_text(encoding="utf-8").splitlines()):
        if not raw.strip():
            continue
        item = json.loads(raw)
        source = sources.get(str(item["source_id"]))
        if item.get("split") != split or source is None:
            continue
        task = source.get("task_type")
        if task not in out:
            continue
        query, passages = _ragtruth_context(task, source.get("source_info"))
        trace = RagTrace.from_data({
            "trace_id": f"{n + 1:032x}", "query": query, "answer": item.get("response") or "",
            "context": [{"doc_id": f"p{i + 1}", "text": t} for i, t in enumerate(passages)],
        })  # fmt: skip
        out[task].append((trace, bool(item.get("labels"))))
    return out


def _ragtruth_context(task: str, info: object) -> tuple[str, list[str]]:
    """The query and the passages of a RAGTruth source: a QA item's question and its
    passages; an article, or a business's data as JSON, as the one passage."""
    if task == "QA" and isinstance(info, dict):
        passages = [p.strip() for p in _PASSAGE.split(str(info.get("passages", ""))) if p.strip()]
        return str(info.get("question", "")), passages
    text = info if isinstance(info, str) else json.dumps(info, ensure_ascii=False)
    return _QUERIES.get(task, ""), [text]


def load_longform(path: Path, split: str | None) -> dict[str, list[tuple[RagTrace, bool]]]:
    """(trace, unfaithful) for every answer of a long-form file (``bench/longform.py`` writes
    them: one JSON object a line with ``set``, ``split``, ``query``, ``passages``, ``answer``
    and ``hallucinated``), by set; with ``split``, that split's answers only."""
    out: dict[str, list[tuple[RagTrace, bool]]] = {}
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not raw.strip():
            continue
        item = json.loads(raw)
        if split is not None and item.get("split") != split:
            continue
        trace = RagTrace.from_data({
            "trace_id": f"{n + 1:032x}", "query": item.get("query") or "",
            "answer": item["answer"],
            "context": [{"doc_id": f"p{i + 1}", "text": t} for i, t in enumerate(item["passages"])],
        })  # fmt: skip
        out.setdefault(str(item.get("set", path.stem)), []).append(
            (trace, bool(item["hallucinated"]))
        )
    return out


def auroc(scores: list[float], labels: list[bool]) -> float:
    """The probability that a random positive scores above a random negative (ties half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    ranked = sorted((s, i) for i, s in enumerate(pos + neg))
    # rank-sum with ties averaged
    ranks = [0.0] * len(ranked)
    i = 0
    while i < len(ranked):
        j = i
        while j + 1 < len(ranked) and ranked[j + 1][0] == ranked[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[ranked[k][1]] = (i + j) / 2 + 1
        i = j + 1
    rank_pos = sum(ranks[: len(pos)])
    return (rank_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def novelty(trace: RagTrace) -> float:
    words = _WORD.findall(trace.answer.lower())
    context = set(_WORD.findall(trace.context_text.lower()))
    return sum(1 for w in words if w not in context) / len(words) if words else 0.0


def spend(scores: list[float], budget: float, boost: float) -> list[float]:
    """Inclusion probabilities ``b + (k b - b) s`` (capped at 1) whose mean is ``budget``."""
    lo, hi = 0.0, 1.0
    for _ in range(60):  # bisection on the floor b
        b = (lo + hi) / 2
        mean = sum(min(1.0, b + (boost * b - b) * s) for s in scores) / len(scores)
        lo, hi = (b, hi) if mean < budget else (lo, b)
    b = (lo + hi) / 2
    return [min(1.0, b + (boost * b - b) * s) for s in scores]


def cross_validate(
    features: list, scored: list, args: argparse.Namespace, rng: random.Random
) -> dict[str, list[float]]:
    """The learned risk (risk/3) by ``args.folds``-fold cross-validation: trained on the
    other folds' verdicts, scoring the held-out fold; out-of-fold scores for every answer.
    Two ways to judge the training folds: every answer (weight 1), and the Poisson sample
    the static risk draws at ``args.budget`` (each judged answer weighted 1/p, as the daemon
    learns). The IDF is the one learned from every answer's context (unlabelled)."""
    n = len(scored)
    labels = [row[-1] for row in scored]
    order = list(range(n))
    rng.shuffle(order)
    fold = {i: k % args.folds for k, i in enumerate(order)}
    probs = spend([r[0] for r in scored], args.budget, args.boost)
    out: dict[str, list[float]] = {}
    for kind in ("all judged", f"risk-sampled {args.budget:.0%}, 1/p"):
        cv = [0.0] * n
        for f in range(args.folds):
            model = LearnedRisk(min_verdicts=0)
            train = [i for i in order if fold[i] != f]
            for _ in range(args.epochs):
                for i in train:
                    if kind == "all judged":
                        model.learn(features[i], labels[i])
                    elif rng.random() < probs[i]:
                        model.learn(features[i], labels[i], 1.0 / probs[i])
            for i in order:
                if fold[i] == f:
                    cv[i] = model.predict(features[i])
        out[kind] = cv
        print(f"learned risk ({kind}), {args.folds}-fold CV, {args.epochs} pass(es): AUROC "
              f"{auroc(cv, labels):.3f} (static risk "
              f"{auroc([r[0] for r in scored], labels):.3f}, naive "
              f"{auroc([r[2] for r in scored], labels):.3f})")  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--frank", nargs=2, type=Path, metavar=("ANNOTATIONS", "ARTICLES"))
    parser.add_argument(
        "--frank-split",
        type=Path,
        metavar="FILE",
        help="only FRANK's articles whose hashes FILE lists (its validation or test split)",
    )
    parser.add_argument(
        "--ragtruth",
        type=Path,
        metavar="DIR",
        help="RAGTruth's folder of response.jsonl and source_info.jsonl",
    )
    parser.add_argument(
        "--ragtruth-split",
        choices=("train", "test"),
        default="train",
        help="RAGTruth's split to measure (test: its held-out part)",
    )
    parser.add_argument(
        "--longform",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a long-form file of bench/longform.py (repeatable)",
    )
    parser.add_argument(
        "--longform-split",
        metavar="NAME",
        help="only the long-form answers of this split (dev to develop on, test held out)",
    )
    parser.add_argument("--rate", type=float, default=0.10)
    parser.add_argument("--budget", type=float, default=0.10)
    parser.add_argument("--boost", type=float, default=10.0)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--drop", action="append", default=[], metavar="FEATURE",
                        help="leave a learned-risk feature out (zeroed); repeatable")  # fmt: skip
    args = parser.parse_args()
    if not args.files and not args.frank and not args.ragtruth and not args.longform:
        parser.error("give HaluEval QA files, --frank, --ragtruth, --longform, or several")
    if args.files:
        measure(f"HaluEval QA ({', '.join(p.name for p in args.files)})", load(args.files), args)
    if args.frank:
        only = None
        if args.frank_split:
            only = set(args.frank_split.read_text(encoding="utf-8").split())
        part = f", {args.frank_split.stem}" if args.frank_split else ""
        for name, data in load_frank(*args.frank, only).items():
            if data:
                measure(f"FRANK {name} summaries{part}", data, args)
    if args.ragtruth:
        for task, data in load_ragtruth(args.ragtruth, args.ragtruth_split).items():
            if data:
                measure(f"RAGTruth {task} ({args.ragtruth_split})", data, args)
    for path in args.longform:
        part = f" ({args.longform_split})" if args.longform_split else ""
        for name, data in load_longform(path, args.longform_split).items():
            measure(f"{name}{part}", data, args)


REPEATS = 5


def cost(data: list[tuple[RagTrace, bool]], suite: CheckSuite) -> tuple[float, float]:
    """Microseconds per trace for the checks (a fresh view each) and for the risk after
    them (a fresh view with the checks' results: what the daemon spends), the best of
    ``REPEATS`` passes each."""
    best = [float("inf"), float("inf")]
    for _ in range(REPEATS):
        spent = [0.0, 0.0]
        for trace, _bad in data:
            start = time.perf_counter()
            view = suite.view(trace)
            result = suite(trace, view)
            middle = time.perf_counter()
            risk(result, view)
            spent[0] += middle - start
            spent[1] += time.perf_counter() - middle
        best = [min(b, x) for b, x in zip(best, spent, strict=True)]
    return best[0] / len(data) * 1e6, best[1] / len(data) * 1e6


def measure(title: str, data: list[tuple[RagTrace, bool]], args: argparse.Namespace) -> None:
    """Print the rankings on every answer of ``data``, then the samplers on a subsample at
    ``args.rate`` hallucinated."""
    rng = random.Random(args.seed)
    suite = CheckSuite()
    scored = []
    learner = LearnedRisk()
    views = []
    for trace, bad in data:
        view = suite.view(trace)
        result = suite(trace, view)
        learner.observe(view)
        views.append((result, view))
        gap = result["grounding_overlap"].score
        flagged = any(x.flagged for x in result.values())
        scored.append((risk(result, view), 0.0 if gap is None else 1 - gap, novelty(trace),
                       1.0 if flagged else 0.0, bad))  # fmt: skip
    labels = [row[-1] for row in scored]
    share = sum(labels) / len(labels)
    checks_us, risk_us = cost(data, suite)
    print(f"\n{title}: cost per trace, best of {REPEATS}: checks {checks_us:.0f} us, risk "
          f"{risk_us:.1f} us (views built anew each time, this machine)")  # fmt: skip
    features = [learner.features(result, view) for result, view in views]
    for name in args.drop:
        for x in features:
            x[FEATURES.index(name)] = 0.0
    print(f"\n{title}: {len(data)} answers, {sum(labels)} unfaithful ({share:.1%})")
    print(f"AUROC on all: risk {auroc([r[0] for r in scored], labels):.3f}, grounding overlap "
          f"alone {auroc([r[1] for r in scored], labels):.3f}, naive lexical novelty "
          f"{auroc([r[2] for r in scored], labels):.3f}, any check flagged "
          f"{auroc([r[3] for r in scored], labels):.3f}")  # fmt: skip
    learned = cross_validate(features, scored, args, random.Random(args.seed + 1))
    good = [r for r in scored if not r[-1]]
    bad = [r for r in scored if r[-1]]
    keep_bad = round(len(good) * args.rate / (1 - args.rate))
    sample = good + rng.sample(bad, min(keep_bad, len(bad)))
    if len(sample) < 200 or len(sample) - len(good) < keep_bad:
        print(f"too few faithful answers ({len(good)}) to subsample to {args.rate:.0%} "
              "unfaithful: no sampler figures")  # fmt: skip
        return
    risks = [r[0] for r in sample]
    labels = [r[-1] for r in sample]
    truth = sum(labels) / len(labels)
    print(
        f"subsampled: {len(sample)} answers, {sum(labels)} unfaithful ({truth:.1%}); AUROC: "
        f"risk {auroc(risks, labels):.3f}, naive {auroc([r[2] for r in sample], labels):.3f}"
    )
    index = {id(row): i for i, row in enumerate(scored)}
    for name, column in [
        ("risk", risks),
        ("grounding alone", [r[1] for r in sample]),
        ("naive novelty", [r[2] for r in sample]),
    ] + [(f"learned ({kind})", [cv[index[id(r)]] for r in sample]) for kind, cv in learned.items()]:
        order = sorted(range(len(column)), key=lambda i: -column[i])
        top = order[: len(order) // 10]
        hit = sum(labels[i] for i in top) / len(top)
        print(f"top 10% by {name}: {hit:.1%} unfaithful ({hit / truth:.2f}x the base rate); "
              f"AUROC {auroc(column, labels):.3f}")  # fmt: skip
    plans = {
        "uniform": [args.budget] * len(sample),
        "flag boosting": spend([r[3] for r in sample], args.budget, args.boost),
        "risk": spend(risks, args.budget, args.boost),
    }
    print(f"{'sampler':<16} {'judged':>8} {'unfaithful among judged':>25} {'HT estimate MAE':>16}")
    for name, probs in plans.items():
        judged = yields = err = 0.0
        for _ in range(args.draws):
            picked = [i for i, p in enumerate(probs) if rng.random() < p]
            judged += len(picked)
            yields += sum(labels[i] for i in picked) / len(picked) if picked else 0.0
            estimate = sum(labels[i] / probs[i] for i in picked) / len(sample)
            err += abs(estimate - truth)
        print(f"{name:<16} {judged / args.draws:>8.1f} {yields / args.draws:>24.1%} "
              f"{err / args.draws:>15.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
