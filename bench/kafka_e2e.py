"""End-to-end throughput from a real Kafka topic: a bare consumer loop vs ragmon.

Needs a broker (``make kafka-up``, or ``--bootstrap``). On one topic of ~5.8 KB native traces
(4 partitions) it measures, in one run:

* (a) a bare kafka-python consumer loop that only touches each value,
* (b) ragmon end to end in this process (KafkaSource → decode → the checks → metrics sink,
  watermark commits), with peak and current RSS sampled over several passes of the topic,
* (c) ragmon as one worker process and as two worker processes in one consumer group, and
  ``ragmon run`` as a user starts it, one process and ``--workers 2``: timed by the group's
  commits from when every member holds partitions (see ``drained``),
* (d) the split of one in-process pass: µs per trace in the source's poll and commit, the
  decoding, the segments, the checks, the sink's writes and flushes, and the rest of the
  pipeline, against the bare loop's per-record cost.

Prints traces/s for each and the ratios. Not a test: figures are reported, not asserted.

    python bench/kafka_e2e.py --records 40000 --passes 5

``--reuse zipf:S --chunks C --per-trace K`` draws the passages from a skewed corpus
(``bench.corpus.Reuse``; ``none``, the default, makes every passage new); ragmon runs with
the passage memo at its default cap, starting empty in each pass and worker, and the memo's
hit rate is printed next to the figures.

``--format otlp_proto`` runs (a) and (b) on OTLP instead: one ~15 KB four-span
OpenInference trace per message as ``kafkaexporter`` writes them with
``partition_traces_by_id`` (see bench/otlp.py), assembled with a 0.2 s quiet period; (b)
then counts traces evaluated, not records read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic
from kafka.errors import KafkaError
from prometheus_client import CollectorRegistry

from bench.checks import build_line
from bench.corpus import Reuse, add_reuse_arguments, bench_records, reuse_of
from monitor import registry
from monitor.checks import CheckSuite, TraceView
from monitor.config import Settings
from monitor.core.heap import freeze_startup_heap
from monitor.core.log import configure as configure_logging
from monitor.core.model import CheckResult, KafkaConnection, RagTrace
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.ingest.decoder import OneItemPerRecord
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources.kafka import KafkaSource
from monitor.sources.kafka_config import KafkaSourceConfig
from monitor.telemetry import Metrics


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_topic(
    bootstrap: str, records: int, partitions: int, fmt: str = "native", reuse: Reuse | None = None
) -> str:
    topic = f"bench-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(topic, partitions, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, batch_size=1 << 20,
                             max_request_size=4 << 20)  # fmt: skip
    if fmt != "native":
        from bench.otlp import messages

        for m in messages(records):  # every trace id is fresh
            producer.send(topic, m)
        producer.flush()
        producer.close()
        return topic
    for i, raw in enumerate(bench_records(records, reuse=reuse)):
        rec = json.loads(raw)
        rec["trace_id"] = f"{i + 1:032x}"
        producer.send(topic, json.dumps(rec).encode(), key=rec["trace_id"].encode())
    producer.flush()
    producer.close()
    return topic


def bare(bootstrap: str, topic: str, records: int) -> float:
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=None,
                             auto_offset_reset="earliest", enable_auto_commit=False,
                             max_partition_fetch_bytes=8 << 20)  # fmt: skip
    seen = 0
    size = 0
    t0 = None
    while seen < records:
        for batch in consumer.poll(timeout_ms=500, max_records=500).values():
            if t0 is None:
                t0 = time.perf_counter()
            for r in batch:
                size += len(r.value)
                seen += 1
    elapsed = time.perf_counter() - (t0 or time.perf_counter())
    consumer.close()
    return seen / elapsed


def memo_line(suite: CheckSuite) -> str:
    """The suite's passage memo: hit rate and size."""
    memo = suite.memo
    if memo is None:
        return "no memo"
    lookups = memo.hits + memo.misses
    return (f"memo hit rate {memo.hits / max(lookups, 1):.3f} of {lookups:,} lookups, "
            f"{len(memo):,} entries, {memo.bytes / 2**20:.0f} MiB")  # fmt: skip


