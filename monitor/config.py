"""ragmon's configuration: one frozen model, from a YAML file with ``RAGMON_*`` overrides.

Precedence, highest first: environment (``RAGMON_SOURCE__TYPE=jsonl``; ``__`` separates
nested keys), then the YAML file, then the defaults below. Unknown keys — in the file or in
``RAGMON_*`` variables — are rejected with a message naming the key, so a typo never turns
into a silently ignored setting.
"""

from __future__ import annotations

import json
import os
import re
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import yaml
from pydantic import (
    BaseModel,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from monitor.checks import CHECK_NAMES, CheckType
from monitor.components import CHECKS, SINKS, SOURCES, Component
from monitor.core.errors import ConfigError
from monitor.core.lines import Tree, map_strings
from monitor.core.model import ConfigSection as _Section
from monitor.core.model import KafkaConnection, MetricsConfig, OutputConfig, revealed
from monitor.golden.config import GoldenConfig, ProbesConfig
from monitor.ingest.config import AssemblyConfig, SessionsConfig
from monitor.judge.config import JudgeConfig
from monitor.segments.config import SegmentsConfig
from monitor.sources.kafka_config import KafkaSourceConfig
from monitor.sources.section import SourceSection

__all__ = ["ENV_ALIASES", "ConfigError", "KafkaConnection", "Settings", "load", "revealed"]

ENV_PREFIX = "RAGMON_"
ENV_DELIMITER = "__"
# RAGMON_* variables that are not settings (read by the CLI itself; by monitor.checks.native,
# which build of the checks runs; by deploy/compile.py at install).
NOT_SETTINGS = frozenset({"RAGMON_CONFIG_FILE", "RAGMON_COMPILED", "RAGMON_MYPYC"})
# Secrets under the names people know them by, read here and nowhere else: the variable
# sets the key unless the key's own RAGMON_* variable is set (which wins). The file's value
# is used when neither is set.
ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "RAGMON_REVIEW_TOKEN": ("golden", "review_token"),
    "ANTHROPIC_API_KEY": ("judge", "anthropic", "api_key"),
    "OPENAI_API_KEY": ("judge", "openai", "api_key"),
}


Own = TypeVar("Own", bound=_Section)


def _mount(
    namespace: dict[str, Any], rows: tuple[Component[Any, Any], ...], top: bool = False
) -> None:
    """Adds a field to the model class being defined (call in its body with ``vars()``) for
    each row's own section, at its key, described by the section's docstring: the settings
    are derived from the component table, the only place a component is named. A top-level
    section's default is its default object, as every top-level section's is (the schema
    shows it); a nested one's is made on use."""
    annotations = namespace.setdefault("__annotations__", {})
    for row in rows:
        if row.section is not None:
            annotations[row.key] = row.section
            namespace[row.key] = (
                Field(default=row.section(), description=row.section.__doc__)
                if top
                else Field(default_factory=row.section, description=row.section.__doc__)
            )


# Where each component's own section is, by its class (``Settings.of``): under ``checks`` for a
# check, under ``source`` for a source, at the top level for a sink.
_PLACES: dict[type[_Section], tuple[str, ...]] = {}
for _area, _rows in (("checks", CHECKS), ("source", SOURCES), ("", SINKS)):
    for _row in _rows:
        if _row.section is not None:
            assert _row.section not in _PLACES, f"{_row.section.__name__} is mounted twice"
            _PLACES[_row.section] = (_area, _row.key) if _area else (_row.key,)


