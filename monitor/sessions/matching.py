"""How much of what one question asks another asks too, typed as users type.

``shared`` counts the content words of a later turn that the earlier one holds: the same
stem, or a word typed with a slip ("exprot", "rechnugen": rapidfuzz's normalised Indel
similarity) or cut short ("auth", "kontn": one a prefix of the other). ``opposed`` says
whether two turns ask for opposite things (turn on / turn off, cancel / renew): words the
same, the question not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz.distance import Indel

_SIMILAR = 0.8  # normalised similarity of two words one slip apart ("exprot"/"export": 0.83)
_MIN_FUZZY = 4  # shorter words are told apart by one letter ("plan"/"plus" aside)
_MIN_PREFIX = 3  # "auth" for "authentication", "2fa" aside
_STEM = 4  # the first letters two forms of a word share, where the stemmer left them apart


class Antonyms(NamedTuple):
    """A language's pairs of opposite words: ``sides`` alternates the two sides of each pair
    as numbered groups (pair k: groups 2k+1 and 2k+2), found in one pass over a turn."""

    sides: re.Pattern[str] | None
    pairs: int


def _close(x: str, y: str) -> bool:
    if len(x) < _MIN_PREFIX or len(y) < _MIN_PREFIX or x.isdigit() or y.isdigit():
        return False
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    if short in long_:  # cut short ("auth"), or a verb with its particle ("aanzetten": "zet")
        return True
    if len(x) == len(y) and sorted(x) == sorted(y):  # two letters swapped: "pfd", "kotna"
        return sum(p != q for p, q in zip(x, y, strict=True)) == 2
    if len(short) < _MIN_FUZZY:
        return False
    if x[:_STEM] == y[:_STEM] and len(short) > _STEM:  # one stem, two forms: "disdetta"/"disdico"
        return True
    return Indel.normalized_similarity(x, y) >= _SIMILAR


@lru_cache(maxsize=4096)
def shared(earlier: frozenset[str], later: frozenset[str]) -> int:
    """How many words of ``later`` stand in ``earlier``, each word of ``earlier`` counted
    once: the same first, then the closest of the rest."""
    same = earlier & later
    left = set(earlier - same)
    count = len(same)
    for word in sorted(later - same):
        match = next((w for w in sorted(left) if _close(word, w)), None)
        if match is not None:
            left.discard(match)
            count += 1
    return count


def swapped(earlier_only: Iterable[str], later_only: Iterable[str]) -> bool:
    """Whether a question written without spaces asks the same about something else: a
    Latin-script word of one ("CSV") where the other has another ("PDF"), or a character
    pair of one where the other has a pair with one character changed (年度 / 月度, 日曜 /
    土曜). A reordered question (密码重置 / 重置密码) changes pairs, not characters in them."""
    first, second = list(earlier_only), list(later_only)
    if any(w.isascii() for w in first) and any(w.isascii() for w in second):
        return True
    return any(
        len(p) == len(q) == 2 and (p[0] == q[0]) != (p[1] == q[1])
        for p in first
        if not p.isascii()
        for q in second
        if not q.isascii()
    )


def antonyms(pairs: Iterable[Sequence[str]]) -> Antonyms:
    """A language's pairs of opposite words (regular expressions), compiled as one."""
    listed = [(x, y) for x, y in pairs]
    if not listed:
        return Antonyms(None, 0)
    groups = "|".join(f"({x})|({y})" for x, y in listed)
    return Antonyms(re.compile(groups, re.IGNORECASE), len(listed))


def _sides(text: str, found: Antonyms) -> set[int]:
    assert found.sides is not None
    return {m.lastindex for m in found.sides.finditer(text) if m.lastindex is not None}


def opposed(a: str, b: str, languages: Iterable[Antonyms]) -> bool:
    """Whether B asks the opposite of A in one of ``languages``: one word of a pair in A and
    not in B, the other in B and not in A."""
    for found in languages:
        if found.sides is None:
            continue
        in_a, in_b = _sides(a, found), _sides(b, found)
        for one in in_a - in_b:
            other = one + 1 if one % 2 else one - 1  # the other side of the same pair
            if other in in_b and other not in in_a:
                return True
    return False
