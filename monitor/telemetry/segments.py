"""Per-segment quality and the measured inputs: one dimension per series, never the cross
product (``dimension``, ``segment``, then ``check`` and ``result``, or ``verdict``).

Worst case, with ``segments.max_values`` = 50 (each dimension's first 50 values, plus
``other`` and ``unknown``), D dimensions (9 built in, plus ``segments.attributes``) and C
checks: ``ragmon_segment_check_results_total`` has D x 52 x C x 3 series (9 x 52 x 6 x 3 =
8,424) and its ``_weight_total`` twin as many, ``ragmon_segment_traces_total`` D x 52 (468) and
its weight and squares twins as many each, ``ragmon_segment_judge_verdict_weight_total``
D x 52 x 5 (2,340). Real traffic has far
fewer: the language has at most 17 values, the query shape, length, document age and agent 4
each.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric

_CALLS = (0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30)  # counts of an agent's calls and steps

# Buckets per input, chosen for RAG traffic (docs, "Segments and inputs").
INPUT_BUCKETS: dict[str, tuple[tuple[float, ...], str]] = {
    "passages": ((0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 50),
                 "Packed passages that reached the model."),
    "context_chars": ((0, 250, 500, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000),
                      "Characters of the packed context."),
    "query_chars": ((0, 10, 20, 30, 50, 80, 120, 200, 400, 1000), "Characters of the query."),
    "answer_chars": ((0, 20, 50, 100, 200, 400, 800, 1600, 3200, 6400),
                     "Characters of the answer."),
    "retrieved": ((0, 1, 2, 3, 5, 10, 20, 50, 100), "Candidates the retriever returned."),
    "top_score": ((0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 20, 50),
                  "The best retrieval score (cosine similarities in [0, 1]; BM25 and "
                  "reranker logits above)."),
    "score_gap": ((0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5),
                  "The best retrieval score minus the second best."),
    "doc_age_days": ((1, 7, 30, 90, 180, 365, 730, 1825),
                     "Median age of the packed documents at the trace's time, in seconds "
                     "(the evaluation line's inputs.doc_age_days, in days)."),
    # what the agent did (traces from spans; native records that carry ragmon.agent.*)
    "model_calls": (_CALLS, "Model calls in the trace."),
    "tool_calls": (_CALLS, "Tool calls in the trace (not a framework's answer tool)."),
    "retrieval_calls": (_CALLS, "Retrievals: retrieval spans, or tool results read as passages."),
    "agent_steps": (_CALLS, "Model calls that asked for a tool before the answer."),
    "tool_errors": (_CALLS, "Tool calls that failed."),
    "repeated_calls": (_CALLS, "Tool calls with the tool and arguments of an earlier call in "
                               "the trace (an agent's loop)."),
    "longest_repeat": ((0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100),
                       "The longest run of one tool call (tool and arguments) in a row."),
}  # fmt: skip

# An input measured in another unit than Prometheus's base unit: its histogram's name and the
# factor to it, applied when collected (bounds and sum), never per trace. The evaluation line
# keeps the input's own name and unit (days read better there).
BASE_UNITS: dict[str, tuple[str, float]] = {"doc_age_days": ("doc_age_seconds", 86_400.0)}


class FoldedCounts(Protocol):
    """What folds values into ``other``: its counts per dimension (the segmenter)."""

    @property
    def folded(self) -> Mapping[str, int]:
        """Values folded so far, per dimension."""
        ...


class FoldedCollector:
    """``ragmon_segment_values_folded_total{dimension}``, read from the segmenter's plain
    counts on every scrape (no metric increment on the hot path)."""

    def __init__(self, source: FoldedCounts) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        """The folded counts as they are now."""
        family = CounterMetricFamily(
            "ragmon_segment_values_folded",
            "Segment values folded into 'other' (segments.max_values reached), per dimension.",
            labels=["dimension"],
        )
        for dimension, n in self.source.folded.items():
            family.add_metric([dimension], n)
        yield family


class InputHistograms:
    """``ragmon_input_<name>`` histograms (``INPUT_BUCKETS``; ``BASE_UNITS`` renames and
    scales those of another unit), counted in plain integers and
    added a flush at a time: eight ``Histogram.observe`` calls per trace, each taking a lock,
    cost more than the segments themselves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bounds = {name: list(b) for name, (b, _) in INPUT_BUCKETS.items()}
        self._counts = {name: [0] * (len(b) + 1) for name, b in self._bounds.items()}
        self._sums = dict.fromkeys(INPUT_BUCKETS, 0.0)
        # each input's bounds and counts in one look-up (``observe`` runs per trace)
        self._table = {name: (self._bounds[name], self._counts[name]) for name in self._bounds}

    def observe(self, measured: Iterable[Mapping[str, float]]) -> None:
        """Add each trace's measured inputs (names outside ``INPUT_BUCKETS`` are ignored)."""
        table, sums, bucket = self._table, self._sums, bisect.bisect_left
        with self._lock:
            for inputs in measured:
                for name, value in inputs.items():
                    slot = table.get(name)
                    if slot is not None:
                        bounds, counts = slot
                        counts[bucket(bounds, value)] += 1
                        sums[name] += value

    def collect(self) -> Iterator[Metric]:
        """The histograms as they are now."""
        with self._lock:
            snapshot = {n: (list(c), self._sums[n]) for n, c in self._counts.items()}
        for name, (counts, total) in snapshot.items():
            metric, scale = BASE_UNITS.get(name, (name, 1.0))
            buckets, running = [], 0
            for bound, n in zip([*self._bounds[name], float("inf")], counts, strict=True):
                running += n
                le = "+Inf" if bound == float("inf") else f"{bound * scale:g}"
                buckets.append((le, running))
            yield HistogramMetricFamily(f"ragmon_input_{metric}", INPUT_BUCKETS[name][1],
                                        buckets=buckets, sum_value=total * scale)  # fmt: skip


