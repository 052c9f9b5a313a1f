"""The component table: every check, source, sink and judge, one row each, in one shape.

A row is the OpenTelemetry Collector's factory: the component's kind and name, the class of
the configuration its factory takes, how that configuration is read from the settings (None:
the settings leave the component off — the rule that turns it on is written once, here), and
the factory, fetched only when the row is built (``load``), so that a component that is off
costs no import of its SDK (``tests/unit/test_imports.py``).

A component that has settings of its own names their class (``section``): the settings model
(``monitor.config``) mounts it from the row, at ``checks.<key>`` for a check, ``source.<key>``
for a source and ``<key>`` for a sink. A new component is therefore its module(s), its row
here and its tests; nothing else names it. What a row reads of the settings beyond its own
section — the shared ``kafka`` connection, the daemon's ``output`` and ``metrics``, the
``golden`` wing — it reads through ``Configured``, so that this table does not import the
settings module (which is built from it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from monitor.checks import CHECK_TYPES, Check, CheckType, make
from monitor.core.errors import ConfigError
from monitor.core.model import ConfigSection, KafkaConnection, MetricsConfig, OutputConfig
from monitor.core.pii import redactor_for
from monitor.golden.config import GoldenConfig
from monitor.ingest.config import SessionsConfig
from monitor.judge.config import JudgeConfig
from monitor.sources import Source
from monitor.sources.demo_config import DemoSourceConfig
from monitor.sources.files_config import JsonlSourceConfig
from monitor.sources.inputs import Input
from monitor.sources.kafka_config import KafkaSourceConfig, KafkaSourceSetup
from monitor.sources.otlp_http_config import OtlpHttpSourceConfig
from monitor.sources.section import SourceSection
from monitor.telemetry import LabelLimiter, Metrics
from sinks import Sink
from sinks.golden import GoldenOutput, GoldenRowSink
from sinks.jsonl import JsonlOutput, JsonlSink
from sinks.kafka_sink import DeadLetterTopic, KafkaDeadLetterSink
from sinks.otel_config import OtelConfig, OtelOutput
from sinks.probes import ProbeScoring, ProbeSink
from sinks.store import StoreConfig, StoreOutput, StoreSink

Kind = Literal["check", "source", "sink", "judge"]
C = TypeVar("C")
T = TypeVar("T")
S = TypeVar("S", bound=ConfigSection)

# A factory: the component from its configuration (and the daemon's metrics, when it counts)
Make = Callable[[C, Metrics | None], T]


class _SourceChoice(Protocol):
    @property
    def type(self) -> str:
        """The chosen source's kind (``source.type``)."""
        ...


class Configured(Protocol):
    """What a row reads of the settings (``monitor.config.Settings`` is one): a component's
    own section by its class, whether a check runs, which source is chosen, and the sections
    several components share."""

    @property
    def source(self) -> _SourceChoice:
        """``source``: which source runs."""
        ...

    @property
    def kafka(self) -> KafkaConnection:
        """``kafka``: the connection the Kafka source and sinks share."""
        ...

    @property
    def metrics(self) -> MetricsConfig:
        """``metrics``: the daemon's endpoint and its label bounds."""
        ...

    @property
    def output(self) -> OutputConfig:
        """``output``: the daemon's own files and dead-letter topic."""
        ...

    @property
    def golden(self) -> GoldenConfig:
        """``golden``: the golden wing (rows, the set, PII patterns)."""
        ...

    @property
    def judge(self) -> JudgeConfig:
        """``judge``: the judge and its stage."""
        ...

    @property
    def sessions(self) -> SessionsConfig:
        """``sessions``: the conversations' stage."""
        ...

    def of(self, section: type[S]) -> S:
        """A component's own section, by its class, wherever its row mounts it."""
        ...

    def runs(self, check: str) -> bool:
        """Whether ``checks.enabled`` runs the check ``check``."""
        ...


@dataclass(frozen=True)
class Component(Generic[C, T]):
    """One row of the component table."""

    kind: Kind
    name: str
    config: type[C]  # the class of the configuration its factory takes
    read: Callable[[Configured], C | None]  # that configuration in the settings; None: off
    load: Callable[[], Make[C, T]]  # the factory, its module imported only now
    # A sink that writes outside this process (files, topics, a collector): the daemon's
    # outputs, which a command run with the daemon's config must leave alone (``replay`` and
    # ``rescore`` write only where their own options say). Unless a row says otherwise, it
    # does: a new sink is kept out of commands until its row says it is safe.
    writes_outside: bool = True
    # The component's own settings, mounted from this row at ``key`` of its kind's place in
    # the settings (``checks.<key>``, ``source.<key>``, top level for a sink); None: none.
    section: type[ConfigSection] | None = None
    key: str = ""

    def build(self, settings: Configured, metrics: Metrics | None) -> T | None:
        """The component as ``settings`` configure it, or None when they leave it off."""
        config = self.read(settings)
        return None if config is None else self.load()(config, metrics)

    def made(self, config: C, metrics: Metrics | None) -> T:
        """The component from ``config``, given (a command's own part: see ``COMMAND``)."""
        return self.load()(config, metrics)


