"""Checks on the packed context: ``empty_context``, ``context_conflict``, ``grounding_overlap``."""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import ClassVar

from monitor.checks.citation_markers import find_citations
from monitor.checks.evidence import (
    OVERLAP_RATIO,
    Conflict,
    ConflictEvidence,
    EmptyContextEvidence,
    OverlapEvidence,
)
from monitor.checks.kernels import contains
from monitor.checks.memo import PassageFacts
from monitor.checks.numbers import NumberIndex, NumberLookup
from monitor.checks.options import ContextConflictOptions, GroundingOverlapOptions
from monitor.checks.text import CONTENT_WORD
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.model import CheckResult

_STOPWORDS = (
    frozenset(
        """
    about above after again against also although among another anyone anything around
    because been before being below between both cannot could does doing done down during
    each either else enough even ever every from further have having here hers herself
    himself however into itself just less like many might more most much must myself neither
    never none once only other ought ours ourselves over own please same shall should since
    some such than that that's their theirs them themselves then there there's these they
    they're this those though through thus under until upon very want well were what what's
    when where which while whom whose will with within without would your yours yourself
    yourselves answer question context based provided according information following
    mentioned stated says said
    """.split()
    )
    | frozenset(  # contractions of stop words: "it's a comedy" claims no word "it's"
        f"{w}'{t}"
        for w, tails in {
            "it": "s ll d",
            "he": "s ll d",
            "she": "s ll d",
            "you": "re ve ll d",
            "we": "re ve ll d",
            "they": "ve ll d",
            "i": "ve ll",
            "let": "s",
            "here": "s",
            "who": "s ll d ve",
            "where": "s d",
            "when": "s",
            "how": "s",
            "that": "ll d",
            "there": "ll d",
            "what": "re ll d ve",
        }.items()
        for t in tails.split()
    )
    | frozenset(
        f"{w}n't"
        for w in "do does did is are was were has have had could would should must need".split()
    )
    | frozenset({"can't", "won't", "shan't", "ain't", "y'all"})
    | frozenset(f"{w}'ve" for w in "would could should must might".split())
)
# A contraction written with a typographic apostrophe ("doesn’t"), which no content word
# spans: read as with "'", so that one of stop words is set aside whole, not as "doesn"
_CURLY_CONTRACTION = re.compile(r"(?<![a-z'’-])[a-z]++’[a-z]++(?![a-z'’-])")


@functools.lru_cache(maxsize=64)
def _packed_result(passages: int) -> CheckResult:
    """The (immutable, shared) result of a trace with ``passages`` packed passages."""
    return CheckResult(
        name=EmptyContext.name, flagged=False, evidence=EmptyContextEvidence(passages)
    )


