"""ragmon's own telemetry: every metric the daemon exports, in one injected registry.

``Metrics`` is owned by the core. The source, the OTLP assembler, the judge stage and the
pipeline report to it through the observer protocols they declare (``on_batch``,
``on_rebalance``, ``on_verdict``, ...); the Prometheus sink (``sinks.prometheus``) turns
evaluations into the check counters. Labels are bounded (``LabelLimiter``); trace ids appear
only in exemplars.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info

from monitor.judge.calibration import Calibration
from monitor.verdict import Verdict

OTHER = "other"
UNKNOWN = "unknown"


class LabelLimiter:
    """Maps a free-text label value onto a bounded set.

    With an allow-list, anything else is ``other``. Without one, the first ``max_values``
    distinct values are kept and later ones become ``other``. Missing values are ``unknown``.
    """

    def __init__(self, allow: Iterable[str] = (), max_values: int = 50) -> None:
        self._allow = frozenset(allow)
        self._seen: set[str] = set()
        self._max = max_values
        self._lock = threading.Lock()

    def __call__(self, value: str | None) -> str:
        if not value:
            return UNKNOWN
        if self._allow:
            return value if value in self._allow else OTHER
        if value in self._seen:
            return value
        with self._lock:
            if len(self._seen) < self._max:
                self._seen.add(value)
                return value
        return OTHER


class Metrics:
    """Every metric ragmon exports, registered on ``registry`` (never the global one)."""

    def __init__(self, registry: CollectorRegistry, version: str = "0") -> None:
        self.registry = registry
        self.build_info = Info("ragmon_build", "ragmon version.", registry=registry)
        self.build_info.info({"version": version})
        self._evaluation_metrics(registry)
        self._consumer_metrics(registry)
        self._judge_metrics(registry)
        self._judge_cost_metrics(registry)
        self._otlp_metrics(registry)

    def _evaluation_metrics(self, registry: CollectorRegistry) -> None:
        """What the checks found, per app and route."""
        self.records = Counter(
            "ragmon_records_total",
            "Records read from the source, before decoding.",
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
        self.grounding_overlap = Histogram(
            "ragmon_grounding_overlap_ratio",
            "Share of the answer's content words found in the packed context.",
            ["app", "route"],
            buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
            registry=registry,
        )
        self.invalid_citations = Counter(
            "ragmon_invalid_citations_total",
            "Citation markers that name no packed passage.",
            ["app", "route"],
            registry=registry,
        )
        self.dead_letters = Counter(
            "ragmon_dead_letters_total",
            "Records that could not become a trace, by reason.",
            ["reason"],
            registry=registry,
        )

    def _consumer_metrics(self, registry: CollectorRegistry) -> None:
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

    def _judge_metrics(self, registry: CollectorRegistry) -> None:
        """The judge's findings: sampling decisions, verdicts and their weights, claims."""
        self.judge_decisions = Counter(
            "ragmon_judge_decisions_total",
            "Judge funnel: judged, not_sampled, over_budget, queue_full, not_judgeable, "
            "circuit_open, paused, error.",
            ["outcome"],
            registry=registry,
        )
        self.judge_verdicts = Counter(
            "ragmon_judge_verdicts_total",
            "Judged traces by verdict (pass, fail, hard_fail, not_applicable).",
            ["judge", "verdict", "rubric"],
            registry=registry,
        )
        self.judge_verdict_weight = Counter(
            "ragmon_judge_verdict_weight_total",
            "Sum of 1/p over judged traces by verdict: unbiased population counts.",
            ["judge", "verdict", "rubric"],
            registry=registry,
        )
        self.judge_claims = Counter(
            "ragmon_judge_claims_total",
            "Claims by label (SUPPORTED, ABSENT, CONTRADICTED).",
            ["judge", "label"],
            registry=registry,
        )
        self.judge_false_refusals = Counter(
            "ragmon_judge_false_refusals_total",
            "Refusals where the judge found the answer in the context.",
            ["judge"],
            registry=registry,
        )

    def _judge_cost_metrics(self, registry: CollectorRegistry) -> None:
        """What judging costs and how the judge runs: tokens, USD, latency, errors, state."""
        self.judge_tokens = Counter(
            "ragmon_judge_tokens_total",
            "Judge tokens by kind (input, output, cache_read, cache_write).",
            ["kind"],
            registry=registry,
        )
        self.judge_cost = Counter(
            "ragmon_judge_cost_usd_total",
            "Estimated judge cost from the configured price table.",
            registry=registry,
        )
        self.judge_latency = Histogram(
            "ragmon_judge_latency_seconds",
            "Time to judge one trace, retries included.",
            ["judge"],
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64),
            registry=registry,
        )
        self.judge_errors = Counter(
            "ragmon_judge_errors_total",
            "Judge failures by kind (timeout, rate_limited, server_error, invalid_output, "
            "http_4xx, ...).",
            ["kind"],
            registry=registry,
        )
        self.judge_queue = Gauge(
            "ragmon_judge_queue_depth", "Traces waiting for a judge worker.", registry=registry
        )
        self.judge_paused = Gauge(
            "ragmon_judge_paused",
            "1 when the judge stopped after a configuration error (bad key, unknown model).",
            registry=registry,
        )
        self.judge_usage_estimated = Counter(
            "ragmon_judge_usage_estimated",
            "Verdicts whose server reported no token usage: the budget was charged an "
            "estimate (about four characters a token) instead.",
            ["judge"],
            registry=registry,
        )
        self.probe_requests = Counter(
            "ragmon_probe_requests",
            "Golden probe requests the daemon sent, by outcome.",
            ["outcome"],
            registry=registry,
        )
        self.jury_pairs = Counter(
            "ragmon_judge_jury_pairs",
            "Traces both judges of the jury graded, per route, by whether their verdicts "
            'agreed (the disagreement rate: agreed="false" over all).',
            ["route", "agreed"],
            registry=registry,
        )
        self._jury_routes = LabelLimiter()
        self.judge_same_family = Gauge(
            "ragmon_judge_same_family",
            "1 when judge and generator models come from one family (self-preference risk).",
            registry=registry,
        )
        self.calibration = Gauge(
            "ragmon_judge_calibration",
            "Judge calibration against human labels (kappa, agreement, labelled_traces, "
            "hard_fail_sensitivity, hard_fail_specificity), from `ragmon calibrate`.",
            ["measure", "judge", "rubric"],
            registry=registry,
        )

    def _otlp_metrics(self, registry: CollectorRegistry) -> None:
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
            "end_of_input; late counts span groups of traces already emitted).",
            ["convention", "outcome"],
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

    # --- JudgeObserver -------------------------------------------------------------------

    def on_decision(self, outcome: str) -> None:
        """One sampling/judging decision: judged, not_sampled, over_budget, queue_full, ..."""
        self.judge_decisions.labels(outcome).inc()

    def on_verdict(self, verdict: Verdict) -> None:
        v = verdict
        self.judge_verdicts.labels(v.judge, v.verdict, v.rubric_version).inc()
        # Horvitz–Thompson: the sum of 1/p over judged traces estimates population counts.
        self.judge_verdict_weight.labels(v.judge, v.verdict, v.rubric_version).inc(v.weight)
        for claim in v.claims:
            self.judge_claims.labels(v.judge, claim.label).inc()
        if v.context_has_answer is True:
            self.judge_false_refusals.labels(v.judge).inc()
        if v.usage_estimated:
            self.judge_usage_estimated.labels(v.judge).inc()
        usage = {
            "input": v.input_tokens,
            "output": v.output_tokens,
            "cache_read": v.cache_read_tokens,
            "cache_write": v.cache_write_tokens,
        }
        for kind, n in usage.items():
            if n:
                self.judge_tokens.labels(kind).inc(n)
        if v.cost_usd:
            self.judge_cost.inc(v.cost_usd)
        self.judge_latency.labels(v.judge).observe(v.latency_seconds)

    def set_calibration(self, cal: Calibration) -> None:
        """Export a ``Calibration`` record: how far the judge agrees with human labels."""
        labels = (cal.judge, cal.rubric_version)
        self.calibration.labels("kappa", *labels).set(cal.kappa)
        self.calibration.labels("agreement", *labels).set(cal.agreement)
        self.calibration.labels("labelled_traces", *labels).set(cal.n)
        if cal.sensitivity is not None:
            self.calibration.labels("hard_fail_sensitivity", *labels).set(cal.sensitivity)
        if cal.specificity is not None:
            self.calibration.labels("hard_fail_specificity", *labels).set(cal.specificity)

    def on_probe_requests(self, outcome: str, n: int) -> None:
        """``n`` golden probe requests of the daemon's probe loop ended with ``outcome``."""
        self.probe_requests.labels(outcome).inc(n)

    def on_jury_pair(self, route: str | None, agreed: bool) -> None:
        """Both jury judges graded a trace of ``route``; ``agreed``: the same verdict."""
        self.jury_pairs.labels(self._jury_routes(route), "true" if agreed else "false").inc()

    def on_same_family(self, family: str) -> None:
        self.judge_same_family.set(1)

    def on_judge_error(self, kind: str) -> None:
        self.judge_errors.labels(kind).inc()

    def on_judge_state(self, queued: int, paused: bool) -> None:
        self.judge_queue.set(queued)
        self.judge_paused.set(1 if paused else 0)

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

    def on_assembled(
        self, convention: str, outcome: str, instrumentation: tuple[str, str] = ("", "")
    ) -> None:
        """``AssemblyObserver``: one trace left the buffer (or late spans arrived)."""
        self.assembled.labels(convention, outcome).inc()
        if outcome == "late":
            return
        name, version = instrumentation
        if self._instrumentations(f"{name}\n{version}") == OTHER:
            name = version = OTHER
        self.instrumentation_traces.labels(name or "none", version or "none", convention).inc()

    def on_assembly_buffer(self, traces: int, nbytes: int) -> None:
        self.assembly_buffered.set(traces)
        self.assembly_bytes.set(nbytes)

    def on_otlp_request(self, code: int) -> None:
        self.otlp_requests.labels(str(code)).inc()

    def on_batch(self, source: str, records: int, seconds: float) -> None:
        """``PipelineObserver``: per-batch figures."""
        self.records.labels(source).inc(records)
        self.batch_seconds.observe(seconds)
        self.last_processed.set_to_current_time()
