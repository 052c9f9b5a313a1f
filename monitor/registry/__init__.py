"""The composition root: the one place that turns ``Settings`` into concrete objects.

The components themselves are rows of one table (``monitor.components``); this module builds
the daemon from them. The judges, their stage and batch mode are built in
``monitor.registry.judges``; a command's pipeline (its own source and outputs, the rest as
the daemon's) in ``monitor.registry.commands``. The SDKs of optional parts (the Kafka client,
the Anthropic SDK, the OTLP exporter) are imported where those parts are built, so a command
that does not use them does not pay for importing them (the Anthropic SDK alone takes about a
second).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from prometheus_client import CollectorRegistry

from monitor.checks import CHECK_TYPES, CheckSuite, PassageMemo
from monitor.checks.risk import RISK, RISK_VERSION
from monitor.checks.shadow import ShadowSuite
from monitor.components import (
    CHECKS,
    COMMAND,
    JUDGES,
    SINKS,
    SOURCES,
    Component,
    HistoryOutput,
    JudgeEstimateOutput,
    SummaryOutput,
    configured,
)
from monitor.config import Settings
from monitor.core.log import CheckErrors
from monitor.core.version import ragmon_version
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.ingest.decoder import OneItemPerRecord, RecordDecoder
from monitor.ingest.native import NativeDecoder
from monitor.judge.stage import JudgeStage
from monitor.pipeline import Pipeline
from monitor.registry.commands import (
    CommandRun,
    FileInput,
    HistoryWindow,
    Outputs,
    command_settings,
)
from monitor.registry.judges import (
    build_judge,
    build_judge_stage,
    calibration,
    judge_identity,
    sampling_rates,
)
from monitor.segments import Segmenter
from monitor.sources import Source
from monitor.sources.section import SourceSection
from monitor.telemetry import (
    FoldedCollector,
    LabelLimiter,
    MemoCollector,
    Metrics,
    OutcomesCollector,
    SessionsCollector,
)
from sinks import Sink

if TYPE_CHECKING:
    from monitor.golden.probe_client import ProbeLoop
    from monitor.judge.estimate import JudgeEstimate
    from sinks.golden import GoldenRowSink
    from sinks.openmetrics import OpenMetricsHistorySink
    from sinks.summary import SummarySink
    from sinks.tap import TapSink

__all__ = [
    "CHECKS",
    "JUDGES",
    "SINKS",
    "SOURCES",
    "CommandRun",
    "Component",
    "FileInput",
    "HistoryWindow",
    "Outputs",
    "build_command",
    "build_decoder",
    "build_judge",
    "build_judge_stage",
    "build_metrics",
    "build_pipeline",
    "build_probe_loop",
    "build_segmenter",
    "build_sessions",
    "build_shadow",
    "build_sinks",
    "build_source",
    "build_suite",
    "calibration",
    "configured",
    "evaluators",
    "judge_identity",
    "sampling_rates",
    "watch_reviews",
]  # fmt: skip


def build_suite(settings: Settings, metrics: Metrics | None = None) -> CheckSuite:
    """The enabled checks, in the order of ``CHECKS``, each built from its config, with the
    passage memo (``checks.memo_bytes``; its counts exported when ``metrics`` is given)."""
    memo = PassageMemo(settings.checks.memo_bytes) if settings.checks.memo_bytes else None
    if memo is not None and metrics is not None:
        metrics.registry.register(MemoCollector(memo))
    return CheckSuite(configured(CHECKS, settings, None), memo, on_error=CheckErrors())


def build_source(settings: Settings, metrics: Metrics | None = None) -> Source:
    """The configured source (``source.type``)."""
    (source,) = configured(SOURCES, settings, metrics)
    return source


def build_sinks(settings: Settings, metrics: Metrics, outputs: bool = True) -> list[Sink]:
    """Every configured sink (see ``SINKS``); without ``outputs``, only those that write
    nothing outside this process (``Component.writes_outside``)."""
    rows = SINKS if outputs else tuple(r for r in SINKS if not r.writes_outside)
    return configured(rows, settings, metrics)


def build_decoder(
    settings: Settings, metrics: Metrics | None = None, fmt: str | None = None
) -> RecordDecoder:
    """Native records one by one, or the OTLP assembler: the chosen source's record format
    (``SourceSection.record_format``), or ``fmt`` for files given on the command line."""
    chosen = settings.source.chosen
    own = chosen.record_format()
    fmt = own if fmt is None else fmt
    if fmt == "native":
        return OneItemPerRecord(NativeDecoder())
    a = settings.source.assembly
    return OtlpAssembler(
        fmt,
        AssemblyLimits(a.quiet_seconds, a.max_wait_seconds, a.max_traces, a.max_bytes),
        observer=metrics,
        replays=chosen.rereads and fmt == own,  # not for files replayed from the command line
    )


def evaluators(settings: Settings, metrics: Metrics | None = None) -> dict[str, str]:
    """The version of each enabled check's definition (ragmon's version + a hash of the
    check's effective options), of the risk's, and of the judge's (backend, model, rubric or
    profile), as every evaluation line and event carries them; exported as
    ``ragmon_evaluator_info``."""
    version = ragmon_version()
    out = {}
    for cls in CHECK_TYPES:
        if not settings.checks.runs(cls.name):
            continue
        options = settings.checks.options_of(cls)
        said = options.model_dump_json() if options is not None else ""
        out[cls.name] = f"{version}+{hashlib.sha256(said.encode()).hexdigest()[:8]}"
    out[RISK] = RISK_VERSION  # its definition; what it reads is versioned with each check
    if settings.judge.backend != "none":
        judge, model, rubric = judge_identity(settings)
        out["judge"] = f"{judge}/{model}/{rubric}"
    if metrics is not None:
        metrics.set_evaluators(out)
    return out


def build_shadow(settings: Settings, metrics: Metrics | None = None) -> ShadowSuite | None:
    """The shadow candidate (``shadow``): the live checks with the candidate's settings on
    top, on its share of the traces; its versions exported with ``variant="shadow"``."""
    candidate = settings.shadow.candidate(settings.checks)
    if candidate is None:
        return None
    as_candidate = settings.model_copy(update={"checks": candidate})
    # the candidate's checks only: a shadow line has no risk and no verdict of its own
    versions = {k: v for k, v in evaluators(as_candidate).items() if k not in ("judge", RISK)}
    if metrics is not None:
        metrics.set_evaluators(versions, variant="shadow")
    suite = CheckSuite(configured(CHECKS, as_candidate, None),
                       on_error=CheckErrors("shadow_check_failed"))  # fmt: skip
    return ShadowSuite(suite, settings.shadow.share, versions)


def build_segmenter(settings: Settings, metrics: Metrics | None = None) -> Segmenter:
    """The segments and inputs of every trace (``segments``); the values each dimension
    folded into ``other`` are exported when ``metrics`` is given."""
    segmenter = Segmenter(settings.segments)
    if metrics is not None:
        metrics.registry.register(FoldedCollector(segmenter))
    return segmenter


def build_metrics(registry: CollectorRegistry) -> Metrics:
    """The daemon's metrics on ``registry``."""
    return Metrics(registry, version=ragmon_version())


