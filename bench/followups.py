"""Precision and recall of the follow-up signals (monitor/sessions/signals.py), per signal and
per language, on a labelled set of consecutive turns (default: tests/sessions/followups.tsv,
written for this project; any file in its format works: language, A, B, signals).

    .venv/bin/python bench/followups.py [FILE]

A pair counts once per signal: a true positive when B carries the signal and the label says
so, a false positive when only ``read`` says so, a false negative when only the label does.
Also prints the cost of reading one pair (the session stage's share of a trace's cost).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from monitor.sessions.signals import SIGNALS, _content_of, _prepared, read

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "sessions" / "followups.tsv"


def load(path: Path) -> list[tuple[str, str, str, frozenset[str]]]:
    """(language, A, B, signals) per labelled line."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, a, b, labels = line.split("\t")
        rows.append((lang, a, b, frozenset() if labels == "-" else frozenset(labels.split(","))))
    return rows


def _ratio(n: int, d: int) -> str:
    return f"{n / d:.3f}" if d else "  -  "


def main(argv: list[str]) -> int:
    rows = load(Path(argv[0]) if argv else DEFAULT)
    tp: Counter[tuple[str, str]] = Counter()
    fp: Counter[tuple[str, str]] = Counter()
    fn: Counter[tuple[str, str]] = Counter()
    wrong = []
    for lang, a, b, labels in rows:
        got = frozenset(read(a, b))
        for signal in SIGNALS:
            key = (signal, lang)
            if signal in got and signal in labels:
                tp[key] += 1
            elif signal in got:
                fp[key] += 1
            elif signal in labels:
                fn[key] += 1
        if got != labels:
            wrong.append((lang, b, sorted(labels), sorted(got)))
    langs = sorted({r[0] for r in rows})
    print(f"{len(rows)} pairs, {len(langs)} languages")
    print(f"{'signal':20} {'P':>6} {'R':>6} {'tp':>4} {'fp':>4} {'fn':>4}  recall by language")
    for signal in SIGNALS:
        t = sum(v for (s, _), v in tp.items() if s == signal)
        f = sum(v for (s, _), v in fp.items() if s == signal)
        n = sum(v for (s, _), v in fn.items() if s == signal)
        by_lang = " ".join(
            f"{lang}={_ratio(tp[(signal, lang)], tp[(signal, lang)] + fn[(signal, lang)])}"
            for lang in langs
            if tp[(signal, lang)] + fn[(signal, lang)]
        )
        print(
            f"{signal:20} {_ratio(t, t + f):>6} {_ratio(t, t + n):>6} {t:4} {f:4} {n:4}  {by_lang}"
        )
    for lang, b, want, got in wrong:
        print(f"  miss [{lang}] {b!r}: labelled {want}, read {got}")
    pairs = [(a, b) for _, a, b, _ in rows]
    read(*pairs[0])  # patterns loaded
    # each round from a cold cache of prepared turns: the labelled pairs are not chained, so
    # no turn is read twice (in a conversation the B of one pair is the A of the next)
    rounds, spent = 20, 0.0
    for _ in range(rounds):
        _prepared.cache_clear()
        _content_of.cache_clear()
        t0 = time.perf_counter()
        for a, b in pairs:
            read(a, b)
        spent += time.perf_counter() - t0
    each = spent / (rounds * len(pairs))
    print(f"read: {each * 1e6:.1f} µs a pair (mean over {rounds * len(pairs)}, no turn read twice)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