class ChecksConfig(_Section):
    """``checks``: which checks run, and each check's options."""

    # each check's options: a section named as the check, mounted from its row (a setting
    # cannot miss its check)

    enabled: list[str] | None = Field(
        default=None, description="Check names to run (None: all checks)."
    )
    memo_bytes: int = Field(
        default=0,
        ge=0,
        description="Cap, in bytes, of the per-passage analysis kept across traces (0: off, "
        "the default: measured on skewed retrieval it cost more than it saved).",
    )
    _mount(vars(), CHECKS)

    def runs(self, name: str) -> bool:
        """Whether the check ``name`` runs (``enabled`` unset: every check)."""
        return self.enabled is None or name in self.enabled

    def options_of(self, check: CheckType) -> _Section | None:
        """The options ``check`` declares, as configured (None: it has none)."""
        return None if check.options is None else cast(_Section, getattr(self, check.name))

    @field_validator("enabled")
    @classmethod
    def _known(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            unknown = [n for n in v if n not in CHECK_NAMES]
            if unknown:
                raise ValueError(f"unknown check {unknown}; known: {list(CHECK_NAMES)}")
        return v


_KINDS = tuple(row.name for row in SOURCES)


class SourceConfig(_Section):
    """``source``: which source runs (``type``), a section per source, named as the source
    (one per source of the component table), and the OTLP span assembly."""

    type: str = Field(
        default=_KINDS[0],
        description=f"Where traces come from. '{_KINDS[0]}' needs no external service.",
    )
    __annotations__["type"] = Literal[_KINDS]  # the sources' kinds, from the table
    assembly: AssemblyConfig = AssemblyConfig()
    _mount(vars(), SOURCES)

    @property
    def chosen(self) -> SourceSection:
        """The section of the source ``type`` names."""
        return cast(SourceSection, getattr(self, self.type))

    @model_validator(mode="after")
    def _chosen_rules(self) -> SourceConfig:
        self.chosen.check_chosen()
        return self


# ``shadow``: a candidate definition run beside the live one on the same traces, whose
# results never reach the live counters, the golden rows or the alerts: other check options
# or another check set on a share of the traces (``monitor.checks.shadow``), and another
# judge on the live judge's sample within its own budget (``monitor.judge.stage``).
_SHADOW_JUDGE_IGNORES = frozenset({
    "sampling", "batch", "jury", "calibration_file", "cache_entries", "cache_file",
    "concurrency", "max_queue", "drain_seconds",
})  # fmt: skip


class ShadowConfig(_Section):
    """``shadow``: a candidate definition of the checks, run beside the live one on the same
    traces; its results go to the evaluation lines (``shadow``) and to their own metrics,
    never to golden rows or alerts."""

    checks: ChecksConfig | None = Field(
        default=None,
        description="The candidate's check settings, laid over the live `checks` (only what "
        "is given here differs: `enabled`, or a check's options). None: no shadow.",
    )
    judge: JudgeConfig | None = Field(
        default=None,
        description="A candidate judge (a judge section of its own: backend, model, rubric or "
        "profile, prices, budget, timeouts) run on the live judge's sample within its own "
        "budget. None: no shadow judge.",
    )
    share: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="Share of traces the candidate checks run on, chosen by trace id (the "
        "same traces on every replica and every run).",
    )

    @model_validator(mode="after")
    def _judge_reads(self) -> ShadowConfig:
        """The shadow judge takes the live judge's sample, one call a trace: settings of
        sampling, batches, a jury, calibration, caching or the worker pool would be ignored."""
        if self.judge is not None:
            ignored = sorted(self.judge.model_fields_set & _SHADOW_JUDGE_IGNORES)
            if ignored:
                raise ValueError(
                    f"judge.{ignored[0]}: the shadow judge judges the live judge's sample "
                    "with its workers; it would be ignored"
                )
            if self.judge.backend == "none":
                raise ValueError("judge.backend: name the candidate judge's backend")
        return self

    def candidate(self, live: ChecksConfig) -> ChecksConfig | None:
        """The candidate's full check settings: ``live`` with what ``checks`` sets on top
        (None without a shadow)."""
        if self.checks is None:
            return None
        merged = _merged(live.model_dump(), self.checks.model_dump(exclude_unset=True))
        return ChecksConfig.model_validate(merged)


