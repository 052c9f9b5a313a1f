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

import ahocorasick
from rapidfuzz.distance import Indel

_SIMILAR = 0.8  # normalised similarity of two words one slip apart ("exprot"/"export": 0.83)
_MIN_FUZZY = 4  # shorter words are told apart by one letter ("plan"/"plus" aside)
_MIN_PREFIX = 3  # "auth" for "authentication", "2fa" aside
_STEM = 4  # the first letters two forms of a word share, where the stemmer left them apart
_DOUBLED = re.compile(r"(.)\1")
# hiragana: Japanese grammar (particles, verb endings); a pair holding it names no thing
# ("したい" / "する": the same question asked as a wish)
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
_ENDING = 4  # the letters each form has past them: more is another word joined on


class Antonyms(NamedTuple):
    """A language's pairs of opposite words: ``sides`` holds both sides of each pair (pair
    k: sides 2k and 2k + 1); ``cues`` finds, in one pass over a turn, the sides one of whose
    literals (``required``) it holds, ``always`` the sides without such literals."""

    sides: tuple[re.Pattern[str], ...]
    cues: ahocorasick.Automaton | None
    always: frozenset[int]


def _close(x: str, y: str) -> bool:
    if len(x) < _MIN_PREFIX or len(y) < _MIN_PREFIX or x.isdigit() or y.isdigit():
        return False
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    if short in long_:  # cut short ("auth"), or a verb with its particle ("aanzetten": "zet")
        return True
    if len(x) == len(y) and sorted(x) == sorted(y):  # two letters swapped: "pfd", "kotna"
        return sum(p != q for p, q in zip(x, y, strict=True)) == 2
    if _DOUBLED.sub(r"\1", x) == _DOUBLED.sub(r"\1", y):  # a letter typed twice: "abbo"
        return True
    if len(short) < _MIN_FUZZY:
        return False
    if x[:_STEM] == y[:_STEM] and len(short) > _STEM:  # one stem, two forms: "disdetta"/"disdico"
        # but not a compound's first part with two others ("bezorgmoment"/"bezorgadres")
        same = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), len(short))
        if len(x) - same <= _ENDING and len(y) - same <= _ENDING:
            return True
    if Indel.normalized_similarity(x, y) >= _SIMILAR:
        return True
    if _OPENED.search(x) or _OPENED.search(y):  # "renuev" / "renov", "encuentr" / "encontr"
        plain_x, plain_y = _OPENED.sub(_closed, x), _OPENED.sub(_closed, y)
        cut, whole = sorted((plain_x, plain_y), key=len)
        if len(cut) >= _MIN_FUZZY and whole.startswith(cut):
            return True
    return _prefixed(x, y) or _prefixed(y, x)


# a stem's vowel opened into a diphthong where it is stressed (Spanish "renuevo" / "renovar",
# "cierro" / "cerrar", "puedo" / "poder"; Italian "muovo" / "movere"): read closed
_OPENED = re.compile(r"(?<=[^aeiou])(?:ue|ie|uo)(?=[^aeiou])")


def _closed(m: re.Match[str]) -> str:
    return "o" if m.group() in ("ue", "uo") else "e"


_PREFIX = 2  # letters of a verb's prefix at most ("zsynchronizować", "oznacza", "afmelden")


def _prefixed(x: str, y: str) -> bool:
    """Whether ``x`` is ``y``'s stem with a short prefix before it ("zsynchronizow" /
    "synchronizacj", "oznacz" / "znaczen"): ``x`` less one or two letters begins with the
    first ``_STEM`` + 1 letters of ``y``, each going on by ``_ENDING`` letters at most."""
    head = y[: _STEM + 1]
    if len(head) <= _STEM:
        return False
    for cut in range(1, _PREFIX + 1):
        rest = x[cut:]
        if rest.startswith(head):
            same = next(
                (i for i, (p, q) in enumerate(zip(rest, y, strict=False)) if p != q),
                min(len(rest), len(y)),
            )
            return len(rest) - same <= _ENDING and len(y) - same <= _ENDING
    return False


def close(x: str, y: str) -> bool:
    """Whether two words are one typed for the other, cut short, or two forms of one stem
    (as ``shared`` matches them)."""
    return _close(x, y)


def slipped(x: str, y: str) -> bool:
    """Whether ``x`` is ``y`` typed with a slip ("coment", "säjer"): a letter doubled or
    not, or one changed, added or dropped in a word of five letters at least, the last
    letter the same (not one cut short, nor another form of it: "quantas" is no slip for
    "quantos")."""
    if x[-1:] != y[-1:]:
        return False
    if set(x) == set(y) and _DOUBLED.sub(r"\1", x) == _DOUBLED.sub(r"\1", y):
        return True
    return min(len(x), len(y)) >= 5 and Indel.normalized_similarity(x, y) >= _SIMILAR


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


def swapped(
    earlier_only: Iterable[str], later_only: Iterable[str], earlier: Iterable[str] = ()
) -> bool:
    """Whether a question written without spaces asks the same about something else: a
    Latin-script word of one ("CSV") where the other has another ("PDF"), or a character
    pair of one where the other has a pair with one character changed to one the earlier
    question does not hold (年度 / 月度, 日曜 / 土曜; ``earlier``: its character pairs). A
    reordered or shortened question (密码重置 / 重置密码, 往团队里加成员 / 团队加成员)
    changes pairs, not the characters in them."""
    first, second = list(earlier_only), list(later_only)
    if any(w.isascii() for w in first) and any(w.isascii() for w in second):
        return True
    held = {c for pair in earlier for c in pair}
    return any(
        len(p) == len(q) == 2
        and (p[0] == q[0]) != (p[1] == q[1])
        and (q[1] if p[0] == q[0] else q[0]) not in held
        for p in first
        if not p.isascii() and not _HIRAGANA.search(p)
        for q in second
        if not q.isascii() and not _HIRAGANA.search(q)
    )