def build_probe_loop(settings: Settings, metrics: Metrics) -> ProbeLoop | None:
    """The daemon's own golden probes (``probes.endpoint``), or None."""
    if settings.probes.endpoint is None:
        return None
    from monitor.golden.probe_client import ProbeLoop

    return ProbeLoop.from_config(settings.probes, settings.golden.set_path, metrics)


def watch_reviews(settings: Settings, registry: CollectorRegistry) -> None:
    """Exports the checks' reviewed precision from golden.dir's decision log, if any, on
    ``registry``. Not from a worker of ``run --workers``, whose golden.dir is its own
    directory in the golden dir: the parent exports the golden dir's, once."""
    from monitor.golden.stored import is_worker_dir

    directory = settings.golden.dir
    if directory is None or is_worker_dir(directory):
        return
    from monitor.golden.precision import PrecisionCollector
    from monitor.golden.review import ReviewLog

    routes = LabelLimiter(settings.metrics.routes, settings.metrics.max_label_values)
    registry.register(PrecisionCollector(ReviewLog(directory), routes))


def build_sessions(
    settings: Settings,
    metrics: Metrics,
    decoder: RecordDecoder,
    through_topic: bool,
    record_time: bool = False,
) -> tuple[RecordDecoder, Sink]:
    """The conversations' stage (``sessions``): the sink that takes each turn where the turns
    meet, and the decoder that releases the follow-ups — through ``sessions.topic`` when
    ``through_topic`` (the configured Kafka source reads it), else in memory — and the
    sessions' outcomes (``sessions.outcomes``), closed on the newest turn's time when
    ``record_time`` (a command's own finite input: ``replay``), else on the turns' clock."""
    from monitor.sessions.join import Sessions
    from monitor.sessions.stage import TurnSink, WithSessions

    s = settings.sessions
    sessions = Sessions(s.window_seconds, s.lateness_seconds, s.max_bytes, observe=metrics.on_turn)
    topic = s.topic if through_topic else None
    # the Kafka source without sessions.topic: one member of a group, pairing in memory
    group = through_topic and topic is None
    producer = None
    if topic is not None:
        from sinks.kafka_producer import Producer  # the Kafka client, only when used

        producer = Producer(topic, settings.kafka, flush_timeout_seconds=30.0)
    sink = TurnSink(sessions, producer, observe=metrics.on_turn, end_attribute=s.end_attribute)
    outcomes = None
    if s.outcomes:
        from monitor.sessions.outcomes import Outcomes

        closing = Outcomes(s.idle_seconds, s.max_age_seconds, grace=s.lateness_seconds,
                           max_bytes=s.outcomes_max_bytes,
                           observe=metrics.on_session_dropped)  # fmt: skip
        metrics.registry.register(OutcomesCollector(lambda: (len(closing), closing.bytes)))
        outcomes = closing
    stage = WithSessions(decoder, sessions, topic, observe=metrics.on_turn, outcomes=outcomes,
                         record_time=record_time, group=group)  # fmt: skip
    shared = (lambda: stage.share < 1.0) if group else None
    records = (lambda: stage.turn_records) if topic is not None else None
    metrics.registry.register(
        SessionsCollector(lambda: (len(sessions), sessions.bytes), shared, records)
    )
    return stage, sink


