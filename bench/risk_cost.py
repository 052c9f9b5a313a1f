"""What the risk costs a trace, on the benchmark corpus, on one core.

Run: ``python bench/risk_cost.py --traces 5000``. The check suite runs once on each trace
(untimed); then ``risk()`` over the traces with their results, and its new-phrasing count
(``kernels.phrasing``) alone, in the build this process runs and, for the count, the Python
reference beside it: microseconds of CPU time per trace, best of ``--repeats``, the rows
taken in turn (so a drift of the machine's speed does not land on one row). Not a test: the
figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import build_line, pin_one_core
from bench.corpus import add_reuse_arguments, bench_records, reuse_of
from monitor import registry
from monitor.checks import kernels
from monitor.checks.memo import lowered
from monitor.checks.risk import MAX_TRIGRAMS, risk
from monitor.config import Settings
from monitor.core.model import RagTrace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    add_reuse_arguments(parser)
    args = parser.parse_args()
    pin_one_core()
    suite = registry.build_suite(Settings())
    done = []
    for record in bench_records(args.traces, reuse=reuse_of(args)):
        trace = RagTrace.from_json(record)
        view = suite.view(trace)
        done.append((suite(trace, view), view))
    texts = [
        (lowered(v.answer), v.context_lower, lowered(v.trace.query), MAX_TRIGRAMS) for _, v in done
    ]

    def run_risk() -> None:
        for checks, view in done:
            risk(checks, view)

    def run_count() -> None:
        count = kernels.phrasing
        for t in texts:
            count(*t)

    def run_reference() -> None:
        count = kernels._phrasing
        for t in texts:
            count(*t)

    rows: dict[str, Callable[[], None]] = {
        "risk()": run_risk, "new-phrasing count": run_count,
        "new-phrasing count, Python reference": run_reference,
    }  # fmt: skip
    best = dict.fromkeys(rows, float("inf"))
    for _ in range(args.repeats):
        for name, run in rows.items():
            start = time.process_time()  # CPU time: steadier than the clock on a busy machine
            run()
            best[name] = min(best[name], time.process_time() - start)
    print(build_line())
    size = statistics.mean(len(v.context_lower) for _, v in done)
    print(f"traces: {len(done)}, mean context {size / 1024:.1f} KB, one core, best of "
          f"{args.repeats}")  # fmt: skip
    for name, seconds in best.items():
        print(f"{name:<38} {seconds / len(done) * 1e6:>8.2f} us a trace")


if __name__ == "__main__":
    main()
