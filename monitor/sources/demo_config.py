"""The demo source's section (``source.demo``)."""

from __future__ import annotations

from pydantic import Field

from monitor.sources.section import SourceSection


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
