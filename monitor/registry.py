"""The composition root: the one place that turns ``Settings`` into concrete objects.

The SDKs of optional parts (the Kafka client, the Anthropic SDK, the OTLP exporter) are
imported where those parts are built, so a command that does not use them does not pay for
importing them (the Anthropic SDK alone takes about a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import structlog
from prometheus_client import CollectorRegistry
from pydantic import BaseModel

from monitor.checks import (
    CHECK_TYPES,
    Check,
    CheckSuite,
)
from monitor.checks.config import ChecksConfig
from monitor.config import Settings, revealed
from monitor.errors import ConfigError
from monitor.exposure import is_loopback
from monitor.ingest.assembly import AssemblyLimits, OneItemPerRecord, OtlpAssembler, RecordDecoder
from monitor.ingest.native import NativeDecoder
from monitor.judge.config import JudgeConfig
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.jury import JuryJudge
from monitor.judge.prices import Prices
from monitor.judge.process import ProcessJudge
from monitor.judge.sampler import Budget, BudgetLimits, HashSampler, SamplingRules
from monitor.judge.stage import (
    CircuitBreaker,
    Judge,
    JudgeStage,
    RedactingJudge,
    VerdictCache,
)
from monitor.model import RagTrace
from monitor.pii import Redactor
from monitor.pipeline import Pipeline
from monitor.sources import DemoSource, JsonlSource, Source, demo
from monitor.sources.otlp_http import OtlpHttpSource
from monitor.telemetry import LabelLimiter, Metrics
from monitor.version import ragmon_version
from sinks import Sink
from sinks.golden import GoldenRowSink
from sinks.jsonl import JsonlSink
from sinks.prometheus import PrometheusSink


def build_suite(settings: Settings) -> CheckSuite:
    """The enabled checks, in the order of ``CHECKS``, each built from its config."""
    enabled = settings.checks.enabled
    return CheckSuite(
        [build(settings.checks) for name, build in CHECKS.items()
         if enabled is None or name in enabled]
    )  # fmt: skip


# --- the component tables: name -> builder from the settings ---------------------------------
# Adding a check, a source or a sink is one builder here and one config section next to it.


def _check_builder(cls: type[Any]) -> Callable[[ChecksConfig], Check]:
    """Builds a check from its config section (``checks.<name>``, when there is one)."""

    def build(cfg: ChecksConfig) -> Check:
        section = getattr(cfg, cls.name, None)
        options = section.model_dump() if isinstance(section, BaseModel) else {}
        return cast(Check, cls(**options))

    return build


CHECKS: dict[str, Callable[[ChecksConfig], Check]] = {
    cls.name: _check_builder(cls) for cls in CHECK_TYPES
}


def _demo_source(settings: Settings, metrics: Metrics | None) -> Source:
    cfg = settings.source.demo
    seed = cfg.seed
    return DemoSource(lambda i: demo.generate_bytes(i, seed), rate_per_second=cfg.rate_per_second,
                      limit=cfg.limit)  # fmt: skip


def _jsonl_source(settings: Settings, metrics: Metrics | None) -> Source:
    return JsonlSource(settings.source.jsonl.paths)


def _kafka_source(settings: Settings, metrics: Metrics | None) -> Source:
    from monitor.sources.kafka import KafkaSource

    return KafkaSource(settings.source.kafka, settings.kafka, observer=metrics)


def _otlp_http_source(settings: Settings, metrics: Metrics | None) -> Source:
    h = settings.source.otlp_http
    if h.bearer_token is None and not is_loopback(h.host):  # allowed by the configuration
        structlog.get_logger("ragmon.otlp_http").warning(
            "otlp_http_unauthenticated", host=h.host,
            hint="allow_unauthenticated is set: requests are not authenticated by ragmon",
        )  # fmt: skip
    return OtlpHttpSource(
        h.host,
        h.port,
        h.max_body_bytes,
        h.max_queue,
        on_request=metrics.on_otlp_request if metrics else None,
        bearer_token=revealed(h.bearer_token),
        tls=(h.tls_cert_file, h.tls_key_file) if h.tls_cert_file and h.tls_key_file else None,
        max_connections=h.max_connections,
        read_timeout=h.read_timeout_seconds,
    )


SOURCES: dict[str, Callable[[Settings, Metrics | None], Source]] = {
    "demo": _demo_source,
    "jsonl": _jsonl_source,
    "kafka": _kafka_source,
    "otlp_http": _otlp_http_source,
}


def build_source(
    settings: Settings,
    metrics: Metrics | None = None,
) -> Source:
    """The configured source (``source.type``)."""
    return SOURCES[settings.source.type](settings, metrics)


def build_decoder(
    settings: Settings, metrics: Metrics | None = None, fmt: str | None = None
) -> RecordDecoder:
    """Native records one by one, or the OTLP assembler (Kafka with an OTLP format, the
    OTLP/HTTP receiver, or ``fmt`` for files)."""
    src = settings.source
    if fmt is None:
        if src.type == "otlp_http":
            fmt = "otlp_proto"  # each request's Content-Type decides
        elif src.type == "kafka":
            fmt = src.kafka.format
        else:
            fmt = "native"
    if fmt == "native":
        return OneItemPerRecord(NativeDecoder())
    a = src.assembly
    return OtlpAssembler(
        fmt,
        AssemblyLimits(a.quiet_seconds, a.max_wait_seconds, a.max_traces, a.max_bytes),
        observer=metrics,
        replays=src.type == "kafka" and fmt == src.kafka.format,  # not for replayed files
    )


def build_metrics(registry: CollectorRegistry) -> Metrics:
    return Metrics(registry, version=ragmon_version())


def build_probe_loop(settings: Settings, metrics: Metrics) -> Any:
    """The daemon's own golden probes (``probes.endpoint``), or None."""
    cfg = settings.probes
    if cfg.endpoint is None or settings.golden.set_path is None or cfg.request_template is None:
        return None  # the configuration has checked that an endpoint comes with both
    import json

    from monitor.golden.probe_client import ProbeLoop, Prober
    from monitor.golden.probes import load_set

    try:
        template = json.loads(cfg.request_template.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"probes.request_template: {exc}") from exc
    path = settings.golden.set_path
    prober = Prober(cfg.endpoint, template, cfg.rate_per_second, cfg.timeout_seconds, cfg.header)
    return ProbeLoop(prober, lambda: load_set(path), cfg.every_seconds,
                     metrics.on_probe_requests)  # fmt: skip


