"""Golden probes scored in the daemon: a trace that carries a ``golden_id`` is joined to the
published golden set and scored.

For each probe: retrieval metrics (recall, nDCG, MRR; trec_eval's definitions, as in
``ragmon eval-retrieval``) at the retriever's depth (``retrieved``) and at the packed-context
depth (``context``), and the stage that lost the answer:

* ``retrieval_miss``: no gold document was retrieved;
* ``packing_miss``: a gold document was retrieved but none reached the prompt;
* ``generation_miss``: a gold document was in the context, yet the answer refused, the judge
  failed it, or figures of the reference answer are missing from it;
* ``ok``;
* for a probe whose expected behaviour is to refuse: ``abstained`` (right) or ``answered``.

The golden set is a version file from ``ragmon golden publish`` or their directory (the
newest version is used, and a newer one is picked up while running); its version is a label.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Summary

from monitor import review
from monitor.errors import ConfigError
from monitor.model import DeadLetter, Evaluation
from monitor.retrieval import score_query
from monitor.telemetry import LabelLimiter
from sinks import Closable

STAGES = (
    "ok", "retrieval_miss", "packing_miss", "generation_miss", "abstained", "answered",
    "unknown_golden_id",
)  # fmt: skip
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class LoadedSet:
    version: str  # "v0003"
    items: dict[str, dict[str, Any]]
    path: Path


def load_set(path: Path) -> LoadedSet:
    """A version file, or the newest version in a directory of them."""
    if path.is_dir():
        found = review.versions(path)
        if not found:
            raise review.ReviewError(f"no golden-set version (golden-vNNNN-*.jsonl) in {path}")
        path = found[-1].path
    items = {str(i["id"]): i for i in review.load_version(path)}
    m = re.match(r"golden-(v\d+)-", path.name)
    return LoadedSet(m.group(1) if m else path.stem, items, path)


def stage_of(item: dict[str, Any], evaluation: Evaluation) -> str:
    trace = evaluation.trace
    refused = bool((c := evaluation.checks.get("refusal")) and c.flagged)
    if item.get("expected") == "refuse":
        return "abstained" if refused else "answered"
    gold = {str(d["id"]) for d in item.get("gold_docs") or [] if int(d["grade"]) >= 1}
    retrieved = {d.doc_id for d in trace.retrieved}
    packed = {p.doc_id for p in trace.context if p.doc_id}
    if gold and not gold & (retrieved | packed):
        return "retrieval_miss"
    if gold and not gold & packed:
        return "packing_miss"
    judged_bad = evaluation.judge is not None and evaluation.judge.verdict in ("fail", "hard_fail")
    missing = set(_FIGURE.findall(item.get("reference") or "")) - set(_FIGURE.findall(trace.answer))
    return "generation_miss" if refused or judged_bad or missing else "ok"


def retrieval_scores(item: dict[str, Any], evaluation: Evaluation) -> dict[tuple[str, str], float]:
    """{(metric, depth): value} at the retriever's and at the packed context's depth; empty
    when the probe has no graded gold document."""
    grades = {str(d["id"]): int(d["grade"]) for d in item.get("gold_docs") or []}
    if not any(g >= 1 for g in grades.values()):
        return {}
    trace = evaluation.trace
    ranked = sorted(trace.retrieved, key=lambda d: (d.rank is None, d.rank or 0))
    depths = {
        "retrieved": list(dict.fromkeys(d.doc_id for d in ranked)),
        "context": list(dict.fromkeys(p.doc_id for p in trace.context if p.doc_id)),
    }
    out = {}
    for depth, docs in depths.items():
        k = max(len(docs), 1)
        s = score_query(docs, grades, [k])
        out.update(
            {("recall", depth): s.recall[k], ("ndcg", depth): s.ndcg[k], ("mrr", depth): s.mrr}
        )
    return out


class ProbeSink(Closable):
    """Scores golden probes (traces with a golden_id) into Prometheus metrics."""

    name = "probe_scores"

    def __init__(
        self,
        path: Path,
        registry: CollectorRegistry,
        routes: LabelLimiter,
        reload_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self._routes = routes
        self._reload = reload_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self.golden: LoadedSet | None = None
        self._checked = 0.0
        labels = ["golden_version", "route", "category", "stage"]
        self.traces = Counter(
            "ragmon_probe_traces",
            "Golden probes scored, by the stage that lost the answer (ok when none).",
            labels,
            registry=registry,
        )
        rlabels = ["golden_version", "route", "metric", "depth"]
        self.scores = Summary(
            "ragmon_probe_retrieval",
            "Retrieval metric of each golden probe (recall, ndcg, mrr) at the retriever's "
            "depth (retrieved) and at the packed context's (context).",
            rlabels,
            registry=registry,
        )
        self.squares = Counter(
            "ragmon_probe_retrieval_squares",
            "Sum of squared probe metric values (for the interval of the mean).",
            rlabels,
            registry=registry,
        )

    def start(self) -> None:
        try:
            self.golden = load_set(self.path)
        except (OSError, ValueError, review.ReviewError) as exc:
            raise ConfigError(f"golden.set_path: cannot read the golden set: {exc}") from exc
        self._checked = self._clock()

    def _maybe_reload(self) -> None:
        now = self._clock()
        if now - self._checked < self._reload:
            return
        self._checked = now
        try:
            fresh = load_set(self.path)
        except (OSError, ValueError, review.ReviewError):
            return  # keep scoring against the set loaded before
        self.golden = fresh

    def write(self, evaluation: Evaluation) -> None:
        self._check_open()
        gid = evaluation.trace.golden_id
        if not gid:
            return
        with self._lock:
            self._maybe_reload()
            golden = self.golden
        assert golden is not None
        route = self._routes(evaluation.trace.route)
        item = golden.items.get(gid)
        if item is None:
            self.traces.labels(golden.version, route, "unknown", "unknown_golden_id").inc()
            return
        category = str(item.get("category") or "none")
        if category not in review.TRAP_CATEGORIES:
            category = "none"
        self.traces.labels(golden.version, route, category, stage_of(item, evaluation)).inc()
        for (metric, depth), value in retrieval_scores(item, evaluation).items():
            self.scores.labels(golden.version, route, metric, depth).observe(value)
            self.squares.labels(golden.version, route, metric, depth).inc(value * value)

    def write_dead_letter(self, letter: DeadLetter) -> None:
        self._check_open()

    def flush(self) -> None:
        self._check_open()

    def close(self) -> None:
        self._closing()
