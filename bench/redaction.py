"""What PII redaction costs a kilobyte of text, CPU time, on one core.

Run: ``python bench/redaction.py [--traces 600] [--repeats 7]``. Texts: the store benchmark's
passages (~1 KB of support-documentation prose with figures, five a trace: what the store
redacts when a passage is new), the same passages with one item of PII planted in each (an
e-mail address, a phone number, a card, an IBAN, a bearer token: every one found and
replaced), and demo answers. For each, the redaction (``monitor.core.pii``) and the one before
its gates were fused into one function (``tests/pii_frozen.py``, the reference it is tested
against), interleaved, best of ``--repeats``; then, on the passages, what the gates alone cost.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import bench_records
from monitor.core.pii import Redactor, gates
from monitor.sources import demo
from tests import pii_frozen

PLANTED = (
    "jane.doe@example.com", "+49 30 1234567", "4111 1111 1111 1111",
    "DE89 3704 0044 0532 0130 00", "Bearer abcdefghijklmnop1234",
)  # fmt: skip


def best_per_kb(
    runs: dict[str, Callable[[str], object]], texts: list[str], repeats: int
) -> dict[str, float]:
    """CPU µs a kilobyte of each run over ``texts``, interleaved, best of ``repeats``."""
    size = sum(len(t.encode()) for t in texts) / 1024
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            for text in texts:
                run(text)
            best[name] = min(best[name], (time.process_time() - start) / size * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    passages = [p["text"] for r in bench_records(args.traces) for p in json.loads(r)["context"]]
    planted = [
        f"{p[: len(p) // 2]} {PLANTED[i % len(PLANTED)]} {p[len(p) // 2 :]}"
        for i, p in enumerate(passages)
    ]
    answers = [demo.generate(i)["answer"] for i in range(len(passages))]
    now, before = Redactor(), pii_frozen.Redactor()
    for text in passages + planted + answers:
        assert now.redact(text) == before.redact(text), text
    print(f"CPU µs a KB, best of {args.repeats}, interleaved:")
    print(f"{'texts':<34} {'before':>8} {'now':>8}")
    for label, texts in (
        (f"{len(passages):,} bench passages", passages),
        ("the same, PII planted in each", planted),
        (f"{len(answers):,} demo answers", answers),
    ):
        best = best_per_kb({"before": before.redact, "now": now.redact}, texts, args.repeats)
        print(f"{label:<34} {best['before']:>8.2f} {best['now']:>8.2f}")
    alone = best_per_kb({"gates": gates}, passages, args.repeats)["gates"]
    print(f"the gates alone on the passages: {alone:.2f} µs a KB")


if __name__ == "__main__":
    main()
