"""``ragmon run``: the daemon — the pipeline, the metrics server, the review page and probes."""

from __future__ import annotations

import argparse
import threading
from typing import TYPE_CHECKING, TextIO

import structlog
from prometheus_client import CollectorRegistry
from structlog.typing import FilteringBoundLogger

from monitor import config as config_mod
from monitor import registry
from monitor.checks import native
from monitor.commands.common import _settings
from monitor.commands.lifecycle import Part, _close_all, _install_signal_handlers, _start_watchdog
from monitor.commands.server import MetricsServer
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, ConfigError, StartupError, describe
from monitor.core.heap import freeze_startup_heap
from monitor.core.log import configure as configure_logging
from monitor.pipeline import Pipeline
from monitor.telemetry import Metrics

if TYPE_CHECKING:
    from monitor.golden.serve import Background


def _run_metrics(settings: config_mod.Settings, stderr: TextIO) -> Metrics | None:
    """The daemon's metrics, with review precision and the judge calibration record."""
    metrics = registry.build_metrics(CollectorRegistry())
    registry.watch_reviews(settings, metrics.registry)
    try:
        record = registry.calibration(settings)
    except ConfigError as exc:
        print(f"ragmon run: {exc}", file=stderr)
        return None
    if record is not None:
        metrics.set_calibration(record)
    return metrics


def cmd_run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon run``: the daemon, until a signal stops it or its input ends."""
    settings = _settings(args, "run", stderr, deprecations=False)  # logged below
    if settings is None:
        return EXIT_USAGE
    configure_logging(settings.log.level, settings.log.format)
    log = structlog.get_logger("ragmon")
    for line in settings.judge.deprecated:
        log.warning("config_deprecated", detail=line)
    if args.workers > 1:
        from monitor.commands.workers import refusal, run_workers

        why = refusal(settings, args.workers, args.config)
        if why is not None:
            print(f"ragmon run: {why}", file=stderr)
            return EXIT_USAGE
        return run_workers(settings, args.workers, args.config, log, stderr)
    settings = _demo_judge(settings, log)
    metrics = _run_metrics(settings, stderr)
    if metrics is None:
        return EXIT_USAGE
    built = _build_run(settings, metrics, stderr)
    if built is None:
        return EXIT_USAGE
    pipeline, extras = built
    ready = threading.Event()
    try:
        server = MetricsServer(
            metrics.registry, settings.metrics.host, settings.metrics.port, ready=ready.is_set
        )
    except OSError as exc:
        where = f"{settings.metrics.host}:{settings.metrics.port}"
        print(f"ragmon run: cannot listen on {where}: {exc.strerror}", file=stderr)
        _close_all(extras)
        return EXIT_USAGE
    stop = threading.Event()
    signals = _install_signal_handlers(stop, settings.shutdown_timeout_seconds, log)
    server.start()
    try:
        pipeline.start()
    except StartupError as exc:
        print(f"ragmon run: {exc}", file=stderr)
        _close_all([pipeline, server, *extras, signals])
        return EXIT_USAGE
    _say_started(settings, server.port, pipeline, log)
    freeze_startup_heap()
    ready.set()
    server.ready = lambda: ready.is_set() and pipeline.source.ready()
    server.detail = pipeline.notice
    for extra in extras:
        extra.start()
    try:
        return _run_until_stopped(pipeline, stop, settings.shutdown_timeout_seconds, log)
    finally:
        ready.clear()
        _close_all([pipeline, server, *extras, signals])


def _say_started(
    settings: config_mod.Settings, port: int, pipeline: Pipeline, log: FilteringBoundLogger
) -> None:
    """The ``started`` log line: the source, the metrics address, the checks, the build."""
    log.info(
        "started",
        source=settings.source.type,
        metrics=f"http://{settings.metrics.host}:{port}/metrics",
        checks=pipeline.suite.names,
        build=native.BUILD,  # the checks compiled with mypyc, or interpreted (and why)
        **({"not_compiled": native.WHY} if native.WHY else {}),
    )


def _run_until_stopped(
    pipeline: Pipeline, stop: threading.Event, shutdown_timeout: float, log: FilteringBoundLogger
) -> int:
    """Run the started pipeline until ``stop`` or the end of its input; a failure is logged,
    exits 1 and starts the watchdog that bounds the closing."""
    try:
        stats = pipeline.run(stop)
        if pipeline.source.exhausted and not stop.is_set():
            log.info("source_exhausted", traces=stats.traces,
                     hint="files are read once: the daemon exits")  # fmt: skip
        log.info("stopped", records=stats.records, traces=stats.traces,
                 dead_letters=stats.dead_letters, commits=stats.commits)  # fmt: skip
    except Exception:
        log.exception("pipeline_failed")
        _start_watchdog(shutdown_timeout, log)  # closing is bounded too
        return EXIT_FAIL
    return EXIT_OK


def _demo_judge(settings: config_mod.Settings, log: FilteringBoundLogger) -> config_mod.Settings:
    """The built-in demo shows the judge's panels with the heuristic judge unless
    judge.backend is set (anywhere else the default is no judge), and says so."""
    if settings.source.type != "demo" or "backend" in settings.judge.model_fields_set:
        return settings
    log.info("demo_heuristic_judge", note="the demo turns on the heuristic judge, a lexical "
             "screen, not a faithfulness measurement; set judge.backend to choose")  # fmt: skip
    judge = settings.judge.model_copy(update={"backend": "heuristic"})
    return settings.model_copy(update={"judge": judge})


def _build_run(
    settings: config_mod.Settings, metrics: Metrics, stderr: TextIO
) -> tuple[Pipeline, list[Part]] | None:
    """The pipeline, and the parts started once it runs (the review page, the daemon's own
    probes); None after saying on stderr why they cannot be built."""
    try:
        pipeline = registry.build_pipeline(settings, metrics)
        parts = (_review_page(settings), registry.build_probe_loop(settings, metrics))
        extras: list[Part] = [x for x in parts if x is not None]
    except StartupError as exc:
        print(f"ragmon run: {exc}", file=stderr)
        return None
    except OSError as exc:
        print(f"ragmon run: cannot set up the pipeline: {describe(exc)}", file=stderr)
        return None
    return pipeline, extras


def _review_page(settings: config_mod.Settings) -> Background | None:
    """The review page on its own port when golden.review_port is set (the config has
    checked that golden.dir is set too)."""
    g = settings.golden
    if g.review_port is None or g.dir is None:
        return None
    from monitor.golden.serve import Background
    from sinks.store import StoreConfig

    token = config_mod.revealed(g.review_token)
    store = settings.of(StoreConfig).path  # the daemon's own store: its trace pages
    try:
        return Background(g.dir, g.review_host, g.review_port, token, g.review_tls, store)
    except ConfigError as exc:
        raise ConfigError(f"golden.review_host: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"golden.review_port: {describe(exc)}") from exc
