"""Configuration of the sources: one section per source (``source.demo``, ``source.jsonl``,
``source.kafka``, ``source.otlp_http``), each a ``SourceSection`` that says which source it
configures (``kind``), what its records are
(``record_format``), whether they are read again after a restart (``rereads``) and which
rules hold when it is the chosen source (``check_chosen``). ``SOURCE_SECTIONS`` is the one
list: ``source.type``, the ``source`` section and the registry's source table are derived
from it, so a new source is its module, its section here and its row in that tuple. (The
Kafka connection, shared with the Kafka sinks, is the top-level ``kafka`` section:
``monitor.core.model.KafkaConnection``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, SecretStr, model_validator

from monitor.core.exposure import is_loopback
from monitor.core.model import ConfigSection as _Section
from monitor.core.model import KafkaConnection

RecordFormat = Literal["native", "otlp_proto", "otlp_json"]


class SourceSection(_Section):
    """What every source's section has: how many records the pipeline takes per poll and
    how often it commits what is finished (the same settings for every source)."""

    kind: ClassVar[str]  # the source's name: its source.type and its section's key
    rereads: ClassVar[bool] = False  # a record is read again, with its time, after a restart

    max_poll_records: int = Field(
        default=500, ge=1, le=100_000, description="Records the pipeline takes per poll."
    )
    commit_interval_seconds: float = Field(
        default=1.0, gt=0, le=300, description="How often finished offsets are committed."
    )

    def record_format(self) -> RecordFormat:
        """How this source's records are encoded (which decoder reads them)."""
        return "native"

    def check_chosen(self) -> None:
        """Rules that hold only when this is the chosen source; ``ValueError`` names the
        setting to change."""


class DemoSourceConfig(SourceSection):
    """The built-in synthetic traffic (the embedded default source)."""

    kind = "demo"

    rate_per_second: float = Field(
        default=50.0, gt=0, le=100_000, description="Traces generated per second."
    )
    seed: int = Field(default=7, description="Seed of the generator; same seed, same traffic.")
    limit: int | None = Field(
        default=None, ge=1, description="Stop after this many traces (None: run forever)."
    )


class JsonlSourceConfig(SourceSection):
    """Native ``ragmon.trace/v1`` records, one per line, from files, read once: the daemon
    exits (0) at their end, its metrics with it; a growing file is not followed."""

    kind = "jsonl"

    paths: list[Path] = Field(
        default_factory=list,
        description="Files to read, in order, once; at their end the daemon exits 0 (a "
        "growing file is not followed: use Kafka or OTLP/HTTP for a live stream).",
    )


class KafkaSourceConfig(SourceSection):
    """Consumer-group settings. Connection and security live in the top-level ``kafka``."""

    kind = "kafka"
    rereads = True

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
    max_partition_fetch_bytes: int = Field(
        default=8 << 20, ge=1 << 16, description="Raise for very large traces."
    )
    fetch_max_bytes: int = Field(default=50 << 20, ge=1 << 16)
    session_timeout_ms: int = Field(default=45_000, ge=1000)
    max_poll_interval_ms: int = Field(default=300_000, ge=1000)
    commit_timeout_ms: int = Field(default=10_000, ge=100)
    close_timeout_ms: int = Field(default=10_000, ge=100)
    format: Literal["native", "otlp_proto", "otlp_json"] = Field(
        default="native",
        description="Record encoding: 'native' ragmon.trace/v1 JSON, or OTLP trace messages "
        "as the OTel Collector kafkaexporter writes them ('otlp_proto' is its default; its "
        "topic is 'otlp_spans'). OTLP spans are assembled into traces (see 'assembly').",
    )

    def record_format(self) -> RecordFormat:
        """``format``: native records or OTLP messages."""
        return self.format


class OtlpHttpSourceConfig(SourceSection):
    """An OTLP/HTTP receiver (POST /v1/traces, protobuf or JSON, optionally gzip), for
    small deployments that point their OTel SDK straight at ragmon. Accepted spans live in
    memory until evaluated: use Kafka where a crash must not lose any."""

    kind = "otlp_http"

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
    header_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600,
        description="The request line and headers, from their first byte: a client that "
        "trickles them slower is closed (the bearer token is read only after them).",
    )  # fmt: skip
    min_body_bytes_per_second: int = Field(
        default=65_536, ge=1,
        description="The body must arrive at this rate at least (after header_timeout_seconds "
        "of grace): a slower client is closed.",
    )  # fmt: skip

    @model_validator(mode="after")
    def _tls_pair(self) -> OtlpHttpSourceConfig:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if self.bearer_token is not None and not self.bearer_token.get_secret_value().strip():
            raise ValueError("bearer_token is empty")
        return self

    def record_format(self) -> RecordFormat:
        """OTLP messages (each request's Content-Type decides protobuf or JSON)."""
        return "otlp_proto"

    def check_chosen(self) -> None:
        """A bind beyond loopback needs a token, or ``allow_unauthenticated``."""
        exposed = self.bearer_token is None and not is_loopback(self.host)
        if exposed and not self.allow_unauthenticated:
            raise ValueError(
                f"source.otlp_http.host is {self.host}, beyond this machine, without "
                "bearer_token: anyone who reaches the port can inject traces; set "
                "RAGMON_SOURCE__OTLP_HTTP__BEARER_TOKEN, bind to 127.0.0.1, or set "
                "source.otlp_http.allow_unauthenticated when something in front authenticates"
            )


@dataclass(frozen=True)
class KafkaSourceSetup:
    """The Kafka source's configuration: its section, the shared ``kafka`` connection, and
    the topics the group reads besides its own (the conversations' repartition topic)."""

    section: KafkaSourceConfig
    connection: KafkaConnection
    also: tuple[str, ...] = ()


# The sources, in the order `ragmon config schema` lists them; the first is the default.
SOURCE_SECTIONS: tuple[type[SourceSection], ...] = (
    DemoSourceConfig,
    JsonlSourceConfig,
    KafkaSourceConfig,
    OtlpHttpSourceConfig,
)
