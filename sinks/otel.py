"""``OtelEventSink``: ``gen_ai.evaluation.result`` events next to the evaluated traces.

One event (an OTel log record with ``event_name``) per applicable check of a trace, exported
over OTLP/HTTP with the trace's id — and its root span id when the trace carries one in
``attributes["ragmon.root_span_id"]`` — so a tracing backend shows the verdict on the trace.
Attributes follow the GenAI semantic conventions: ``gen_ai.evaluation.name``,
``gen_ai.evaluation.score.label`` (``pass`` / ``fail``), ``gen_ai.evaluation.score.value``
(where the check has a score) and ``gen_ai.evaluation.explanation``. A judged trace adds the
judge's metrics: ``ragmon.faithfulness`` (its verdict, the supported share),
``ragmon.answer_relevance`` (relevant 1, partial 0.5, irrelevant 0) and
``ragmon.context_precision`` (the relevant share of the packed passages), each where said.

Telemetry, not a durable sink: export is batched and best-effort, failures are counted and
never block offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import trace as otel_trace
from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from monitor.checks import output_of
from monitor.core.model import CheckResult, Evaluation
from monitor.core.verdict import Verdict
from sinks import SinkBase
from sinks.otel_config import OtelOutput

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import LoggerProvider

    from monitor.core.pii import Redactor
    from monitor.telemetry import Metrics

EVENT_NAME = "gen_ai.evaluation.result"
ROOT_SPAN_ATTRIBUTE = "ragmon.root_span_id"


def explanation(result: CheckResult) -> str:
    """A short human-readable reason: the check's evidence explains itself."""
    return result.evidence.explain()


EVALUATOR_VERSION = "ragmon.evaluator.version"  # which definition produced the result
_RELEVANCE_VALUE = {"relevant": 1.0, "partial": 0.5, "irrelevant": 0.0}


def judge_events(verdict: Verdict, version: str | None = None) -> list[dict[str, object]]:
    """The judge's metrics as evaluation events: faithfulness (its verdict, the supported
    share), answer relevance and context precision, each where the judge said it
    (``version``: the judge's evaluator version)."""
    common = {"ragmon.judge": verdict.judge, "ragmon.judge.rubric": verdict.rubric_version}
    if version is not None:
        common[EVALUATOR_VERSION] = version
    out = []
    if verdict.verdict != "not_applicable":
        event: dict[str, Any] = {**common, "gen_ai.evaluation.name": "ragmon.faithfulness",
                                 "gen_ai.evaluation.score.label": verdict.verdict}  # fmt: skip
        if verdict.score is not None:
            event["gen_ai.evaluation.score.value"] = verdict.score
        out.append(event)
    if verdict.answer_relevance is not None:
        relevance = verdict.answer_relevance
        out.append({**common, "gen_ai.evaluation.name": "ragmon.answer_relevance",
                    "gen_ai.evaluation.score.label": relevance,
                    "gen_ai.evaluation.score.value": _RELEVANCE_VALUE[relevance]})  # fmt: skip
    precision = verdict.context_precision
    if precision is not None:
        out.append({**common, "gen_ai.evaluation.name": "ragmon.context_precision",
                    "gen_ai.evaluation.score.value": precision})  # fmt: skip
    return out


def _uncounted(outcome: str, n: int) -> None:
    """Exports counted nowhere (a sink built without the daemon's metrics)."""


