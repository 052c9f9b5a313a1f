"""Candidate terms for the static risk (``monitor.checks.risk``), measured before one is
taken: each added to the risk as one more independent chance (noisy-or), at a few weights,
and the AUROC of the result printed per set beside the risk's own.

Run: ``python bench/risk_candidates.py --frank ANNOTATIONS ARTICLES --split VALIDATION
--split TEST [HALUEVAL FILE ...]`` (the data of ``bench/risk.py``; nothing of it is
committed). FRANK's XSum and CNN/DM summaries are measured on each split file given (FRANK's
``data/validation_split.txt`` to develop on, ``data/test_split.txt`` held out), HaluEval's
QA as a whole. A term is worth taking only when it lifts the summaries without lowering
CNN/DM or HaluEval on either split (issue 75's rule for the risk).

The candidates are model-free and read only the trace:

* ``novel_trigrams``: how many of the answer's word trigrams neither the context nor the
  question holds (the count the risk's new-phrasing share is made of), ``(1 - w) ** n``;
* ``novel_words``: how many of the answer's words (stop words included) the context lacks;
* ``missing_content``: how many content words the grounding check finds missing (its share
  is the risk's grounding gap);
* ``sentence_repeats``: content words said twice in one sentence (a summariser's loop:
  "Gloucester beat Gloucester");
* ``novel_trigrams_per_sentence``: the first count over the answer's sentences.

Figures (issue 75, FRANK test split: XSum 700 summaries of which 52 faithful, CNN/DM 875;
static risk/4: XSum 0.587, CNN/DM 0.760, HaluEval 0.994): every term that lifts XSum lowers
CNN/DM (``novel_trigrams`` at 0.05: XSum 0.622, CNN/DM 0.743; ``sentence_repeats`` at 0.3:
0.627 and 0.671; ``novel_trigrams_per_sentence`` at 0.02: 0.609 and 0.755), and the ones
that keep CNN/DM leave XSum where it is (novel capitalised names, whole-word grounding, the
trigram count capped at 3 to 12, the share per sentence at its highest). XSum's summaries
are one sentence, 16 of 17 trigrams new on the median: a longer one is likelier wrong there
and likelier faithful in CNN/DM (length alone: AUROC 0.604 and 0.366), and a count of new
words or phrases reads mostly length. No term was taken.
Not a test: figures are printed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.risk import auroc, load, load_frank
from monitor.checks import CheckSuite, kernels
from monitor.checks.context import content_words, missing_words
from monitor.checks.kernels import _words_of
from monitor.checks.memo import lowered
from monitor.checks.risk import risk
from monitor.checks.view import TraceView
from monitor.core.model import CheckResult, RagTrace

_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?=\d)[^.!?\n]*)*(?:[.!?](?!\d)|\n|$)")
_STOP = frozenset(
    "the a an and or of to in on at for with by from is are was were be been has have had "
    "it its this that as not but said says".split()
)
WEIGHTS = (0.02, 0.05, 0.1, 0.3)

Row = tuple[dict[str, CheckResult], TraceView]


def _novel_trigrams(row: Row) -> float:
    _, view = row
    novel, _ = kernels.phrasing(
        lowered(view.answer), view.context_lower, lowered(view.trace.query), 64
    )
    return float(novel)


def _novel_words(row: Row) -> float:
    _, view = row
    known = set(_words_of(view.context_lower).split())
    return float(sum(1 for w in _words_of(lowered(view.answer)).split() if w not in known))


def _missing_content(row: Row) -> float:
    _, view = row
    words = content_words(view.answer)
    return float(len(missing_words(view, words))) if words else 0.0


def _sentence_repeats(row: Row) -> float:
    _, view = row
    repeats = 0
    for sentence in _SENTENCE.findall(view.answer):
        seen: set[str] = set()
        for w in _WORD.findall(sentence.lower()):
            w = w.strip("'-")
            if not w or w in _STOP or w.isdigit():
                continue
            repeats += w in seen
            seen.add(w)
    return float(repeats)


def _per_sentence(row: Row) -> float:
    sentences = sum(1 for s in _SENTENCE.findall(row[1].answer) if len(s.split()) >= 3)
    return _novel_trigrams(row) / max(1, sentences)


CANDIDATES: dict[str, Callable[[Row], float]] = {
    "novel_trigrams": _novel_trigrams,
    "novel_words": _novel_words,
    "missing_content": _missing_content,
    "sentence_repeats": _sentence_repeats,
    "novel_trigrams_per_sentence": _per_sentence,
}


def measure(sets: dict[str, list[tuple[RagTrace, bool]]]) -> None:
    """Print, per candidate and weight, the AUROC of the risk with the candidate added."""
    suite = CheckSuite()
    scored: dict[str, tuple[list[float], list[dict[str, float]], list[bool]]] = {}
    for name, data in sets.items():
        base, values, labels = [], [], []
        for trace, bad in data:
            view = suite.view(trace)
            result = suite(trace, view)
            base.append(risk(result, view))
            values.append({c: f((result, view)) for c, f in CANDIDATES.items()})
            labels.append(bad)
        scored[name] = (base, values, labels)
    head = " ".join(f"{n:>14}" for n in scored)
    print(f"{'term':<36}{head}")
    row = " ".join(f"{auroc(b, y):>14.3f}" for b, _, y in scored.values())
    print(f"{'static risk':<36}{row}")
    for cand in CANDIDATES:
        row = " ".join(f"{auroc([v[cand] for v in vs], y):>14.3f}" for _, vs, y in scored.values())
        print(f"{cand + ' alone':<36}{row}")
        for w in WEIGHTS:
            cells = []
            for b, vs, y in scored.values():
                added = [1 - (1 - r) * (1 - w) ** v[cand] for r, v in zip(b, vs, strict=True)]
                cells.append(f"{auroc(added, y):>14.3f}")
            print(f"{'+ ' + cand + f' at {w}':<36}{' '.join(cells)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path, help="HaluEval QA files")
    parser.add_argument("--frank", nargs=2, type=Path, metavar=("ANNOTATIONS", "ARTICLES"))
    parser.add_argument("--split", action="append", type=Path, default=[], metavar="FILE",
                        help="a FRANK split file (validation_split.txt, test_split.txt); "
                        "repeatable")  # fmt: skip
    args = parser.parse_args()
    if not args.files and not args.frank:
        parser.error("give HaluEval QA files, --frank, or both")
    sets: dict[str, list[tuple[RagTrace, bool]]] = {}
    if args.frank:
        for split in args.split or [None]:
            only = set(split.read_text(encoding="utf-8").split()) if split else None
            tag = split.stem.removesuffix("_split") if split else "all"
            for name, data in load_frank(args.frank[0], args.frank[1], only).items():
                sets[f"{name} {tag}"] = data
    if args.files:
        sets["HaluEval"] = load(args.files)
    measure(sets)


if __name__ == "__main__":
    main()
