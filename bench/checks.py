"""Throughput of the model-free checks against the naive baseline, on one core.

Run: ``make bench`` (or ``python bench/checks.py --traces 5000``). Prints traces/s for the
full suite, for ``unsupported_numbers`` alone, for the naive baseline (one regex pulls every
number out of answer and context; flag the difference) and their ratios, all measured in
this process on the same traces, best of ``--repeats``, the repeats of every row taken in
turn (so a drift of the machine's speed does not land on one row). Not a test: the figures
are reported, not asserted.

A shadow candidate (``shadow``: every check again, with other options, on the live suite's
view) is timed beside the suite: its cost per trace is printed; so is the risk's
(``monitor.checks.risk``: the suite, then the risk on its results and view).

``--reuse zipf:S --chunks C --per-trace K`` draws the passages from a skewed corpus
(``bench.corpus.Reuse``). The full suite runs as the daemon builds it (default: no passage
memo) and with a passage memo of ``--memo-bytes`` (64 MiB): each timed repeat of the latter
starts from an empty memo warmed by ``--warm`` other traces of the same stream (a daemon that
has been running), and the memo's hit rate over the timed traces is printed.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import add_reuse_arguments, bench_records, reuse_of
from monitor import registry
from monitor.checks import CheckSuite, PassageMemo, TraceView, UnsupportedNumbers, native
from monitor.checks.risk import risk
from monitor.config import Settings
from monitor.core.heap import freeze_startup_heap
from monitor.core.model import RagTrace
from monitor.ingest.native import NativeDecoder
from monitor.sources import SourcePosition, SourceRecord

_NAIVE = re.compile(r"\d+(?:[.,]\d+)*")


def naive_unsupported(trace: RagTrace) -> bool:
    """The baseline: every digit run in the answer that is not a digit run of the context."""
    context = set(_NAIVE.findall(trace.context_text))
    return bool(set(_NAIVE.findall(trace.answer)) - context)


def rate(
    fn: Callable[[], object],
    n: int,
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
    setup: Callable[[], object] | None = None,
) -> float:
    """Best-of-``repeats`` items per second for ``fn`` processing ``n`` items (``clock``:
    wall time by default; ``time.process_time`` counts the CPU of every thread; ``setup``
    runs untimed before each repeat)."""
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return n / min(times)


def rates(
    runs: dict[str, tuple[Callable[[], object], Callable[[], object] | None]],
    n: int,
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """``rate`` of each of ``runs`` (name: (fn, setup)), their repeats taken in turn (A B C
    A B C ...), so that a drift of the machine's speed reaches every figure alike and the
    ratios between them hold (this machine's speed swings by 1.5x within minutes)."""
    return {name: n / min(ts) for name, ts in timings(runs, repeats, clock).items()}


def timings(
    runs: dict[str, tuple[Callable[[], object], Callable[[], object] | None]],
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """The time of every repeat of each of ``runs``, taken in turn as ``rates`` takes them:
    the i-th times of two runs were measured next to each other."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (fn, setup) in runs.items():
            if setup is not None:
                setup()
            t0 = clock()
            fn()
            times[name].append(clock() - t0)
    return times


class Memos:
    """Warms a fresh passage memo before each timed repeat and records its hit rate over
    the timed traces (what ``rate``'s ``setup`` and the timed function report)."""

    def __init__(self, warm: list[RagTrace], cap: int) -> None:
        self.warm = warm
        self.cap = cap
        self.rates: list[float] = []  # hit rate over each timed run
        self.warm_rates: list[float] = []  # and over its warming
        self._memo: PassageMemo | None = None
        self._start = (0, 0)

    def warmed(self, suite: CheckSuite) -> None:
        """Give ``suite`` a fresh memo of ``cap`` bytes (none for 0), warmed untimed."""
        suite.memo = self._memo = PassageMemo(self.cap) if self.cap else None
        if self._memo is None:
            return
        for t in self.warm:
            suite(t)
        self._start = (self._memo.hits, self._memo.misses)
        self.warm_rates.append(self._memo.hits / max(self._memo.hits + self._memo.misses, 1))

    @property
    def memo(self) -> PassageMemo | None:
        """The memo of the last repeat."""
        return self._memo

    def timed(self) -> None:
        """Note the hit rate of the run that just ended."""
        if self._memo is None:
            return
        hits, misses = self._memo.hits - self._start[0], self._memo.misses - self._start[1]
        self.rates.append(hits / max(hits + misses, 1))


def build_line() -> str:
    """Which build of the checks this process runs (the compiled one is 1.6-2.4x faster: a
    figure means little without it)."""
    return f"checks: {native.BUILD}" + (f" ({native.WHY})" if native.WHY else "")


def pin_one_core() -> None:
    """Run this process on one core, so figures do not depend on idle siblings."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warm", type=int, help="traces that warm the memo (default: --traces)")
    parser.add_argument("--memo-bytes", type=int, default=64 << 20, help="the memo's cap")
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU (process_time), steadier than the clock on a busy "
                        "machine")  # fmt: skip
    add_reuse_arguments(parser)
    args = parser.parse_args()
    pin_one_core()
    reuse = reuse_of(args)
    warm_n = args.traces if args.warm is None else args.warm

    stream = bench_records(warm_n + args.traces, reuse=reuse)
    warm = [RagTrace.from_json(r) for r in stream[:warm_n]]
    records = stream[warm_n:]
    traces = [RagTrace.from_json(r) for r in records]
    size = statistics.mean(len(r) for r in records)
    bare = registry.build_suite(Settings())  # as the daemon builds it (no memo by default)
    cap = args.memo_bytes
    suite = CheckSuite(bare.checks)
    memos = Memos(warm, cap)
    # The traces are held for the whole run; in the daemon they come and go. Out of the
    # collector's reach, as the daemon's start-up heap is, so that a full collection (more
    # frequent when the memo keeps objects) does not walk 20,000 held traces.
    freeze_startup_heap()
    unsupported = UnsupportedNumbers()
    decode = NativeDecoder()
    positioned = [SourceRecord(SourcePosition("bench", 0, i), r) for i, r in enumerate(records)]

    def run_suite() -> None:
        for t in traces:
            suite(t)
        memos.timed()

    def run_bare() -> None:
        for t in traces:
            bare(t)

    def run_unsupported() -> None:
        for t in traces:
            unsupported(TraceView(t))

    def run_naive() -> None:
        for t in traces:
            naive_unsupported(t)

    # a shadow candidate with other options (every check runs twice on one shared view)
    shadowed = Settings.model_validate(
        {"shadow": {"checks": {"context_conflict": {"similarity": 0.4}}}}
    )
    shadow = registry.build_shadow(shadowed)
    assert shadow is not None

    def run_shadowed() -> None:
        for t in traces:
            view = bare.view(t)
            bare(t, view)
            shadow(view)

    def run_risked() -> None:
        for t in traces:
            view = bare.view(t)
            risk(bare(t, view), view)

    def run_decode_and_suite() -> None:
        for rec in positioned:
            item = decode(rec)
            if isinstance(item, RagTrace):
                bare(item)

    n, k = len(traces), args.repeats
    got = rates({
        "naive": (run_naive, None), "numbers": (run_unsupported, None),
        "full": (run_suite, lambda: memos.warmed(suite)), "without": (run_bare, None),
        "shadow": (run_shadowed, None), "e2e": (run_decode_and_suite, None),
        "risk": (run_risked, None),
    }, n, k, time.process_time if args.cpu else time.perf_counter)  # fmt: skip
    naive, numbers, full = got["naive"], got["numbers"], got["full"]
    without, with_shadow, e2e, risked = got["without"], got["shadow"], got["e2e"], got["risk"]
    hit_rate = statistics.mean(memos.rates or [0.0])
    warm_rate = statistics.mean(memos.warm_rates or [0.0])
    memo = memos.memo
    # Ground truth from the demo labels: an invented figure, or a figure with no context.
    truth = [
        t.attributes["ragmon.demo.failure_mode"] == "invented_number"
        or (not t.context and any(c.isdigit() for c in t.answer))
        for t in traces
    ]
    naive_flags = [naive_unsupported(t) for t in traces]
    our_flags = [unsupported(TraceView(t)).flagged for t in traces]
    print(build_line())
    print(f"traces: {n} (after {warm_n} warming the memo), mean record size "
          f"{size / 1024:.1f} KB, {reuse}, one core, "
          f"{'CPU time' if args.cpu else 'wall time'}")  # fmt: skip
    print(f"passage memo: cap {cap / 2**20:.0f} MiB, hit rate {hit_rate:.3f} over the timed "
          f"traces ({warm_rate:.3f} while warming), {len(memo) if memo else 0} entries, "
          f"{(memo.bytes if memo else 0) / 2**20:.1f} MiB")  # fmt: skip
    print(f"{'what':<38} {'traces/s':>10} {'vs naive':>9}")
    print(f"{'naive baseline (regex diff)':<38} {naive:>10,.0f} {1.0:>8.2f}x")
    print(f"{'unsupported_numbers':<38} {numbers:>10,.0f} {numbers / naive:>8.2f}x")
    whole = f"full check suite ({len(bare.checks)} checks)"
    print(f"{whole:<38} {without:>10,.0f} {without / naive:>8.2f}x")
    print(f"{'full check suite with the passage memo':<38} {full:>10,.0f} {full / naive:>8.2f}x")
    print(f"{'decode JSON + validate + full suite':<38} {e2e:>10,.0f} {e2e / naive:>8.2f}x")
    print(
        f"{'full suite + the risk':<38} {risked:>10,.0f} {risked / naive:>8.2f}x"
        f"  (the risk's cost: {1e6 / risked - 1e6 / without:.1f} µs per trace)"
    )
    print(
        f"{'full suite + a shadow candidate':<38} {with_shadow:>10,.0f} "
        f"{with_shadow / naive:>8.2f}x"
        f"  (the shadow's cost: {1e6 / with_shadow - 1e6 / without:.0f} µs per trace it takes)"
    )
    for label, flags in (("naive baseline", naive_flags), ("unsupported_numbers", our_flags)):
        tp = sum(f and t for f, t in zip(flags, truth, strict=True))
        print(
            f"{label:<20} flagged {sum(flags):>5}/{n}  precision {tp / max(sum(flags), 1):.3f}"
            f"  recall {tp / max(sum(truth), 1):.3f}  (against the demo labels)"
        )


if __name__ == "__main__":
    main()
