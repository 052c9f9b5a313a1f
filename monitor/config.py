"""ragmon's configuration: one frozen model, from a YAML file with ``RAGMON_*`` overrides.

Precedence, highest first: environment (``RAGMON_SOURCE__TYPE=jsonl``; ``__`` separates
nested keys), then the YAML file, then the defaults below. Unknown keys — in the file or in
``RAGMON_*`` variables — are rejected with a message naming the key, so a typo never turns
into a silently ignored setting.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from monitor.errors import ConfigError
from monitor.golden.rows import DEFAULT_REASONS, JUDGE_REASONS

ENV_PREFIX = "RAGMON_"
ENV_DELIMITER = "__"
# RAGMON_* variables that are not settings (read by the CLI itself).
NOT_SETTINGS = frozenset({"RAGMON_CONFIG_FILE"})
# Secrets under the names people know them by, read here and nowhere else: the variable
# sets the key unless the key's own RAGMON_* variable is set (which wins). The file's value
# is used when neither is set.
ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "RAGMON_REVIEW_TOKEN": ("golden", "review_token"),
    "ANTHROPIC_API_KEY": ("judge", "api_key"),
    "OPENAI_API_KEY": ("judge", "openai", "api_key"),
}


def revealed(secret: SecretStr | None) -> str | None:
    """A secret's value for the part that uses it (None when unset)."""
    return secret.get_secret_value() if secret is not None else None


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DemoSourceConfig(_Section):
    """The built-in synthetic traffic (the embedded default source)."""

    rate_per_second: float = Field(
        default=50.0, gt=0, le=100_000, description="Traces generated per second."
    )
    seed: int = Field(default=7, description="Seed of the generator; same seed, same traffic.")
    limit: int | None = Field(
        default=None, ge=1, description="Stop after this many traces (None: run forever)."
    )


class JsonlSourceConfig(_Section):
    """Native ``ragmon.trace/v1`` records, one per line, from files."""

    paths: list[Path] = Field(default_factory=list, description="Files to read, in order.")


class KafkaSourceConfig(_Section):
    """Consumer-group settings. Connection and security live in the top-level ``kafka``."""

    topics: list[str] = Field(
        default_factory=lambda: ["rag_traces"], min_length=1, description="Topics to consume."
    )
    group_id: str = Field(default="ragmon", min_length=1, description="Consumer group.")
    group_instance_id: str | None = Field(
        default=None,
        description="Static membership (KIP-345): a restarted replica with the same id gets "
        "its partitions back without a rebalance (e.g. the StatefulSet pod name).",
    )
    auto_offset_reset: Literal["earliest", "latest"] = Field(
        default="earliest", description="Where a group with no committed offset starts."
    )
    max_poll_records: int = Field(default=500, ge=1, le=100_000)
    max_partition_fetch_bytes: int = Field(
        default=8 << 20, ge=1 << 16, description="Raise for very large traces."
    )
    fetch_max_bytes: int = Field(default=50 << 20, ge=1 << 16)
    session_timeout_ms: int = Field(default=45_000, ge=1000)
    max_poll_interval_ms: int = Field(default=300_000, ge=1000)
    commit_interval_seconds: float = Field(
        default=1.0, gt=0, le=300, description="How often finished offsets are committed."
    )
    commit_timeout_ms: int = Field(default=10_000, ge=100)
    close_timeout_ms: int = Field(default=10_000, ge=100)
    format: Literal["native", "otlp_proto", "otlp_json"] = Field(
        default="native",
        description="Record encoding: 'native' ragmon.trace/v1 JSON, or OTLP trace messages "
        "as the OTel Collector kafkaexporter writes them ('otlp_proto' is its default; its "
        "topic is 'otlp_spans'). OTLP spans are assembled into traces (see 'assembly').",
    )