def watch_reviews(settings: Settings, metrics: Metrics) -> None:
    """Exports the checks' reviewed precision from golden.dir's decision log, if any."""
    if settings.golden.dir is None:
        return
    from monitor.golden.review import PrecisionCollector, ReviewLog

    routes = LabelLimiter(settings.metrics.routes, settings.metrics.max_label_values)
    metrics.registry.register(PrecisionCollector(ReviewLog(settings.golden.dir), routes))


def _prometheus_sink(settings: Settings, metrics: Metrics) -> Sink:
    m = settings.metrics
    return PrometheusSink(metrics, routes=LabelLimiter(m.routes, m.max_label_values),
                          apps=LabelLimiter(m.apps, m.max_label_values))  # fmt: skip


def evaluation_redactor(settings: Settings) -> Redactor | None:
    """What redacts evaluation lines written to files or stdout (``output.redact_pii``)."""
    return Redactor(settings.golden.pii_patterns) if settings.output.redact_pii else None


def _jsonl_sink(settings: Settings, metrics: Metrics) -> Sink:
    out = settings.output
    return JsonlSink(out.evaluations_jsonl, out.dead_letters_jsonl,
                     redactor=evaluation_redactor(settings))  # fmt: skip


def _dead_letter_topic_sink(settings: Settings, metrics: Metrics) -> Sink:
    from sinks.kafka_sink import KafkaDeadLetterSink

    assert settings.output.dead_letters_topic is not None
    return KafkaDeadLetterSink(settings.output.dead_letters_topic, settings.kafka)


def _golden_sink(settings: Settings, metrics: Metrics) -> Sink:
    from sinks.kafka_sink import KafkaRowWriter

    golden = settings.golden
    topic = [KafkaRowWriter(golden.topic, settings.kafka)] if golden.topic else []
    return GoldenRowSink(
        golden.dir,
        Redactor(golden.pii_patterns),
        tuple(golden.reasons),
        max_rows=golden.max_rows,
        max_examples=golden.max_examples,
        segment_max_bytes=golden.segment_max_bytes,
        segment_max_age_seconds=golden.segment_max_age_seconds,
        extra_writers=topic,
    )


def _otel_sink(settings: Settings, metrics: Metrics) -> Sink:
    from sinks.otel import OtelEventSink

    otel = settings.otel
    assert otel.endpoint is not None
    return OtelEventSink(
        otel.endpoint,
        headers=otel.headers,
        timeout_seconds=otel.timeout_seconds,
        service_name=otel.service_name,
        include_passed=otel.include_passed,
        on_export=metrics.on_otel_export,
    )


