"""Throughput of the in-process pipeline, next to its parts, on one core in one run.

Run: ``python bench/pipeline.py --traces 20000``. On the benchmark corpus (~5.8 KB native
traces, ``bench.corpus``) it measures traces/s for:

* a bare decode loop (``json.loads`` of each record, nothing else): the floor;
* decoding to the trace model (``NativeDecoder``: bytes → validated ``RagTrace``);
* the check suite alone on decoded traces, and the segments and inputs alone;
* the pipeline as ``ragmon run`` builds it from a ``ListSource`` (decode → checks → judge
  sampling → Prometheus sink → commit), without the judge (with and without segments and
  inputs, ``segments.enabled``) and with the heuristic judge at the default sampling.

Best of ``--repeats`` runs each. Not a test: the figures are reported, not asserted.

``--reuse zipf:S --chunks C --per-trace K`` draws the passages from a skewed corpus
(``bench.corpus.Reuse``); with ``--memo-bytes N`` the suite alone and each pipeline start
every timed repeat with a passage memo warmed by ``--warm`` earlier traces of the same
stream, as in a daemon that has been running, and the memo's hit rate over the timed traces
is printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client import CollectorRegistry

from bench.checks import Memos, build_line, pin_one_core, rate, timings
from bench.corpus import add_reuse_arguments, bench_records, reuse_of
from monitor import registry
from monitor.config import Settings
from monitor.core.heap import freeze_startup_heap
from monitor.core.model import RagTrace
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource, SourcePosition, SourceRecord


def pipeline_run(
    records: list[bytes],
    judge: str,
    memos: Memos,
    segments: bool = True,
    sessions: bool = True,
    outcomes: bool = True,
) -> tuple[Callable[[], object], Callable[[], object]]:
    """(setup, run): setup builds the pipeline as ``ragmon run`` does and warms its memo;
    run processes ``records`` through it (``segments`` off: without segments and inputs;
    ``sessions`` off: a trace's session id is ignored; ``outcomes`` off: pairs, no session
    closed)."""
    settings = Settings()
    settings = settings.model_copy(
        update={"judge": settings.judge.model_copy(update={"backend": judge}),
                "segments": settings.segments.model_copy(update={"enabled": segments}),
                "sessions": settings.sessions.model_copy(update={"enabled": sessions,
                                                                 "outcomes": outcomes})}
    )  # fmt: skip
    built: list[Pipeline] = []

    def setup() -> None:
        metrics = registry.build_metrics(CollectorRegistry())
        pipeline = registry.build_pipeline(settings, metrics, source=ListSource(records))
        memos.warmed(pipeline.suite)
        built[:] = [pipeline]

    def run() -> None:
        (pipeline,) = built
        pipeline.start()
        try:
            stats = pipeline.run(threading.Event())
        finally:
            pipeline.close()
        memos.timed()
        assert stats.traces == len(records), stats

    return setup, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warm", type=int, help="traces that warm the memo (default: --traces)")
    parser.add_argument(
        "--memo-bytes", type=int, default=0, help="a passage memo of this cap (0: none)"
    )
    add_reuse_arguments(parser)
    args = parser.parse_args()
    pin_one_core()
    reuse = reuse_of(args)
    warm_n = args.traces if args.warm is None else args.warm

    stream = bench_records(warm_n + args.traces, reuse=reuse)
    records = stream[warm_n:]
    n, k = len(records), args.repeats
    positioned = [SourceRecord(SourcePosition("bench", 0, i), r) for i, r in enumerate(records)]
    decode = NativeDecoder()
    traces = [t for t in map(decode, positioned) if isinstance(t, RagTrace)]
    warm = [RagTrace.from_json(r) for r in stream[:warm_n]]
    suite = registry.build_suite(Settings())  # with the memo, as the daemon builds it
    freeze_startup_heap()  # as ragmon run and replay do (here also the held traces)

    def bare() -> None:
        for r in records:
            json.loads(r)

    def decoded() -> None:
        for r in positioned:
            decode(r)

    suite_memos = Memos(warm, args.memo_bytes)

    def checks() -> None:
        for t in traces:
            suite(t)
        suite_memos.timed()

    def cpu(fn: Callable[[], object], setup: Callable[[], object] | None = None) -> float:
        return rate(fn, n, k, time.process_time, setup)  # CPU of every thread (judge too)

    none_memos, heuristic_memos = Memos(warm, args.memo_bytes), Memos(warm, args.memo_bytes)
    none_setup, none_run = pipeline_run(records, "none", none_memos)
    unsegmented = Memos(warm, args.memo_bytes)
    bare_setup, bare_run = pipeline_run(records, "none", unsegmented, segments=False)
    segmenter = registry.build_segmenter(Settings())
    segmenter.segments(traces[0])  # the language model loads once, before timing

    def segmented() -> None:
        for t in traces:
            segmenter(t)

    heuristic_setup, heuristic_run = pipeline_run(records, "heuristic", heuristic_memos)
    # the same traces as turns of conversations (three a session, a minute apart): the
    # session stage's cost, against the same traces with sessions off, in the same run
    turns = [as_turn(r, i) for i, r in enumerate(records)]
    off_memos, on_memos = Memos(warm, args.memo_bytes), Memos(warm, args.memo_bytes)
    pairs_memos = Memos(warm, args.memo_bytes)
    off_setup, off_run = pipeline_run(turns, "none", off_memos, sessions=False)
    pairs_setup, pairs_run = pipeline_run(turns, "none", pairs_memos, outcomes=False)
    on_setup, on_run = pipeline_run(turns, "none", on_memos)
    # off, pairs and on in turns (A B C A B C ...): the machine's drift reaches all alike
    times = timings({"off": (off_run, off_setup), "pairs": (pairs_run, pairs_setup),
                     "on": (on_run, on_setup)}, k, time.process_time)  # fmt: skip
    paired = {name: n / min(ts) for name, ts in times.items()}
    # each repeat's on against the off measured next to it: the stage's share, drift aside
    shares = sorted(on / off - 1 for off, on in zip(times["off"], times["on"], strict=True))
    # and closing the sessions: each repeat's on against its pairs-only run
    closing = sorted(on / pr - 1 for pr, on in zip(times["pairs"], times["on"], strict=True))
    rows = [
        ("bare decode loop (json.loads)", cpu(bare), None),
        ("decode to RagTrace", cpu(decoded), None),
        ("check suite alone", cpu(checks, lambda: suite_memos.warmed(suite)), suite_memos),
        ("segments and inputs alone", cpu(segmented), None),
        ("pipeline, judge none, segments off", cpu(bare_run, bare_setup), unsegmented),
        ("pipeline, judge none", cpu(none_run, none_setup), none_memos),
        ("pipeline, heuristic judge (the demo's)", cpu(heuristic_run, heuristic_setup),
         heuristic_memos),
        ("turns of sessions, sessions off", paired["off"], off_memos),
        ("turns of sessions, pairs, no outcomes", paired["pairs"], pairs_memos),
        ("turns of sessions, sessions on", paired["on"], on_memos),
    ]  # fmt: skip
    floor, alone = rows[0][1], rows[2][1]
    size = statistics.mean(len(r) for r in records)
    print(build_line())
    print(f"traces: {n} (after {warm_n} warming the memo), mean record size "
          f"{size / 1024:.1f} KB, {reuse}, one core, CPU time, best of {k}")  # fmt: skip
    print(f"{'what':<40} {'traces/s':>10} {'vs bare decode':>15} {'vs suite':>9} {'memo hits':>10}")
    for label, value, memos in rows:
        hits = f"{statistics.mean(memos.rates):.3f}" if memos and memos.rates else "-"
        print(f"{label:<40} {value:>10,.0f} {value / floor:>14.2f}x {value / alone:>8.2f}x"
              f" {hits:>10}")  # fmt: skip
    best = 1e6 / paired["on"] - 1e6 / paired["off"]
    print(f"session stage: +{best:.1f} µs a trace, +{100 * best * paired['off'] / 1e6:.1f} % "
          f"(best of each); per repeat pair +{100 * statistics.median(shares):.1f} % median, "
          f"{100 * shares[0]:+.1f} to {100 * shares[-1]:+.1f} %")  # fmt: skip
    close = 1e6 / paired["on"] - 1e6 / paired["pairs"]
    print(f"of which closing sessions (one in three traces a session): +{close:.1f} µs a trace, "
          f"+{100 * close * paired['off'] / 1e6:.1f} % of the pipeline without sessions (best "
          f"of each); per repeat pair +{100 * statistics.median(closing):.1f} % median, "
          f"{100 * closing[0]:+.1f} to {100 * closing[-1]:+.1f} %")  # fmt: skip


_QUESTIONS = ("How much is the Pro plan?", "how much is the pro plan??", "human pls",
              "Does it include SSO?", "thanks!", "that's wrong")  # fmt: skip


def as_turn(record: bytes, i: int) -> bytes:
    """``record`` as turn ``i % 3`` of session ``i // 3``, a minute after the one before."""
    data = json.loads(record)
    data["session_id"] = f"bench-{i // 3}"
    data["timestamp"] = f"2026-12-01T{(i // 3) % 24:02d}:{i % 3:02d}:00Z"
    data["query"] = _QUESTIONS[i % len(_QUESTIONS)]
    return json.dumps(data).encode()


if __name__ == "__main__":
    main()
