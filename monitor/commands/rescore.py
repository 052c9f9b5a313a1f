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
from monitor.sources.kafka_config import KafkaSourceConfig

if TYPE_CHECKING:
    from monitor.config import Settings


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


def _rescore_outputs(args: argparse.Namespace) -> registry.Outputs:
    """The window's outputs: the evaluation lines and the OpenMetrics history asked for
    (with ``--dry-run``, only what the judge would take of the window)."""
    if args.dry_run:
        return registry.Outputs(judge_estimate=True)
    return registry.Outputs(args.output_jsonl, openmetrics=args.openmetrics,
                            step_seconds=args.step)  # fmt: skip


def cmd_rescore(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon rescore --since T --until T``."""
    settings = _settings(args, "rescore", stderr)
    span = _asked_window(args, stderr) if settings is not None else None
    if settings is None or span is None:
        return EXIT_USAGE
    since, until = span
    kafka = settings.of(KafkaSourceConfig)
    topics = args.topic or kafka.topics
    fmt = args.format or kafka.format
    metrics = registry.build_metrics(CollectorRegistry())
    window = registry.HistoryWindow(tuple(topics), fmt, settings.kafka, since, until)
    try:
        run = registry.build_command(
            _window_settings(settings), metrics, window, _rescore_outputs(args)
        )
        run.pipeline.start()
    except StartupError as exc:
        print(f"ragmon rescore: {exc}", file=stderr)
        return EXIT_USAGE
    pipeline, history, estimate = run.pipeline, run.history, run.estimate
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
