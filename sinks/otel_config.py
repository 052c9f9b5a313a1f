"""The OTel evaluation-event sink's section (``otel``), mounted by its row in the component
table; apart from the sink's module, which imports the OpenTelemetry SDK."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from monitor.core.model import ConfigSection
from monitor.core.pii import Redactor


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


@dataclass(frozen=True)
class OtelOutput:
    """The OTel event sink's configuration: its section (``endpoint`` set) and the redactor
    of the explanations it sends (None: as they are), the evaluation lines' own
    (``output.redact_pii``)."""

    section: OtelConfig
    redactor: Redactor | None = None
