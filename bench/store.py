"""What the evaluation store costs, on one core in one run (docs, "The evaluation store").

Run: ``python bench/store.py --traces 5000 --rows 1000000`` (``--reuse zipf:S --chunks C``:
passages drawn from a corpus of C chunks, as a knowledge base's recur; default: every passage
new, the store's worst case, since it redacts and writes each distinct passage once;
``--jsonl``: every pipeline writes its evaluation lines to a file too, whose line the store
takes instead of making its own; ``--alone``: the store sink alone over the pipeline's
evaluations, CPU time, with no pipeline around it).

* Cost per trace: the pipeline as ``ragmon run`` builds it from a ``ListSource`` on the
  benchmark corpus (~5.8 KB native traces, no judge), without and with the store sink
  (``store.path``, PII redaction on as by default), interleaved, best of ``--repeats``; the
  store's share is the difference over the pipeline without it (target: 10 % at most).
  Elapsed time (what a daemon's throughput sees, the store's fsyncs included) and the
  process's CPU time (what a busy machine's neighbours do not move) are both printed.
* Search: a store filled with ``--rows`` evaluations (rows made directly, the line and trace
  of real evaluations with their ids, times, routes, releases, outcomes and segments varied
  over 30 days), then each search the trace pages run, best of three, with its answer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client import CollectorRegistry

from bench.checks import pin_one_core
from bench.corpus import Reuse, add_reuse_arguments, bench_records, reuse_of
from monitor import registry
from monitor.config import Settings
from monitor.core.model import Evaluation
from monitor.core.pii import Redactor
from monitor.core.store import open_for_writing
from monitor.golden.traces import EvaluationStore, Search
from monitor.sources import ListSource
from sinks import SinkBase
from sinks.store import StoreSink

DAY = 86_400.0


def pipeline_seconds(
    records: list[bytes],
    store: Path | None,
    redact: bool = True,
    lines: Path | None = None,
    writer: str = "process",
) -> Callable[[], tuple[float, ...]]:
    """A run of the daemon's pipeline over ``records`` (with the store at ``store``, made
    anew each run, when given; the evaluation lines written to ``lines`` too, when given; the
    text PII-redacted when ``redact``): its elapsed and CPU seconds, from its start (which
    opens the store) to its close (which flushes the last batch), and the CPU seconds of the
    store's writer process (``writer``: process, on the cores other than the pipeline's; or
    inline: none); and the elapsed seconds to the end of its run, its last flush, without
    its close (which a daemon does once in its life: the writer's last checkpoint and exit);
    the seconds the pipeline's thread was blocked (neither running nor waiting for a core:
    what it waited for the writer, in a send or a flush) and waited for a core (the load)."""
    given: dict[str, object] = {"judge": {"backend": "none"}}
    output: dict[str, object] = {"redact_pii": redact}
    if lines is not None:
        output["evaluations_jsonl"] = str(lines)
    given["output"] = output
    if store is not None:
        given["store"] = {"path": str(store), "writer": writer}
    settings = Settings.model_validate(given)

    def run() -> tuple[float, ...]:
        if store is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{store}{suffix}").unlink(missing_ok=True)
        if lines is not None:
            lines.unlink(missing_ok=True)
        metrics = registry.build_metrics(CollectorRegistry())
        pipeline = registry.build_pipeline(settings, metrics, source=ListSource(records))
        pipeline.start()  # opens the store: once in a daemon's life, so not timed
        for sink in pipeline.sinks:
            pid = getattr(sink, "writer_pid", None)
            if pid is not None and hasattr(os, "sched_setaffinity"):  # the writer's own core
                others = os.sched_getaffinity(0) ^ set(range(os.cpu_count() or 1))
                os.sched_setaffinity(pid, others or os.sched_getaffinity(0))
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = sum(_ticks(getattr(sink, "writer_pid", None)) for sink in pipeline.sinks)
        sched = _schedstat()
        start, cpu = time.perf_counter(), time.process_time()
        try:
            stats = pipeline.run(threading.Event())
            ran = time.perf_counter() - start  # to its last flush (the writer's last commit)
        finally:
            pipeline.close()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        ran_ns, queued_ns = (b - a for a, b in zip(sched, _schedstat(), strict=True))
        blocked = elapsed - (ran_ns + queued_ns) / 1e9  # neither running nor runnable
        assert stats.traces == len(records), stats
        flushes.append(stats.commits)
        done = resource.getrusage(resource.RUSAGE_CHILDREN)  # the writer, joined at close
        writer = done.ru_utime + done.ru_stime - children.ru_utime - children.ru_stime
        writer -= started / os.sysconf("SC_CLK_TCK")  # its start (imports, the file's open)
        return elapsed, cpu, writer, ran, blocked, queued_ns / 1e9

    flushes: list[int] = []  # each run's flushes (the source's commits: one a flush)
    run.flushes = flushes  # type: ignore[attr-defined]
    return run


def cost(
    traces: int, repeats: int, where: Path, reuse: Reuse, jsonl: bool = False, inline: bool = True
) -> None:
    records = bench_records(traces, reuse=reuse)
    lines = where / "lines.jsonl" if jsonl else None
    db = where / "cost.db"
    runs = {
        "pipeline": pipeline_seconds(records, None, lines=lines),
        "+ store, redacted": pipeline_seconds(records, db, lines=lines),
        "+ store, as is": pipeline_seconds(records, db, False, lines),
    }
    if inline:
        runs["+ store inline, red."] = pipeline_seconds(records, db, lines=lines, writer="inline")
        runs["+ store inline, as is"] = pipeline_seconds(records, db, False, lines, "inline")
    if jsonl:  # the pipeline without the store writes its lines redacted, as by default
        runs["pipeline, lines as is"] = pipeline_seconds(records, None, False, lines)
    best = {name: [float("inf")] * 6 for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}  # each repeat's, for the pairs
    elapsed: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):  # interleaved: all see the same machine
        for name, run in runs.items():
            got = run()
            cpu[name].append(got[1])
            elapsed[name].append(got[0])
            for i, seconds in enumerate(got):
                best[name][i] = min(best[name][i], seconds)
    also = ", the evaluation lines written to a file too" if jsonl else ""
    print(f"cost per trace, {traces:,} traces of ~5.8 KB ({reuse}){also}, best of {repeats}, "
          "the pipeline on one core (the store's writer process on the others):")  # fmt: skip
    flushes = sorted({n for run in runs.values() for n in run.flushes})  # type: ignore[attr-defined]
    print(f" flushes a run: {', '.join(map(str, flushes))} (one a commit_interval, 1 s, as a "
          "daemon's, and the last at the end of input)")  # fmt: skip
    for i, clock in ((0, "elapsed"), (3, "elapsed to the last flush (without the close)"),
                     (1, "CPU")):  # fmt: skip
        print(f" {clock}:")
        for name, times in best.items():
            seconds = times[i]
            base_seconds = best["pipeline, lines as is" if "as is" in name and jsonl
                                else "pipeline"][i]  # fmt: skip
            extra = seconds - base_seconds
            share = f"  store {extra / traces * 1e6:7.1f} us = {extra / base_seconds:6.1%}"
            rate = f"{traces / seconds:8,.0f}/s"
            said = f"  {name:<21} {seconds / traces * 1e6:8.1f} us/trace  {rate}"
            print(said + ("" if name.startswith("pipeline") else share))
    shares: tuple[tuple[str, dict[str, list[float]]], ...] = (("elapsed", elapsed), ("CPU", cpu))
    for clock, per in shares:
        print(f" {clock}, the store's share in each repeat's pair (the run with it less "
              "the run without, a busy machine's noise): median [lowest, highest]")  # fmt: skip
        for name, each in per.items():
            if name.startswith("pipeline"):
                continue
            base = per["pipeline, lines as is" if "as is" in name and jsonl else "pipeline"]
            pairs = sorted((t - b) / traces * 1e6 for t, b in zip(each, base, strict=True))
            part = statistics.median(pairs) / (statistics.median(base) / traces * 1e6)
            print(
                f"  {name:<21} {statistics.median(pairs):+7.1f} us = {part:6.1%}  "
                f"[{pairs[0]:+.1f}, {pairs[-1]:+.1f}] us over {len(pairs)} pairs"
            )
    print(" the writer process's own CPU (on another core):")
    for name, times in best.items():
        if times[2] > 0:
            print(f"  {name:<21} {times[2] / traces * 1e6:8.1f} us/trace")
    print(" the pipeline's thread blocked (waiting for the writer: sends, flushes, the close) "
          "and waiting for a core (the machine's load), best:")  # fmt: skip
    for name, times in best.items():
        print(f"  {name:<21} blocked {times[4] / traces * 1e6:7.1f} us/trace, "
              f"waiting for a core {times[5] / traces * 1e6:7.1f}")  # fmt: skip


def _schedstat() -> tuple[int, int]:
    """This thread's nanoseconds on a core and waiting for one, so far (zeros where the
    kernel does not say)."""
    try:
        ran, queued, _ = Path("/proc/thread-self/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0, 0
    return int(ran), int(queued)


def _ticks(pid: int | None) -> int:
    """The CPU ticks process ``pid`` has used so far (0: none, or not known)."""
    if pid is None:
        return 0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime


class _Kept(SinkBase):
    """Keeps every evaluation it is given."""

    name = "kept"

    def __init__(self) -> None:
        self.evaluations: list[Evaluation] = []

    def write(self, evaluation: Evaluation) -> None:
        self.evaluations.append(evaluation)


def alone(traces: int, repeats: int, where: Path, reuse: Reuse) -> None:
    """The store sink alone (no pipeline around it) over the pipeline's evaluations of the
    benchmark's traces, flushed every 500, redacted and as is, interleaved, CPU time: what
    the sink itself costs, without the pipeline's noise around it."""
    kept = _Kept()
    settings = Settings.model_validate({"judge": {"backend": "none"}})
    pipeline = registry.build_pipeline(
        settings,
        registry.build_metrics(CollectorRegistry()),
        source=ListSource(bench_records(traces, reuse=reuse)),
    )
    pipeline.sinks.append(kept)
    pipeline.start()
    pipeline.run(threading.Event())
    pipeline.close()
    path = where / "alone.db"

    def run(redactor: Redactor | None) -> float:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        sink = StoreSink(path, redactor, retention_interval_seconds=3600)
        sink.start()
        cpu = time.process_time()
        for i, evaluation in enumerate(kept.evaluations, 1):
            sink.write(evaluation)
            if i % 500 == 0:
                sink.flush()
        sink.flush()
        sink.close()  # its checkpoint too: each page the WAL took is copied to the file once
        return time.process_time() - cpu

    best = {"redacted": float("inf"), "as is": float("inf")}
    for _ in range(repeats):
        best["redacted"] = min(best["redacted"], run(Redactor()))
        best["as is"] = min(best["as is"], run(None))
    print(f"the store sink alone, {traces:,} evaluations ({reuse}), best of {repeats}, CPU:")
    for name, seconds in best.items():
        print(f"  {name:<10} {seconds / traces * 1e6:8.1f} us/trace")