def configured(
    table: Sequence[Component[Any, T]], settings: Configured, metrics: Metrics | None
) -> list[T]:
    """Every component of ``table`` the settings turn on, built, in table order."""
    return [made for row in table if (made := row.build(settings, metrics)) is not None]


def _own(
    kind: Kind,
    name: str,
    section: type[S],
    load: Callable[[], Make[S, T]],
    key: str,
    on: Callable[[Configured, S], bool],
    writes_outside: bool = True,
) -> Component[S, T]:
    """A row built from its own section alone, mounted at ``key``; on when ``on`` says."""

    def read(settings: Configured) -> S | None:
        own = settings.of(section)
        return own if on(settings, own) else None

    return Component(kind, name, section, read, load, writes_outside, section, key)


# --- checks: on unless ``checks.enabled`` leaves them out; built with the options they declare


@dataclass(frozen=True)
class NoOptions:
    """The configuration of a check that declares no options."""


def _check(cls: CheckType) -> Component[Any, Check]:
    def read(settings: Configured) -> ConfigSection | NoOptions | None:
        if not settings.runs(cls.name):
            return None
        return NoOptions() if cls.options is None else settings.of(cls.options)

    def build(options: ConfigSection | NoOptions, metrics: Metrics | None) -> Check:
        return make(cls, None if isinstance(options, NoOptions) else options)

    def load() -> Make[ConfigSection | NoOptions, Check]:
        return build

    return Component("check", cls.name, cls.options or NoOptions, read, load,
                     section=cls.options, key=cls.name)  # fmt: skip


# In the order they run and report (the order of CHECK_TYPES, which the compiled build
# of the checks keeps beside their classes).
CHECKS: tuple[Component[Any, Check], ...] = tuple(_check(cls) for cls in CHECK_TYPES)


# --- sources: on when ``source.type`` names them; each factory imports its module only now


def _chosen(settings: Configured, section: SourceSection) -> bool:
    return settings.source.type == section.kind


def _demo() -> Make[DemoSourceConfig, Source]:
    from monitor.sources.demo import DemoSource

    return DemoSource.from_config


def _jsonl_source() -> Make[JsonlSourceConfig, Source]:
    from monitor.sources.files import JsonlSource

    return JsonlSource.from_config


def _kafka_setup(settings: Configured) -> KafkaSourceSetup | None:
    """``source.kafka``, the ``kafka`` connection, and the conversations' repartition topic
    when the sessions stage uses one."""
    section = settings.of(KafkaSourceConfig)
    if not _chosen(settings, section):
        return None
    s = settings.sessions
    also = (s.topic,) if s.enabled and s.topic is not None else ()
    outputs = (("output.dead_letters_topic", settings.output.dead_letters_topic),
               ("golden.topic", settings.golden.topic))  # fmt: skip
    written = tuple((key, t) for key, t in outputs if t is not None)
    return KafkaSourceSetup(section, settings.kafka, also, written)


def _kafka_source() -> Make[KafkaSourceSetup, Source]:
    from monitor.sources.kafka import KafkaSource

    return KafkaSource.from_config


def _otlp_http() -> Make[OtlpHttpSourceConfig, Source]:
    from monitor.sources.otlp_http import OtlpHttpSource

    return OtlpHttpSource.from_config


# In the order `ragmon config schema` lists them; the first is the default ``source.type``.
SOURCES: tuple[Component[Any, Source], ...] = (
    _own("source", "demo", DemoSourceConfig, _demo, "demo", _chosen),
    _own("source", "jsonl", JsonlSourceConfig, _jsonl_source, "jsonl", _chosen),
    Component("source", "kafka", KafkaSourceSetup, _kafka_setup, _kafka_source,
              section=KafkaSourceConfig, key="kafka"),
    _own("source", "otlp_http", OtlpHttpSourceConfig, _otlp_http, "otlp_http", _chosen),
)  # fmt: skip


# --- sinks: each says when it is on; a sink whose configuration object is defined beside its
# class is imported with this table (its module keeps its SDK's import inside the class)


def _prometheus(settings: Configured) -> MetricsConfig:
    return settings.metrics  # the daemon's own registry: always on


def _prometheus_sink() -> Make[MetricsConfig, Sink]:
    from sinks.prometheus import PrometheusSink

    return PrometheusSink.from_config


