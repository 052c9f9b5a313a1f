"""``TraceView``: a trace plus the derived text every check reads, computed once and lazily.

Checks stay pure functions of the trace; the view only memoises what several of them need
(the normalised answer, the lower-cased context, the number index of the context) so the
suite does not re-scan a 5 KB context once per check.
"""

from __future__ import annotations

import re

from monitor.checks.memo import PassageFacts, PassageMemo, lowered
from monitor.checks.numbers import Mention, NumberLookup, answer_mentions
from monitor.core.model import Passage, RagTrace

_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "“": '"', "”": '"'})
_CURLY = re.compile("[’‘ʼ“”]")


class TraceView:
    """Lazily derived text of one ``RagTrace``; passage-side facts come from ``memo`` when
    the suite keeps one (else they are built for this trace alone)."""

    __slots__ = (
        "_answer",
        "_answer_numbers",
        "_context_lower",
        "_context_numbers",
        "_context_text",
        "_facts",
        "_packed",
        "_passages",
        "_passages_lower",
        "_query_numbers",
        "memo",
        "trace",
    )

    def __init__(self, trace: RagTrace, memo: PassageMemo | None = None) -> None:
        self.trace = trace
        self.memo = memo
        self._answer: str | None = None
        self._packed: list[tuple[int, Passage]] | None = None
        self._passages: list[str] | None = None
        self._facts: list[PassageFacts] | None = None
        self._passages_lower: list[bytes] | None = None
        self._context_text: str | None = None
        self._context_lower: bytes | None = None
        self._context_numbers: NumberLookup | None = None
        self._query_numbers: NumberLookup | None = None
        self._answer_numbers: list[Mention] | None = None

    @property
    def answer(self) -> str:
        """The answer with typographic quotes folded to ASCII."""
        v = self._answer
        if v is None:
            v = self._answer = self._compute_answer()
        return v

    def _compute_answer(self) -> str:
        answer = self.trace.answer
        return answer.translate(_QUOTES) if _CURLY.search(answer) else answer

    @property
    def packed(self) -> list[tuple[int, Passage]]:
        """The passages with text, with their 1-based position in the prompt."""
        v = self._packed
        if v is None:
            v = self._packed = self._compute_packed()
        return v

    def _compute_packed(self) -> list[tuple[int, Passage]]:
        # a passage with a character that is not a space (as ``text.strip()`` would keep
        # one, without copying a kilobyte of text per passage)
        return [
            (n, p) for n, p in enumerate(self.trace.context, 1) if p.text and not p.text.isspace()
        ]

    @property
    def passages(self) -> list[str]:
        """The packed passages' texts."""
        v = self._passages
        if v is None:
            v = self._passages = self._compute_passages()
        return v

    def _compute_passages(self) -> list[str]:
        return [p.text for _, p in self.packed]

    @property
    def facts(self) -> list[PassageFacts]:
        """Each packed passage's text-only analysis (``PassageFacts``)."""
        v = self._facts
        if v is None:
            v = self._facts = self._compute_facts()
        return v

    def _compute_facts(self) -> list[PassageFacts]:
        if self.memo is None or not self.memo.consulted():
            return [PassageFacts(t) for t in self.passages]
        get = self.memo.facts
        return [get(t) for t in self.passages]

    @property
    def passages_lower(self) -> list[bytes]:
        """Each passage lower-cased (``memo.lowered``), from its facts when they are built."""
        v = self._passages_lower
        if v is None:
            v = self._passages_lower = self._compute_passages_lower()
        return v

    def _compute_passages_lower(self) -> list[bytes]:
        if self.memo is None and self._facts is None:
            return [lowered(t) for t in self.passages]  # no facts needed
        return [f.lower for f in self.facts]

    @property
    def context_text(self) -> str:
        """The packed context as one text."""
        v = self._context_text
        if v is None:
            v = self._context_text = self._compute_context_text()
        return v

    def _compute_context_text(self) -> str:
        return "\n\n".join(self.passages)

    @property
    def context_lower(self) -> bytes:
        """``context_text`` as lower-cased bytes (see ``passages_lower``)."""
        v = self._context_lower
        if v is None:
            v = self._context_lower = self._compute_context_lower()
        return v

    def _compute_context_lower(self) -> bytes:
        return b"\n\n".join(self.passages_lower)

    @property
    def context_numbers(self) -> NumberLookup:
        """Figure look-ups against the packed context."""
        v = self._context_numbers
        if v is None:
            v = self._context_numbers = self._compute_context_numbers()
        return v

    def _compute_context_numbers(self) -> NumberLookup:
        return NumberLookup(self.context_text)

    @property
    def query_numbers(self) -> NumberLookup:
        """Figure look-ups against the query (the user's premises)."""
        v = self._query_numbers
        if v is None:
            v = self._query_numbers = self._compute_query_numbers()
        return v

    def _compute_query_numbers(self) -> NumberLookup:
        return NumberLookup(self.trace.query, spelled=False)

    @property
    def answer_numbers(self) -> list[Mention]:
        """The figures the answer states."""
        v = self._answer_numbers
        if v is None:
            v = self._answer_numbers = self._compute_answer_numbers()
        return v

    def _compute_answer_numbers(self) -> list[Mention]:
        # The context's decimal convention is consulted only when the answer's is unclear.
        return answer_mentions(self.answer, context_locale=lambda: self.context_numbers.locale())
