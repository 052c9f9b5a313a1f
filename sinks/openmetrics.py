"""``OpenMetricsHistorySink``: evaluations of the past as an OpenMetrics file of counters, for
``promtool tsdb create-blocks-from openmetrics`` (the documented way to backfill Prometheus).

Each trace counts at its own time (``timestamp``), at the end of its ``step``:
``ragmon_traces_total{app, route, source="rescore"}`` and
``ragmon_check_results_total{app, route, check, result, evaluator, source="rescore"}``, the
live counters' names and labels plus the evaluator version and ``source``, so the re-scored
history sits beside the live series (and beside a re-scoring under another definition)
without colliding. A series has samples only about the steps that hold its traces: at the
end of each such step (its total so far), and at the end of the step before when that one
held none (the total before it, 0 before the first), so that ``rate()`` and ``increase()``
over two steps or more see every step's increase, as on a scraped counter, and the file
grows with the traces, never with the span of their times (a sample per series per step
from the first to the last time was 4.7 million lines for 1,024 traces over two months).
Between those steps the series is absent, as a counter of a process that was not running.
A trace without a time cannot be placed: it is counted in ``untimed`` and left out.

``flush`` rewrites the whole file (a temporary file renamed into place), so what was written
is on disk whenever a flush returned.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from monitor.core.model import Evaluation
from monitor.telemetry import LabelLimiter
from sinks import SinkBase

Labels = tuple[tuple[str, str], ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: Labels) -> str:
    return ",".join(f'{k}="{_escape(v)}"' for k, v in labels)


class OpenMetricsHistorySink(SinkBase):
    """Counters of re-scored evaluations per ``step_seconds``, written to ``path``."""

    name = "openmetrics_history"

    def __init__(
        self, path: Path, step_seconds: float = 60.0, routes: LabelLimiter | None = None,
        apps: LabelLimiter | None = None,
    ) -> None:  # fmt: skip
        if step_seconds <= 0:
            raise ValueError("step_seconds must be positive")
        self.path = path
        self.step = step_seconds
        self._routes = routes or LabelLimiter()
        self._apps = apps or LabelLimiter()
        # family -> series labels -> step index -> count in that step
        self._counts: dict[str, dict[Labels, dict[int, int]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(int))
        )
        self.untimed = 0

    def start(self) -> None:
        """The file's directory is created."""
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, evaluation: Evaluation) -> None:
        """Count the evaluation at its trace's time (a judge-only line is not a trace)."""
        self._check_open()
        if evaluation.judge_only:
            return
        stamp = evaluation.trace.timestamp
        if stamp is None:
            self.untimed += 1
            return
        at = int(stamp.timestamp() // self.step)
        app = self._apps(evaluation.trace.app)
        route = self._routes(evaluation.trace.route)
        where = (("app", app), ("route", route))
        self._counts["ragmon_traces"][(*where, ("source", "rescore"))][at] += 1
        for name, result in evaluation.checks.items():
            version = evaluation.evaluators.get(name, "unknown")
            series = (*where, ("check", name), ("result", result.outcome),
                      ("evaluator", version), ("source", "rescore"))  # fmt: skip
            self._counts["ragmon_check_results"][series][at] += 1

    def _samples(self) -> list[tuple[str, Labels, list[tuple[int, int]]]]:
        """Each series' samples: (family, labels, [(step index it ends, total)])."""
        out = []
        for family, series in sorted(self._counts.items()):
            for labels, per_step in sorted(series.items()):
                samples: list[tuple[int, int]] = []
                total, previous = 0, None
                for i in sorted(per_step):
                    if previous != i - 1:  # the step before held none: the total before it
                        samples.append((i - 1, total))
                    total += per_step[i]
                    samples.append((i, total))
                    previous = i
                out.append((family, labels, samples))
        return out

    def size(self) -> tuple[int, int, int]:
        """What the file holds now: samples, series, and the steps that hold traces."""
        samples = self._samples()
        steps = {i for family in self._counts.values() for s in family.values() for i in s}
        return sum(len(s) for _, _, s in samples), len(samples), len(steps)

    def _render(self) -> str:
        out = []
        family_now = None
        for family, labels, samples in self._samples():
            if family != family_now:
                out.append(f"# TYPE {family} counter")
                family_now = family
            for i, total in samples:
                at = (i + 1) * self.step  # a step's count is known at its end
                out.append(f"{family}_total{{{_labels(labels)}}} {total} {at:.3f}")
        out.append("# EOF")
        return "\n".join(out) + "\n"

    def flush(self) -> None:
        """Rewrite the file with everything counted so far."""
        self._check_open()
        self._write()

    def _write(self) -> None:
        scratch = self.path.with_name(f".{self.path.name}.tmp")
        with scratch.open("w", encoding="utf-8") as f:
            f.write(self._render())
            f.flush()
            os.fsync(f.fileno())
        scratch.replace(self.path)

    def close(self) -> None:
        """Write the file a last time."""
        if self._closing():
            self._write()
