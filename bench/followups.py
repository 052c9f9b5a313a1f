"""Precision and recall of the follow-up signals (monitor/sessions/signals.py), per signal and
per language, on a labelled set of consecutive turns (default: tests/sessions/followups.tsv,
written for this project; any file in its format works: language, A, B, signals, and an
optional 5th column, the kind of rephrase as the set's author labelled it: exact, partial,
reworded, or ``-``).

    .venv/bin/python bench/followups.py [FILE]
    .venv/bin/python bench/followups.py OPEN SEALED   # two sets side by side
    .venv/bin/python bench/followups.py --blind       # the blind set's open and sealed parts
    .venv/bin/python bench/followups.py --blind2      # the second blind set's, the same way
    .venv/bin/python bench/followups.py --blind3      # the third blind set's, the same way
    .venv/bin/python bench/followups.py --blind4      # the fourth blind set's, the same way
    .venv/bin/python bench/followups.py --blind5      # the fifth blind set's, the same way
    .venv/bin/python bench/followups.py --blind6      # the sixth blind set's, the same way
    .venv/bin/python bench/followups.py --blind7      # the seventh blind set's, the same way
    .venv/bin/python bench/followups.py --blind8      # the eighth blind set's, the same way

A pair counts once per signal: a true positive when B carries the signal and the label says
so, a false positive when only ``read`` says so, a false negative when only the label does.
One file: its figures and every miss by name. Two files (a set's open part, then the part
held out, as ``--blind`` and ``--blind2`` name them): their figures side by side and the
second's drop from the first, flagged past 0.05 (the patterns fitted to the first) — no line
of either is printed, so the held-out part can be scored without being read. Also prints the
cost of reading one pair (the session stage's share of a trace's cost), on the first file.

Rephrase recall is also broken down by kind, for every set scored: each pair labelled
``rephrase`` is put in a kind by its own text (``kind``, a rule of this bench's, not the
code under test's reading):

* a turn's content words: NFKC, lower case, accents and letters typed three times or more
  dropped ("Suscripción" and "suscripcioon" alike), split into runs of letters and digits;
  words of the language's and English's lists of the stop-words package and one-letter
  words left out; in Chinese, Japanese and Korean script, each character (hiragana, which is
  grammar, left out) is a word;
* ``exact``: A's and B's content words are the same set;
* ``partial``: one's content words are all among the other's, or they share at least half
  of the two together, two words matching when they are equal, one begins the other (four
  letters at least: "cancel", "cancelled"), or, of five letters at least, they begin with
  the same five ("değiştirebilir", "değişir") or differ by one letter changed, added,
  dropped or two swapped ("exprot", "export");
* ``reworded``: the rest (few words or none in common).

When a file has the 5th column, rephrase recall is also printed by the kind its author
labelled, beside the bench's own rule (the two may put a pair in different kinds).
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from monitor.sessions.signals import SIGNALS, _prepared, read

REPHRASE = SIGNALS[0]
KINDS = ("exact", "partial", "reworded")  # of a rephrase, told by ``kind``

SETS = Path(__file__).resolve().parent.parent / "tests" / "sessions"
DEFAULT = SETS / "followups.tsv"
# a set's open and sealed parts, by option: --blind, then --blind2 ... --blind8
NAMED = {
    f"--blind{n}": (SETS / f"followups_blind{n}_open.tsv", SETS / f"followups_blind{n}_sealed.tsv")
    for n in ("", *map(str, range(2, 9)))
}
GAP = 0.05  # a held-out figure this far below the open one: fitted to the open part


def _lines(path: Path) -> list[list[str]]:
    """A labelled file's lines, split in columns (comments and blank lines left out)."""
    return [
        line.split("\t")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def load(path: Path) -> list[tuple[str, str, str, frozenset[str]]]:
    """(language, A, B, signals) per labelled line (a 5th column, ``labelled_kinds``'s, aside)."""
    rows = []
    for lang, a, b, labels, *_ in _lines(path):
        rows.append((lang, a, b, frozenset() if labels == "-" else frozenset(labels.split(","))))
    return rows


def labelled_kinds(path: Path) -> list[str] | None:
    """The 5th column per labelled line (the kind of rephrase its author gave, ``-`` for a
    pair that is none), or None when the file has no 5th column."""
    lines = _lines(path)
    if not lines or any(len(cols) < 5 for cols in lines):
        return None
    return [cols[4].strip() for cols in lines]


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_RUN = re.compile(r"[^\W_]+")
_TYPED_ON = re.compile(r"(\w)\1{2,}")


def _plain(text: str) -> str:
    """NFKC, lower case, accents off, a letter typed three times or more once."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _TYPED_ON.sub(r"\1", unicodedata.normalize("NFC", text))


_STOP: dict[str, frozenset[str]] = {}


def _stop(lang: str) -> frozenset[str]:
    """The stop-words package's list for ``lang`` and for English, plain (empty if none)."""
    if lang not in _STOP:
        from stop_words import get_stop_words

        words: set[str] = set()
        for code in {lang, "en"}:
            with contextlib.suppress(Exception):  # a language the package has no list for
                words.update(_plain(w) for w in get_stop_words(code))
        _STOP[lang] = frozenset(words)
    return _STOP[lang]


def content_words(text: str, lang: str) -> frozenset[str]:
    """A turn's content words by the bench's rule (the module's docstring)."""
    stop, out = _stop(lang), set[str]()
    for run in _RUN.findall(_plain(text)):
        if _CJK.search(run):
            out.update(c for c in run if _CJK.match(c) and not _HIRAGANA.match(c))
            rest = _CJK.sub(" ", run).split()
        else:
            rest = [run]
        out.update(w for w in rest if len(w) > 1 and w not in stop)
    return frozenset(out)


def _one_edit(x: str, y: str) -> bool:
    """Whether ``x`` and ``y`` differ by one letter changed, added or dropped (or two
    neighbours swapped)."""
    if abs(len(x) - len(y)) > 1:
        return False
    if len(x) == len(y):
        diff = [i for i in range(len(x)) if x[i] != y[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and x[diff[0]] == y[diff[1]]
        return len(diff) <= 1 or (swapped and x[diff[1]] == y[diff[0]])
    short, long_ = sorted((x, y), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _match(x: str, y: str) -> bool:
    if x == y:
        return True
    short, long_ = sorted((x, y), key=len)
    if len(short) >= 4 and long_.startswith(short):
        return True
    return len(short) >= 5 and (short[:5] == long_[:5] or _one_edit(x, y))


def kind(lang: str, a: str, b: str) -> str:
    """A rephrase's kind by its text alone: exact, partial or reworded (module docstring)."""
    ca, cb = content_words(a, lang), content_words(b, lang)
    if ca == cb:
        return "exact"
    in_a = {x for x in ca if any(_match(x, y) for y in cb)}
    in_b = {y for y in cb if any(_match(x, y) for x in ca)}
    if in_a and (in_a == ca or in_b == cb):
        return "partial"
    shared = (len(in_a) + len(in_b)) / 2  # words of one matched in the other, both ways
    union = len(ca) + len(cb) - shared
    return "partial" if shared and shared >= 0.5 * union else "reworded"


@dataclass
class Score:
    """One set's counts per (signal, language), and the pairs read wrong."""

    pairs: int = 0
    langs: list[str] = field(default_factory=list)
    tp: Counter[tuple[str, str]] = field(default_factory=Counter)
    fp: Counter[tuple[str, str]] = field(default_factory=Counter)
    fn: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong: list[tuple[str, str, list[str], list[str]]] = field(default_factory=list)
    # per kind of rephrase (``kind``): how many labelled, how many read
    kinds: Counter[str] = field(default_factory=Counter)
    kinds_read: Counter[str] = field(default_factory=Counter)
    # the same by the kind the set's author labelled (a 5th column), when it has one
    labelled: Counter[str] = field(default_factory=Counter)
    labelled_read: Counter[str] = field(default_factory=Counter)

    def total(self, counts: Counter[tuple[str, str]], signal: str) -> int:
        return sum(v for (s, _), v in counts.items() if s == signal)

    def precision(self, signal: str) -> float | None:
        t, f = self.total(self.tp, signal), self.total(self.fp, signal)
        return t / (t + f) if t + f else None

    def recall(self, signal: str, lang: str | None = None) -> float | None:
        if lang is None:
            t, n = self.total(self.tp, signal), self.total(self.fn, signal)
        else:
            t, n = self.tp[(signal, lang)], self.fn[(signal, lang)]
        return t / (t + n) if t + n else None


def score(
    rows: list[tuple[str, str, str, frozenset[str]]], given: list[str] | None = None
) -> Score:
    """``read`` on every labelled pair, counted; ``given``: the kind of rephrase each pair's
    author labelled (``labelled_kinds``), if the set has one."""
    out = Score(pairs=len(rows), langs=sorted({r[0] for r in rows}))
    for i, (lang, a, b, labels) in enumerate(rows):
        got = frozenset(read(a, b))
        for signal in SIGNALS:
            key = (signal, lang)
            if signal in got and signal in labels:
                out.tp[key] += 1
            elif signal in got:
                out.fp[key] += 1
            elif signal in labels:
                out.fn[key] += 1
        if REPHRASE in labels:
            k = kind(lang, a, b)
            out.kinds[k] += 1
            out.kinds_read[k] += REPHRASE in got
            if given is not None:
                out.labelled[given[i]] += 1
                out.labelled_read[given[i]] += REPHRASE in got
        if got != labels:
            out.wrong.append((lang, b, sorted(labels), sorted(got)))
    return out


def _ratio(x: float | None) -> str:
    return f"{x:.3f}" if x is not None else "  -  "


def by_kind(s: Score) -> str:
    """Rephrase recall per kind: R (read/labelled), by the bench's rule and, when the set
    labels kinds, by its author's."""
    out = []
    for name, counts, read_ in (
        ("bench rule", s.kinds, s.kinds_read),
        ("labelled", s.labelled, s.labelled_read),
    ):
        if not counts:
            continue
        kinds = list(KINDS) + sorted(set(counts) - set(KINDS))  # any other label shown as is
        out.append(f"{name}: " + " ".join(
            f"{k}={_ratio(read_[k] / n if (n := counts[k]) else None)} ({read_[k]}/{n})"
            for k in kinds
        ))  # fmt: skip
    return "; ".join(out)


def report(s: Score) -> None:
    """One set: per signal P, R, counts and recall by language; every miss by name."""
    print(f"{s.pairs} pairs, {len(s.langs)} languages")
    print(f"{'signal':20} {'P':>6} {'R':>6} {'tp':>4} {'fp':>4} {'fn':>4}  recall by language")
    for signal in SIGNALS:
        t, f, n = (s.total(c, signal) for c in (s.tp, s.fp, s.fn))
        by_lang = " ".join(
            f"{lang}={_ratio(x)}" for lang in s.langs if (x := s.recall(signal, lang)) is not None
        )
        p, r = _ratio(s.precision(signal)), _ratio(s.recall(signal))
        print(f"{signal:20} {p:>6} {r:>6} {t:4} {f:4} {n:4}  {by_lang}")
    print(f"rephrase recall by kind: {by_kind(s)}")
    for lang, b, want, got in s.wrong:
        print(f"  miss [{lang}] {b!r}: labelled {want}, read {got}")


def side_by_side(names: tuple[str, str], first: Score, second: Score) -> None:
    """Two sets' P and R per signal, the second's drop, and each's lowest recall by language;
    no line of either."""
    print(f"{names[0]}: {first.pairs} pairs; {names[1]}: {second.pairs} pairs")
    print(f"{'signal':20} {'P':>6} {'P2':>6} {'R':>6} {'R2':>6}  drop (P, R)  lowest R by language")
    for signal in SIGNALS:
        p1, p2 = first.precision(signal), second.precision(signal)
        r1, r2 = first.recall(signal), second.recall(signal)
        drops = [x - y for x, y in ((p1, p2), (r1, r2)) if x is not None and y is not None]
        flag = " FITTED" if any(d > GAP for d in drops) else ""
        lows = []
        for s in (first, second):
            got = [(r, lang) for lang in s.langs if (r := s.recall(signal, lang)) is not None]
            lows.append(f"{min(got)[1]}={min(got)[0]:.3f}" if got else "-")
        drop = " ".join(f"{d:+.3f}" for d in drops)
        print(f"{signal:20} {_ratio(p1):>6} {_ratio(p2):>6} {_ratio(r1):>6} {_ratio(r2):>6}"
              f"  {drop:>13}{flag}  {lows[0]} / {lows[1]}")  # fmt: skip
    for name, s in zip(names, (first, second), strict=True):
        print(f"rephrase recall by kind, {name}: {by_kind(s)}")
    print(f"(P2, R2: {names[1]}; FITTED: a drop over {GAP} from {names[0]})")


def cost(rows: list[tuple[str, str, str, frozenset[str]]]) -> float:
    """CPU seconds to read one pair (the machine's other load aside), mean over 20 rounds,
    each from a cold cache of prepared
    turns: the labelled pairs are not chained, so no turn is read twice (in a conversation
    the B of one pair is the A of the next)."""
    pairs = [(a, b) for _, a, b, _ in rows]
    read(*pairs[0])  # patterns loaded
    rounds, spent = 20, 0.0
    for _ in range(rounds):
        _prepared.cache_clear()  # and the content words kept on each turn
        t0 = time.process_time()
        for a, b in pairs:
            read(a, b)
        spent += time.process_time() - t0
    return spent / (rounds * len(pairs))


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    missing = [a for a in argv if a not in NAMED and not Path(a).is_file()]
    if missing:
        print(f"no such file: {missing[0]}", file=sys.stderr)
        return 2
    if any(a in NAMED for a in argv) and len(argv) > 1:
        print(f"{' or '.join(NAMED)} alone: it names both files", file=sys.stderr)
        return 2
    paths = list(NAMED[argv[0]]) if argv and argv[0] in NAMED else [Path(a) for a in argv]
    paths = paths or [DEFAULT]
    if len(paths) > 2:
        print("at most two files: a set's open part, then its held-out part", file=sys.stderr)
        return 2
    sets = [load(p) for p in paths]
    scores = [score(rows, labelled_kinds(p)) for rows, p in zip(sets, paths, strict=True)]
    if len(sets) == 1:
        report(scores[0])
    else:
        side_by_side((paths[0].name, paths[1].name), scores[0], scores[1])
    each = cost(sets[0])
    print(f"read: {each * 1e6:.1f} µs a pair (mean over {20 * len(sets[0])}, no turn read twice)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
