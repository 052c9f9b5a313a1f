"""The composition root: the one place that turns ``Settings`` into concrete objects."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import CollectorRegistry

from monitor import demo
from monitor.checks import (
    Check,
    CheckSuite,
    ContextConflict,
    GroundingOverlap,
    default_checks,
)
from monitor.config import Settings
from monitor.decode import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import DemoSource, JsonlSource, Source
from sinks import Sink
from sinks.jsonl import JsonlSink
from sinks.prometheus import LabelLimiter, Metrics, PrometheusSink


def ragmon_version() -> str:
    try:
        return version("ragmon")
    except PackageNotFoundError:
        return "0+unknown"


def build_suite(settings: Settings) -> CheckSuite:
    cfg = settings.checks
    checks: list[Check] = []
    for check in default_checks():
        if cfg.enabled is not None and check.name not in cfg.enabled:
            continue
        if isinstance(check, ContextConflict):
            check = ContextConflict(similarity=cfg.context_conflict.similarity)
        elif isinstance(check, GroundingOverlap):
            check = GroundingOverlap(min_words=cfg.grounding_overlap.min_words)
        checks.append(check)
    return CheckSuite(checks)


def build_source(settings: Settings) -> Source:
    src = settings.source
    if src.type == "jsonl":
        return JsonlSource(src.jsonl.paths)
    seed = src.demo.seed
    return DemoSource(
        lambda i: demo.generate_bytes(i, seed),
        rate_per_second=src.demo.rate_per_second,
        limit=src.demo.limit,
    )


def build_metrics(registry: CollectorRegistry) -> Metrics:
    return Metrics(registry, version=ragmon_version())


def build_sinks(settings: Settings, metrics: Metrics) -> list[Sink]:
    m = settings.metrics
    sinks: list[Sink] = [
        PrometheusSink(
            metrics,
            routes=LabelLimiter(m.routes, m.max_label_values),
            apps=LabelLimiter(m.apps, m.max_label_values),
        )
    ]
    out = settings.output
    if out.evaluations_jsonl is not None or out.dead_letters_jsonl is not None:
        sinks.append(JsonlSink(out.evaluations_jsonl, out.dead_letters_jsonl))
    return sinks


def build_pipeline(
    settings: Settings,
    metrics: Metrics,
    source: Source | None = None,
    extra_sinks: Sequence[Sink] = (),
) -> Pipeline:
    return Pipeline(
        source=source if source is not None else build_source(settings),
        decoder=NativeDecoder(),
        suite=build_suite(settings),
        sinks=[*build_sinks(settings, metrics), *extra_sinks],
        observer=metrics,
    )
