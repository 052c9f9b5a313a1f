"""Precision, recall and exact match of the text checks, per class, next to naive baselines.

Run: ``python bench/quality.py`` (the labelled case files under ``tests/quality/``), and
optionally on human-labelled model summaries for ``unsupported_numbers``::

    python bench/quality.py --xsum-spans ANNOTATIONS.csv --frank HUMAN_ANNOTATIONS.json \\
        --articles ARTICLES_DIR

(see ``bench/summaries.py`` for where those public files come from). ``--blind`` scores
issue 75's blind rounds' files (numbers exact and figures P/R; citations exact, invalid and
cited ids P/R; names exact and P/R), leaving out the last round's sealed part, which
``--sealed N`` (``--sealed-names N``) scores once, at the end of its round (``--sealed N``
scores round N's sealed part alone, from round 4 on). ``--common`` scores the open parts of
the common-sense rounds (``tests/quality/COMMON*.md``, ``NAMESCOMMON*.md``,
``CITATIONCOMMON*.md``: labelled from a fact-checker's judgement, not from the written
policy), ``--sealed-common N`` round N's sealed parts. Figures are
printed, not asserted: the tests assert every case; this script shows
where the checks stand.

Baselines, measured in the same run:

* numbers: the naive regex diff (every digit run of the answer that is not a digit run of
  the context or the query);
* refusal: a short English phrase list ("I don't know", "I cannot", "not mentioned", ...);
* citation: ``[n]`` markers only, an index above the passage count being invalid.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.conflicts import PassageSet, conflict_nq, naive_conflict
from bench.summaries import Summary, frank, xsum_spans
from monitor.checks import (
    Citation,
    ContextConflict,
    Refusal,
    TraceView,
    UnsupportedNames,
    UnsupportedNumbers,
)
from monitor.core.model import RagTrace
from tests.quality import Case, load_cases

_NAIVE_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAIVE_REFUSAL = re.compile(
    r"I don't know|I do not know|I cannot|I can't|not mentioned|no information|"
    r"does not (?:contain|mention|provide)|unable to",
    re.IGNORECASE,
)
_NAIVE_CITATION = re.compile(r"\[(\d+)\]")


def _trace(answer: str, context: list[tuple[str, str]], query: str = "") -> RagTrace:
    return RagTrace.from_data(
        {
            "trace_id": "0" * 31 + "1",
            "query": query,
            "answer": answer,
            "context": [{"doc_id": d, "text": t} for d, t in context],
        }
    )


# --- numbers -----------------------------------------------------------------------------


def naive_numbers(answer: str, context: str, query: str = "") -> list[tuple[str, int]]:
    """(digit run, offset) of every answer digit run absent from context and query."""
    known = set(_NAIVE_NUMBER.findall(context)) | set(_NAIVE_NUMBER.findall(query))
    return [(m.group(0), m.start()) for m in _NAIVE_NUMBER.finditer(answer)
            if m.group(0) not in known]  # fmt: skip


_NUMBERS = UnsupportedNumbers()


def ragmon_numbers(answer: str, context: str, query: str = "") -> list[tuple[str, int]]:
    """(figure, offset) of every figure ``unsupported_numbers`` reports."""
    view = TraceView(_trace(answer, [("d1", context)] if context else [], query))
    out = []
    for raw in _NUMBERS(view).evidence.to_line()["numbers"]:
        out.append((raw, _offset(view.answer, raw)))
    return out


def _offset(text: str, raw: str) -> int:
    i = text.find(raw)
    if i < 0:  # reported from a normalised spelling: fall back to its first digit run
        digits = _NAIVE_NUMBER.search(raw)
        i = text.find(digits.group(0)) if digits else -1
    return i


Finder = Callable[[str, str, str], list[tuple[str, int]]]


def summaries_report(name: str, rows: list[Summary], finders: dict[str, Finder]) -> None:
    """Answer-level precision/recall of "has an unsupported number" against the human label,
    and the share of flagged numbers that lie inside a human-marked span."""
    positives = sum(r.hallucinated for r in rows)
    has_spans = any(r.spans for r in rows)
    print(f"\n{name}: {len(rows)} summaries, {positives} labelled hallucinated")
    head = f"{'method':<22} {'flagged':>8} {'precision':>10} {'recall':>8} {'numbers':>8}"
    print(f"  {head} {'in spans':>9}")
    for label, find in finders.items():
        flagged = tp = numbers = inside = 0
        for r in rows:
            found = find(r.summary, r.article, "")
            if not found:
                continue
            flagged += 1
            tp += r.hallucinated
            for raw, start in found:
                numbers += 1
                end = start + len(raw)
                inside += any(s < end and start < e for s, e in r.spans)
        share = f"{inside / numbers:.1%}" if has_spans and numbers else "-"
        precision, recall = tp / max(flagged, 1), tp / max(positives, 1)
        print(
            f"  {label:<22} {flagged:>8} {precision:>10.3f} {recall:>8.3f} {numbers:>8} {share:>9}"
        )


# --- labelled case files --------------------------------------------------------------------


def _per_class(cases: Iterable[Any], score: Callable[[Any], tuple[int, int, int, int, bool]]):
    """Sum (tp, fp, fn, tn, exact) per class and in total."""
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for case in cases:
        tp, fp, fn, tn, exact = score(case)
        for key in (case.cls, "ALL"):
            row = table[key]
            row[0] += tp
            row[1] += fp
            row[2] += fn
            row[3] += tn
            row[4] += exact
            row[5] += 1
    return table


def _print_table(title: str, tables: dict[str, dict[str, list[int]]]) -> None:
    print(f"\n{title}")
    methods = list(tables)
    header = "".join(f" {m + ' P':>9} {'R':>6} {'exact':>6}" for m in methods)
    print(f"  {'class':<26} {'n':>4}{header}")
    classes = [*sorted(k for k in tables[methods[0]] if k != "ALL"), "ALL"]
    for cls in classes:
        cells = ""
        for m in methods:
            tp, fp, fn, _tn, exact, n = tables[m][cls]
            p = f"{tp / (tp + fp):.2f}" if tp + fp else "-"
            r = f"{tp / (tp + fn):.2f}" if tp + fn else "-"
            cells += f" {p:>9} {r:>6} {exact / n:>6.2f}"
        print(f"  {cls:<26} {tables[methods[0]][cls][5]:>4}{cells}")


def _counts(predicted: set[str], expected: set[str]) -> tuple[int, int, int, int, bool]:
    tp = len(predicted & expected)
    return tp, len(predicted - expected), len(expected - predicted), 0, predicted == expected


def numbers_report() -> None:
    cases = load_cases("numbers")

    def ours(c: Case) -> tuple[int, int, int, int, bool]:
        found = {raw for raw, _ in ragmon_numbers(c.answer, "\n\n".join(c.context), c.query)}
        return _counts(found, set(c.expected["unsupported"]))

    def naive(c: Case) -> tuple[int, int, int, int, bool]:
        found = {raw for raw, _ in naive_numbers(c.answer, "\n\n".join(c.context), c.query)}
        # The naive diff reports digit runs; compare with the digit runs of the expected.
        want = {d for raw in c.expected["unsupported"] for d in _NAIVE_NUMBER.findall(raw)}
        return _counts(found, want)

    _print_table(
        "unsupported_numbers: figures reported (P/R over figures; exact = set equal)",
        {"ragmon": _per_class(cases, ours), "naive": _per_class(cases, naive)},
    )


def _binary(flag: bool, truth: bool) -> tuple[int, int, int, int, bool]:
    return int(flag and truth), int(flag and not truth), int(truth and not flag), 0, flag == truth


def refusal_report() -> None:
    cases = load_cases("refusal")
    check = Refusal()

    def ours(c: Case) -> tuple[int, int, int, int, bool]:
        return _binary(check(TraceView(_trace(c.answer, []))).flagged, c.expected["refusal"])

    def naive(c: Case) -> tuple[int, int, int, int, bool]:
        return _binary(_NAIVE_REFUSAL.search(c.answer) is not None, c.expected["refusal"])

    _print_table(
        "refusal: answers flagged (P/R over answers; exact = right label)",
        {"ragmon": _per_class(cases, ours), "naive": _per_class(cases, naive)},
    )


def citation_report() -> None:
    cases = load_cases("citation")
    check = Citation()

    def evidence(c: Case) -> dict[str, list[str]]:
        view = TraceView(_trace(c.answer, c.passages()))
        return check(view).evidence.to_line()  # type: ignore[return-value]

    def naive_ids(c: Case) -> tuple[list[str], list[str]]:
        cited = _NAIVE_CITATION.findall(c.answer)
        return cited, [i for i in cited if not 1 <= int(i) <= len(c.context)]

    def presence(c: Case) -> tuple[int, int, int, int, bool]:
        return _binary(bool(evidence(c).get("cited")), bool(c.expected["cited"]))

    def naive_presence(c: Case) -> tuple[int, int, int, int, bool]:
        return _binary(bool(naive_ids(c)[0]), bool(c.expected["cited"]))

    def invalid(c: Case) -> tuple[int, int, int, int, bool]:
        return _counts(set(evidence(c).get("invalid", [])), set(c.expected["invalid"]))

    def naive_invalid(c: Case) -> tuple[int, int, int, int, bool]:
        return _counts(set(naive_ids(c)[1]), set(c.expected["invalid"]))

    def cited(c: Case) -> tuple[int, int, int, int, bool]:
        return _counts(set(evidence(c).get("cited", [])), set(c.expected["cited"]))

    _print_table(
        "citation presence (P/R over answers that cite; exact = right presence)",
        {"ragmon": _per_class(cases, presence), "naive": _per_class(cases, naive_presence)},
    )
    _print_table(
        "citation ids: cited (P/R over ids; exact = same id set)",
        {"ragmon": _per_class(cases, cited)},
    )
    _print_table(
        "citation ids: invalid (P/R over invalid ids; exact = same id set)",
        {"ragmon": _per_class(cases, invalid), "naive": _per_class(cases, naive_invalid)},
    )


# Issue 75's blind rounds (tests/quality/BLIND*.md): the case files each round's hand wrote.
# The last round's sealed part is scored once, at the end of its round (``--sealed LAST``);
# ``--blind`` never opens it.
LAST_ROUND = 13
ROUNDS = {1: "blind", **{n: f"blind{n}" for n in range(2, LAST_ROUND + 1)}}
BLIND_SETS = tuple(
    f"{kind}_{name}_{part}"
    for name in ROUNDS.values()
    for part in ("open", "sealed")
    for kind in ("numbers", "citation")
)


# The blind rounds of ``unsupported_names`` (tests/quality/NAMES*.md), scored alike: the last
# round's sealed file once, at the end of its round (``--sealed-names LAST``).
NAMES_LAST_ROUND = 2
NAMES_SETS = tuple(
    f"names_blind{n}_{part}" for n in range(1, NAMES_LAST_ROUND + 1) for part in ("open", "sealed")
)


# The common-sense rounds: cases labelled from a careful fact-checker's judgement by a hand
# that read neither the policy nor the code (tests/quality/COMMON*.md, NAMESCOMMON*.md,
# CITATIONCOMMON*.md); each kind's last round's sealed part is scored once, at the end of
# its round (``--sealed-common``).
COMMON_LAST_ROUNDS = {"numbers": 4, "names": 4, "citation": 1}
COMMON_LAST_ROUND = max(COMMON_LAST_ROUNDS.values())
COMMON_SETS = tuple(
    f"{kind}_common{n}_{part}"
    for kind, last in COMMON_LAST_ROUNDS.items()
    for n in range(1, last + 1)
    for part in ("open", "sealed")
)


def names_case(case: Case) -> tuple[bool, list[str]]:
    """Whether ``unsupported_names`` applies to a names case, and the names it reports."""
    docs = list(case.expected.get("doc_ids") or [f"d{i}" for i in range(1, len(case.context) + 1)])
    trace = _trace(case.answer, list(zip(docs, case.context, strict=True)), case.query)
    result = UnsupportedNames()(TraceView(trace))
    return result.applicable, list(getattr(result.evidence, "names", ()))


def names_report(names: Iterable[str]) -> None:
    """Per names file: exact (applicability and the names, in order) and the names' P/R."""
    for name in names:
        if not (Path(__file__).parent.parent / "tests" / "quality" / f"{name}.jsonl").exists():
            continue
        exact, tp, fp, fn = 0, 0, 0, 0
        cases = load_cases(name)
        for c in cases:
            applicable, got = names_case(c)
            want = list(c.expected["unsupported"])
            exact += applicable == c.expected.get("applicable", True) and got == want
            tp += len(set(got) & set(want))
            fp += len(set(got) - set(want))
            fn += len(set(want) - set(got))
        p = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
        r = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
        print(f"  {name:<26} exact {exact}/{len(cases)}  names P/R {p}/{r}")


