"""The OTel evaluation-event sink's section (``otel``), mounted by its row in the component
table; apart from the sink's module, which imports the OpenTelemetry SDK."""

from __future__ import annotations

from pydantic import Field

from monitor.core.model import ConfigSection


class OtelConfig(ConfigSection):
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
