"""A question asked again as its keywords with one word of its own, for ``rephrase``: the
words of the earlier turn that say what it asks about, most of them kept, typed without the
words that ask ("Come si fa a scaricare l'estratto conto della carta prepagata?" ->
"estratto conto carta prepagata download", "posso levar meu cachorro no hotel fazenda
Serra Azul?" -> "aceita cachorro hotel fazenda serra azul"), the word of its own a synonym
of one of A's or a name of the thing A asked about.

The same question about another thing keeps the earlier turn's words as they stood and
puts another in the place of one ("does the Pro plan include phone support?" -> "does the
Team plan include phone support?", "… w niedzielę?" -> "… w sobotę?"): ``in_place`` tells
it by the order of the two turns' content words, which a question typed as keywords does
not keep.
"""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.sessions import grammar, matching
from monitor.sessions.words import _FOLD, Language, _by_code, _skipped, _stemmer, _Turn

KEPT = 3  # of A's content words B keeps at least
BARE = 2  # of them in a bare query (``bare``)
_OWN = 1  # content words of its own at most
_DENSE = 2 / 3  # of a turn's words that are content words, at least, in one typed as keywords
_SWAP = 2  # words at most on each side of a swap in place ("Pazar günü" -> "cumartesi")


def _sequence(turn: _Turn, lang: Language) -> list[str]:
    """A turn's content words in the order typed, stemmed and without accents."""
    skipped = _skipped(lang.code)
    stem = _stemmer(lang.code)
    words = (w for w in turn.words if w not in skipped and w.translate(_FOLD) not in skipped)
    return [(stem(w) if stem is not None else w).translate(_FOLD) for w in words]


def _same(x: str, y: str) -> bool:
    return x == y or matching.close(x, y)


def in_place(a: _Turn, b: _Turn, lang: Language) -> bool:
    """Whether B is A with one run of its content words, ``_SWAP`` at most, put in the
    place of another as long: the same words before it and after it, in A's order."""
    sa, sb = _sequence(a, lang), _sequence(b, lang)
    most = min(len(sa), len(sb))
    head = 0
    while head < most and _same(sa[head], sb[head]):
        head += 1
    tail = 0
    while tail < most - head and _same(sa[-1 - tail], sb[-1 - tail]):
        tail += 1
    return 1 <= len(sa) - head - tail <= _SWAP and 1 <= len(sb) - head - tail <= _SWAP


def counts(in_a: int, in_b: int, shared: int, kept: float, least: int = KEPT) -> bool:
    """Whether B, with ``shared`` of A's ``in_a`` content words among its ``in_b``, keeps
    ``least`` of them at least and ``kept`` of A's, with ``_OWN`` word of its own at most."""
    return shared >= least and shared >= kept * in_a and in_b - shared <= _OWN


def bare(b: _Turn, cb: frozenset[str], lang: Language) -> bool:
    """Whether B is a bare query: one clause, no question mark, typed as keywords, no word
    that negates ("şifremi unuttum linki yok": a thing is not there), of a verdict on the
    answer ("worked") nor a part of the product named ("przycisku", "menu": it is there or
    not, ``Language.features``)."""
    if "?" in b.text or "？" in b.text or len(grammar.clauses(b.text)) > 1:
        return False
    if not typed_as_keywords(b, cb) or not lang.negators.isdisjoint(b.words):
        return False
    if not _verdict(lang.code).isdisjoint(b.words):
        return False  # how the answer went ("password reset worked thanks")
    return lang.features is None or _features(lang.features).search(b.text) is None


@lru_cache(maxsize=32)
def _verdict(code: str) -> frozenset[str]:
    """The words of a language's verdicts on the answer that name no thing asked about
    (its stop words aside): "worked", "helped", "wrong"."""
    return frozenset(_by_code()[code].verdict) - _skipped(code)


@lru_cache(maxsize=32)
def _features(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def typed_as_keywords(b: _Turn, cb: frozenset[str]) -> bool:
    """Whether B is typed as keywords: ``_DENSE`` of its words at least are content words
    ("recycling pickup elm road"), not a sentence around them ("the parcel still goes to
    the old address", a statement)."""
    return len(cb) >= _DENSE * len(b.words)