class OtlpHttpSourceConfig(_Section):
    """An OTLP/HTTP receiver (POST /v1/traces, protobuf or JSON, optionally gzip), for
    small deployments that point their OTel SDK straight at ragmon. Accepted spans live in
    memory until evaluated: use Kafka where a crash must not lose any."""

    host: str = Field(
        default="127.0.0.1",
        description="Listen address. Loopback by default: anyone who can reach the port can "
        "inject traces that move the alerting rates; set 0.0.0.0 (as the deploy files do) "
        "only with bearer_token or a network policy in front.",
    )
    port: int = Field(default=4318, ge=0, le=65535, description="0 picks a free port.")
    max_body_bytes: int = Field(
        default=16 << 20, ge=1 << 10, description="Larger requests get 413."
    )
    max_queue: int = Field(
        default=1000, ge=1, description="Requests waiting for the pipeline; beyond it 503."
    )
    bearer_token: SecretStr | None = Field(
        default=None,
        description="When set, every request needs 'Authorization: Bearer <token>' (else "
        "401). Set it from the environment: RAGMON_SOURCE__OTLP_HTTP__BEARER_TOKEN.",
    )
    tls_cert_file: Path | None = Field(
        default=None, description="PEM certificate (chain): serve HTTPS. Needs tls_key_file."
    )
    tls_key_file: Path | None = Field(default=None, description="PEM private key.")
    allow_unauthenticated: bool = Field(
        default=False,
        description="Listen beyond loopback without bearer_token (a network policy or a proxy "
        "in front authenticates). Off: such a bind is refused at start-up.",
    )
    max_connections: int = Field(
        default=64, ge=1, le=10_000,
        description="Connections served at once; one more gets 503 and is closed.",
    )  # fmt: skip
    read_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600,
        description="Every read of a request (line, headers, body) and the wait for the next "
        "request on a keep-alive connection; past it the connection is closed.",
    )  # fmt: skip

    @model_validator(mode="after")
    def _tls_pair(self) -> OtlpHttpSourceConfig:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if self.bearer_token is not None and not self.bearer_token.get_secret_value().strip():
            raise ValueError("bearer_token is empty")
        return self


class AssemblyConfig(_Section):
    """How OTLP spans become traces: buffered per trace id until complete."""

    quiet_seconds: float = Field(
        default=2.0,
        gt=0,
        le=600,
        description="Emit a trace once its root span arrived and no span came for this long.",
    )
    max_wait_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Emit a trace this long after its first span even if incomplete "
        "(marked incomplete: checked, not judged).",
    )
    max_traces: int = Field(
        default=10_000, ge=1, description="Buffered traces; beyond it the oldest is evicted."
    )
    max_bytes: int = Field(
        default=256 << 20, ge=1 << 16, description="Buffered span bytes; beyond it evict."
    )

    @model_validator(mode="after")
    def _order(self) -> AssemblyConfig:
        if self.max_wait_seconds < self.quiet_seconds:
            raise ValueError("max_wait_seconds must be at least quiet_seconds")
        return self


class SourceConfig(_Section):
    type: Literal["demo", "jsonl", "kafka", "otlp_http"] = Field(
        default="demo",
        description="Where traces come from. 'demo' needs no external service.",
    )
    demo: DemoSourceConfig = DemoSourceConfig()
    jsonl: JsonlSourceConfig = JsonlSourceConfig()
    kafka: KafkaSourceConfig = KafkaSourceConfig()
    otlp_http: OtlpHttpSourceConfig = OtlpHttpSourceConfig()
    assembly: AssemblyConfig = AssemblyConfig()