def fill(path: Path, rows: int, seed: int = 1) -> None:
    """``rows`` evaluations in the store at ``path`` (made directly, in batches)."""
    rng = random.Random(seed)
    sample = bench_records(50)
    traces = [json.loads(r) for r in sample]
    db = open_for_writing(path)
    db.execute("PRAGMA synchronous = OFF")  # filling, not measuring the writes
    now = time.time()
    routes = [f"route-{i}" for i in range(20)]
    releases = [f"2026.{i}" for i in range(1, 6)]
    rates = {"unsupported_numbers": 0.08, "refusal": 0.05, "citation": 0.3,
             "empty_context": 0.02, "context_conflict": 0.03, "grounding_overlap": 0.1}  # fmt: skip
    batch = 20_000
    sets: dict[str, int] = {}  # a combination of segments -> its id, as the sink keeps them
    for start in range(0, rows, batch):
        ev, bodies, ch, sg = [], [], [], []
        for i in range(start, min(start + batch, rows)):
            t = traces[i % len(traces)]
            tid = f"{i + 1:032x}"
            when = now - rng.random() * 30 * DAY
            route, release = rng.choice(routes), rng.choice(releases)
            flagged = {c for c, p in rates.items() if rng.random() < p}
            language = rng.choice(("en", "de", "fr", "ja"))
            segments = {"language": language, "release": release, "route": route}
            combination = json.dumps(segments, separators=(",", ":"))
            if combination not in sets:
                sets[combination] = len(sets) + 1
                sg.append((sets[combination], combination))
            line = json.dumps(
                {
                    "trace_id": tid,
                    "route": route,
                    "segments": segments,
                    "checks": {
                        c: {"flagged": c in flagged, "applicable": True, "evidence": {}}
                        for c in rates
                    },
                }
            )
            record = json.dumps(
                {
                    **t,
                    "trace_id": tid,
                    "route": route,  # the search reads none
                    "context": t["context"][:1],
                }
            )
            session = f"s{i // 4}" if i % 3 == 0 else None
            ev.append((i + 1, tid, when, session, "support", route, release, sets[combination],
                       int(bool(flagged)), rng.random(), now))  # fmt: skip
            bodies.append((i + 1, line, record))
            ch.extend((tid, c, "flagged", when) for c in flagged)  # as the sink: flagged only
        db.execute("BEGIN")
        db.executemany("INSERT INTO evaluations VALUES (?,?,?,?,?,?,?,?,?,?,?)", ev)
        db.executemany("INSERT INTO bodies VALUES (?,?,?)", bodies)
        db.executemany("INSERT INTO checks VALUES (?,?,?,?)", ch)
        db.executemany("INSERT INTO segment_sets VALUES (?,?)", sg)
        db.executemany("INSERT INTO segment_values SELECT key, value, ? FROM json_each(?)", sg)
        db.execute("COMMIT")
    db.execute("ANALYZE")
    db.close()


