"""Where records come from: the ``Source`` protocol (``base``) and one module per source —
files and lists (``files``), the built-in demo traffic (``demo``), Kafka (``kafka``) and the
OTLP/HTTP receiver (``otlp_http``). Kafka and OTLP/HTTP are imported where they are built,
so that the core does not load their SDKs."""

from __future__ import annotations

from monitor.sources.base import (
    Partition,
    Position,
    ReadProgress,
    ReplayNote,
    Source,
    SourceDefaults,
    SourceListener,
    SourcePosition,
    SourceRecord,
    name_unfinished,
    trace_key,
)
from monitor.sources.demo import DemoSource
from monitor.sources.files import JsonlSource, ListSource, OtlpFileSource

__all__ = [
    "DemoSource",
    "JsonlSource",
    "ListSource",
    "OtlpFileSource",
    "Partition",
    "Position",
    "ReadProgress",
    "ReplayNote",
    "Source",
    "SourceDefaults",
    "SourceListener",
    "SourcePosition",
    "SourceRecord",
    "name_unfinished",
    "trace_key",
]
