"""``CueIndex``: which of many cue strings occur in a text, in one pass.

The text checks gate their regular expressions on cheap cues (a refusal pattern runs only
when one of its words occurs). With hundreds of cues over fifteen languages, testing each
with ``in`` cost more than the patterns it saved; an Aho-Corasick automaton
(``pyahocorasick``, a C extension with wheels on PyPI) finds all of them in one scan.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick


class CueIndex:
    """Substring cues, and word cues that count only as whole words ("no" in "no hay", not
    in "know"). Cues are matched in lower-cased text."""

    def __init__(self, substrings: Iterable[str], words: Iterable[str] = ()) -> None:
        self._automaton = ahocorasick.Automaton()
        for cue in set(substrings):
            self._automaton.add_word(cue, (cue, False))
        for cue in set(words):
            # a cue that is both keeps the looser (substring) meaning
            if not self._automaton.exists(cue):
                self._automaton.add_word(cue, (cue, True))
        if len(self._automaton):
            self._automaton.make_automaton()

    def hits(self, lower: str) -> set[str]:
        """The cues occurring in ``lower`` (which the caller has lower-cased)."""
        found: set[str] = set()
        if not len(self._automaton):
            return found
        n = len(lower)
        for end, (cue, whole) in self._automaton.iter(lower):
            if whole:
                start = end - len(cue) + 1
                if (start > 0 and lower[start - 1].isalnum()) or (
                    end + 1 < n and lower[end + 1].isalnum()
                ):
                    continue
            found.add(cue)
        return found
