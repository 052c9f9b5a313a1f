"""``ragmon rescore``: a window of a Kafka topic's history evaluated again, with the current
definition, into evaluation lines and an OpenMetrics file for Prometheus's backfill."""

from __future__ import annotations

import argparse
import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.commands.common import _settings, _writable, is_stdout
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, StartupError
from monitor.core.model import Evaluation
from monitor.core.pii import redactor_for
from monitor.judge.rubric import estimate_input_tokens
from monitor.judge.sampler import HashSampler, SamplingRules
from monitor.registry.judges import sampling_rates
from monitor.sources.kafka_config import KafkaSourceConfig
from monitor.telemetry import LabelLimiter
from sinks import Sink, SinkBase

if TYPE_CHECKING:
    from monitor.config import Settings


class _WouldJudge(SinkBase):
    """What the judge would take of the window (``--dry-run``): the configured sampling
    decided on each evaluation, its estimated input tokens and cost (at batch price in
    batch mode)."""

    name = "would_judge"

    def __init__(self, settings: Settings) -> None:
        cfg = settings.judge
        s = cfg.sampling
        base, flagged = sampling_rates(settings)
        self.sampler = HashSampler(
            SamplingRules(base, flagged, s.routes, s.releases, s.golden_always, s.by), salt=s.salt
        )
        self.prices = cfg.prices.as_prices()
        self.output_tokens = s.expected_output_tokens
        self.discount = cfg.batch.discount if cfg.batch.enabled else 1.0
        self.traces = self.judged = self.input_tokens = 0
        self.usd = 0.0

    def write(self, evaluation: Evaluation) -> None:
        """Decide, as the judge stage would, and add the call's estimate."""
        self._check_open()
        self.traces += 1
        if not self.sampler.decide(evaluation).sampled:
            return
        tokens = estimate_input_tokens(evaluation.trace)
        self.judged += 1
        self.input_tokens += tokens
        self.usd += self.discount * self.prices.cost(tokens, self.output_tokens, 0, 0)


def _window_settings(settings: Settings) -> Settings:
    """No judge in the run (the re-scoring is the checks'), and a source that does not
    re-read: the OTLP assembler keeps no record-time deadline for a window read once."""
    source = settings.source.model_copy(update={"type": "demo"})
    judge = settings.judge.model_copy(update={"backend": "none"})
    return settings.model_copy(update={"source": source, "judge": judge})


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def cmd_rescore(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon rescore --since T --until T``."""
    from monitor.sources.history import KafkaWindow, parse_time
    from sinks.jsonl import JsonlSink
    from sinks.openmetrics import OpenMetricsHistorySink

    settings = _settings(args, "rescore", stderr)
    if settings is None:
        return EXIT_USAGE
    try:
        since, until = parse_time(args.since), parse_time(args.until)
    except ValueError as exc:
        print(f"ragmon rescore: --since/--until: {exc}", file=stderr)
        return EXIT_USAGE
    if args.step <= 0:
        print("ragmon rescore: --step must be positive", file=stderr)
        return EXIT_USAGE
    if since >= until:
        print("ragmon rescore: --since must be before --until", file=stderr)
        return EXIT_USAGE
    if not args.dry_run and args.output_jsonl is None and args.openmetrics is None:
        print("ragmon rescore: give --output-jsonl, --openmetrics or both (or --dry-run)",
              file=stderr)  # fmt: skip
        return EXIT_USAGE
    for out in (args.output_jsonl, args.openmetrics):
        if out is not None and not _writable(out, "rescore", stderr):
            return EXIT_USAGE
    kafka = settings.of(KafkaSourceConfig)
    topics = args.topic or kafka.topics
    fmt = args.format or kafka.format
    window = _window_settings(settings)
    metrics = registry.build_metrics(CollectorRegistry())
    m = settings.metrics
    sinks: list[Sink] = []  # typed: a sink missing a method of the contract fails mypy
    estimate = _WouldJudge(settings) if args.dry_run else None
    history = None
    if estimate is not None:
        sinks.append(estimate)
    else:
        if args.output_jsonl is not None:
            stream = stdout if is_stdout(args.output_jsonl) else None
            sinks.append(JsonlSink(None if stream else args.output_jsonl, stream=stream,
                                   redactor=redactor_for(settings, "lines")))  # fmt: skip
        if args.openmetrics is not None:
            history = OpenMetricsHistorySink(
                args.openmetrics, args.step, LabelLimiter(m.routes, m.max_label_values),
                LabelLimiter(m.apps, m.max_label_values),
            )  # fmt: skip
            sinks.append(history)
    source = KafkaWindow(topics, settings.kafka, since, until)
    try:
        pipeline = registry.build_pipeline(
            window, metrics, source=source, extra_sinks=sinks, judge_stage=None,
            decoder=registry.build_decoder(window, metrics, fmt=fmt), outputs=False,
        )  # fmt: skip
        pipeline.start()
    except StartupError as exc:
        print(f"ragmon rescore: {exc}", file=stderr)
        return EXIT_USAGE
    said = stderr if is_stdout(args.output_jsonl) else stdout
    try:
        stats = pipeline.run(threading.Event())
        if history is not None:  # said before its last write, at close
            samples, series, steps = history.size()
            print(f"writing {args.openmetrics}: {samples:,} samples of {series:,} series, "
                  f"about the {steps:,} steps of {args.step:g} s that hold traces",
                  file=said)  # fmt: skip
    finally:
        pipeline.close()
    print(f"window {_stamp(since)} to {_stamp(until)} of {', '.join(topics)} ({fmt}): "
          f"{stats.records} records, {stats.traces} traces, {stats.dead_letters} dead letters",
          file=said)  # fmt: skip
    if estimate is not None and settings.judge.backend == "none":
        print("no judge is configured (judge.backend: none): no judge would run on the "
              "window, and nothing would be spent", file=said)  # fmt: skip
    elif estimate is not None:
        mode = "batch price" if settings.judge.batch.enabled else "online price"
        print(f"the judge would take {estimate.judged} of {estimate.traces} traces: "
              f"~{estimate.input_tokens:,} input tokens, ~${estimate.usd:.2f} at {mode} "
              f"(judge.prices; {estimate.judged and estimate.input_tokens // estimate.judged:,} "
              "input tokens a call)", file=said)  # fmt: skip
    if history is not None and history.untimed:
        print(f"{history.untimed} traces without a time are not in {args.openmetrics}",
              file=stderr)  # fmt: skip
    if history is not None:
        print(f"backfill: promtool tsdb create-blocks-from openmetrics {args.openmetrics} "
              "DATA_DIR, then move the blocks into Prometheus's data directory",
              file=said)  # fmt: skip
    return EXIT_OK if stats.traces else EXIT_FAIL
