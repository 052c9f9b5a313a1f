"""Configuration sections the sinks read: ``metrics`` (the Prometheus endpoint and its
labels), ``output`` (evaluation and dead-letter files and topic) and ``otel`` (evaluation
events). Each sink is built from its own configuration object (``JsonlOutput``,
``DeadLetterTopic``, ``GoldenOutput``, ``ProbeScoring``, or one of these sections), which the
component table reads from the settings.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from monitor.core.model import ConfigSection as _Section


class MetricsConfig(_Section):
    """``metrics``: the /metrics endpoint and the bounds on its labels."""

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
    """``output``: evaluation and dead-letter files and topic."""

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
