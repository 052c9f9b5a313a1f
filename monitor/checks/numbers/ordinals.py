"""The answer's ordinals in words ("the fourth consecutive quarter", "finished sixth"), which
the scan does not read as figures: judged only where the context itself ranks or counts in
ordinals ("the third consecutive quarter", "the 5th annual festival", "3rd Red Bull"), and
then backed by an ordinal of the same value, in words or digits. "First" and "second" are
not read (an adverb, a unit of time), nor "a third of" (a share), "third-party" or "the
third" of a name ("Henry the Third" is capitalised: only lower-case words and a sentence's
first word are read)."""

from __future__ import annotations

import re

from monitor.checks.numbers.forms import ORDINAL_WORDS

_WORDS = "|".join(w for w, v in ORDINAL_WORDS.items() if 3 <= v <= 10)
_SPELLED = re.compile(rf"(?<![\w-])({_WORDS})(?![\w-])", re.IGNORECASE)
_DIGITS = re.compile(r"(?<![\w.,])(\d{1,3})(?:st|nd|rd|th)(?![a-z])", re.IGNORECASE)
_A_SHARE = re.compile(r"\b(?:a|one|two)\s+$", re.IGNORECASE)  # "a third of": a share
_FIRST = re.compile(r"\b(first|second)\b", re.IGNORECASE)


def _ranks(text: str) -> set[int]:
    """The ordinals ``text`` writes, in words (any case) or digits ("5th")."""
    found = {int(m.group(1)) for m in _DIGITS.finditer(text)}
    found.update(ORDINAL_WORDS[m.group(1).lower()] for m in _SPELLED.finditer(text))
    found.update(ORDINAL_WORDS[m.group(1).lower()] for m in _FIRST.finditer(text))
    return found


def ordinals(answer: str, context: str) -> list[tuple[str, bool]]:
    """The answer's ordinals in words, third to tenth, each once as written, and whether
    the context states it; none when the context states no ordinal at all."""
    if _SPELLED.search(answer) is None:
        return []
    ranks: set[int] | None = None
    out: list[tuple[str, bool]] = []
    for m in _SPELLED.finditer(answer):
        word = m.group(1)
        if word[0].isupper() and not _sentence_start(answer, m.start()):
            continue  # "Henry the Third", "Third Avenue": a name
        if _A_SHARE.search(answer, max(0, m.start() - 8), m.start()) is not None:
            continue
        if ranks is None:
            ranks = _ranks(context)
            if not ranks:
                return []
        if all(word != w for w, _ in out):
            out.append((word, ORDINAL_WORDS[word.lower()] in ranks))
    return out


def _sentence_start(text: str, i: int) -> bool:
    before = text[:i].rstrip(" *_#>-\t")
    return not before or before[-1] in ".!?:\n|"
