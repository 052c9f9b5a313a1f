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
from monitor.kafka_source import KafkaSource
from monitor.pii import Redactor
from monitor.pipeline import Pipeline
from monitor.sources import DemoSource, JsonlSource, Source
from sinks import Sink
from sinks.golden import GoldenRowSink
from sinks.jsonl import JsonlSink
from sinks.kafka_sink import KafkaDeadLetterSink, KafkaRowWriter
from sinks.otel import OtelEventSink
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


def build_source(settings: Settings, metrics: Metrics | None = None) -> Source:
    src = settings.source
    if src.type == "jsonl":
        return JsonlSource(src.jsonl.paths)
    if src.type == "kafka":
        return KafkaSource(src.kafka, settings.kafka, observer=metrics)
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
    if out.dead_letters_topic is not None:
        sinks.append(KafkaDeadLetterSink(out.dead_letters_topic, settings.kafka))
    golden = settings.golden
    if golden.dir is not None or golden.topic is not None:
        topic = [KafkaRowWriter(golden.topic, settings.kafka)] if golden.topic else []
        sinks.append(
            GoldenRowSink(
                golden.dir,
                Redactor(golden.pii_patterns),
                tuple(golden.reasons),
                max_rows=golden.max_rows,
                max_examples=golden.max_examples,
                segment_max_bytes=golden.segment_max_bytes,
                segment_max_age_seconds=golden.segment_max_age_seconds,
                extra_writers=topic,
            )
        )
    otel = settings.otel
    if otel.endpoint is not None:
        sinks.append(
            OtelEventSink(
                otel.endpoint,
                headers=otel.headers,
                timeout_seconds=otel.timeout_seconds,
                service_name=otel.service_name,
                include_passed=otel.include_passed,
                on_export=metrics.on_otel_export,
            )
        )
    return sinks


def build_pipeline(
    settings: Settings,
    metrics: Metrics,
    source: Source | None = None,
    extra_sinks: Sequence[Sink] = (),
) -> Pipeline:
    kafka = settings.source.kafka
    is_kafka = settings.source.type == "kafka" and source is None
    return Pipeline(
        source=source if source is not None else build_source(settings, metrics),
        decoder=NativeDecoder(),
        suite=build_suite(settings),
        sinks=[*build_sinks(settings, metrics), *extra_sinks],
        observer=metrics,
        batch_size=kafka.max_poll_records if is_kafka else 500,
        commit_interval=kafka.commit_interval_seconds if is_kafka else 1.0,
        flush_attempts=settings.output.sink_flush_attempts,
    )