def antonyms(pairs: Iterable[Sequence[str]]) -> Antonyms:
    """A language's pairs of opposite words (regular expressions, read on lower-cased
    words), compiled, each side behind its literals."""
    sides = tuple(re.compile(side) for pair in pairs for side in pair)
    owners: dict[str, set[int]] = {}
    always = set()
    for i, side in enumerate(sides):
        literals = required(side)
        if literals is None:
            always.add(i)
        for literal in literals or ():
            owners.setdefault(literal, set()).add(i)
    if not owners:
        return Antonyms(sides, None, frozenset(always))
    cues = ahocorasick.Automaton()
    for literal, opens in owners.items():
        cues.add_word(literal, frozenset(opens))
    cues.make_automaton()
    return Antonyms(sides, cues, frozenset(always))


def _sides(text: str, found: Antonyms) -> set[int]:
    """The sides of ``found`` that ``text`` holds."""
    maybe = set(found.always)
    if found.cues is not None:
        for _, opens in found.cues.iter(text):
            maybe |= opens
    return {i for i in maybe if found.sides[i].search(text)}


def opposed(a: str, b: str, languages: Iterable[Antonyms]) -> bool:
    """Whether B asks the opposite of A in one of ``languages``: one word of a pair in A and
    not in B, the other in B and not in A."""
    for found in languages:
        if not found.sides:
            continue
        in_a, in_b = _sides(a, found), _sides(b, found)
        for one in in_a - in_b:
            other = one ^ 1  # the other side of the same pair
            if other in in_b and other not in in_a:
                return True
    return False


def dropped(a: str, b: str, languages: Iterable[Antonyms]) -> bool:
    """Whether B asks for one side of a pair where A asked for the other side done to it
    ("怎么取消自动续费" / "怎么续费", "how do I cancel auto-renew" / "how do I renew": to
    cancel the renewal, then to renew): a side A names before the other and B does not,
    whose other side B names ("renew after I cancelled" / "renew" asks the same)."""
    for found in languages:
        if not found.sides:
            continue
        in_a = _sides(a, found)
        if len(in_a) < 2:
            continue
        in_b = _sides(b, found)
        for one in in_a:
            other = one ^ 1
            if one in in_b or other not in in_b or other not in in_a:
                continue
            first, then = found.sides[one].search(a), found.sides[other].search(a)
            if first is not None and then is not None and first.start() < then.start():
                return True
    return False


def told_both(a: str, b: str, languages: Iterable[Antonyms]) -> bool:
    """Whether B names both sides of a pair where A named one of them: what A asked and its
    opposite, which the answer explained instead ("you explained again how to turn it on;
    I asked how to turn it off")."""
    for found in languages:
        if not found.sides:
            continue
        in_a = _sides(a, found)
        if not in_a:
            continue
        in_b = _sides(b, found)
        if any(one in in_b and one ^ 1 in in_b and one ^ 1 not in in_a for one in in_a):
            return True
    return False


def required(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Literals of which every match of ``pattern`` contains one (lower case), read from its
    parse tree — in a sequence, the element whose literals are longest; in an alternation,
    every branch's — or None when some branch requires none. A cheap gate in front of the
    pattern, found by the machine, so it cannot forget a branch
    (``tests/unit/sessions/test_signals.py`` proves that the gates change no outcome)."""
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    def walk(parsed: Iterable[tuple[object, object]]) -> set[str] | None:
        found: list[set[str] | None] = []
        run = ""
        for op, arg in parsed:
            if op is sre.LITERAL:
                run += chr(arg)  # type: ignore[arg-type]
                continue
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:  # type: ignore[index]
                inner = list(arg[2])  # type: ignore[index]
                if len(inner) == 1 and inner[0][0] is sre.LITERAL:  # "no+": "no" in every match
                    found.append({run + chr(inner[0][1])})
                    run = ""
                    continue
            if run and op is sre.BRANCH:  # "n" the parser took out of "nein|nee|nö": kept
                heads = []  # on each branch's leading letters ("nein", "nee", "nö")
                for branch in arg[1]:  # type: ignore[index]
                    lead = ""
                    for o, a in branch:
                        if o is not sre.LITERAL:
                            break
                        lead += chr(a)
                    heads.append(run + lead)
                found.append(set(heads))
                run = ""
            if run:
                found.append({run})
                run = ""
            if op is sre.SUBPATTERN:
                found.append(walk(arg[-1]))  # type: ignore[index]
            elif op is sre.BRANCH:
                branches = [walk(b) for b in arg[1]]  # type: ignore[index]
                found.append(None if None in branches else set().union(*branches))  # type: ignore[arg-type]
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:  # type: ignore[index]
                found.append(walk(arg[2]))  # type: ignore[index]
            elif op is sre.IN and all(o is sre.LITERAL for o, _ in arg):  # type: ignore[attr-defined]
                found.append({chr(c) for _, c in arg})  # type: ignore[attr-defined]
        if run:
            found.append({run})
        sets = [f for f in found if f]
        return max(sets, key=lambda f: min(map(len, f))) if sets else None

    got = walk(_parser.parse(pattern.pattern, pattern.flags))
    return frozenset(c.lower() for c in got) if got else None