def _probe_sink(settings: Settings, metrics: Metrics) -> Sink:
    from sinks.probes import ProbeSink

    assert settings.golden.set_path is not None
    routes = LabelLimiter(settings.metrics.routes, settings.metrics.max_label_values)
    return ProbeSink(settings.golden.set_path, metrics.registry, routes)


# (name, is it configured?, builder), in the order the sinks receive each evaluation.
SINKS: tuple[tuple[str, Callable[[Settings], bool], Callable[[Settings, Metrics], Sink]], ...] = (
    ("prometheus", lambda s: True, _prometheus_sink),
    ("jsonl", lambda s: s.output.evaluations_jsonl is not None
     or s.output.dead_letters_jsonl is not None, _jsonl_sink),
    ("kafka_dead_letters", lambda s: s.output.dead_letters_topic is not None,
     _dead_letter_topic_sink),
    ("golden_rows", lambda s: s.golden.dir is not None or s.golden.topic is not None,
     _golden_sink),
    ("otel_events", lambda s: s.otel.endpoint is not None, _otel_sink),
    ("probe_scores", lambda s: s.golden.set_path is not None, _probe_sink),
)  # fmt: skip


def build_sinks(settings: Settings, metrics: Metrics) -> list[Sink]:
    """Every configured sink (see ``SINKS``)."""
    return [build(settings, metrics) for _, configured, build in SINKS if configured(settings)]


# Output tokens reserved for one verdict before the call (a verdict with a handful of claims
# is 300-800 tokens); the budget is settled with the real usage when the call returns.
_VERDICT_OUTPUT_TOKENS = 800


def _require_key(cfg: JudgeConfig) -> None:  # the Anthropic judge
    """No API key anywhere is a ``ConfigError`` at start-up, rather than one failed call per
    sampled trace — said before the SDK is imported (over half a second)."""
    if cfg.api_key is None:  # ANTHROPIC_API_KEY arrives here through the config
        raise ConfigError(
            "judge.backend is anthropic but no API key is set: export ANTHROPIC_API_KEY "
            "(or set judge.api_key), or use the heuristic judge"
        )


def _prices(cfg: JudgeConfig) -> Prices:
    p = cfg.prices
    return Prices(p.input, p.output, p.cache_read, p.cache_write)


def _anthropic_kwargs(cfg: JudgeConfig) -> dict[str, Any]:
    """The AnthropicJudge arguments."""
    _require_key(cfg)
    return {
        "model": cfg.model,
        "api_key": revealed(cfg.api_key),
        "base_url": cfg.base_url,
        "timeout_seconds": cfg.timeout_seconds,
        "max_retries": cfg.max_retries,
        "max_tokens": cfg.max_tokens,
        "prices": _prices(cfg),
    }


def _openai_kwargs(cfg: JudgeConfig) -> dict[str, Any]:
    """The OpenAIJudge arguments (judge.openai, with the shared call limits and prices)."""
    o = cfg.openai
    return {
        "model": o.model,
        "api_key": revealed(o.api_key),
        "base_url": o.base_url,
        "timeout_seconds": cfg.timeout_seconds,
        "max_retries": cfg.max_retries,
        "max_tokens": cfg.max_tokens,
        "output": o.output,
        "profile": o.profile,
        "prices": _prices(cfg),
    }


def _remote(cfg: JudgeConfig) -> tuple[Callable[..., Any], dict[str, Any]] | None:
    """The class and arguments of a judge that calls an API, or None (heuristic). The SDK
    is imported only here, after the key check."""
    if cfg.backend == "anthropic":
        kwargs = _anthropic_kwargs(cfg)
        from monitor.judge.anthropic_judge import AnthropicJudge

        return AnthropicJudge, kwargs
    if cfg.backend == "openai":
        from monitor.judge.openai_judge import OpenAIJudge

        return OpenAIJudge, _openai_kwargs(cfg)
    return None


def build_judge(cfg: JudgeConfig) -> Judge:
    """The configured judge (heuristic, anthropic or openai), called in this process."""
    remote = _remote(cfg)
    if remote is None:
        return HeuristicJudge()
    cls, kwargs = remote
    judge: Any = cls(**kwargs)
    judge.verify()
    return cast(Judge, judge)


def _free(trace: RagTrace) -> tuple[int, float]:
    return 0, 0.0


