"""The judge against a local Messages API server that answers after 1 s.

Run: ``python bench/judge.py``. Prints, in one run:

* judged traces/s through the real anthropic SDK at concurrency 8, 32 and 64;
* check-path throughput with the judge on (5 % sampled, 32 workers) vs off, same traces;
* API calls per judged trace, and prompt size: characters sent per judged trace against
  the trace's own characters (question + passages + answer), with the fixed rubric counted
  apart since it is marked for prompt caching.

Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client import CollectorRegistry

from bench.corpus import bench_records, bench_traces
from monitor.checks import CheckSuite
from monitor.decode import NativeDecoder
from monitor.judge.anthropic_judge import AnthropicJudge
from monitor.judge.rubric import RUBRIC, user_prompt
from monitor.judge.runner import JudgeStage
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules
from monitor.log import configure as configure_logging
from monitor.model import Evaluation
from monitor.pipeline import Pipeline
from monitor.sources import ListSource
from sinks.prometheus import Metrics, PrometheusSink
from tests.integration.messages_api import MessagesApi, verdict

UNLIMITED = BudgetLimits(1e9, 1e12, 1e9)


def judged_rate(api: MessagesApi, concurrency: int, traces: int) -> float:
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


def check_path(api: MessagesApi, records: list[bytes], with_judge: bool) -> tuple[float, int]:
    """(check-path traces/s, traces judged)."""
    metrics = Metrics(CollectorRegistry())
    stage = None
    if with_judge:
        judge = AnthropicJudge(api_key="bench", base_url=api.base_url, max_retries=0)
        stage = JudgeStage(judge, HashSampler(SamplingRules(0.05, 0.05)), Budget(UNLIMITED),
                           observer=metrics, concurrency=32, max_queue=10_000)  # fmt: skip
    source = ListSource(records)
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics)],
                        observer=metrics, judge_stage=stage)  # fmt: skip
    pipeline.start()
    busy = 0.0
    while True:
        batch = source.poll(500, 0)
        if not batch:
            break
        t0 = time.perf_counter()
        pipeline.process(batch)
        if stage is not None:
            pipeline._write_judged(stage.drain())
        busy += time.perf_counter() - t0
    if stage is not None:  # not timed: the verdicts that are still a second away
        pipeline.run(threading.Event())
        stage.close()
    judged = metrics.registry.get_sample_value(
        "ragmon_judge_decisions_total", {"outcome": "judged"}
    )
    return len(records) / busy, int(judged or 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--traces", type=int, default=4000, help="for the check-path comparison")
    args = parser.parse_args()
    configure_logging("error", "json")
    with MessagesApi() as api:
        reply = verdict("SUPPORTED", "SUPPORTED", "ABSENT")
        reply.delay = args.latency
        api.default = reply
        print(f"local Messages API, {args.latency:.1f} s per reply, real anthropic SDK")
        print(f"{'concurrency':>11} {'judged/s':>9}")
        for concurrency in (8, 32, 64):
            n = concurrency * 4
            print(f"{concurrency:>11} {judged_rate(api, concurrency, n):>9.1f}")

        records = bench_records(args.traces)
        before = len(api.requests)
        off, _ = check_path(api, records, with_judge=False)
        on, judged = check_path(api, records, with_judge=True)
        calls = len(api.requests) - before
        print(f"check path, judge off: {off:,.0f} traces/s; judge on (5 % sampled, 32 workers): "
              f"{on:,.0f} traces/s; ratio {on / off:.2f}")  # fmt: skip

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


if __name__ == "__main__":
    main()