def as_the_daemon(source: KafkaSource, metrics: Metrics, decoder: Any) -> Pipeline:
    """The pipeline ``ragmon run`` builds with the default settings (the checks, the
    segments and inputs, the Prometheus sink, no judge) on ``source`` and ``decoder``."""
    return registry.build_pipeline(Settings(), metrics, source=source, decoder=decoder)


def ragmon_pass(
    bootstrap: str, topic: str, records: int, group: str, fmt: str = "native"
) -> tuple[float, str]:
    """One pass of the topic through ragmon in this process: (rate, memo line)."""
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=group, commit_interval_seconds=1.0),
        KafkaConnection(bootstrap_servers=[bootstrap]),
    )
    metrics = Metrics(CollectorRegistry())
    decoder: Any = OneItemPerRecord(NativeDecoder())
    if fmt != "native":
        decoder = OtlpAssembler(fmt, AssemblyLimits(quiet_seconds=0.2), observer=metrics)
    pipeline = as_the_daemon(source, metrics, decoder)
    suite = pipeline.suite
    pipeline.start()
    freeze_startup_heap()  # as ragmon run does
    stop = threading.Event()
    first: list[float] = []

    def done() -> int:  # OTLP: a trace counts once evaluated, after its quiet period
        return pipeline.stats.records if fmt == "native" else pipeline.stats.traces

    def watch() -> None:
        while done() < records:
            if pipeline.stats.records and not first:
                first.append(time.perf_counter())
            time.sleep(0.005)
        stop.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    pipeline.run(stop)
    end = time.perf_counter()
    pipeline.close()
    start = first[0] if first else end
    return done() / max(end - start, 1e-9), memo_line(suite)


class Split:
    """Where one pass spends its time, per part: each part's calls timed in place (a
    perf_counter pair per call, ~0.1 µs, against ~100-300 µs per trace)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def timed(self, fn: Any, part: str) -> Any:
        """``fn``, adding its time to ``part``."""
        seconds = self.seconds
        seconds.setdefault(part, 0.0)
        clock = time.perf_counter

        def call(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[part] += clock() - t0

        return call

    def wrap(self, obj: Any, method: str, part: str) -> None:
        """Time ``obj.method`` as ``part``."""
        setattr(obj, method, self.timed(getattr(obj, method), part))

    def wrap_poll(self, source: Any, part: str) -> None:
        """Time the source's polls that return records, after the first (which waits for the
        group to form, as the bare loop's clock does not count either)."""
        poll, seconds, clock = source.poll, self.seconds, time.perf_counter
        seconds.setdefault(part, 0.0)
        started: list[bool] = []

        def call(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            records = poll(*args, **kwargs)
            if records and started:
                seconds[part] += clock() - t0
            elif records:
                started.append(True)
            return records

        source.poll = call


class _TimedSuite(CheckSuite):
    """The check suite as the pipeline calls it (``view``, the call, then ``risk``, read from
    the checks' evidence: a part of their work), each timed as the checks' part. A subclass,
    so that what the pipeline asks of a suite and this one lacks is a type error, not a
    crash of the bench (``risk`` once was)."""

    def __init__(self, suite: CheckSuite, split: Split) -> None:
        super().__init__(suite.checks, suite.memo, suite.on_error)
        self._view = split.timed(super().view, "checks")
        self._call = split.timed(super().__call__, "checks")
        self._risk = split.timed(super().risk, "checks")

    def view(self, trace: RagTrace) -> TraceView:
        return cast("TraceView", self._view(trace))

    def __call__(self, trace: RagTrace, view: TraceView | None = None) -> dict[str, CheckResult]:
        return cast("dict[str, CheckResult]", self._call(trace, view))

    def risk(
        self, checks: Mapping[str, CheckResult], view: TraceView
    ) -> tuple[float | None, str | None]:
        return cast("tuple[float | None, str | None]", self._risk(checks, view))


def split_pass(bootstrap: str, topic: str, records: int, group: str) -> tuple[Split, float]:
    """One pass of the native topic with each part of the per-record path timed: (split,
    the pass's wall seconds from the first record read to the last evaluated)."""
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=group, commit_interval_seconds=1.0),
        KafkaConnection(bootstrap_servers=[bootstrap]),
    )
    metrics = Metrics(CollectorRegistry())
    split = Split()
    pipeline = as_the_daemon(source, metrics, OneItemPerRecord(NativeDecoder()))
    suite = pipeline.suite
    split.wrap_poll(source, "source: poll")
    split.wrap(source, "commit", "source: commit")
    # the record decoder itself (the sessions' stage wraps it: its own work is in the rest)
    split.wrap(getattr(pipeline.decoder, "inner", pipeline.decoder), "feed", "decode")
    pipeline.segmenter = split.timed(pipeline.segmenter, "segments")
    pipeline.suite = _TimedSuite(suite, split)
    for sink in pipeline.sinks:  # the metrics, and the sessions' turns
        split.wrap(sink, "write", "sinks: write")
        split.wrap(sink, "flush", "sinks: flush")
    pipeline.start()
    freeze_startup_heap()
    stop = threading.Event()
    first: list[float] = []

    def watch() -> None:
        while pipeline.stats.records < records:
            if pipeline.stats.records and not first:
                first.append(time.perf_counter())
            time.sleep(0.005)
        stop.set()

    threading.Thread(target=watch, daemon=True).start()
    pipeline.run(stop)
    end = time.perf_counter()
    pipeline.close()
    return split, end - (first[0] if first else end)