def _jsonl_output(settings: Configured) -> JsonlOutput | None:
    out = settings.output
    if out.evaluations_jsonl is None and out.dead_letters_jsonl is None:
        return None
    return JsonlOutput(out.evaluations_jsonl, out.dead_letters_jsonl,
                       redactor_for(settings, "lines"))  # fmt: skip


def _dead_letter_topic(settings: Configured) -> DeadLetterTopic | None:
    topic = settings.output.dead_letters_topic
    return None if topic is None else DeadLetterTopic(topic, settings.kafka)


def _golden_output(settings: Configured) -> GoldenOutput | None:
    golden = settings.golden
    if golden.dir is None and golden.topic is None:
        return None
    return GoldenOutput(golden, settings.kafka, redactor_for(settings, "rows"))


def _otel_output(settings: Configured) -> OtelOutput | None:
    section = settings.of(OtelConfig)
    if section.endpoint is None:
        return None
    return OtelOutput(section, redactor_for(settings, "lines"))


def _otel_events() -> Make[OtelOutput, Sink]:
    from sinks.otel import OtelEventSink

    return OtelEventSink.from_config


def _probe_scoring(settings: Configured) -> ProbeScoring | None:
    path, m = settings.golden.set_path, settings.metrics
    return None if path is None else ProbeScoring(path, m.routes, m.max_label_values)


def _store_output(settings: Configured) -> StoreOutput | None:
    section = settings.of(StoreConfig)
    if section.path is None:
        return None
    return StoreOutput(section, redactor_for(settings, "lines"))


# In the order the sinks receive each evaluation.
SINKS: tuple[Component[Any, Sink], ...] = (
    Component("sink", "prometheus", MetricsConfig, _prometheus, _prometheus_sink, False),
    Component("sink", "jsonl", JsonlOutput, _jsonl_output, lambda: JsonlSink.from_config),
    Component("sink", "kafka_dead_letters", DeadLetterTopic, _dead_letter_topic,
              lambda: KafkaDeadLetterSink.from_config),
    Component("sink", "golden_rows", GoldenOutput, _golden_output,
              lambda: GoldenRowSink.from_config),
    Component("sink", "otel_events", OtelOutput, _otel_output, _otel_events,
              section=OtelConfig, key="otel"),
    Component("sink", "probe_scores", ProbeScoring, _probe_scoring,
              lambda: ProbeSink.from_config),
    Component("sink", "store", StoreOutput, _store_output, lambda: StoreSink.from_config,
              section=StoreConfig, key="store"),
)  # fmt: skip


# --- judges: on when ``judge.backend`` names them; the SDK imported only when built


@dataclass(frozen=True)
class JudgeSpec:
    """How to make a judge: its class and constructor arguments (picklable: a child process
    makes its own with ``judge.isolate``). ``remote``: it calls an API (costs, budget)."""

    cls: type[Any]
    kwargs: dict[str, Any]
    remote: bool = True


def _anthropic() -> Make[JudgeConfig, JudgeSpec]:
    from monitor.judge.anthropic_judge import AnthropicJudge

    def spec(cfg: JudgeConfig, metrics: Metrics | None) -> JudgeSpec:
        return JudgeSpec(AnthropicJudge, AnthropicJudge.arguments(cfg))

    return spec


def _openai() -> Make[JudgeConfig, JudgeSpec]:
    from monitor.judge.openai_judge import OpenAIJudge

    def spec(cfg: JudgeConfig, metrics: Metrics | None) -> JudgeSpec:
        return JudgeSpec(OpenAIJudge, OpenAIJudge.arguments(cfg))

    return spec


def _heuristic() -> Make[JudgeConfig, JudgeSpec]:
    from monitor.judge.heuristic import HeuristicJudge

    return lambda cfg, metrics: JudgeSpec(HeuristicJudge, {}, remote=False)


def _backend(name: str) -> Callable[[Configured], JudgeConfig | None]:
    """A judge row's rule: on when ``judge.backend`` names it. No API key anywhere is a
    ``ConfigError`` at start-up, rather than one failed call per sampled trace; said before
    the SDK is imported (over half a second)."""

    def read(settings: Configured) -> JudgeConfig | None:
        cfg = settings.judge
        if cfg.backend != name:
            return None
        if name == "anthropic" and cfg.anthropic.api_key is None:  # ANTHROPIC_API_KEY arrives
            raise ConfigError(  # through the config
                "judge.backend is anthropic but no API key is set: export ANTHROPIC_API_KEY "
                "(or set judge.anthropic.api_key), or use the heuristic judge"
            )
        return cfg

    return read


JUDGES: tuple[Component[JudgeConfig, JudgeSpec], ...] = tuple(
    Component("judge", name, JudgeConfig, _backend(name), load)
    for name, load in (("heuristic", _heuristic), ("anthropic", _anthropic), ("openai", _openai))
)

