"""The composition root: the one place that turns ``Settings`` into concrete objects.

The SDKs of optional parts (the Kafka client, the Anthropic SDK, the OTLP exporter) are
imported where those parts are built, so a command that does not use them does not pay for
importing them (the Anthropic SDK alone takes about a second).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from prometheus_client import CollectorRegistry
from pydantic import BaseModel

from monitor.checks import CHECK_TYPES, Check, CheckSuite, PassageMemo
from monitor.config import Settings
from monitor.errors import ConfigError
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.ingest.decoder import OneItemPerRecord, RecordDecoder
from monitor.ingest.native import NativeDecoder
from monitor.judge.cache import VerdictCache
from monitor.judge.config import JudgeConfig
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.jury import JuryJudge
from monitor.judge.process import ProcessJudge
from monitor.judge.sampler import Budget, HashSampler, SamplingRules
from monitor.judge.stage import CircuitBreaker, Judge, JudgeStage, RedactingJudge
from monitor.model import RagTrace
from monitor.pii import Redactor
from monitor.pipeline import Pipeline
from monitor.sources import Source
from monitor.telemetry import LabelLimiter, MemoCollector, Metrics
from monitor.version import ragmon_version
from sinks import Sink

# --- the component tables -------------------------------------------------------------------
# Every source, check, sink and judge is one row of the same shape: its name, whether the
# settings turn it on, and how it is built. A component's module owns its construction
# (``from_config``) and is imported only when its row is built.

T = TypeVar("T")


@dataclass(frozen=True)
class Component(Generic[T]):
    """One row of a component table."""

    name: str
    configured: Callable[[Settings], bool]
    build: Callable[[Settings, Metrics | None], T]


def from_config(target: str) -> Callable[[Settings, Metrics | None], Any]:
    """Builds ``"module:Class"`` with its ``from_config(settings, metrics)``, importing the
    module only then (the Kafka client and the SDKs cost hundreds of milliseconds)."""

    def build(settings: Settings, metrics: Metrics | None) -> Any:
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name).from_config(settings, metrics)

    return build


def _check(cls: type[Any]) -> Component[Check]:
    """A check row: on unless ``checks.enabled`` leaves it out; its options are the fields of
    the section ``checks.<name>``, when there is one (checks never import the config)."""

    def build(settings: Settings, metrics: Metrics | None) -> Check:
        section = getattr(settings.checks, cls.name, None)
        options = section.model_dump() if isinstance(section, BaseModel) else {}
        return cast(Check, cls(**options))

    def configured(settings: Settings) -> bool:
        enabled = settings.checks.enabled
        return enabled is None or cls.name in enabled

    return Component(cls.name, configured, build)


def _source(name: str, target: str) -> Component[Source]:
    return Component(name, lambda s: s.source.type == name, from_config(target))


# In the order they run and report (the order of CHECK_TYPES).
CHECKS: tuple[Component[Check], ...] = tuple(_check(cls) for cls in CHECK_TYPES)

SOURCES: tuple[Component[Source], ...] = (
    _source("demo", "monitor.sources.demo:DemoSource"),
    _source("jsonl", "monitor.sources.files:JsonlSource"),
    _source("kafka", "monitor.sources.kafka:KafkaSource"),
    _source("otlp_http", "monitor.sources.otlp_http:OtlpHttpSource"),
)

# In the order the sinks receive each evaluation.
SINKS: tuple[Component[Sink], ...] = (
    Component("prometheus", lambda s: True, from_config("sinks.prometheus:PrometheusSink")),
    Component("jsonl", lambda s: s.output.evaluations_jsonl is not None
              or s.output.dead_letters_jsonl is not None, from_config("sinks.jsonl:JsonlSink")),
    Component("kafka_dead_letters", lambda s: s.output.dead_letters_topic is not None,
              from_config("sinks.kafka_sink:KafkaDeadLetterSink")),
    Component("golden_rows", lambda s: s.golden.dir is not None or s.golden.topic is not None,
              from_config("sinks.golden:GoldenRowSink")),
    Component("otel_events", lambda s: s.otel.endpoint is not None,
              from_config("sinks.otel:OtelEventSink")),
    Component("probe_scores", lambda s: s.golden.set_path is not None,
              from_config("sinks.probes:ProbeSink")),
)  # fmt: skip


def configured(
    table: Sequence[Component[T]], settings: Settings, metrics: Metrics | None
) -> list[T]:
    """Every row of ``table`` the settings turn on, built, in table order."""
    return [row.build(settings, metrics) for row in table if row.configured(settings)]


def build_suite(settings: Settings, metrics: Metrics | None = None) -> CheckSuite:
    """The enabled checks, in the order of ``CHECKS``, each built from its config, with the
    passage memo (``checks.memo_bytes``; its counts exported when ``metrics`` is given)."""
    memo = PassageMemo(settings.checks.memo_bytes) if settings.checks.memo_bytes else None
    if memo is not None and metrics is not None:
        metrics.registry.register(MemoCollector(memo))
    return CheckSuite(configured(CHECKS, settings, None), memo)


def build_source(settings: Settings, metrics: Metrics | None = None) -> Source:
    """The configured source (``source.type``)."""
    (source,) = configured(SOURCES, settings, metrics)
    return source


def build_sinks(settings: Settings, metrics: Metrics) -> list[Sink]:
    """Every configured sink (see ``SINKS``)."""
    return configured(SINKS, settings, metrics)


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
    """The daemon's metrics on ``registry``."""
    return Metrics(registry, version=ragmon_version())