class KafkaConnection(_Section):
    """How to reach the Kafka cluster; shared by the source and the Kafka sinks."""

    bootstrap_servers: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:9092"], min_length=1, description="host:port list."
    )
    client_id: str = "ragmon"
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = Field(default=None, description="Prefer the env var.")
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_password: SecretStr | None = None
    bootstrap_timeout_seconds: float = Field(
        default=30.0, gt=0, le=600, description="Startup fails if the cluster is not reached."
    )
    request_timeout_ms: int = Field(default=30_000, ge=1000)

    @model_validator(mode="after")
    def _sasl_complete(self) -> KafkaConnection:
        sasl = self.security_protocol.startswith("SASL")
        if sasl and self.sasl_mechanism is None:
            raise ValueError(f"security_protocol {self.security_protocol} needs sasl_mechanism")
        if not sasl and self.sasl_mechanism is not None:
            raise ValueError("sasl_mechanism is set but security_protocol is not SASL_*")
        if self.sasl_mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and (
            self.sasl_username is None or self.sasl_password is None
        ):
            raise ValueError(
                f"sasl_mechanism {self.sasl_mechanism} needs sasl_username and sasl_password"
            )
        return self

    def client_kwargs(self) -> dict[str, Any]:
        """kafka-python keyword arguments for the connection and security settings (the
        source's consumer and the sinks' producers use the same)."""
        kw: dict[str, Any] = {
            "bootstrap_servers": list(self.bootstrap_servers),
            "client_id": self.client_id,
            "security_protocol": self.security_protocol,
        }
        if self.sasl_mechanism is not None:
            kw["sasl_mechanism"] = self.sasl_mechanism
        if self.sasl_username is not None:
            kw["sasl_plain_username"] = self.sasl_username
        if self.sasl_password is not None:
            kw["sasl_plain_password"] = self.sasl_password.get_secret_value()
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            value = getattr(self, name)
            if value is not None:
                kw[name] = str(value)
        if self.ssl_password is not None:
            kw["ssl_password"] = self.ssl_password.get_secret_value()
        return kw


class ContextConflictConfig(_Section):
    similarity: float = Field(
        default=0.5, gt=0, le=1, description="Trigram Jaccard at which two passages are duplicates."
    )


class GroundingOverlapConfig(_Section):
    min_words: int = Field(
        default=3, ge=1, description="Answers with fewer content words are not applicable."
    )


class ChecksConfig(_Section):
    enabled: list[str] | None = Field(
        default=None, description="Check names to run (None: all checks)."
    )
    context_conflict: ContextConflictConfig = ContextConflictConfig()
    grounding_overlap: GroundingOverlapConfig = GroundingOverlapConfig()

    @field_validator("enabled")
    @classmethod
    def _known(cls, v: list[str] | None) -> list[str] | None:
        from monitor.checks import CHECK_NAMES

        if v is not None:
            unknown = [n for n in v if n not in CHECK_NAMES]
            if unknown:
                raise ValueError(f"unknown check {unknown}; known: {list(CHECK_NAMES)}")
        return v


class MetricsConfig(_Section):
    host: str = Field(default="0.0.0.0", description="Address of /metrics, /healthz, /readyz.")
    port: int = Field(default=9464, ge=0, le=65535, description="0 picks a free port.")
    routes: list[str] = Field(
        default_factory=list,
        description="Route label allow-list. Empty: the first max_label_values routes seen.",
    )
    apps: list[str] = Field(
        default_factory=list,
        description="App label allow-list. Empty: the first max_label_values apps seen.",
    )
    max_label_values: int = Field(
        default=50, ge=1, le=1000, description="Bound on distinct app/route label values."
    )


class OutputConfig(_Section):
    evaluations_jsonl: Path | None = Field(
        default=None, description="Append one evaluation line per trace to this file."
    )
    dead_letters_jsonl: Path | None = Field(
        default=None, description="Append dead letters (reason, source position, raw bytes) here."
    )
    dead_letters_topic: str | None = Field(
        default=None,
        description="Kafka topic for dead letters: the raw bytes as value, reason and source "
        "position in headers (uses the top-level kafka connection).",
    )
    sink_flush_attempts: int = Field(
        default=3, ge=1, le=20, description="Flush tries before the daemon stops uncommitted."
    )
    redact_pii: bool = Field(
        default=True,
        description="Redact PII (the golden-row detectors and golden.pii_patterns) in the "
        "evidence and judge claims of evaluation lines written to files and stdout.",
    )