def build_pipeline(
    settings: Settings,
    metrics: Metrics,
    source: Source | None = None,
    extra_sinks: Sequence[Sink] = (),
    judge_stage: JudgeStage | None = None,
    decoder: RecordDecoder | None = None,
    outputs: bool = True,
) -> Pipeline:
    """The daemon's pipeline from ``settings`` (a given source, sinks, judge stage or decoder
    replaces the configured one). A command that only reads the daemon's config passes
    ``outputs=False``: it writes to its ``extra_sinks`` only, never into the daemon's
    outputs (files, topics, the golden directory, the collector)."""
    # the chosen source's batch and commit settings; a source given here (replay's files)
    # takes the defaults
    batching = settings.source.chosen if source is None else SourceSection()
    stage = judge_stage if judge_stage is not None else build_judge_stage(settings, metrics)
    # the conversations meet on the repartition topic only when the configured Kafka
    # source reads it (a command's own source joins them in memory)
    through_topic = source is None and settings.source.type == "kafka"
    own_source = source is not None  # a command's own input: sessions close on its time
    if source is None:
        source = build_source(settings, metrics)
    decoder = decoder if decoder is not None else build_decoder(settings, metrics)
    sinks = [*build_sinks(settings, metrics, outputs), *extra_sinks]
    listening: list[Callable[[float], None]] = []
    notices: list[Callable[[], str | None]] = []
    if settings.sessions.enabled:
        decoder, turns = build_sessions(settings, metrics, decoder, through_topic, own_source)
        sinks.append(turns)  # after the others: a trace's line is written before its turn
        from monitor.sessions.stage import WithSessions

        if isinstance(decoder, WithSessions) and decoder.group:  # hears the group's moves
            listening.append(decoder.on_share)
            notices.append(decoder.notice)
    pipeline = Pipeline(
        source=source,
        decoder=decoder,
        suite=build_suite(settings, metrics),
        sinks=sinks,
        observer=metrics,
        batch_size=batching.max_poll_records,
        commit_interval=batching.commit_interval_seconds,
        flush_attempts=settings.output.sink_flush_attempts,
        judge_stage=stage,
        segmenter=build_segmenter(settings, metrics),
        evaluators=evaluators(settings, metrics),
        shadow=build_shadow(settings, metrics),
        judge_drain_seconds=min(
            settings.judge.drain_seconds, settings.shutdown_timeout_seconds / 2
        ),
    )
    pipeline.share_listeners += listening
    pipeline.notices += notices
    return pipeline


def build_command(
    settings: Settings,
    metrics: Metrics,
    source: FileInput | HistoryWindow,
    outputs: Outputs,
    judge_stage: JudgeStage | None = None,
) -> CommandRun:
    """The pipeline of a command that reads ``source`` and writes ``outputs``, the rest as
    the daemon's: its checks, segments, conversations (in memory, closed on the input's
    time), the in-process sinks (the metrics), ``judge_stage`` (None: the settings' own, none
    with ``judge.backend: none``) and the decoder of the source's format."""
    own = {row.config: row for row in COMMAND}
    read = own[type(source)].made(source, metrics)
    decoder = build_decoder(settings, metrics, fmt=source.format.replace("-", "_"))
    asked = command_settings(settings, outputs)
    named = {row.name: row.build(asked, metrics) for row in SINKS if row.name in outputs.rows()}
    summary = None
    if outputs.summary:
        table = SummaryOutput(tuple(build_suite(settings).names), calibration(settings))
        summary = own[SummaryOutput].made(table, metrics)
    history = None
    if outputs.openmetrics is not None:
        history = own[HistoryOutput].made(
            HistoryOutput(outputs.openmetrics, outputs.step_seconds, settings.metrics), metrics
        )
    estimate = None
    if outputs.judge_estimate:  # the settings' judge and sampling, whatever runs
        rates = sampling_rates(settings)
        estimate = own[JudgeEstimateOutput].made(JudgeEstimateOutput(settings.judge, *rates),
                                                 metrics)  # fmt: skip
    sinks = [s for s in (summary, *named.values(), history, estimate) if s is not None]
    pipeline = build_pipeline(settings, metrics, source=read, extra_sinks=sinks,
                              judge_stage=judge_stage, decoder=decoder, outputs=False)  # fmt: skip
    return CommandRun(
        pipeline, read, decoder, cast("SummarySink | None", summary),
        cast("GoldenRowSink | None", named.get("golden_rows")),
        cast("OpenMetricsHistorySink | None", history),
        None if estimate is None else cast("JudgeEstimate", cast("TapSink", estimate).reader),
    )  # fmt: skip