class OtelEventSink(SinkBase):
    """``gen_ai.evaluation.result`` events next to the original traces, over OTLP/HTTP.

    ``flush`` is the base's (nothing): the batch processor exports on its own schedule, and
    waiting for a slow or absent collector there would stall every commit for telemetry."""

    name = "otel_events"

    @classmethod
    def from_config(cls, config: OtelOutput, metrics: Metrics | None) -> OtelEventSink:
        """``otel`` (its ``endpoint`` set): events to the OTLP/HTTP logs endpoint, their
        explanations through ``config.redactor``, exports counted in ``metrics``."""
        section = config.section
        if section.endpoint is None:
            raise ValueError("the OTel event sink needs otel.endpoint")
        return cls(
            section.endpoint,
            headers=section.headers,
            timeout_seconds=section.timeout_seconds,
            service_name=section.service_name,
            include_passed=section.include_passed,
            on_export=metrics.on_otel_export if metrics is not None else _uncounted,
            redactor=config.redactor,
        )

    def __init__(
        self,
        endpoint: str,
        headers: Mapping[str, str] | None = None,
        timeout_seconds: float = 10.0,
        service_name: str = "ragmon",
        include_passed: bool = True,
        on_export: Callable[[str, int], None] = lambda outcome, n: None,
        exporter: LogRecordExporter | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.headers = dict(headers or {})
        self.timeout_seconds = timeout_seconds
        self.service_name = service_name
        self.include_passed = include_passed
        self._on_export = on_export
        self._exporter = exporter
        self._redactor = redactor
        self._provider: LoggerProvider | None = None
        self._logger: Any = None

    def start(self) -> None:
        """Set up the OTel logger provider and its batching exporter."""
        # the exporter (HTTP and protobuf), only when the sink starts; the SDK's log types
        # are imported with this module, which the registry imports only to build the sink
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.resources import Resource

        exporter = self._exporter or OTLPLogExporter(
            endpoint=self.endpoint, headers=self.headers, timeout=self.timeout_seconds
        )
        self._provider = LoggerProvider(
            resource=Resource.create({"service.name": self.service_name})
        )
        self._provider.add_log_record_processor(
            BatchLogRecordProcessor(
                CountingExporter(exporter, self._on_export),
                schedule_delay_millis=1000,
                max_export_batch_size=2048,
                max_queue_size=65_536,
                export_timeout_millis=self.timeout_seconds * 1000,
            )
        )
        self._logger = self._provider.get_logger("ragmon")

    def write(self, evaluation: Evaluation) -> None:
        """One event per check result (passed ones only with include_passed), in the trace's
        context."""
        self._check_open()
        trace = evaluation.trace
        span_hex = trace.attributes.get(ROOT_SPAN_ATTRIBUTE)
        span_id = int(span_hex, 16) if isinstance(span_hex, str) and len(span_hex) == 16 else 0
        # Without the root span id the event still carries the trace id (span id empty).
        context = otel_trace.set_span_in_context(
            NonRecordingSpan(
                SpanContext(
                    int(trace.trace_id, 16),
                    span_id,
                    is_remote=True,
                    trace_flags=TraceFlags(TraceFlags.SAMPLED),
                )
            )
        )
        timestamp = int(trace.timestamp.timestamp() * 1e9) if trace.timestamp else None
        for result in evaluation.checks.values():
            if not result.applicable or (not result.flagged and not self.include_passed):
                continue
            attributes: dict[str, Any] = {
                "gen_ai.evaluation.name": f"ragmon.{result.name}",
                "gen_ai.evaluation.score.label": "fail" if result.flagged else "pass",
                "gen_ai.evaluation.explanation": self._redacted(explanation(result)),
            }
            if output_of(result.name) != "flag" and result.score is not None:
                attributes["gen_ai.evaluation.score.value"] = float(result.score)
            version = evaluation.evaluators.get(result.name)
            if version is not None:
                attributes[EVALUATOR_VERSION] = version
            self._logger.emit(
                event_name=EVENT_NAME, context=context, attributes=attributes, timestamp=timestamp
            )
        if evaluation.judge is not None:
            for attributes in judge_events(evaluation.judge, evaluation.evaluators.get("judge")):
                self._logger.emit(event_name=EVENT_NAME, context=context,
                                  attributes=attributes, timestamp=timestamp)  # fmt: skip

    def _redacted(self, text: str) -> str:
        """An explanation quotes the trace (a figure, a sentence): its PII redacted."""
        return text if self._redactor is None else self._redactor.redact(text)

    def force_flush(self) -> bool:
        """Export what is queued now (tests, and shutdown via ``close``)."""
        return self._provider is not None and bool(
            self._provider.force_flush(int(self.timeout_seconds * 1000))
        )

    def close(self) -> None:
        """Export what is batched and shut the provider down."""
        self._closing()
        if self._provider is not None:
            provider, self._provider = self._provider, None
            provider.shutdown()


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