class SegmentMetrics:
    """The per-segment counters and the input histograms."""

    def _define_segments(self, registry: CollectorRegistry) -> None:
        self.segment_traces = Counter(
            "ragmon_segment_traces", "Traces evaluated, per segment of each dimension.",
            ["dimension", "segment"], registry=registry,
        )  # fmt: skip
        self.segment_check_results = Counter(
            "ragmon_segment_check_results",
            "Check outcomes per segment of each dimension (one dimension per series).",
            ["dimension", "segment", "check", "result"], registry=registry,
        )  # fmt: skip
        # beside the counts, each trace as its adjusted count (upstream sampling) and its
        # square (the effective sample size), as for routes (monitor.telemetry.pipeline)
        self.segment_traces_weight = Counter(
            "ragmon_segment_traces_weight",
            "Traces evaluated per segment, each counted as its adjusted count (1 unsampled).",
            ["dimension", "segment"], registry=registry,
        )  # fmt: skip
        self.segment_traces_weight_squares = Counter(
            "ragmon_segment_traces_weight_squares",
            "Traces evaluated per segment, each counted as its adjusted count squared.",
            ["dimension", "segment"], registry=registry,
        )  # fmt: skip
        self.segment_check_results_weight = Counter(
            "ragmon_segment_check_results_weight",
            "Check outcomes per segment, each trace counted as its adjusted count (1/sample_rate "
            "of an upstream sampler; 1 when unsampled).",
            ["dimension", "segment", "check", "result"], registry=registry,
        )  # fmt: skip
        self.segment_judge_verdict_weight = Counter(
            "ragmon_segment_judge_verdict_weight",
            "Judged verdicts weighted by 1/p (unbiased population counts), per segment.",
            ["dimension", "segment", "verdict"], registry=registry,
        )  # fmt: skip
        self.inputs = InputHistograms()
        registry.register(self.inputs)