def build_probe_loop(settings: Settings, metrics: Metrics) -> Any:
    """The daemon's own golden probes (``probes.endpoint``), or None."""
    if settings.probes.endpoint is None:
        return None
    from monitor.golden.probe_client import ProbeLoop

    return ProbeLoop.from_config(settings, metrics)


def watch_reviews(settings: Settings, metrics: Metrics) -> None:
    """Exports the checks' reviewed precision from golden.dir's decision log, if any."""
    if settings.golden.dir is None:
        return
    from monitor.golden.review import ReviewLog
    from monitor.telemetry.golden import PrecisionCollector

    routes = LabelLimiter(settings.metrics.routes, settings.metrics.max_label_values)
    metrics.registry.register(PrecisionCollector(ReviewLog(settings.golden.dir), routes))


# Output tokens reserved for one verdict before the call (a verdict with a handful of claims
# is 300-800 tokens); the budget is settled with the real usage when the call returns.
_VERDICT_OUTPUT_TOKENS = 800


@dataclass(frozen=True)
class JudgeSpec:
    """How to make a judge: its class and constructor arguments (picklable: a child process
    makes its own with ``judge.isolate``). ``remote``: it calls an API (costs, budget)."""

    cls: type[Any]
    kwargs: dict[str, Any]
    remote: bool = True


def _anthropic(settings: Settings, metrics: Metrics | None) -> JudgeSpec:
    """No API key anywhere is a ``ConfigError`` at start-up, rather than one failed call per
    sampled trace; said before the SDK is imported (over half a second)."""
    if settings.judge.api_key is None:  # ANTHROPIC_API_KEY arrives here through the config
        raise ConfigError(
            "judge.backend is anthropic but no API key is set: export ANTHROPIC_API_KEY "
            "(or set judge.api_key), or use the heuristic judge"
        )
    from monitor.judge.anthropic_judge import AnthropicJudge

    return JudgeSpec(AnthropicJudge, AnthropicJudge.arguments(settings.judge))


def _openai(settings: Settings, metrics: Metrics | None) -> JudgeSpec:
    from monitor.judge.openai_judge import OpenAIJudge

    return JudgeSpec(OpenAIJudge, OpenAIJudge.arguments(settings.judge))


def _judge(
    name: str, build: Callable[[Settings, Metrics | None], JudgeSpec]
) -> Component[JudgeSpec]:
    return Component(name, lambda s: s.judge.backend == name, build)


JUDGES: tuple[Component[JudgeSpec], ...] = (
    _judge("heuristic", lambda s, m: JudgeSpec(HeuristicJudge, {}, remote=False)),
    _judge("anthropic", _anthropic),
    _judge("openai", _openai),
)


def _spec(settings: Settings, backend: str | None = None) -> JudgeSpec:
    """The spec of ``backend`` (default: ``judge.backend``)."""
    if backend is not None:
        settings = settings.model_copy(
            update={"judge": settings.judge.model_copy(update={"backend": backend})}
        )
    (spec,) = configured(JUDGES, settings, None)
    return spec


def build_judge(settings: Settings, backend: str | None = None) -> Judge:
    """The judge of ``backend`` (default: ``judge.backend``), called in this process."""
    spec = _spec(settings, backend)
    judge: Any = spec.cls(**spec.kwargs)
    if spec.remote:
        judge.verify()
    return cast(Judge, judge)


def _free(trace: RagTrace) -> tuple[int, float]:
    return 0, 0.0


Estimate = Callable[[RagTrace], tuple[int, float]]