def print_split(split: Split, wall: float, records: int, bare_rate: float) -> None:
    """The split as µs per trace, the rest of the pipeline as what the parts leave."""
    per = {part: s / records * 1e6 for part, s in split.seconds.items()}
    total = wall / records * 1e6
    print(f"split of one pass, µs per trace (judge off; total {total:.0f}, "
          f"bare loop {1e6 / bare_rate:.0f}):")  # fmt: skip
    for part, us in per.items():
        print(f"  {part:<28} {us:>8.1f}")
    print(f"  {'pipeline (the rest)':<28} {total - sum(per.values()):>8.1f}")
    outside = total - per.get("checks", 0.0)
    print(f"  outside the checks {outside:.0f} µs = {outside * bare_rate / 1e6:.2f}x the bare "
          "loop's per-record cost")  # fmt: skip


def worker(bootstrap: str, topic: str, group: str, records: int, deadline: float) -> None:
    """Subprocess mode: consume as one member of ``group`` until the parent, which sees the
    group's commits, says the topic is drained (SIGTERM)."""
    source = KafkaSource(
        KafkaSourceConfig(topics=[topic], group_id=group, commit_interval_seconds=1.0),
        KafkaConnection(bootstrap_servers=[bootstrap]),
    )
    metrics = Metrics(CollectorRegistry())
    pipeline = as_the_daemon(source, metrics, OneItemPerRecord(NativeDecoder()))
    pipeline.start()
    freeze_startup_heap()  # as ragmon run does
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    times: list[float] = []

    def watch() -> None:
        # the first and the last moment a record was counted; a member that joins after
        # the others drained the topic counts none, and stops when told like the others
        last = 0
        while time.monotonic() < deadline and not stop.is_set():
            n = pipeline.stats.records
            if n != last:
                if not times:
                    times.append(time.time())
                last = n
                if len(times) == 1:
                    times.append(time.time())
                times[1] = time.time()
            time.sleep(0.005)
        stop.set()

    threading.Thread(target=watch, daemon=True).start()
    pipeline.run(stop)
    pipeline.close()
    print(json.dumps({"records": pipeline.stats.records, "start": times[0] if times else 0,
                      "end": times[-1] if times else 0,
                      "memo": memo_line(pipeline.suite)}))  # fmt: skip


