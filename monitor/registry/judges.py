"""The judge half of the composition root: the judge table, the judge (in this process or a
child), the online stage, the jury and batch mode."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, cast

import structlog

from monitor.components import JUDGES, JudgeSpec, configured
from monitor.config import Settings
from monitor.core.errors import ConfigError
from monitor.core.model import RagTrace
from monitor.core.pii import redactor_for
from monitor.judge.cache import VerdictCache
from monitor.judge.calibration import Calibration
from monitor.judge.config import JudgeConfig
from monitor.judge.jury import JuryJudge
from monitor.judge.prices import Prices
from monitor.judge.process import ProcessJudge
from monitor.judge.rubric import rubric_version
from monitor.judge.sampler import Budget, HashSampler, SamplingRules, planned_rates
from monitor.judge.stage import CircuitBreaker, Judge, JudgeStage, RedactingJudge, ShadowJudge
from monitor.telemetry import Metrics

# Output tokens reserved for one verdict before the call (a verdict with a handful of claims
# is 300-800 tokens); the budget is settled with the real usage when the call returns.
_VERDICT_OUTPUT_TOKENS = 800


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


def judge_identity(settings: Settings, backend: str | None = None) -> tuple[str, str, str]:
    """The (judge, model, rubric version) that the verdicts of ``backend`` (default:
    ``judge.backend``) carry, the jury when one is configured: what a calibration record
    must have been measured on to apply."""
    cfg = settings.judge
    name = backend or cfg.backend
    spec = _spec(settings, name)
    model = str(spec.kwargs.get("model", getattr(spec.cls, "model", name)))
    rubric = rubric_version(spec.kwargs.get("profile", "rubric"))
    if backend is None and cfg.jury.backend != "none":
        second, second_model, _ = judge_identity(settings, cfg.jury.backend)
        return f"jury({spec.cls.name}+{second})", f"{model}+{second_model}", rubric
    return str(spec.cls.name), model, rubric


def calibration(settings: Settings, backend: str | None = None) -> Calibration | None:
    """The record of ``judge.calibration_file`` for the judge of ``backend`` (default:
    ``judge.backend``), None when no file is set or no judge runs. A record of another
    judge, model or rubric is refused (``ConfigError``), as is one that cannot be read."""
    path = settings.judge.calibration_file
    if path is None or (backend or settings.judge.backend) == "none":
        return None
    try:
        record = Calibration.load(path)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ConfigError(f"cannot read judge.calibration_file {path}: {exc}") from exc
    why = record.mismatch(*judge_identity(settings, backend))
    if why is not None:
        raise ConfigError(f"judge.calibration_file {path} does not apply: {why}")
    return record


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
    if cfg.isolate:  # the SDK's HTTP and JSON work off the GIL
        calls = ProcessJudge(spec.cls, spec.kwargs, backend or cfg.backend, local.model,
                             threads=cfg.concurrency, call_timeout=_call_timeout(cfg))  # fmt: skip
    return calls, _call_estimate(local), True


def _call_timeout(cfg: JudgeConfig) -> float:
    """The bound on one call in a child process: the SDK's timeout per attempt, its
    retries, our one re-ask."""
    return 2 * cfg.timeout_seconds * (cfg.max_retries + 1) + 30


class _Priced(Protocol):
    """A remote judge: its prices, and the input tokens a trace's call would take."""

    prices: Prices

    def estimate_input_tokens(self, trace: RagTrace) -> int: ...


def _call_estimate(local: _Priced, discount: float = 1.0) -> Estimate:
    """The budget estimate of one call to ``local`` (tokens, USD), at ``discount``."""
    prices = local.prices

    def estimate(trace: RagTrace) -> tuple[int, float]:
        tokens = local.estimate_input_tokens(trace)
        return tokens, discount * prices.cost(tokens, _VERDICT_OUTPUT_TOKENS, 0, 0)

    return estimate


def _redacting(settings: Settings, judge: Judge) -> Judge:
    """``judge`` behind the golden rows' PII redaction when ``judge.redact_pii`` is set."""
    redactor = redactor_for(settings, "judge")
    return judge if redactor is None else RedactingJudge(judge, redactor)


