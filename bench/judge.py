"""The judge against a local Messages API server that answers after 1 s.

Run: ``python bench/judge.py``. Prints, in one run:

* judged traces/s through the real anthropic SDK at concurrency 8, 32 and 64;
* check-path throughput with the judge on (5 % sampled, 32 workers; and in batch mode, the
  requests to a durable outbox fsync'd at every checkpoint; the provider calls in this
  process or in a child) vs off, same traces, ``--repeats`` interleaved repeats (medians),
  a checkpoint (sinks flushed, the outbox fsync'd) every second of work, the default commit
  interval;
  the server runs in its own process (``--server subprocess``, the default), as the real
  API is remote: in this process (``--server in-process``) its
  HTTP and JSON work would be charged to ragmon's check path through the GIL;
* API calls per judged trace, and prompt size: characters sent per judged trace against
  the trace's own characters (question + passages + answer), with the fixed rubric counted
  apart since it is marked for prompt caching.

Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.process
import statistics
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client import CollectorRegistry

from bench.corpus import bench_records, bench_traces
from monitor.checks import CheckSuite
from monitor.core.heap import freeze_startup_heap
from monitor.core.log import configure as configure_logging
from monitor.core.model import Evaluation
from monitor.ingest.native import NativeDecoder
from monitor.judge.anthropic_batches import AnthropicBatches
from monitor.judge.anthropic_judge import AnthropicJudge
from monitor.judge.batch import BatchStage, InProcess
from monitor.judge.batch_process import ProcessBatches, provider_api
from monitor.judge.outbox import Outbox
from monitor.judge.process import ProcessJudge
from monitor.judge.rubric import RUBRIC, user_prompt
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules
from monitor.judge.stage import JudgeStage
from monitor.pipeline import Pipeline
from monitor.sources import ListSource
from monitor.telemetry import Metrics
from sinks.prometheus import PrometheusSink
from tests.integration.messages_api import MessagesApi, verdict

UNLIMITED = BudgetLimits(1e9, 1e12, 1e9)


def _serve(conn: Connection, latency: float) -> None:
    """Child process: the local Messages API; answers "count" with the requests seen."""
    with MessagesApi() as api:
        reply = verdict("SUPPORTED", "SUPPORTED", "ABSENT")
        reply.delay = latency
        api.default = reply
        conn.send(api.base_url)
        while conn.recv() == "count":
            conn.send(len(api.requests))


class Server:
    """The local Messages API, in this process or in a child process."""

    def __init__(self, latency: float, where: str) -> None:
        self._api: MessagesApi | None = None
        self._proc: multiprocessing.process.BaseProcess | None = None
        if where == "in-process":
            self._api = MessagesApi().__enter__()
            reply = verdict("SUPPORTED", "SUPPORTED", "ABSENT")
            reply.delay = latency
            self._api.default = reply
            self.base_url = self._api.base_url
            return
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, latency), daemon=True)
        self._proc.start()
        self.base_url = self._conn.recv()

    def calls(self) -> int:
        if self._api is not None:
            return len(self._api.requests)
        self._conn.send("count")
        return int(self._conn.recv())

    def close(self) -> None:
        if self._api is not None:
            self._api.__exit__(None, None, None)
        else:
            self._conn.send("stop")
            assert self._proc is not None
            self._proc.join(timeout=10)


def judged_rate(api: Server, concurrency: int, traces: int) -> float:
    judge = AnthropicJudge(
        api_key="bench", base_url=api.base_url, max_retries=0, timeout_seconds=30
    )
    stage = JudgeStage(judge, HashSampler(SamplingRules(1.0, 1.0)), Budget(UNLIMITED),
                       concurrency=concurrency, max_queue=traces + 1)  # fmt: skip
    stage.start()
    suite = CheckSuite()
    items = bench_traces(traces)
    t0 = time.perf_counter()
    queued = 0
    for i, trace in enumerate(items):
        queued += stage.consider(Evaluation(trace=trace, checks=suite(trace)), i) is None
    done = 0
    while done < queued:
        done += len(stage.drain(wait=0.5))
    elapsed = time.perf_counter() - t0
    stage.close()
    return queued / elapsed


def check_path(
    api: Server,
    records: list[bytes],
    with_judge: bool = False,
    isolate: bool = False,
    batch_dir: Path | None = None,
) -> tuple[float, int, float]:
    """(check-path traces/s, traces judged, CPU µs per trace of this process until every
    verdict is written); ``isolate``: the judge in a child process; ``batch_dir``: batch mode
    with its outbox there (verdicts are not waited for: a batch takes hours)."""
    metrics = Metrics(CollectorRegistry())
    stage: Any = None
    if batch_dir is not None:
        kwargs = {"api_key": "bench", "base_url": api.base_url, "max_retries": 0}
        judge = AnthropicJudge(**kwargs)  # type: ignore[arg-type]
        calls: Any = InProcess(AnthropicBatches(judge))
        if isolate:
            calls = ProcessBatches(provider_api, {"judge": AnthropicJudge, "kwargs": kwargs,
                                                  "discount": 0.5})  # fmt: skip
            calls.created_since(time.time(), "", 0)  # start the child before timing
        stage = BatchStage(calls, Outbox(batch_dir), judge,  # type: ignore[arg-type]
                           HashSampler(SamplingRules(0.05, 0.05)), Budget(UNLIMITED),
                           observer=metrics, max_wait_seconds=0.5, poll_seconds=0.5)  # fmt: skip
    elif with_judge:
        kwargs = {"api_key": "bench", "base_url": api.base_url, "max_retries": 0}
        judge: Any = AnthropicJudge(**kwargs)  # type: ignore[arg-type]
        if isolate:
            judge = ProcessJudge(AnthropicJudge, kwargs, "anthropic", judge.model, threads=32)
            judge.judge(bench_traces(1)[0])  # start the child before timing
        stage = JudgeStage(judge, HashSampler(SamplingRules(0.05, 0.05)), Budget(UNLIMITED),
                           observer=metrics, concurrency=32, max_queue=10_000)  # fmt: skip
    source = ListSource(records)
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics)],
                        observer=metrics, judge_stage=stage)  # fmt: skip
    pipeline.start()
    freeze_startup_heap()  # as ragmon run does (here also the records and the judge's client)
    busy = last_commit = 0.0
    cpu0 = time.process_time()  # this process only: not the judge's child, not the server
    while True:
        batch = source.poll(500, 0)
        if not batch:
            break
        t0 = time.perf_counter()
        pipeline.process(batch)
        if stage is not None:
            pipeline._write_judged(stage.drain())
        if busy - last_commit >= 1.0:  # the default commit interval
            pipeline.checkpoint()
            last_commit = busy
        busy += time.perf_counter() - t0
    if stage is not None and batch_dir is None:  # not timed: verdicts still a second away
        pipeline.run(threading.Event())
    cpu = (time.process_time() - cpu0) / len(records) * 1e6
    if stage is not None:
        stage.close()
    outcome = "batched" if batch_dir is not None else "judged"
    judged = metrics.registry.get_sample_value("ragmon_judge_decisions_total", {"outcome": outcome})
    return len(records) / busy, int(judged or 0), cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--traces", type=int, default=4000, help="for the check-path comparison")
    parser.add_argument("--server", choices=("subprocess", "in-process"), default="subprocess")
    parser.add_argument("--repeats", type=int, default=3, help="of the check-path comparison")
    args = parser.parse_args()
    configure_logging("error", "json")
    api = Server(args.latency, args.server)
    try:
        print(f"local Messages API ({args.server}), {args.latency:.1f} s per reply, "
              "real anthropic SDK")  # fmt: skip
        print(f"{'concurrency':>11} {'judged/s':>9}")
        for concurrency in (8, 32, 64):
            n = concurrency * 4
            print(f"{concurrency:>11} {judged_rate(api, concurrency, n):>9.1f}")

        records = bench_records(args.traces)
        modes: dict[str, dict[str, Any]] = {
            "off": {"with_judge": False},
            "online, in this process": {"with_judge": True},
            "online, in a child process (judge.isolate, the default)": {
                "with_judge": True, "isolate": True},
            "batch, calls in this process": {"with_judge": True, "batch": True},
            "batch, calls in a child process (judge.isolate, the default)": {
                "with_judge": True, "isolate": True, "batch": True},
        }  # fmt: skip
        runs: dict[str, list[tuple[float, int, float]]] = {m: [] for m in modes}
        calls = judged = 0
        for r in range(args.repeats):  # interleaved, each repeat in another order
            order = list(modes)[r % len(modes) :] + list(modes)[: r % len(modes)]
            for mode in order:
                kw = dict(modes[mode])
                with tempfile.TemporaryDirectory() as outbox:
                    if kw.pop("batch", False):
                        kw["batch_dir"] = Path(outbox)
                    before = api.calls()
                    runs[mode].append(check_path(api, records, **kw))
                if mode.startswith("online, in a child"):
                    calls += api.calls() - before - 1  # minus the warm-up call
                    judged += runs[mode][-1][1]
        print(f"check path, {len(records):,} traces, {args.repeats} interleaved repeats "
              "(medians; ratio = the median of each repeat's ratio to judge off); judge on: "
              "5 % sampled + golden traffic, 32 workers; batch mode: "
              f"{runs['batch, calls in this process'][0][1]} requests to the outbox a run, "
              "fsync'd at each checkpoint")  # fmt: skip
        ratios = {
            mode: [rate / off[0] for (rate, _, _), off in zip(res, runs["off"], strict=True)]
            for mode, res in runs.items()
        }  # each repeat's ratio to judge off
        print(f"{'mode':<62} {'traces/s':>9} {'ratio':>6} {'CPU µs/trace':>13}")
        for mode, results in runs.items():
            rate = statistics.median(r for r, _, _ in results)
            cpu = statistics.median(c for _, _, c in results)
            print(f"{mode:<62} {rate:>9,.0f} {statistics.median(ratios[mode]):>6.2f} "
                  f"{cpu:>13.0f}")  # fmt: skip
        print("ratios by repeat: " + "; ".join(
            f"{mode.split(' (')[0]} " + " ".join(f"{x:.2f}" for x in ratios[mode])
            for mode in runs if mode != "off"))  # fmt: skip

        traces = bench_traces(200)
        own = sum(
            len(t.query) + len(t.answer) + sum(len(p.text) for p in t.context) for t in traces
        )
        sent = sum(len(user_prompt(t)) for t in traces)
        print(f"API calls per judged trace: {calls / max(judged, 1):.2f} ({calls} calls)")
        per_trace = sent / len(traces)
        print(
            f"prompt per judged trace (5 passages): {per_trace:,.0f} characters of data = "
            f"{sent / own:.3f}x the trace's own {own / len(traces):,.0f} characters"
        )
        print(
            f"the rubric adds {len(RUBRIC):,} characters once per call, marked for caching "
            f"(~{len(RUBRIC) // 4} tokens); data tokens per judged trace ~{per_trace / 4:,.0f} "
            "(at ~4 characters a token)"
        )
    finally:
        api.close()


if __name__ == "__main__":
    main()
