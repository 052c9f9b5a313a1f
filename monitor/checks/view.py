"""``TraceView``: a trace plus the derived text every check reads, computed once and lazily.

Checks stay pure functions of the trace; the view only memoises what several of them need
(the normalised answer, the lower-cased context, the number index of the context) so the
suite does not re-scan a 5 KB context once per check.
"""

from __future__ import annotations

import re

from monitor.checks.lazy import lazy
from monitor.checks.memo import PassageFacts, PassageMemo, lowered
from monitor.checks.numbers import Mention, NumberLookup, answer_mentions, locale_of
from monitor.model import Passage, RagTrace

_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "“": '"', "”": '"'})
_CURLY = re.compile("[’‘ʼ“”]")


class TraceView:
    """Lazily derived text of one ``RagTrace``; passage-side facts come from ``memo`` when
    the suite keeps one (else they are built for this trace alone)."""

    def __init__(self, trace: RagTrace, memo: PassageMemo | None = None) -> None:
        self.trace = trace
        self.memo = memo

    @lazy
    def answer(self) -> str:
        """The answer with typographic quotes folded to ASCII."""
        answer = self.trace.answer
        return answer.translate(_QUOTES) if _CURLY.search(answer) else answer

    @lazy
    def packed(self) -> list[tuple[int, Passage]]:
        """The passages with text, with their 1-based position in the prompt."""
        return [(n, p) for n, p in enumerate(self.trace.context, 1) if p.text.strip()]

    @lazy
    def passages(self) -> list[str]:
        """The packed passages' texts."""
        return [p.text for _, p in self.packed]

    @lazy
    def facts(self) -> list[PassageFacts]:
        """Each packed passage's text-only analysis (``PassageFacts``)."""
        if self.memo is None or not self.memo.consulted():
            return [PassageFacts(t) for t in self.passages]
        get = self.memo.facts
        return [get(t) for t in self.passages]

    @lazy
    def passages_lower(self) -> list[bytes]:
        """Each passage lower-cased (``memo.lowered``), from its facts when they are built."""
        if self.memo is None and "facts" not in self.__dict__:
            return [lowered(t) for t in self.passages]  # no facts needed
        return [f.lower for f in self.facts]

    @lazy
    def context_text(self) -> str:
        """The packed context as one text."""
        return "\n\n".join(self.passages)

    @lazy
    def context_lower(self) -> bytes:
        """``context_text`` as lower-cased bytes (see ``passages_lower``)."""
        return b"\n\n".join(self.passages_lower)

    @lazy
    def context_numbers(self) -> NumberLookup:
        """Figure look-ups against the packed context."""
        return NumberLookup(self.context_text)

    @lazy
    def query_numbers(self) -> NumberLookup:
        """Figure look-ups against the query (the user's premises)."""
        return NumberLookup(self.trace.query, spelled=False)

    @lazy
    def answer_numbers(self) -> list[Mention]:
        # The context's decimal convention is consulted only when the answer's is unclear.
        """The figures the answer states."""
        return answer_mentions(self.answer, context_locale=lambda: locale_of(self.context_text))
