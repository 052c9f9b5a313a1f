"""Throughput of the in-process pipeline, next to its parts, on one core in one run.

Run: ``python bench/pipeline.py --traces 20000``. On the benchmark corpus (~5.8 KB native
traces, ``bench.corpus``) it measures traces/s for:

* a bare decode loop (``json.loads`` of each record, nothing else): the floor;
* decoding to the trace model (``NativeDecoder``: bytes → validated ``RagTrace``);
* the check suite alone on decoded traces;
* the pipeline as ``ragmon run`` builds it from a ``ListSource`` (decode → checks → judge
  sampling → Prometheus sink → commit), without the judge and with the heuristic judge at the
  default sampling.

Best of ``--repeats`` runs each. Not a test: the figures are reported, not asserted.
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

from bench.checks import pin_one_core, rate
from bench.corpus import bench_records
from monitor import registry
from monitor.checks import CheckSuite
from monitor.config import Settings
from monitor.ingest.native import NativeDecoder
from monitor.model import RagTrace
from monitor.pipeline import freeze_startup_heap
from monitor.sources import ListSource, SourcePosition, SourceRecord


def pipeline_run(records: list[bytes], judge: str) -> Callable[[], object]:
    settings = Settings()
    settings = settings.model_copy(
        update={"judge": settings.judge.model_copy(update={"backend": judge})}
    )

    def run() -> None:
        metrics = registry.build_metrics(CollectorRegistry())
        pipeline = registry.build_pipeline(settings, metrics, source=ListSource(records))
        pipeline.start()
        try:
            stats = pipeline.run(threading.Event())
        finally:
            pipeline.close()
        assert stats.traces == len(records), stats

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    pin_one_core()

    records = bench_records(args.traces)
    n, k = len(records), args.repeats
    positioned = [SourceRecord(SourcePosition("bench", 0, i), r) for i, r in enumerate(records)]
    decode = NativeDecoder()
    traces = [t for t in map(decode, positioned) if isinstance(t, RagTrace)]
    suite = CheckSuite()
    freeze_startup_heap()  # as ragmon run and replay do

    def bare() -> None:
        for r in records:
            json.loads(r)

    def decoded() -> None:
        for r in positioned:
            decode(r)

    def checks() -> None:
        for t in traces:
            suite(t)

    def cpu_rate(fn: Callable[[], object]) -> float:
        return rate(fn, n, k, time.process_time)  # CPU of every thread (judge workers too)

    rows = [
        ("bare decode loop (json.loads)", rate(bare, n, k, time.process_time)),
        ("decode to RagTrace", rate(decoded, n, k, time.process_time)),
        ("check suite alone", rate(checks, n, k, time.process_time)),
        ("pipeline, judge none", rate(pipeline_run(records, "none"), n, k, time.process_time)),
        (
            "pipeline, heuristic judge (the demo's)",
            rate(pipeline_run(records, "heuristic"), n, k, time.process_time),
        ),
    ]
    floor = rows[0][1]
    size = statistics.mean(len(r) for r in records)
    print(f"traces: {n}, mean record size {size / 1024:.1f} KB, one core, CPU time, best of {k}")
    print(f"{'what':<40} {'traces/s':>10} {'vs bare decode':>15}")
    for label, value in rows:
        print(f"{label:<40} {value:>10,.0f} {value / floor:>14.2f}x")


if __name__ == "__main__":
    main()
