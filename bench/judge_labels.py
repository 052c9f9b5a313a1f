"""The heuristic judge on public human-labelled summaries, and a label file for ``ragmon
calibrate`` (development data: FRANK and the XSum hallucination spans, see
``bench/summaries.py``; neither FaithBench nor LFQA-Verification, which stay held out).

Run: ``python bench/judge_labels.py --frank human_annotations.json --xsum
hallucination_annotations_xsum_summaries.csv --articles articles-wbertscore-json/
[-o labels.jsonl]``, then ``ragmon calibrate --judge heuristic --labels labels.jsonl``.

Each summary becomes a native trace: the article is the context (cut into passages of about
``--passage-chars`` characters at sentence ends), the summary the answer; its label is
``fail`` when people found it unfaithful (FRANK: factuality below 1; XSum: two of three
annotators marked a hallucinated span), else ``pass``. Printed per set: the heuristic
judge's precision and recall of "not pass" against "fail", and the same for flagging every
summary (the baseline a screen must beat). Not a test: the figures are reported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.summaries import Summary, frank, xsum_spans
from monitor.core.model import RagTrace
from monitor.judge.heuristic import HeuristicJudge

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def passages(article: str, size: int) -> list[str]:
    """The article in pieces of about ``size`` characters, cut at sentence ends."""
    out, cur = [], ""
    for sentence in _SENTENCE_END.split(article.strip()):
        if cur and len(cur) + len(sentence) > size:
            out.append(cur)
            cur = sentence
        else:
            cur = f"{cur} {sentence}".strip()
    if cur:
        out.append(cur)
    return out


def record(s: Summary, size: int) -> dict[str, object]:
    """The summary as a native trace with its human label."""
    digest = hashlib.sha256(f"{s.source}\x1f{s.article[:200]}\x1f{s.summary}".encode()).hexdigest()
    context = [{"doc_id": f"p{i + 1}", "text": t} for i, t in enumerate(passages(s.article, size))]
    return {
        "trace_id": digest[:32],
        "query": "Summarise the article.",
        "context": context,
        "answer": s.summary,
        "label": "fail" if s.hallucinated else "pass",
        "attributes": {"set": s.source},
    }


def scores(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    """(precision, recall, F1) of predicted-unfaithful against human-unfaithful."""
    tp = sum(p and h for p, h in pairs)
    fp = sum(p and not h for p, h in pairs)
    fn = sum(h and not p for p, h in pairs)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frank", type=Path, help="FRANK's data/human_annotations.json")
    parser.add_argument("--xsum", type=Path, help="hallucination_annotations_xsum_summaries.csv")
    parser.add_argument("--articles", type=Path, required=True,
                        help="FRANK's early data/articles-wbertscore-json/")  # fmt: skip
    parser.add_argument("--passage-chars", type=int, default=800)
    parser.add_argument("-o", "--output", type=Path, help="the label file for ragmon calibrate")
    args = parser.parse_args()
    summaries: list[Summary] = []
    if args.frank:
        summaries += frank(args.frank, args.articles)
    if args.xsum:
        summaries += xsum_spans(args.xsum, args.articles)
    judge = HeuristicJudge()
    rows = [record(s, args.passage_chars) for s in summaries]
    by_set: dict[str, list[tuple[bool, bool]]] = {}
    for s, row in zip(summaries, rows, strict=True):
        trace = RagTrace.from_data({k: v for k, v in row.items() if k != "label"})
        verdict = judge.judge(trace).verdict
        by_set.setdefault(s.source, []).append((verdict != "pass", s.hallucinated))
    by_set["all"] = [p for name in list(by_set) for p in by_set[name]]
    print(f"{'set':<14} {'n':>5} {'unfaithful':>10}   {'heuristic P':>11} {'R':>5} {'F1':>5}"
          f"   {'flag-all P':>10} {'R':>5} {'F1':>5}")  # fmt: skip
    for name, pairs in by_set.items():
        hp, hr, hf = scores(pairs)
        ap, ar, af = scores([(True, h) for _, h in pairs])
        share = sum(h for _, h in pairs) / len(pairs)
        print(f"{name:<14} {len(pairs):>5} {share:>10.1%}   {hp:>11.3f} {hr:>5.3f} {hf:>5.3f}"
              f"   {ap:>10.3f} {ar:>5.3f} {af:>5.3f}")  # fmt: skip
    if args.output:
        args.output.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"wrote {len(rows)} labelled traces to {args.output}")


if __name__ == "__main__":
    main()