def _merged(base: dict[str, object], top: dict[str, object]) -> dict[str, object]:
    out = dict(base)
    for key, value in top.items():
        under = out.get(key)
        if isinstance(value, dict) and isinstance(under, dict):
            out[key] = _merged(under, value)
        else:
            out[key] = value
    return out


class LogConfig(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "json", "console"] = Field(
        default="auto", description="'auto': console on a TTY, JSON otherwise."
    )


class Settings(BaseSettings):
    """Everything ``ragmon run`` needs. Frozen: build a new one to change it."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_DELIMITER,
        extra="forbid",
        frozen=True,
        case_sensitive=False,
        # ``RAGMON_X=`` is as if the variable were not set (the file's value, else the
        # default): a compose file's ``${X:-}`` or a blank in a deployment leaves the key
        # alone instead of making it "" (a path "" is the working directory). ``null`` is
        # none, for a key that takes none (``golden.dir``, a key the file set): as YAML's.
        env_ignore_empty=True,
        env_parse_none_str="null",
    )

    source: SourceConfig = SourceConfig()
    kafka: KafkaConnection = KafkaConnection()
    checks: ChecksConfig = ChecksConfig()
    metrics: MetricsConfig = MetricsConfig()
    output: OutputConfig = OutputConfig()
    golden: GoldenConfig = GoldenConfig()
    _mount(vars(), SINKS, top=True)  # each sink's own section (``otel``), from its row
    judge: JudgeConfig = JudgeConfig()
    probes: ProbesConfig = ProbesConfig()
    segments: SegmentsConfig = SegmentsConfig()
    sessions: SessionsConfig = SessionsConfig()
    shadow: ShadowConfig = ShadowConfig()
    log: LogConfig = LogConfig()
    shutdown_timeout_seconds: float = Field(
        default=20.0, gt=0, le=3600, description="Budget for a graceful stop after SIGTERM."
    )

    def of(self, section: type[Own]) -> Own:
        """A component's own section, by its class, wherever its row mounts it
        (``source.kafka``, ``checks.grounding_overlap``, ``otel``)."""
        node: object = self
        for part in _PLACES[section]:
            node = getattr(node, part)
        return cast(Own, node)

    def runs(self, check: str) -> bool:
        """Whether ``checks.enabled`` runs the check ``check``."""
        return self.checks.runs(check)

    @model_validator(mode="after")
    def _across_sections(self) -> Settings:
        """Rules that span sections (a section's own rules are its validators)."""
        p = self.probes
        if p.endpoint is not None and (self.golden.set_path is None or p.request_template is None):
            raise ValueError("probes.endpoint needs golden.set_path and probes.request_template")
        if self.shadow.judge is not None:
            if self.judge.backend == "none":
                raise ValueError("shadow.judge judges the live judge's sample: set judge.backend")
            if self.judge.batch.enabled:
                raise ValueError("shadow.judge runs beside the online judge, not batch mode")
        sessions = self.sessions
        if sessions.topic is not None and self.source.type != "kafka":
            raise ValueError(
                "sessions.topic is the Kafka source's repartition topic: with source.type "
                f"{self.source.type} the turns are paired in memory (unset sessions.topic)"
            )
        timeout = self.of(KafkaSourceConfig).session_timeout_ms / 1000
        if sessions.enabled and sessions.topic is not None and sessions.lateness_seconds < timeout:
            raise ValueError(
                f"sessions.lateness_seconds ({sessions.lateness_seconds:g}) is shorter than "
                f"source.kafka.session_timeout_ms ({timeout:g} s): the turns of a replica "
                "that crashed reach the topic only after the group notices, later than the "
                "pairs around them would be written, and those pairs would be lost"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Environment beats the file; the file arrives as init kwargs (see load()).
        """Where settings come from, highest first: ``RAGMON_*`` variables, the well-known secret
        variables, then the file."""
        return (_Environment(settings_cls), _EnvAliases(settings_cls), init_settings)


def _is_str_list(annotation: Any) -> bool:
    """``list[str]``, ``tuple[str, ...]`` or an optional one."""
    for ann in (annotation, *typing.get_args(annotation)):
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin in (list, tuple, set, frozenset) and args and args[0] is str:
            return True
    return False


YAML_NULLS = frozenset({"null", "Null", "NULL", "~"})  # what YAML reads as none


class _EnvFormError(Exception):
    """A ``RAGMON_*`` value that is not in the form its key takes (not a ValueError, which
    pydantic-settings would turn into a traceback of its own)."""


class _Environment(EnvSettingsSource):
    """``RAGMON_*`` variables, lists and mappings in the forms people type: a list of strings
    as JSON or comma-separated (``RAGMON_SOURCE__KAFKA__TOPICS=a,b``, as the Kafka and OTel
    tools' own variables take lists); anything else of a list or mapping key as JSON."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        """As YAML reads a value: ``null``, ``Null``, ``NULL`` and ``~`` are none; a value
        of whitespace only is as empty (not set)."""
        loaded = dict(super()._load_env_vars())
        for key, value in list(loaded.items()):
            if isinstance(value, str) and not value.strip():
                del loaded[key]  # env_ignore_empty
            elif isinstance(value, str) and value.strip() in YAML_NULLS:
                loaded[key] = None
        return loaded

    def decode_complex_value(self, field_name: str, field: FieldInfo | None, value: Any) -> Any:
        try:
            return json.loads(value)
        except ValueError as exc:
            looks_json = value.lstrip().startswith(("[", "{"))
            if field is not None and _is_str_list(field.annotation) and not looks_json:
                return [part.strip() for part in value.split(",") if part.strip()]
            name = _variable_of(field_name, value)
            if looks_json:  # meant as JSON: never taken as a string (a topic '["t"')
                raise _EnvFormError(f"{name}={value[:60]!r} is not valid JSON: {exc}") from None
            ann = field.annotation if field is not None else dict
            mapping = any(typing.get_origin(a) is dict or a is dict
                          or (isinstance(a, type) and issubclass(a, BaseModel))
                          for a in (ann, *typing.get_args(ann)))  # fmt: skip
            form = ("a JSON object, e.g. '{\"billing\": 0.5}'" if mapping
                    else "a JSON array, e.g. '[1, 2]'")  # fmt: skip
            raise _EnvFormError(
                f"{name}={value[:60]!r} is not a value of this key ({_type_name(ann)}): "
                f"write it as {form}"
            ) from None


def _type_name(annotation: Any) -> str:
    """``dict[str, float]`` rather than ``<class ...>``."""
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


def _variable_of(field_name: str, value: str) -> str:
    """The ``RAGMON_*`` variable that holds ``value`` for the key ``field_name``."""
    suffix = field_name.upper()
    for key, got in os.environ.items():
        upper = key.upper()
        if upper.startswith(ENV_PREFIX) and upper.endswith(suffix) and got == value:
            return key
    return ENV_PREFIX + suffix


class _EnvAliases(PydanticBaseSettingsSource):
    """``ENV_ALIASES``: secrets under their well-known variable names."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ builds the whole mapping

    def __call__(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        env = {k.upper(): v for k, v in os.environ.items()}
        for var, path in ENV_ALIASES.items():
            if env.get(var):
                node = out
                for part in path[:-1]:
                    node = node.setdefault(part, {})
                node[path[-1]] = env[var]
        return out


def _env_names(model: type[BaseModel], prefix: str) -> set[str]:
    names: set[str] = set()
    for name, field in model.model_fields.items():
        full = f"{prefix}{name}".upper()
        names.add(full)
        # a section, or an optional one (``shadow.checks``: ChecksConfig | None)
        for ann in (field.annotation, *typing.get_args(field.annotation)):
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                names |= _env_names(ann, f"{full}{ENV_DELIMITER}")
    return names


def _format(exc: ValidationError, origin: str) -> str:
    """One line per problem; a value that came from the environment names its variable."""
    lines = []
    for err in exc.errors(include_url=False):
        parts = [str(p) for p in err["loc"]]
        loc = ".".join(parts)
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        msg = msg.removeprefix("Value error, ")
        # the variable of this key or of the enclosing key that was set as a whole
        for n in range(len(parts), 0, -1):
            var = ENV_PREFIX + ENV_DELIMITER.join(parts[:n]).upper()
            if os.environ.get(var):  # an empty one is not set (env_ignore_empty)
                loc = f"{loc} (from {var})"
                break
        lines.append(f"  {loc}: {msg}" if loc else f"  {msg}")
    return f"invalid configuration ({origin}):\n" + "\n".join(lines)


_ENV_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _expand(value: Tree, path: Path | str) -> Tree:
    """``${env:NAME}`` and ``${env:NAME:-default}`` in the file's string values, as the
    OpenTelemetry Collector's config reads them; an unset variable without a default is a
    ``ConfigError`` naming it."""

    def one(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        got = os.environ.get(name)
        if got is None and default is None:
            raise ConfigError(f"config file {path} uses ${{env:{name}}}, which is not set")
        return got if got is not None else default

    return map_strings(value, lambda s: _ENV_REF.sub(one, s) if "${" in s else s)


# What the kubelet injects into every pod for each Service of its namespace (service links,
# on unless a pod sets enableServiceLinks: false): a Service named ragmon or ragmon-<x> gives
# RAGMON[_X]_SERVICE_HOST, _SERVICE_PORT[_<NAME>], _PORT and _PORT_<n>_<PROTO>[_PROTO|_PORT|
# _ADDR]. Single underscores only, so never a setting's name (nested keys take "__").
_SERVICE_LINK = re.compile(
    r"RAGMON(?:_[A-Z0-9]+)*_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9]+)*"
    r"|PORT(?:_\d+_(?:TCP|UDP|SCTP)(?:_(?:PROTO|PORT|ADDR))?)?)"
)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: what, and where (line and column, from 1)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{problem}{where}"


def load(path: Path | str | None = None) -> Settings:
    """Read the YAML file (if any), apply ``RAGMON_*`` overrides, validate. Raises ConfigError."""
    env = os.environ
    data: dict[str, Any] = {}
    from_env = any(k.upper().startswith(ENV_PREFIX) and k.upper() not in NOT_SETTINGS
                   for k in env)  # fmt: skip
    origin = "environment" if from_env else "defaults"
    if path is not None:
        origin = f"{path} and the environment" if from_env else str(path)
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"config file {path} is not UTF-8 text (byte {exc.start}): is it the right file?"
            ) from None
        except yaml.YAMLError as exc:
            problem = _yaml_problem(exc)
            raise ConfigError(f"config file {path} is not valid YAML: {problem}") from exc
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {path} must hold a mapping at the top level")
        data = _expand(loaded, path)
    known = _env_names(Settings, ENV_PREFIX) | NOT_SETTINGS | set(ENV_ALIASES)
    ours = [k for k in env if k.upper().startswith(ENV_PREFIX) and k.upper() not in known]
    links = [k for k in ours if _SERVICE_LINK.fullmatch(k.upper())]
    if links:
        import structlog

        structlog.get_logger("ragmon.config").debug("kubernetes_service_links_ignored",
                                                    variables=sorted(links))  # fmt: skip
    unknown = sorted(k for k in ours if k not in links)
    if unknown:
        raise ConfigError(
            f"unknown environment variable {unknown[0]}"
            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "")
            + "; see `ragmon config schema` for the keys"
        )
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise ConfigError(_format(exc, origin)) from None
    except _EnvFormError as exc:
        raise ConfigError(f"invalid configuration (environment): {exc}") from None
    except SettingsError as exc:  # any other value pydantic-settings cannot read
        cause = exc.__cause__
        detail = f": {cause}" if cause is not None else ""
        raise ConfigError(f"invalid configuration (environment): {exc}{detail}") from None