def _judge_calls(cfg: JudgeConfig) -> tuple[Judge, Callable[[RagTrace], tuple[int, float]]]:
    """The judge of ``cfg.backend`` (in a child process with ``judge.isolate``), and the
    budget estimate of one call to it (tokens, USD)."""
    remote = _remote(cfg)
    if remote is None:
        return HeuristicJudge(), _free
    cls, kwargs = remote
    local: Any = cls(**kwargs)  # also estimates the input tokens
    local.verify()
    calls: Judge = local
    if cfg.isolate:
        # the SDK's HTTP and JSON work off the GIL; the bound on one call is the SDK's
        # timeout per attempt, its retries, our one re-ask
        call_timeout = 2 * cfg.timeout_seconds * (cfg.max_retries + 1) + 30
        calls = ProcessJudge(cls, kwargs, cfg.backend, local.model,
                             threads=cfg.concurrency, call_timeout=call_timeout)  # fmt: skip
    prices = local.prices

    def estimate(trace: RagTrace) -> tuple[int, float]:
        tokens = local.estimate_input_tokens(trace)
        return tokens, prices.cost(tokens, _VERDICT_OUTPUT_TOKENS, 0, 0)

    return calls, estimate


def build_judge_stage(
    settings: Settings, metrics: Metrics, sample_rate: float | None = None
) -> JudgeStage | None:
    """The judge beside the check path, or None when ``judge.backend`` is ``none``.
    ``sample_rate`` (replay) overrides both sampling rates."""
    cfg = settings.judge
    if cfg.backend == "none":
        return None
    s = cfg.sampling
    base, flagged = (
        (sample_rate, sample_rate) if sample_rate is not None else (s.base_rate, s.flagged_rate)
    )
    sampler = HashSampler(
        SamplingRules(base, flagged, s.routes, s.releases, s.golden_always), salt=s.salt
    )
    if cfg.jury.backend != "none" and cfg.jury.backend == cfg.backend:  # replay --judge
        raise ConfigError("judge.jury.backend must differ from the first judge's backend")
    calls, estimate = _judge_calls(cfg)
    limits: BudgetLimits | None = None  # the heuristic judge costs nothing but CPU
    if cfg.backend in ("anthropic", "openai") or cfg.jury.backend in ("anthropic", "openai"):
        b = cfg.budget
        limits = BudgetLimits(b.calls_per_minute, b.input_tokens_per_minute, b.usd_per_day)
    if cfg.jury.backend != "none":
        second, second_estimate = _judge_calls(cfg.model_copy(update={"backend": cfg.jury.backend}))
        first_estimate, share = estimate, cfg.jury.share

        def estimate(trace: RagTrace) -> tuple[int, float]:  # both judges, the second's share
            (t1, c1), (t2, c2) = first_estimate(trace), second_estimate(trace)
            return t1 + int(share * t2), c1 + share * c2

        calls = JuryJudge(calls, second, share, cfg.jury.hard_fail, metrics.on_jury_pair)
    judge: Judge = (
        RedactingJudge(calls, Redactor(settings.golden.pii_patterns)) if cfg.redact_pii else calls
    )
    return JudgeStage(
        judge,
        sampler,
        Budget(limits),
        observer=metrics,
        concurrency=cfg.concurrency,
        max_queue=cfg.max_queue,
        breaker=CircuitBreaker(cfg.breaker_failures, cfg.breaker_cooldown_seconds, time.monotonic),
        estimate=estimate,
        cache=VerdictCache(cfg.cache_entries, cfg.cache_file) if cfg.cache_entries else None,
    )


def build_pipeline(
    settings: Settings,
    metrics: Metrics,
    source: Source | None = None,
    extra_sinks: Sequence[Sink] = (),
    judge_stage: JudgeStage | None = None,
    decoder: RecordDecoder | None = None,
) -> Pipeline:
    kafka = settings.source.kafka
    is_kafka = settings.source.type == "kafka" and source is None
    stage = judge_stage if judge_stage is not None else build_judge_stage(settings, metrics)
    if source is None:
        source = build_source(settings, metrics)
    return Pipeline(
        source=source,
        decoder=decoder if decoder is not None else build_decoder(settings, metrics),
        suite=build_suite(settings),
        sinks=[*build_sinks(settings, metrics), *extra_sinks],
        observer=metrics,
        batch_size=kafka.max_poll_records if is_kafka else 500,
        commit_interval=kafka.commit_interval_seconds if is_kafka else 1.0,
        flush_attempts=settings.output.sink_flush_attempts,
        judge_stage=stage,
        judge_drain_seconds=min(
            settings.judge.drain_seconds, settings.shutdown_timeout_seconds / 2
        ),
    )