def best_of(run: Callable[[], object], n: int = 3) -> tuple[float, object]:
    out, best = None, float("inf")
    for _ in range(n):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def search(rows: int, where: Path, kept: Path | None = None) -> None:
    path = kept or where / "search.db"
    start = time.perf_counter()
    if not path.exists():
        fill(path, rows)
    size = path.stat().st_size
    print(f"\nsearch over {rows:,} stored evaluations ({size / 1e9:.2f} GB, filled in "
          f"{time.perf_counter() - start:.0f} s), best of 3 (one core):")  # fmt: skip
    store = EvaluationStore(path)
    now = time.time()
    cases = {
        "route, check flagged, last day": Search(route="route-3", check="refusal",
                                                 since=now - DAY),
        "check flagged, last 7 days": Search(check="unsupported_numbers", since=now - 7 * DAY),
        "check flagged, all time": Search(check="unsupported_numbers"),
        "segment, release, last day": Search(segment="language=ja", release="2026.2",
                                             since=now - DAY),
        "route, all time": Search(route="route-7"),
        "everything": Search(),
    }  # fmt: skip
    for name, s in cases.items():
        seconds, result = best_of(lambda s=s: store.search(s))
        total = getattr(result, "total", 0)
        print(f"  {name:<32} {seconds * 1e3:8.1f} ms  {total:>9,} traces")
    seconds, _ = best_of(lambda: store.trace(f"{rows // 2:032x}"))
    print(f"  {'one trace by id':<32} {seconds * 1e3:8.3f} ms")
    seconds, _ = best_of(lambda: store.session(f"s{rows // 8}"))
    print(f"  {'one session by id':<32} {seconds * 1e3:8.3f} ms")
    seconds, _ = best_of(store.options)
    print(f"  {'the search form choices':<32} {seconds * 1e3:8.1f} ms")
    store.close()
    with sqlite3.connect(path) as db:
        print(f"  ({db.execute('SELECT count(*) FROM checks').fetchone()[0]:,} check rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="every pipeline writes its evaluation lines to a file too (output."
        "evaluations_jsonl): the store's cost beside a sink that makes the same line",
    )
    parser.add_argument(
        "--no-inline", action="store_true", help="leave out the runs of the store written inline"
    )
    parser.add_argument("--dir", type=Path, default=None, help="where the stores go")
    parser.add_argument(
        "--keep", type=Path, default=None, help="the search's store: filled if missing, kept"
    )
    parser.add_argument(
        "--alone", action="store_true", help="time the store sink alone (CPU), not the pipeline"
    )
    add_reuse_arguments(parser)
    args = parser.parse_args()
    pin_one_core()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        if args.traces and args.alone:
            alone(args.traces, args.repeats, Path(tmp), reuse_of(args))
        elif args.traces:
            cost(args.traces, args.repeats, Path(tmp), reuse_of(args), args.jsonl,
                 not args.no_inline)  # fmt: skip
        if args.rows:
            search(args.rows, Path(tmp), args.keep)


if __name__ == "__main__":
    main()
