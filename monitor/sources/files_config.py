"""The JSONL file source's section (``source.jsonl``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from monitor.sources.section import SourceSection


class JsonlSourceConfig(SourceSection):
    """Native ``ragmon.trace/v1`` records, one per line, from files, read once: the daemon
    exits (0) at their end, its metrics with it; a growing file is not followed."""

    kind = "jsonl"

    paths: list[Path] = Field(
        default_factory=list,
        description="Files to read, in order, once; at their end the daemon exits 0 (a "
        "growing file is not followed: use Kafka or OTLP/HTTP for a live stream).",
    )
