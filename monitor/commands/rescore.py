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
    from sinks.openmetrics import OpenMetricsHistorySink


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


def _asked_window(args: argparse.Namespace, stderr: TextIO) -> tuple[float, float] | None:
    """``--since`` and ``--until`` read, and the other arguments checked (a positive step,
    an output or ``--dry-run``, writable outputs); None after saying what is wrong."""
    from monitor.sources.history import parse_time

    try:
        since, until = parse_time(args.since), parse_time(args.until)
    except ValueError as exc:
        print(f"ragmon rescore: --since/--until: {exc}", file=stderr)
        return None
    if args.step <= 0:
        print("ragmon rescore: --step must be positive", file=stderr)
        return None
    if since >= until:
        print("ragmon rescore: --since must be before --until", file=stderr)
        return None
    if not args.dry_run and args.output_jsonl is None and args.openmetrics is None:
        print("ragmon rescore: give --output-jsonl, --openmetrics or both (or --dry-run)",
              file=stderr)  # fmt: skip
        return None
    for out in (args.output_jsonl, args.openmetrics):
        if out is not None and not _writable(out, "rescore", stderr):
            return None
    return since, until


def _rescore_sinks(
    args: argparse.Namespace, settings: Settings, stdout: TextIO
) -> tuple[list[Sink], _WouldJudge | None, OpenMetricsHistorySink | None]:
    """The window's sinks: the judge's estimate alone (``--dry-run``), or the evaluation
    lines and the OpenMetrics history asked for; the estimate and the history apart."""
    from sinks.jsonl import JsonlSink
    from sinks.openmetrics import OpenMetricsHistorySink

    m = settings.metrics
    sinks: list[Sink] = []  # typed: a sink missing a method of the contract fails mypy
    if args.dry_run:
        estimate = _WouldJudge(settings)
        return [estimate], estimate, None
    history = None
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
    return sinks, None, history


def cmd_rescore(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon rescore --since T --until T``."""
    from monitor.sources.history import KafkaWindow

    settings = _settings(args, "rescore", stderr)
    span = _asked_window(args, stderr) if settings is not None else None
    if settings is None or span is None:
        return EXIT_USAGE
    since, until = span
    kafka = settings.of(KafkaSourceConfig)
    topics = args.topic or kafka.topics
    fmt = args.format or kafka.format
    window = _window_settings(settings)
    metrics = registry.build_metrics(CollectorRegistry())
    sinks, estimate, history = _rescore_sinks(args, settings, stdout)
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