def drained(
    bootstrap: str, topic: str, group: str, records: int, deadline: float, members: int = 0
) -> tuple[float, int, float] | None:
    """Wait until ``group`` has committed all ``records`` of ``topic`` (its offsets from 0
    add up to them): when its commits first showed and how many they covered, and when they
    covered the topic (monotonic seconds); None at the deadline.

    With ``members``, "first" is when the group was first seen stable with that many members,
    each holding partitions of the topic: the test broker starts a group without delay
    (``group.initial.rebalance.delay.ms=0``; a production broker waits 3 s by default), so a
    worker that joins a little later makes the group rebalance while the first reads alone,
    and a 20,000-trace topic is read in about the time that takes."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    first: tuple[float, int] | None = None
    try:
        while time.monotonic() < deadline:
            try:
                offsets = admin.list_group_offsets(group).get(group, {})
            except KafkaError:  # the group is still forming
                offsets = {}
            done = sum(o.offset for tp, o in offsets.items() if tp.topic == topic)
            now = time.monotonic()
            if first is None and (done >= records or (
                done and (members == 0 or _stable(admin, group, topic, members))
            )):  # fmt: skip
                first = (now, done)
            if first is not None and done >= records:
                return (*first, now)
            time.sleep(0.1)
    finally:
        admin.close()
    return None


def _stable(admin: KafkaAdminClient, group: str, topic: str, members: int) -> bool:
    """Whether ``group`` is stable with ``members`` members, each assigned partitions of
    ``topic``."""
    try:
        info = admin.describe_groups([group]).get(group, {})
    except KafkaError:
        return False
    held = [m for m in info.get("members", [])
            if any(a.get("topic") == topic and a.get("partitions") for a in
                   (m.get("member_assignment") or {}).get("assigned_partitions", []))]  # fmt: skip
    return info.get("group_state") == "Stable" and len(held) >= members


def processes(bootstrap: str, topic: str, records: int, count: int) -> tuple[float, list[str]]:
    """``count`` bench worker processes (``worker``) in one group: traces per second, timed
    as ``command`` times its rows, and each worker's memo line."""
    group = f"bench-procs-{uuid.uuid4().hex[:6]}"
    deadline = time.monotonic() + 600
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                "--bootstrap",
                bootstrap,
                "--topic",
                topic,
                "--group",
                group,
                "--records",
                str(records),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    progress = drained(bootstrap, topic, group, records, deadline, count)
    for p in procs:
        p.send_signal(signal.SIGTERM)
    results = [json.loads(p.communicate(timeout=deadline - time.monotonic())[0]) for p in procs]
    memos = [r["memo"] for r in results]
    if progress is not None and progress[1] < records:  # timed as command() times its rows
        first_at, first_done, end = progress
        return (records - first_done) / max(end - first_at, 1e-9), memos
    # a topic read before the group was whole: from the first record evaluated to the last
    start = min(r["start"] for r in results if r["records"])
    end = max(r["end"] for r in results if r["records"])
    return sum(r["records"] for r in results) / max(end - start, 1e-9), memos


