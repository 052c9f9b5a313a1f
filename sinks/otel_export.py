"""The OTel event sink's exporter wrapper (``sinks.otel``): in a module of its own so that
the OTel SDK is imported only when the sink starts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult


class CountingExporter(LogRecordExporter):
    """Counts each export's outcome (``on_export(outcome, records)``); an exporter's error
    is a failed export, never the death of the export thread."""

    def __init__(self, inner: LogRecordExporter, on_export: Callable[[str, int], None]) -> None:
        self.inner = inner
        self.on_export = on_export

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        """Export through the inner exporter and count the outcome."""
        try:
            result = self.inner.export(batch)
        except Exception:  # an exporter bug must not kill the export thread
            result = LogRecordExportResult.FAILURE
        outcome = "ok" if result == LogRecordExportResult.SUCCESS else "failed"
        self.on_export(outcome, len(batch))
        return result

    def shutdown(self) -> None:
        """Shut the inner exporter down."""
        self.inner.shutdown()  # type: ignore[no-untyped-call]

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Flush the inner exporter."""
        return bool(self.inner.force_flush(timeout_millis))