def _cache(cfg: JudgeConfig) -> VerdictCache | None:
    return VerdictCache(cfg.cache_entries, cfg.cache_file) if cfg.cache_entries else None


def sampling_rates(settings: Settings) -> tuple[float, float]:
    """The sampling rates: as set, or planned from ``judge.sampling.target_cost_per_1k``
    (the price table, batch mode's discount, the expected call size and flagged share)."""
    cfg = settings.judge
    s = cfg.sampling
    if s.target_cost_per_1k is None:
        return s.base_rate, s.flagged_rate
    call = cfg.prices.as_prices().cost(s.expected_input_tokens, s.expected_output_tokens, 0, 0)
    if cfg.batch.enabled:
        call *= cfg.batch.discount
    if cfg.jury.backend != "none":  # the second member judges its share too
        jury_prices = (cfg.jury.prices or cfg.prices).as_prices()
        call += cfg.jury.share * jury_prices.cost(s.expected_input_tokens,
                                                  s.expected_output_tokens, 0, 0)  # fmt: skip
    base, flagged = planned_rates(s.target_cost_per_1k, call, s.expected_flagged_share,
                                  s.flagged_boost)  # fmt: skip
    spent = 1000 * call * (base * (1 - s.expected_flagged_share)
                           + flagged * s.expected_flagged_share)  # fmt: skip
    structlog.get_logger("ragmon.judge").info(
        "judge_sampling_planned", target_cost_per_1k=s.target_cost_per_1k,
        cost_per_call=round(call, 6), base_rate=round(base, 6), flagged_rate=round(flagged, 6),
        expected_cost_per_1k=round(spent, 6),
    )  # fmt: skip
    return base, flagged


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
        (sample_rate, sample_rate) if sample_rate is not None else sampling_rates(settings)
    )
    sampler = HashSampler(
        SamplingRules(base, flagged, s.routes, s.releases, s.golden_always, s.by), salt=s.salt
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
    shadow = _shadow_judge(settings)
    if shadow is not None:
        metrics.set_evaluators({"judge": shadow.version}, variant="shadow")
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
        shadow=shadow,
    )


def _shadow_judge(settings: Settings) -> ShadowJudge | None:
    """The candidate judge of ``shadow.judge`` (a judge section of its own), with its own
    budget and breaker, or None."""
    cand = settings.shadow.judge
    if cand is None:
        return None
    as_candidate = settings.model_copy(update={"judge": cand})
    calls, estimate, remote = _judge_calls(as_candidate)
    judge, model, rubric = judge_identity(as_candidate)
    return ShadowJudge(
        _redacting(as_candidate, calls),
        Budget(cand.budget.as_limits() if remote else None),
        CircuitBreaker(cand.breaker_failures, cand.breaker_cooldown_seconds, time.monotonic),
        estimate,
        f"{judge}/{model}/{rubric}",
    )


def _batch_stage(settings: Settings, metrics: Metrics, sampler: HashSampler) -> JudgeStage:
    """Batch mode: the judge's requests through the provider's batch API, via the outbox."""
    from monitor.judge.batch import BatchStage, InProcess, batch_api
    from monitor.judge.batch_process import ProcessBatches, provider_api
    from monitor.judge.outbox import Outbox

    cfg, bc = settings.judge, settings.judge.batch
    if bc.dir is None:
        raise ConfigError("batch mode needs judge.batch.dir (the durable outbox)")
    spec = _spec(settings)
    local: Any = spec.cls(**spec.kwargs)
    local.verify()
    calls = (
        ProcessBatches(
            provider_api,
            {"judge": spec.cls, "kwargs": spec.kwargs, "discount": bc.discount},
            _call_timeout(cfg),
        )
        if cfg.isolate  # the SDK's request building, upload and reading off the GIL
        else InProcess(batch_api(local, bc.discount))
    )
    return BatchStage(
        calls, Outbox(bc.dir), _redacting(settings, local), sampler,
        Budget(cfg.budget.as_limits()), observer=metrics,
        estimate=_call_estimate(local, bc.discount), max_requests=bc.max_requests,
        max_wait_seconds=bc.max_wait_seconds, poll_seconds=bc.poll_seconds, cache=_cache(cfg),
    )  # fmt: skip