def sealed(round_: int) -> tuple[str, str]:
    """A round's sealed files."""
    return (f"numbers_{ROUNDS[round_]}_sealed", f"citation_{ROUNDS[round_]}_sealed")


def blind_report(names: Iterable[str]) -> None:
    """Per blind file: numbers exact; citations exact (ids cited and invalid both right),
    invalid ids and cited ids P/R. A file not written yet is skipped."""
    citation = Citation()
    print("\nblind sets (tests/quality/BLIND*.md)")
    for name in names:
        if not (Path(__file__).parent.parent / "tests" / "quality" / f"{name}.jsonl").exists():
            continue
        cases = load_cases(name)
        if name.startswith("numbers"):
            exact, tp, fp, fn = 0, 0, 0, 0
            for c in cases:
                found = {
                    raw for raw, _ in ragmon_numbers(c.answer, "\n\n".join(c.context), c.query)
                }
                want = set(c.expected["unsupported"])
                exact += found == want
                tp, fp, fn = tp + len(found & want), fp + len(found - want), fn + len(want - found)
            p = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
            r = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
            print(f"  {name:<26} exact {exact}/{len(cases)}  figures P/R {p}/{r}")
            continue
        exact, inv, cit = 0, [0, 0, 0], [0, 0, 0]
        for c in cases:
            line: dict[str, Any] = citation(
                TraceView(_trace(c.answer, c.passages()))
            ).evidence.to_line()
            got_i, want_i = set(line.get("invalid", [])), set(c.expected["invalid"])
            got_c, want_c = set(line.get("cited", [])), set(c.expected["cited"])
            for acc, got, want in ((inv, got_i, want_i), (cit, got_c, want_c)):
                acc[0] += len(got & want)
                acc[1] += len(got - want)
                acc[2] += len(want - got)
            exact += got_i == want_i and got_c == want_c

        def pr(tp: int, fp: int, fn: int) -> str:
            p = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
            r = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
            return f"{p}/{r}"

        print(f"  {name:<26} exact {exact}/{len(cases)}  invalid P/R {pr(*inv)}"
              f"  cited P/R {pr(*cit)}")  # fmt: skip