# Every row, for the tests that walk the table.
TABLE: tuple[Component[Any, Any], ...] = (*CHECKS, *SOURCES, *SINKS, *JUDGES)


# --- a command's own parts: what a command reads (its files, a window of a topic's history)
# and reports (its summary table, an OpenMetrics file for backfill). The settings never turn
# them on; a command states them with their configuration (``monitor.registry.commands``),
# and the daemon's own outputs it may write come from the rows above, at its paths.


def _asked(settings: Configured) -> None:
    """A command's part: off in the settings, built from what the command asks."""
    return None


@dataclass(frozen=True)
class FileInput:
    """Files a command reads once (``replay``), each already opened (``-``: stdin), in one
    record format: ``native``, ``otlp-json`` or ``otlp-proto``. ``on_progress`` hears each
    record with the bytes read so far; ``log_read_errors`` False: the command says them."""

    inputs: tuple[Input, ...]
    format: str
    on_progress: Callable[[int], None] | None = None
    log_read_errors: bool = True


def _files() -> Make[FileInput, Source]:
    from monitor.sources.files import JsonlSource, OtlpFileSource

    def make(config: FileInput, metrics: Metrics | None) -> Source:
        source: JsonlSource | OtlpFileSource
        if config.format == "native":
            source = JsonlSource(config.inputs, on_progress=config.on_progress)
        else:
            source = OtlpFileSource(config.inputs, config.format, on_progress=config.on_progress)
        source.log_read_errors = config.log_read_errors
        return source

    return make


@dataclass(frozen=True)
class HistoryWindow:
    """A window of Kafka topics' history read once (``rescore``): the records whose
    timestamps fall in ``[since, until)`` (Unix seconds), over the ``kafka`` connection, in
    one record format (``source.kafka.format``'s: ``native``, ``otlp_proto``, ...)."""

    topics: tuple[str, ...]
    format: str
    connection: KafkaConnection
    since: float
    until: float


def _history_window() -> Make[HistoryWindow, Source]:
    from monitor.sources.history import KafkaWindow  # the Kafka client, only when used

    def make(config: HistoryWindow, metrics: Metrics | None) -> Source:
        return KafkaWindow(list(config.topics), config.connection, config.since, config.until)

    return make


@dataclass(frozen=True)
class SummaryOutput:
    """A command's summary table (``replay``): the checks that run, in their order, and the
    judge's calibration record (a ``judge.Calibration``, or None) that corrects its rate."""

    checks: tuple[str, ...]
    calibration: Any = None


def _summary() -> Make[SummaryOutput, Sink]:
    from sinks.summary import SummarySink

    def make(config: SummaryOutput, metrics: Metrics | None) -> Sink:
        summary = SummarySink(list(config.checks))
        summary.calibration = config.calibration
        return summary

    return make


@dataclass(frozen=True)
class HistoryOutput:
    """An OpenMetrics file of counters per ``step_seconds`` for Prometheus's backfill
    (``rescore --openmetrics``), its labels bounded as the daemon's (``metrics``)."""

    path: Path
    step_seconds: float
    metrics: MetricsConfig


def _history_file() -> Make[HistoryOutput, Sink]:
    from sinks.openmetrics import OpenMetricsHistorySink

    def make(config: HistoryOutput, metrics: Metrics | None) -> Sink:
        m = config.metrics
        return OpenMetricsHistorySink(
            config.path, config.step_seconds, LabelLimiter(m.routes, m.max_label_values),
            LabelLimiter(m.apps, m.max_label_values),
        )  # fmt: skip

    return make


@dataclass(frozen=True)
class JudgeEstimateOutput:
    """What the judge would take of the evaluations (``rescore --dry-run``), read in this
    process: the judge's section and the sampling rates its stage would use."""

    judge: JudgeConfig
    base_rate: float
    flagged_rate: float


def _judge_estimate() -> Make[JudgeEstimateOutput, Sink]:
    from monitor.judge.estimate import JudgeEstimate
    from sinks.tap import TapSink

    def make(config: JudgeEstimateOutput, metrics: Metrics | None) -> Sink:
        return TapSink(JudgeEstimate(config.judge, config.base_rate, config.flagged_rate))

    return make


# A command's own rows; ``tests/unit/test_component_rows.py`` reads from each row's factory
# the classes it builds, so a command's part without a row here is found.
COMMAND: tuple[Component[Any, Any], ...] = (
    Component("source", "files", FileInput, _asked, _files, False),
    Component("source", "history_window", HistoryWindow, _asked, _history_window, False),
    Component("sink", "summary", SummaryOutput, _asked, _summary, False),
    Component("sink", "openmetrics_history", HistoryOutput, _asked, _history_file),
    Component("sink", "judge_estimate", JudgeEstimateOutput, _asked, _judge_estimate, False),
)
