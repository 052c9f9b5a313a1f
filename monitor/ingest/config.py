"""Configuration of OTLP trace assembly (``source.assembly``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from monitor.model import ConfigSection as _Section


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