def conflict_report(extra: list[PassageSet]) -> None:
    """``context_conflict`` per class, on the case file and any ConflictNQ pairs."""
    sets = [PassageSet(c.cls, tuple(c.context), c.expected["conflict"])
            for c in load_cases("conflict")] + extra  # fmt: skip
    check = ContextConflict()

    def ours(s: PassageSet) -> tuple[int, int, int, int, bool]:
        trace = _trace("See the passages.", [(f"d{i}", t) for i, t in enumerate(s.passages, 1)])
        return _binary(check(TraceView(trace)).flagged, s.conflict)

    def naive(s: PassageSet) -> tuple[int, int, int, int, bool]:
        return _binary(naive_conflict(s.passages), s.conflict)

    _print_table(
        "context_conflict: passage sets flagged (P/R over sets; exact = right label)",
        {"ragmon": _per_class(sets, ours), "naive": _per_class(sets, naive)},
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--xsum-spans", type=Path, help="XSum hallucination annotations csv")
    parser.add_argument("--frank", type=Path, help="FRANK human_annotations.json")
    parser.add_argument("--articles", type=Path, help="folder of FRANK article JSON files")
    parser.add_argument("--only-summaries", action="store_true",
                        help="skip the case files")  # fmt: skip
    parser.add_argument("--conflict-nq", type=Path, action="append", default=[],
                        help="a ConflictNQ JSON-lines file (repeatable)")  # fmt: skip
    parser.add_argument(
        "--blind", action="store_true", help=f"the blind files (not round {LAST_ROUND}'s sealed)"
    )
    parser.add_argument("--sealed", type=int, action="append", default=[], metavar="N",
                        choices=range(4, LAST_ROUND + 1),
                        help=f"score round N's sealed files alone (round {LAST_ROUND}'s: once, "
                             "at the end of its round); repeatable")  # fmt: skip
    parser.add_argument("--sealed-names", type=int, action="append", default=[], metavar="N",
                        choices=range(1, NAMES_LAST_ROUND + 1),
                        help=f"score names round N's sealed file alone (round "
                             f"{NAMES_LAST_ROUND}'s: once, at the end of its round)")  # fmt: skip
    parser.add_argument("--common", action="store_true",
                        help="the common-sense rounds' files (not each kind's last round's "
                             "sealed part)")  # fmt: skip
    parser.add_argument("--sealed-common", type=int, action="append", default=[], metavar="N",
                        choices=range(1, COMMON_LAST_ROUND + 1),
                        help="score common-sense round N's sealed parts alone (the last "
                             "round's: once, at the end of its round)")  # fmt: skip
    args = parser.parse_args()
    if args.common or args.sealed_common:
        last = {f"{kind}_common{n}_sealed" for kind, n in COMMON_LAST_ROUNDS.items()}
        files = [n for n in COMMON_SETS if n not in last] if args.common else []
        files += [f"{kind}_common{n}_sealed" for n in args.sealed_common
                  for kind in COMMON_LAST_ROUNDS]  # fmt: skip
        blind_report([n for n in files if not n.startswith("names")])
        names_report([n for n in files if n.startswith("names")])
        return
    if args.blind or args.sealed or args.sealed_names:
        last = sealed(LAST_ROUND)
        names = [n for n in BLIND_SETS if n not in last] if args.blind else []
        names += [n for round_ in args.sealed for n in sealed(round_) if n not in names]
        blind_report(names)
        last_names = f"names_blind{NAMES_LAST_ROUND}_sealed"
        files = [n for n in NAMES_SETS if n != last_names] if args.blind else []
        files += [f"names_blind{n}_sealed" for n in args.sealed_names]
        names_report(files)
        return
    if not args.only_summaries:
        numbers_report()
        refusal_report()
        citation_report()
        conflict_report([s for path in args.conflict_nq for s in conflict_nq(path)])
    finders: dict[str, Finder] = {"ragmon": ragmon_numbers, "naive regex diff": naive_numbers}
    if (args.xsum_spans or args.frank) and not args.articles:
        parser.error("--articles is needed with --xsum-spans or --frank")
    if args.xsum_spans:
        rows = list(xsum_spans(args.xsum_spans, args.articles))
        summaries_report("XSum summaries with human hallucination spans", rows, finders)
    if args.frank:
        by_set: dict[str, list[Summary]] = defaultdict(list)
        for row in frank(args.frank, args.articles):
            by_set[row.source].append(row)
        for source, rows in sorted(by_set.items()):
            summaries_report(f"FRANK {source.removeprefix('frank-')} summaries", rows, finders)


if __name__ == "__main__":
    main()
