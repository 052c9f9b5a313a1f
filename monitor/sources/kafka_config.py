"""The Kafka source's section (``source.kafka``) and the object it is built from (its section,
the shared ``kafka`` connection, the topics it reads besides its own). Apart from the source's
module, which imports the Kafka client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field, field_validator

from monitor.core.model import KafkaConnection
from monitor.sources.framing import spelled_format
from monitor.sources.section import RecordFormat, SourceSection


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

    _spelled = field_validator("format", mode="before")(spelled_format)  # otlp-json too

    def record_format(self) -> RecordFormat:
        """``format``: native records or OTLP messages."""
        return self.format


@dataclass(frozen=True)
class KafkaSourceSetup:
    """The Kafka source's configuration: its section, the shared ``kafka`` connection, the
    topics the group reads besides its own (the conversations' repartition topic), and the
    topics the daemon writes, each with the setting that names it (checked at start with the
    topics read: a missing one is a start-up error, not a producer waiting on it)."""

    section: KafkaSourceConfig
    connection: KafkaConnection
    also: tuple[str, ...] = ()
    written: tuple[tuple[str, str], ...] = ()  # (setting, topic)