class GoldenConfig(_Section):
    """Candidate golden rows for review (off unless ``dir`` is set)."""

    dir: Path | None = Field(default=None, description="Directory of row segments; None: off.")
    topic: str | None = Field(
        default=None,
        description="Kafka topic for rows keyed by row id (compacted); uses the kafka connection.",
    )
    reasons: list[str] = Field(
        default_factory=lambda: list(DEFAULT_REASONS),
        description="Flagged checks and judge verdicts that make a row, in priority order "
        "(the first names it).",
    )
    set_path: Path | None = Field(
        default=None,
        description="A published golden set (a version file, or the directory `ragmon golden "
        "publish` writes; its newest version is used and a newer one picked up): traces with "
        "a golden_id are scored against it (retrieval metrics and the stage that missed).",
    )
    review_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="Also serve the review page (ragmon review) from the daemon on this port; "
        "needs dir. None: off.",
    )
    review_host: str = Field(
        default="127.0.0.1",
        description="Address of the review page; beyond loopback it needs review_token.",
    )
    review_token: SecretStr | None = Field(
        default=None,
        description="Token reviewers log in with (also accepted as a bearer token); needed "
        "beyond loopback, by the daemon's page and by `ragmon review`. Prefer the environment: "
        "RAGMON_REVIEW_TOKEN (or RAGMON_GOLDEN__REVIEW_TOKEN).",
    )
    review_tls_cert_file: Path | None = Field(
        default=None,
        description="PEM certificate (chain): serve the review page over HTTPS (the session "
        "cookie is then Secure). Needs review_tls_key_file.",
    )
    review_tls_key_file: Path | None = Field(default=None, description="PEM private key.")
    max_rows: int = Field(default=10_000, ge=1, description="Rows kept in memory for dedup.")
    max_examples: int = Field(default=5, ge=1, le=100, description="Trace ids kept per row.")
    segment_max_bytes: int = Field(default=8 << 20, ge=1 << 10)
    segment_max_age_seconds: float = Field(default=3600.0, gt=0)
    pii_patterns: dict[str, str] = Field(
        default_factory=dict,
        description="Extra redaction patterns: name -> regex (placeholder [REDACTED:NAME]).",
    )

    @model_validator(mode="after")
    def _review_page(self) -> GoldenConfig:
        if (self.review_tls_cert_file is None) != (self.review_tls_key_file is None):
            raise ValueError("review_tls_cert_file and review_tls_key_file go together")
        if self.review_port is not None and self.dir is None:
            raise ValueError("review_port needs dir (the rows to review)")
        if self.review_token is not None and not self.review_token.get_secret_value().strip():
            raise ValueError("review_token is empty")
        return self

    @property
    def review_tls(self) -> tuple[Path, Path] | None:
        if self.review_tls_cert_file is None or self.review_tls_key_file is None:
            return None
        return self.review_tls_cert_file, self.review_tls_key_file

    @field_validator("reasons")
    @classmethod
    def _known_reasons(cls, v: list[str]) -> list[str]:
        from monitor.checks import CHECK_NAMES

        known = (*CHECK_NAMES, *JUDGE_REASONS)
        unknown = [n for n in v if n not in known]
        if unknown:
            raise ValueError(f"unknown reason {unknown}; known: {list(known)}")
        return v

    @field_validator("pii_patterns")
    @classmethod
    def _compiles(cls, v: dict[str, str]) -> dict[str, str]:
        for name, pattern in v.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {name!r} does not compile: {exc}") from exc
        return v


class SamplingConfig(_Section):
    base_rate: float = Field(default=0.05, ge=0, le=1, description="Inclusion probability.")
    flagged_rate: float = Field(
        default=0.5, ge=0, le=1, description="Probability for traces a check flagged."
    )
    routes: dict[str, float] = Field(default_factory=dict, description="route -> probability")
    releases: dict[str, float] = Field(default_factory=dict, description="release -> probability")
    golden_always: bool = Field(default=True, description="Always judge golden_id traffic.")
    salt: str = Field(default="ragmon", description="Change it to draw another sample.")


class BudgetConfig(_Section):
    """Global limits: each replica takes its share of the assigned partitions."""

    calls_per_minute: float = Field(default=60.0, gt=0)
    input_tokens_per_minute: float = Field(default=200_000.0, gt=0)
    usd_per_day: float = Field(default=5.0, gt=0)


class PricesConfig(_Section):
    """USD per million tokens (defaults: Claude Haiku 5.5, prompts under 100K tokens)."""

    input: float = Field(default=0.10, ge=0)
    output: float = Field(default=0.50, ge=0)
    cache_read: float = Field(default=0.01, ge=0)
    cache_write: float = Field(default=0.125, ge=0)