class EmptyContext:
    """Flags traces where no text reached the model; evidence says which stage lost it."""

    name: ClassVar[str] = "empty_context"
    evidence: ClassVar[type[EmptyContextEvidence]] = EmptyContextEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = ()
    options: ClassVar[None] = None  # nothing to configure

    def __init__(self, options: None = None) -> None:
        """Nothing to configure (``options`` is always None)."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        if view.passages:
            return _packed_result(len(view.passages))
        retrieved = len(view.trace.retrieved)
        # Retrieval returned candidates but none was packed: the packer or a filter dropped
        # them. Nothing retrieved at all: the retriever (index, filter, embedding) broke.
        stage = "packing" if retrieved else "retrieval"
        return CheckResult(
            name=self.name,
            flagged=True,
            evidence=EmptyContextEvidence(0, retrieved, stage),
        )


class ContextConflict:
    """Flags near-duplicate passages that state different numbers (old and new policy pages).

    Passages are compared pairwise by word-trigram Jaccard similarity; a pair at or above
    ``similarity`` whose figures differ is a conflict, unless the two name different things
    (``PassageFacts.names``: the "Pro" and the "Enterprise" plan, the "EU" and the "US"
    shipping page, "Release notes 2.3" and "2.4" differ without conflicting). Two cheap
    steps keep this off the hot path: pairs that share no sentence (digits masked) are
    skipped before any tokenising, and only the sentences that differ between a duplicate
    pair are parsed for figures.
    """

    name: ClassVar[str] = "context_conflict"
    evidence: ClassVar[type[ConflictEvidence]] = ConflictEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = ()
    options: ClassVar[type[ContextConflictOptions]] = ContextConflictOptions
    max_passages = 20  # pairs grow with the square: a long context is compared in its head

    def __init__(self, options: ContextConflictOptions | None = None) -> None:
        self.opts = options or ContextConflictOptions()
        self.similarity = self.opts.similarity

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        packed = view.packed[: self.max_passages]
        if len(packed) < 2:
            return CheckResult.not_applicable(self.name, "fewer_than_two_passages")
        split = view.facts[: self.max_passages]
        shorts = [f.at_most(_SHORT) for f in split]
        conflicts: list[Conflict] = []
        for i in range(len(split)):
            for j in range(i + 1, len(split)):
                a, b = split[i], split[j]
                short = shorts[i] and shorts[j]
                if not a.shares_sentence(b) and not (short and _reworded(a, b)):
                    continue  # not one sentence in common, figures aside: not duplicates
                if short and min(len(a.words), len(b.words)) < _MIN_WORDS:
                    continue  # a label ("Passage 1 of kb-12"), not a statement
                sim = _jaccard(a.shingles, b.shingles)
                if sim < self.similarity and short:  # one changed word is 3 of few trigrams
                    sim = max(sim, _jaccard(a.words, b.words))
                if sim < self.similarity or a.names != b.names:
                    continue  # not near-duplicates, or pages on two things ("Pro", "Team")
                only_a, only_b = _figures_differing(a, b)
                if only_a or only_b:
                    (pos_a, pa), (pos_b, pb) = packed[i], packed[j]
                    conflicts.append(Conflict(
                        (pos_a, pos_b), (pa.doc_id, pb.doc_id), round(sim, 3),
                        tuple(only_a[:10]), tuple(only_b[:10]),
                    ))  # fmt: skip
        if not conflicts:
            return _NO_CONFLICT
        conflicts = _with_citations(view, conflicts)
        return CheckResult(name=self.name, flagged=True,
                           evidence=ConflictEvidence(tuple(conflicts)))  # fmt: skip


_NO_CONFLICT = CheckResult(name=ContextConflict.name, flagged=False, evidence=ConflictEvidence())


_SHORT = 2  # sentences: a passage this short is compared by its skeleton too


def _reworded(a: PassageFacts, b: PassageFacts) -> bool:
    """Two short passages share a sentence once auxiliaries, articles and word endings are
    set aside. Longer versions of a page keep most sentences verbatim, so only passages of a
    sentence or two pay for skeletons (built lazily, kept with the facts) and are compared by
    their content words as well as their trigrams."""
    return not a.skeleton.isdisjoint(b.skeleton)


_MIN_WORDS = 4  # content words: fewer make a label ("Passage 1 of kb-12"), not a statement


def _with_citations(view: TraceView, conflicts: list[Conflict]) -> list[Conflict]:
    """Each conflict, marked when the answer cites one passage of the pair but states a
    figure only the other states (and none only the cited one states)."""
    cites = find_citations(view.answer, view.trace.context)
    ids = {p.doc_id: n for n, p in view.packed if p.doc_id} | {
        p.chunk_id: n for n, p in view.packed if p.chunk_id
    }
    cited = {int(v) for k, v in cites.found if k == "index" and v.isdecimal()}
    cited |= {ids[v] for k, v in cites.found if k != "index" and v in ids}
    out = []
    for c in conflicts:
        first, second = c.passages
        states_first = _states(view, c.first_states)
        states_second = _states(view, c.second_states)
        if first in cited and second not in cited and states_second and not states_first:
            c = dataclasses.replace(c, cited_disagreeing=first)
        elif second in cited and first not in cited and states_first and not states_second:
            c = dataclasses.replace(c, cited_disagreeing=second)
        out.append(c)
    return out


def _states(view: TraceView, figures: tuple[str, ...]) -> bool:
    """The answer states one of ``figures``."""
    if not figures:
        return False
    lookup = NumberLookup(" ; ".join(figures))
    return any(lookup.supports(m) for m in view.answer_numbers)


def _jaccard(a: frozenset[object], b: frozenset[object]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _figures_differing(a: PassageFacts, b: PassageFacts) -> tuple[list[str], list[str]]:
    """Figures stated only in ``a`` and only in ``b``, read from the sentences they do not
    share verbatim (identical sentences state identical figures)."""
    pieces_a, pieces_b = a.pieces, b.pieces
    common = set(pieces_a) & set(pieces_b)
    text_a = ". ".join(p for p in pieces_a if p not in common)
    text_b = ". ".join(p for p in pieces_b if p not in common)
    na, nb = NumberIndex.of(text_a), NumberIndex.of(text_b)
    if na.exact == nb.exact:
        return [], []
    only_a = sorted(na.raws - nb.raws, key=text_a.find)
    only_b = sorted(nb.raws - na.raws, key=text_b.find)
    return only_a, only_b


def _stop_contraction(m: re.Match[str]) -> str:
    """A contraction with a typographic apostrophe: blanked when one of stop words."""
    return " " if m.group(0).replace("’", "'") in _STOPWORDS else m.group(0)


def content_words(answer: str) -> set[str]:
    """The answer's content words (lower-cased, stop words out), as grounding counts them."""
    low = answer.lower()
    if "’" in low:
        low = _CURLY_CONTRACTION.sub(_stop_contraction, low)
    words = {w.strip("'-") for w in CONTENT_WORD.findall(low)} - _STOPWORDS
    words.discard("")
    return words


def missing_words(view: TraceView, words: set[str]) -> list[str]:
    """Those of ``words`` that the trace's context does not contain, sorted."""
    context = view.context_lower
    return sorted(w for w in words if not contains(context, w.encode("utf-8", "surrogatepass")))


class GroundingOverlap:
    """Share of the answer's content words that occur in the context (a continuous signal,
    exported as a histogram; never a verdict on its own, so it does not flag).

    Words are looked up as substrings of the lower-cased context, which also accepts
    inflections ("refund" in "refunds") and avoids tokenising the context at all.
    """

    name: ClassVar[str] = "grounding_overlap"
    evidence: ClassVar[type[OverlapEvidence]] = OverlapEvidence
    output: ClassVar[CheckOutput] = "score"  # a continuous signal: it never flags
    measures: ClassVar[tuple[CheckMeasure, ...]] = (OVERLAP_RATIO,)
    options: ClassVar[type[GroundingOverlapOptions]] = GroundingOverlapOptions

    def __init__(self, options: GroundingOverlapOptions | None = None) -> None:
        self.opts = options or GroundingOverlapOptions()
        self.min_words = self.opts.min_words

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        words = content_words(view.answer)
        if len(words) < self.min_words:
            return CheckResult.not_applicable(self.name, "too_few_content_words")
        missing = missing_words(view, words)
        overlap = 1.0 - len(missing) / len(words)
        return CheckResult(
            name=self.name,
            flagged=False,
            score=round(overlap, 4),
            evidence=OverlapEvidence(round(overlap, 4), len(words), tuple(missing[:20])),
        )  # fmt: skip