def _hwm_mib(pid: int) -> float:
    """A process's peak resident memory (VmHWM), MiB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def command(bootstrap: str, topic: str, records: int, workers: int) -> tuple[float, list[float]]:
    """``ragmon run --workers N`` as a user starts it, on a fresh group: traces per second
    from the first commit after all N workers hold partitions to the last (the processes'
    start-up and the group's forming left out; on a topic read before that, from the
    start), and each worker's peak memory (MiB)."""
    group = f"bench-run-{workers}-{uuid.uuid4().hex[:6]}"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env.update(
        RAGMON_SOURCE__TYPE="kafka",
        RAGMON_SOURCE__KAFKA__TOPICS=topic,
        RAGMON_SOURCE__KAFKA__GROUP_ID=group,
        RAGMON_KAFKA__BOOTSTRAP_SERVERS=bootstrap,
        RAGMON_METRICS__HOST="127.0.0.1",
        RAGMON_METRICS__PORT=str(port),
        RAGMON_LOG__LEVEL="warning",
        RAGMON_SESSIONS__ENABLED="false",
    )  # conversations off: paired in memory they are for one process only
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from monitor.commands.cli import main; main()", "run",
         "--workers", str(workers)], env=env, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        progress = drained(bootstrap, topic, group, records, time.monotonic() + 600, workers)
        pids = _children(proc.pid) if workers > 1 else [proc.pid]
        peaks = [_hwm_mib(pid) for pid in pids]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    assert progress is not None, "the group did not finish the topic"
    first_at, first_done, end = progress
    if first_done >= records:  # a topic small enough for one commit: start-up included
        return records / max(end - started, 1e-9), peaks
    return (records - first_done) / max(end - first_at, 1e-9), peaks


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--bootstrap", default=os.environ.get("TEST_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    )
    parser.add_argument("--records", type=int, default=40_000)
    parser.add_argument("--passes", type=int, default=3, help="in-process passes for the RSS trend")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--format", choices=("native", "otlp_proto"), default="native")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--topic", help=argparse.SUPPRESS)
    parser.add_argument("--group", help=argparse.SUPPRESS)
    add_reuse_arguments(parser)
    args = parser.parse_args()
    configure_logging("warning", "json")  # to stderr; the worker's stdout carries its result
    if args.worker:
        worker(args.bootstrap, args.topic, args.group, args.records, time.monotonic() + 600)
        return

    t0 = time.perf_counter()
    reuse = reuse_of(args)
    topic = make_topic(args.bootstrap, args.records, args.partitions, args.format, reuse)
    what = f"traces of ~5.8 KB, {reuse}" if args.format == "native" else "OTLP traces of ~15 KB"
    print(build_line())
    print(f"topic {topic}: {args.records} {what}, {args.partitions} partitions "
          f"(produced in {time.perf_counter() - t0:.1f}s)")  # fmt: skip
    bare_rate = bare(args.bootstrap, topic, args.records)
    rates = []
    print(f"{'pass':>4} {'traces/s':>10} {'RSS MiB':>8} {'peak MiB':>9}  (ragmon in this process)")
    for k in range(args.passes):
        rate, memo = ragmon_pass(
            args.bootstrap, topic, args.records, f"bench-{k}-{uuid.uuid4().hex[:6]}", args.format
        )
        rates.append(rate)
        print(f"{k + 1:>4} {rate:>10,.0f} {rss_mib():>8.0f} {peak_rss_mib():>9.0f}  {memo}")
    best = max(rates)
    print()
    print(f"{'what':<44} {'traces/s':>10}")
    print(f"{'(a) bare kafka-python consumer loop':<44} {bare_rate:>10,.0f}")
    print(f"{'(b) ragmon end to end, in process (best pass)':<44} {best:>10,.0f}"
          f"   {best / bare_rate:.2f}x of bare")  # fmt: skip
    if args.format != "native":
        print(f"RSS after the last pass {rss_mib():.0f} MiB, peak {peak_rss_mib():.0f} MiB")
        return
    split, wall = split_pass(
        args.bootstrap, topic, args.records, f"bench-split-{uuid.uuid4().hex[:6]}"
    )
    print_split(split, wall, args.records, bare_rate)
    one, memo_one = processes(args.bootstrap, topic, args.records, 1)
    two, memo_two = processes(args.bootstrap, topic, args.records, 2)
    print(f"{'(c) ragmon, one worker process':<44} {one:>10,.0f}   {memo_one[0]}")
    label = "(c) ragmon, two worker processes, one group"
    print(f"{label:<44} {two:>10,.0f}   {two / one:.2f}x of one; {'; '.join(memo_two)}")
    run_one, peak_one = command(args.bootstrap, topic, args.records, 1)
    run_two, peak_two = command(args.bootstrap, topic, args.records, 2)
    print("(d) ragmon run as started from the command line, conversations off in both:")
    print(f"{'(d) ragmon run (one process)':<44} {run_one:>10,.0f}   "
          f"peak {peak_one[0]:.0f} MiB")  # fmt: skip
    print(f"{'(d) ragmon run --workers 2':<44} {run_two:>10,.0f}   {run_two / run_one:.2f}x of "
          f"one; peak per worker {', '.join(f'{m:.0f}' for m in peak_two)} MiB")  # fmt: skip
    print(
        f"traces through ragmon in this process: {args.records * args.passes:,}; "
        f"RSS after the last pass {rss_mib():.0f} MiB, peak {peak_rss_mib():.0f} MiB"
    )


if __name__ == "__main__":
    main()