class OpenAIJudgeConfig(_Section):
    """The judge through an OpenAI-compatible Chat Completions server (judge.backend:
    openai): OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server, LM Studio."""

    model: str = Field(
        default="gpt-4.1-mini", description="The model name the server knows (e.g. qwen2.5:7b)."
    )
    base_url: str | None = Field(
        default=None,
        description="The server's API base, e.g. http://localhost:8000/v1 (vLLM) or "
        "http://localhost:11434/v1 (Ollama); None: api.openai.com.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="Prefer the environment: OPENAI_API_KEY (or RAGMON_JUDGE__OPENAI__API_KEY); "
        "self-hosted servers often need none.",
    )
    output: Literal["auto", "json_schema", "tool", "json"] = Field(
        default="auto",
        description="How the verdict is asked for: a JSON schema, a forced tool call or JSON "
        "mode; auto tries them in that order and keeps the first the server honours.",
    )
    profile: Literal["rubric", "minicheck", "lynx"] = Field(
        default="rubric",
        description="rubric: ragmon's claims rubric (SUPPORTED / ABSENT / CONTRADICTED); "
        "minicheck: Bespoke-MiniCheck (one sentence per request, Yes/No: no CONTRADICTED); "
        "lynx: Patronus Lynx (PASS/FAIL for the whole answer: no per-claim labels).",
    )


class JuryConfig(_Section):
    """A second judge of another model family on a share of the judged traces."""

    backend: Literal["none", "heuristic", "anthropic", "openai"] = Field(
        default="none",
        description="The second judge ('none': no jury; unused without a first judge); its "
        "settings are its own section "
        "(judge.openai for openai; judge.model, base_url, api_key for anthropic). Must differ "
        "from judge.backend.",
    )
    share: float = Field(
        default=1.0, gt=0, le=1,
        description="Share of the judged traces the second judge also grades (by trace id).",
    )  # fmt: skip
    hard_fail: Literal["both", "either"] = Field(
        default="both",
        description="A hard fail needs both judges to find a contradiction (both), or one "
        "(either). Both: a page needs two families to agree.",
    )


class JudgeConfig(_Section):
    backend: Literal["none", "heuristic", "anthropic", "openai"] = Field(
        default="none",
        description="'none' (the default): no judge; 'anthropic' calls the Messages API (key "
        "from ANTHROPIC_API_KEY or api_key); 'openai' an OpenAI-compatible Chat Completions "
        "server (judge.openai); 'heuristic' a lexical screen without a model (no network; "
        "the built-in demo turns it on unless judge.backend is set).",
    )
    model: str = "claude-haiku-5-5"
    base_url: str | None = Field(default=None, description="Messages API base URL override.")
    api_key: SecretStr | None = Field(
        default=None,
        description="Prefer the environment: ANTHROPIC_API_KEY (or RAGMON_JUDGE__API_KEY).",
    )
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    max_retries: int = Field(default=3, ge=0, le=10, description="SDK retries (429/5xx/529).")
    max_tokens: int = Field(default=2048, ge=256, le=32_000)
    concurrency: int = Field(default=4, ge=1, le=256)
    max_queue: int = Field(default=1000, ge=1)
    breaker_failures: int = Field(default=5, ge=1)
    breaker_cooldown_seconds: float = Field(default=30.0, gt=0)
    drain_seconds: float = Field(
        default=10.0, ge=0, description="On shutdown, wait this long for verdicts in flight."
    )
    calibration_file: Path | None = Field(
        default=None, description="Record written by `ragmon calibrate -o`, exported as metrics."
    )
    cache_entries: int = Field(
        default=10_000, ge=0, description="Verdicts kept by content hash (0: no cache)."
    )
    cache_file: Path | None = Field(
        default=None, description="Also keep verdicts on disk (JSONL), reused after restarts."
    )
    isolate: bool = Field(
        default=True,
        description="Run the anthropic judge in a child process, so the SDK's HTTP and JSON "
        "work does not compete with the checks for the GIL.",
    )
    redact_pii: bool = Field(
        default=False,
        description="Redact PII from question, passages and answer before "
        "the judge sees them (the same detectors as golden rows).",
    )
    openai: OpenAIJudgeConfig = OpenAIJudgeConfig()
    jury: JuryConfig = JuryConfig()
    sampling: SamplingConfig = SamplingConfig()
    budget: BudgetConfig = BudgetConfig()
    prices: PricesConfig = PricesConfig()

    @model_validator(mode="after")
    def _jury_of_two_families(self) -> JudgeConfig:
        if self.jury.backend != "none" and self.jury.backend == self.backend:
            raise ValueError("judge.jury.backend must differ from judge.backend")
        return self


