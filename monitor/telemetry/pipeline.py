"""The pipeline's metrics: what the checks found, the consumer's batches, commits and
position, OTLP in (requests, assembly, instrumentation) and OTel events out."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from monitor.core.evidence import CheckMeasure
from monitor.telemetry.labels import OTHER, LabelLimiter


class PipelineMetrics:
    """The ``PipelineObserver``, ``SourceObserver`` and ``AssemblyObserver`` half of
    ``Metrics``."""

    def _define_evaluation(
        self, registry: CollectorRegistry, measures: Sequence[CheckMeasure]
    ) -> None:
        """What the checks found, per app and route, with the checks' own ``measures``."""
        self.records = Counter(
            "ragmon_records_total",
            "Records read from the source, before decoding: with sessions.topic, the "
            "conversations' turn records read back from it too (also counted alone in "
            "ragmon_session_turn_records_total).",
            ["source"],
            registry=registry,
        )
        self.traces = Counter(
            "ragmon_traces_total",
            "Traces evaluated by the model-free checks.",
            ["app", "route"],
            registry=registry,
        )
        self.check_results = Counter(
            "ragmon_check_results_total",
            "Check outcomes per trace: flagged, passed or not_applicable.",
            ["check", "result", "app", "route"],
            registry=registry,
        )
        # a check that raised is also a not_applicable result above (no rate counts it)
        self.check_errors = Counter(
            "ragmon_check_errors_total",
            "Checks that raised on a trace (a bug of ragmon's: please report it), by check "
            "and exception type; the result is not_applicable with the error in its line.",
            ["check", "error"],
            registry=registry,
        )
        # beside the counts: each trace as its adjusted count (1/sample_rate when it was
        # sampled upstream, else 1), so rates stay the traffic's under upstream sampling
        self.traces_weight = Counter(
            "ragmon_traces_weight",
            "Traces evaluated, each counted as its adjusted count (1/sample_rate of an "
            "upstream sampler; 1 when unsampled): the traffic they stand for.",
            ["app", "route"],
            registry=registry,
        )
        # the sum of each trace's adjusted count squared: with the count and the weight, the
        # weights' design effect n * sum(w^2) / sum(w)^2 (Kish), which the alert rules divide
        # the counts by for the effective sample size
        self.traces_weight_squares = Counter(
            "ragmon_traces_weight_squares",
            "Traces evaluated, each counted as its adjusted count squared (1 when unsampled): "
            "with the count and the weight, the effective sample size under upstream sampling.",
            ["app", "route"],
            registry=registry,
        )
        self.check_results_weight = Counter(
            "ragmon_check_results_weight",
            "Check outcomes, each trace counted as its adjusted count (1/sample_rate of an "
            "upstream sampler; 1 when unsampled).",
            ["check", "result", "app", "route"],
            registry=registry,
        )
        # the metrics checks export of their own (CheckMeasure), per app and route
        self.check_measures: dict[str, Histogram | Counter] = {}
        for m in measures:
            if m.kind == "histogram":
                self.check_measures[m.metric] = Histogram(
                    m.metric, m.help, ["app", "route"], buckets=m.buckets, registry=registry
                )
            else:
                self.check_measures[m.metric] = Counter(
                    m.metric, m.help, ["app", "route"], registry=registry
                )
        self.trace_risk = Histogram(
            "ragmon_trace_risk",
            "Each trace's risk: how likely its answer is unfaithful to its context, 0-1, from "
            "the checks' evidence (grounding, unsupported figures, conflicts, empty context, "
            "citations; a refusal 0.3), what judge.sampling.by: risk samples by.",
            buckets=(0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
            registry=registry,
        )
        self.dead_letters = Counter(
            "ragmon_dead_letters_total",
            "Records that could not become a trace, by reason.",
            ["reason"],
            registry=registry,
        )

    def _define_consumer(self, registry: CollectorRegistry) -> None:
        """Batches, commits, rebalances and the Kafka consumer's position."""
        self.batch_seconds = Histogram(
            "ragmon_batch_duration_seconds",
            "Time to decode, check and hand one polled batch to the sinks.",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=registry,
        )
        self.commits = Counter(
            "ragmon_commits_total",
            "Offset commit attempts by outcome (ok, failed).",
            ["outcome"],
            registry=registry,
        )
        self.last_commit = Gauge(
            "ragmon_last_commit_timestamp_seconds",
            "Wall-clock time of the last successful offset commit.",
            registry=registry,
        )
        self.rebalances = Counter(
            "ragmon_rebalances_total",
            "Consumer-group partition changes by kind (assigned, revoked, lost).",
            ["kind"],
            registry=registry,
        )
        # Labelled by assigned partition: bounded by the topic's partition count, and
        # removed when a partition is revoked.
        self.committed_offset = Gauge(
            "ragmon_kafka_committed_offset",
            "Next offset to read, as last committed by this replica.",
            ["topic", "partition"],
            registry=registry,
        )
        self.consumer_lag = Gauge(
            "ragmon_kafka_consumer_lag",
            "Records between the committed offset and the partition's high watermark.",
            ["topic", "partition"],
            registry=registry,
        )
        self.partitions_held = Gauge(
            "ragmon_kafka_partitions_held",
            "Assigned partitions paused while the OTLP assembly waits for slower ones "
            "(catching up over a backlog).",
            registry=registry,
        )

    def _define_otlp(self, registry: CollectorRegistry) -> None:
        """OTel events out; OTLP in: assembly, instrumentation, requests."""
        self.otel_events = Counter(
            "ragmon_otel_events_total",
            "gen_ai.evaluation.result events by export outcome (ok, failed).",
            ["outcome"],
            registry=registry,
        )
        self.last_processed = Gauge(
            "ragmon_last_processed_timestamp_seconds",
            "Wall-clock time of the last finished batch.",
            registry=registry,
        )
        self.assembled = Counter(
            "ragmon_assembly_traces_total",
            "OTLP traces leaving the assembly buffer, by recognised convention (or "
            "unrecognised, content_missing, own) and outcome (complete, max_wait, evicted, "
            "end_of_input; late counts span groups of traces already emitted, empty the "
            "records with no spans at all, both under convention '-').",
            ["convention", "outcome"],
            registry=registry,
        )
        self.replay_unsure = Counter(
            "ragmon_assembly_replay_unsure_total",
            "OTLP traces evaluated after a restart or rebalance that the replay note could not "
            "rule out as evaluated before (met first past the bits of a note cut short to fit "
            "the broker's offset.metadata.max.bytes): duplicates at most, their lines marked "
            "ragmon.replay=unsure.",
            registry=registry,
        )
        self.ids_unresolved = Counter(
            "ragmon_otlp_ids_unresolved_total",
            "Passages and retrieved documents of OTLP traces whose document id the spans do "
            "not tell (no id, and no retrieved document with the same text): left unknown, "
            "never guessed by position.",
            ["convention"],
            registry=registry,
        )
        self.instrumentation_traces = Counter(
            "ragmon_otlp_instrumentation_traces_total",
            "OTLP traces by the instrumentation that produced most of their spans (scope name "
            "and version; the first 32 pairs seen, then 'other') and what ragmon made of them "
            "(a convention, unrecognised, content_missing): after an instrumentation upgrade, "
            "a new version with unrecognised traces shows here.",
            ["instrumentation", "version", "convention"],
            registry=registry,
        )
        # (scope, version) pairs: the first 32, then "other"
        self._instrumentations = LabelLimiter(max_values=32)
        self.assembly_buffered = Gauge(
            "ragmon_assembly_buffered_traces",
            "OTLP traces waiting in the assembly buffer.",
            registry=registry,
        )
        self.assembly_bytes = Gauge(
            "ragmon_assembly_buffered_bytes",
            "Encoded span bytes waiting in the assembly buffer.",
            registry=registry,
        )
        self.otlp_requests = Counter(
            "ragmon_otlp_http_requests_total",
            "OTLP/HTTP export requests by response code.",
            ["code"],
            registry=registry,
        )

    def on_otel_export(self, outcome: str, events: int) -> None:
        """OTel event batches exported (ok) or dropped by the exporter (failed)."""
        self.otel_events.labels(outcome).inc(events)

    def on_commit(self, outcome: str) -> None:
        """``PipelineObserver`` and ``SourceObserver``: one commit attempt."""
        self.commits.labels(outcome).inc()
        if outcome == "ok":
            self.last_commit.set_to_current_time()

    def on_rebalance(self, kind: str, partitions: list[tuple[str, int]]) -> None:
        """``SourceObserver``: partitions assigned, revoked or lost."""
        self.rebalances.labels(kind).inc()
        if kind != "assigned":
            for topic, partition in partitions:
                for gauge in (self.committed_offset, self.consumer_lag):
                    with contextlib.suppress(KeyError):
                        gauge.remove(topic, str(partition))

    def on_partition_offsets(self, partition: tuple[str, int], committed: int, lag: int) -> None:
        """``SourceObserver``: committed offset and lag of an assigned partition."""
        topic, number = partition
        self.committed_offset.labels(topic, str(number)).set(committed)
        self.consumer_lag.labels(topic, str(number)).set(max(lag, 0))

    def on_held(self, partitions: int) -> None:
        """``SourceObserver``: assigned partitions paused to let the others catch up."""
        self.partitions_held.set(partitions)

    def on_assembled(
        self,
        convention: str,
        outcome: str,
        instrumentation: tuple[str, str] = ("", ""),
        unresolved_ids: int = 0,
    ) -> None:
        """``AssemblyObserver``: one trace left the buffer (or late spans arrived)."""
        self.assembled.labels(convention, outcome).inc()
        if unresolved_ids:
            self.ids_unresolved.labels(convention).inc(unresolved_ids)
        if outcome in ("late", "empty"):  # spans of a trace already out, or none at all
            return
        name, version = instrumentation
        if self._instrumentations(f"{name}\n{version}") == OTHER:
            name = version = OTHER
        self.instrumentation_traces.labels(name or "none", version or "none", convention).inc()

    def on_replay_unsure(self) -> None:
        """``AssemblyObserver``: a trace evaluated that a replay note could not rule out."""
        self.replay_unsure.inc()

    def on_assembly_buffer(self, traces: int, nbytes: int) -> None:
        """Traces and bytes waiting in the assembly buffer."""
        self.assembly_buffered.set(traces)
        self.assembly_bytes.set(nbytes)

    def on_otlp_request(self, code: int) -> None:
        """Count one OTLP/HTTP response code."""
        self.otlp_requests.labels(str(code)).inc()

    def on_batch(self, source: str, records: int, seconds: float) -> None:
        """``PipelineObserver``: per-batch figures."""
        self.records.labels(source).inc(records)
        self.batch_seconds.observe(seconds)
        self.last_processed.set_to_current_time()


class MemoStats(Protocol):
    """What the memo collector reads (``monitor.checks.memo.PassageMemo``)."""

    hits: int
    misses: int
    evictions: int
    bypassed: int
    max_bytes: int

    @property
    def bytes(self) -> int:
        """The estimated size of the kept entries."""

    def __len__(self) -> int: ...


class MemoCollector:
    """Exports the passage memo's counts on every scrape (the memo counts in plain integers,
    so the hot path does no metric increment): ``ragmon_passage_memo_{hits,misses,
    evictions,bypassed}_total``, ``ragmon_passage_memo_entries``, ``ragmon_passage_memo_bytes`` and
    the cap ``ragmon_passage_memo_max_bytes``."""

    def __init__(self, memo: MemoStats) -> None:
        self.memo = memo

    def collect(self) -> Iterator[Metric]:
        """The memo's counters and size as they are now."""
        memo = self.memo
        for name, value, doc in (
            ("hits", memo.hits, "Passages whose analysis was found in the memo."),
            ("misses", memo.misses, "Passages analysed afresh (not in the memo)."),
            ("evictions", memo.evictions, "Memo entries dropped to stay under the cap."),
            ("bypassed", memo.bypassed, "Traces checked without the memo (nothing recurred)."),
        ):
            yield CounterMetricFamily(f"ragmon_passage_memo_{name}", doc, value=value)
        yield GaugeMetricFamily(
            "ragmon_passage_memo_entries", "Passages kept in the memo.", value=len(memo)
        )
        yield GaugeMetricFamily(
            "ragmon_passage_memo_bytes", "Estimated bytes of the kept analysis.", value=memo.bytes
        )
        yield GaugeMetricFamily(
            "ragmon_passage_memo_max_bytes", "The memo's cap (checks.memo_bytes).",
            value=memo.max_bytes,
        )  # fmt: skip