def _judge_calls(settings: Settings, backend: str | None = None) -> tuple[Judge, Estimate, bool]:
    """The judge of ``backend`` (in a child process with ``judge.isolate``), the budget
    estimate of one call to it (tokens, USD), and whether it calls an API."""
    cfg = settings.judge
    spec = _spec(settings, backend)
    if not spec.remote:
        return spec.cls(), _free, False
    local: Any = spec.cls(**spec.kwargs)  # also estimates the input tokens
    local.verify()
    calls: Judge = local
    if cfg.isolate:
        # the SDK's HTTP and JSON work off the GIL; the bound on one call is the SDK's
        # timeout per attempt, its retries, our one re-ask
        call_timeout = 2 * cfg.timeout_seconds * (cfg.max_retries + 1) + 30
        calls = ProcessJudge(spec.cls, spec.kwargs, backend or cfg.backend, local.model,
                             threads=cfg.concurrency, call_timeout=call_timeout)  # fmt: skip
    return calls, _call_estimate(local), True


def _call_estimate(local: Any, discount: float = 1.0) -> Estimate:
    """The budget estimate of one call to ``local`` (tokens, USD), at ``discount``."""
    prices = local.prices

    def estimate(trace: RagTrace) -> tuple[int, float]:
        tokens = local.estimate_input_tokens(trace)
        return tokens, discount * prices.cost(tokens, _VERDICT_OUTPUT_TOKENS, 0, 0)

    return estimate


def _redacting(settings: Settings, judge: Judge) -> Judge:
    """``judge`` behind the golden rows' PII redaction when ``judge.redact_pii`` is set."""
    if not settings.judge.redact_pii:
        return judge
    return RedactingJudge(judge, Redactor(settings.golden.pii_patterns))


def _cache(cfg: JudgeConfig) -> VerdictCache | None:
    return VerdictCache(cfg.cache_entries, cfg.cache_file) if cfg.cache_entries else None


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
    if cfg.batch.enabled:
        return _batch_stage(settings, metrics, sampler)
    calls, estimate, remote = _judge_calls(settings)
    if cfg.jury.backend != "none":
        jury = settings
        if cfg.jury.prices is not None:  # the second member's own price table
            jury = settings.model_copy(
                update={"judge": cfg.model_copy(update={"prices": cfg.jury.prices})}
            )
        second, second_estimate, second_remote = _judge_calls(jury, cfg.jury.backend)
        remote = remote or second_remote
        first_estimate, share = estimate, cfg.jury.share

        def estimate(trace: RagTrace) -> tuple[int, float]:  # both judges, the second's share
            (t1, c1), (t2, c2) = first_estimate(trace), second_estimate(trace)
            return t1 + int(share * t2), c1 + share * c2

        calls = JuryJudge(calls, second, share, cfg.jury.hard_fail, metrics.on_jury_pair)
    limits = cfg.budget.as_limits() if remote else None  # the heuristic costs nothing but CPU
    return JudgeStage(
        _redacting(settings, calls),
        sampler,
        Budget(limits),
        observer=metrics,
        concurrency=cfg.concurrency,
        max_queue=cfg.max_queue,
        breaker=CircuitBreaker(cfg.breaker_failures, cfg.breaker_cooldown_seconds, time.monotonic),
        estimate=estimate,
        cache=_cache(cfg),
    )


def _batch_stage(settings: Settings, metrics: Metrics, sampler: HashSampler) -> JudgeStage:
    """Batch mode: the judge's requests through the provider's batch API, via the outbox."""
    from monitor.judge.batch import BatchStage, batch_api
    from monitor.judge.outbox import Outbox

    cfg, bc = settings.judge, settings.judge.batch
    if bc.dir is None:
        raise ConfigError("batch mode needs judge.batch.dir (the durable outbox)")
    spec = _spec(settings)
    local: Any = spec.cls(**spec.kwargs)
    local.verify()
    return BatchStage(
        batch_api(local, bc.discount), Outbox(bc.dir), _redacting(settings, local), sampler,
        Budget(cfg.budget.as_limits()), observer=metrics,
        estimate=_call_estimate(local, bc.discount), max_requests=bc.max_requests,
        max_wait_seconds=bc.max_wait_seconds, poll_seconds=bc.poll_seconds, cache=_cache(cfg),
    )  # fmt: skip


def build_pipeline(
    settings: Settings,
    metrics: Metrics,
    source: Source | None = None,
    extra_sinks: Sequence[Sink] = (),
    judge_stage: JudgeStage | None = None,
    decoder: RecordDecoder | None = None,
) -> Pipeline:
    """The daemon's pipeline from ``settings`` (a given source, sinks, judge stage or decoder
    replaces the configured one)."""
    kafka = settings.source.kafka
    is_kafka = settings.source.type == "kafka" and source is None
    stage = judge_stage if judge_stage is not None else build_judge_stage(settings, metrics)
    if source is None:
        source = build_source(settings, metrics)
    return Pipeline(
        source=source,
        decoder=decoder if decoder is not None else build_decoder(settings, metrics),
        suite=build_suite(settings, metrics),
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