class OtelConfig(_Section):
    """gen_ai.evaluation.result events over OTLP/HTTP (off unless ``endpoint`` is set)."""

    endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP logs endpoint, e.g. http://otel-collector:4318/v1/logs.",
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra HTTP headers.")
    timeout_seconds: float = Field(default=10.0, gt=0, le=300)
    service_name: str = "ragmon"
    include_passed: bool = Field(
        default=True, description="Also emit events for checks that passed (label 'pass')."
    )


class ProbesConfig(_Section):
    """Golden probes sent by the daemon itself (as ``ragmon probe --every``); off while
    ``endpoint`` is None. The questions come from ``golden.set_path``."""

    endpoint: str | None = Field(default=None, description="The application's URL to POST to.")
    request_template: Path | None = Field(
        default=None,
        description='JSON body; string values "{query}" and "{golden_id}" are filled in.',
    )
    every_seconds: float = Field(default=600.0, gt=0, description="A run every period (±10 %).")
    rate_per_second: float = Field(default=1.0, gt=0, description="Requests per second at most.")
    timeout_seconds: float = Field(default=30.0, gt=0)
    header: str = Field(default="X-Ragmon-Golden-Id", description="Header carrying the id.")


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
    )

    source: SourceConfig = SourceConfig()
    kafka: KafkaConnection = KafkaConnection()
    checks: ChecksConfig = ChecksConfig()
    metrics: MetricsConfig = MetricsConfig()
    output: OutputConfig = OutputConfig()
    golden: GoldenConfig = GoldenConfig()
    otel: OtelConfig = OtelConfig()
    judge: JudgeConfig = JudgeConfig()
    probes: ProbesConfig = ProbesConfig()
    log: LogConfig = LogConfig()
    shutdown_timeout_seconds: float = Field(
        default=20.0, gt=0, le=3600, description="Budget for a graceful stop after SIGTERM."
    )

    @model_validator(mode="after")
    def _across_sections(self) -> Settings:
        """Rules that span sections (a section's own rules are its validators)."""
        p = self.probes
        if p.endpoint is not None and (self.golden.set_path is None or p.request_template is None):
            raise ValueError("probes.endpoint needs golden.set_path and probes.request_template")
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
        return (env_settings, _EnvAliases(settings_cls), init_settings)


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
        ann = field.annotation
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
        # the variable of this key or of the enclosing key that was set as a whole
        for n in range(len(parts), 0, -1):
            var = ENV_PREFIX + ENV_DELIMITER.join(parts[:n]).upper()
            if var in os.environ:
                loc = f"{loc} (from {var})"
                break
        lines.append(f"  {loc}: {msg}")
    return f"invalid configuration ({origin}):\n" + "\n".join(lines)


_ENV_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _expand(value: Any, path: Path | str) -> Any:
    """``${env:NAME}`` and ``${env:NAME:-default}`` in the file's string values, as the
    OpenTelemetry Collector's config reads them; an unset variable without a default is a
    ``ConfigError`` naming it."""
    if isinstance(value, dict):
        return {k: _expand(v, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, path) for v in value]
    if not isinstance(value, str) or "${" not in value:
        return value

    def one(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        got = os.environ.get(name)
        if got is None and default is None:
            raise ConfigError(f"config file {path} uses ${{env:{name}}}, which is not set")
        return got if got is not None else default

    return _ENV_REF.sub(one, value)


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
            raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {path} must hold a mapping at the top level")
        data = _expand(loaded, path)
    known = _env_names(Settings, ENV_PREFIX) | NOT_SETTINGS | set(ENV_ALIASES)
    unknown = sorted(k for k in env if k.upper().startswith(ENV_PREFIX) and k.upper() not in known)
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
