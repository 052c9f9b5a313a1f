"""Recall and precision of PII redaction per type on the labelled corpus in tests/.

Run: ``python bench/pii.py``. Prints positives, look-alike negatives, recall and precision
per type, and the redaction throughput on demo answers.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from monitor.core.pii import KINDS, Redactor
from monitor.sources import demo
from tests.pii_corpus import CORPUS
from tests.unit.test_pii import score


def main() -> None:
    redactor = Redactor()
    scores = score(redactor)
    print(f"{'type':<14} {'positives':>9} {'look-alikes':>11} {'recall':>7} {'precision':>9}")
    for kind in KINDS:
        pos = sum(1 for k, _, s in CORPUS if k == kind and s is not None)
        neg = sum(1 for k, _, s in CORPUS if k == kind and s is None)
        recall, precision = scores[kind]
        print(f"{kind:<14} {pos:>9} {neg:>11} {recall:>7.2f} {precision:>9.2f}")
    texts = [demo.generate(i)["answer"] for i in range(5000)]
    t0 = time.perf_counter()
    for text in texts:
        redactor.redact(text)
    elapsed = time.perf_counter() - t0
    print(f"redaction of {len(texts)} demo answers: {len(texts) / elapsed:,.0f} answers/s")


if __name__ == "__main__":
    main()
