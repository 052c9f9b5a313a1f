"""Checks on the packed context: ``empty_context``, ``context_conflict``, ``grounding_overlap``."""

from __future__ import annotations

import re

from monitor.checks.numbers import NumberIndex
from monitor.checks.view import TraceView
from monitor.model import CheckResult

_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_STOPWORDS = frozenset(
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
    """.split()  # noqa: SIM905 - a word list reads better as text
)


class EmptyContext:
    """Flags traces where no text reached the model; evidence says which stage lost it."""

    name = "empty_context"

    def __call__(self, view: TraceView) -> CheckResult:
        if view.passages:
            return CheckResult(name=self.name, flagged=False,
                               evidence={"passages": len(view.passages)})  # fmt: skip
        retrieved = len(view.trace.retrieved)
        # Retrieval returned candidates but none was packed: the packer or a filter dropped
        # them. Nothing retrieved at all: the retriever (index, filter, embedding) broke.
        stage = "packing" if retrieved else "retrieval"
        return CheckResult(
            name=self.name,
            flagged=True,
            evidence={"passages": 0, "retrieved": retrieved, "stage": stage},
        )


def _shingles(text: str, k: int = 3) -> set[int]:
    words = _WORD.findall(text.lower())
    return {hash(tuple(words[i : i + k])) for i in range(max(1, len(words) - k + 1))}


class ContextConflict:
    """Flags near-duplicate passages that state different numbers (old and new policy pages).

    Passages are compared pairwise by word-trigram Jaccard similarity; a pair at or above
    ``similarity`` whose numbers differ is a conflict. A cheap probe (a few phrases of one
    passage searched in the other) skips pairs that share nothing before any tokenising.
    """

    name = "context_conflict"

    def __init__(self, similarity: float = 0.5, max_passages: int = 20) -> None:
        self.similarity = similarity
        self.max_passages = max_passages

    def __call__(self, view: TraceView) -> CheckResult:
        passages = view.passages[: self.max_passages]
        if len(passages) < 2:
            return CheckResult(name=self.name, flagged=False, applicable=False,
                               evidence={"reason": "fewer_than_two_passages"})  # fmt: skip
        lowered = [p.encode("utf-8").lower() for p in passages]
        conflicts: list[dict[str, object]] = []
        shingles: dict[int, set[int]] = {}
        for i in range(len(passages)):
            for j in range(i + 1, len(passages)):
                if not _probably_similar(lowered[i], lowered[j]):
                    continue
                a = shingles.setdefault(i, _shingles(passages[i]))
                b = shingles.setdefault(j, _shingles(passages[j]))
                sim = len(a & b) / len(a | b) if a or b else 0.0
                if sim < self.similarity:
                    continue
                na, nb = NumberIndex.of(passages[i]), NumberIndex.of(passages[j])
                only_a = sorted(na.raws - nb.raws, key=passages[i].find)
                only_b = sorted(nb.raws - na.raws, key=passages[j].find)
                if na.exact != nb.exact and (only_a or only_b):
                    conflicts.append({
                        "passages": [i + 1, j + 1],
                        "doc_ids": [view.trace.context[i].doc_id, view.trace.context[j].doc_id],
                        "similarity": round(sim, 3),
                        "first_states": only_a[:10],
                        "second_states": only_b[:10],
                    })  # fmt: skip
        return CheckResult(name=self.name, flagged=bool(conflicts),
                           evidence={"conflicts": conflicts})  # fmt: skip


def _probably_similar(a: bytes, b: bytes, probes: int = 4, width: int = 24) -> bool:
    """True when at least half of a few evenly spaced phrases of the shorter text occur in
    the other. Near-duplicates pass; unrelated passages fail after one or two substring scans.
    """
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < width * 2 or len(short) * 3 < len(long_):
        return False
    step = (len(short) - width) // probes
    hits = misses = 0
    for k in range(probes):
        start = k * step
        if short[start : start + width] in long_:
            hits += 1
        else:
            misses += 1
            if misses > probes // 2:
                return False
    return hits >= probes // 2


class GroundingOverlap:
    """Share of the answer's content words that occur in the context (a continuous signal,
    exported as a histogram; never a verdict on its own, so it does not flag).

    Words are looked up as substrings of the lower-cased context, which also accepts
    inflections ("refund" in "refunds") and avoids tokenising the context at all.
    """

    name = "grounding_overlap"

    def __init__(self, min_words: int = 3) -> None:
        self.min_words = min_words

    def __call__(self, view: TraceView) -> CheckResult:
        words = {w.strip("'-") for w in _WORD.findall(view.answer.lower())} - _STOPWORDS
        words.discard("")
        if len(words) < self.min_words:
            return CheckResult(name=self.name, flagged=False, applicable=False,
                               evidence={"reason": "too_few_content_words"})  # fmt: skip
        context = view.context_lower
        missing = sorted(w for w in words if w.encode("utf-8") not in context)
        overlap = 1.0 - len(missing) / len(words)
        return CheckResult(
            name=self.name,
            flagged=False,
            score=round(overlap, 4),
            evidence={"overlap": round(overlap, 4), "content_words": len(words),
                      "missing": missing[:20]},
        )  # fmt: skip
