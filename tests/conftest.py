"""Shared factories for tests."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import pytest

from monitor.checks import TraceView
from monitor.core.model import RagTrace

_ids = itertools.count(1)


def make_trace(
    answer: str = "",
    context: list[str] | None = None,
    query: str = "",
    **extra: Any,
) -> RagTrace:
    """A valid trace with the given answer, passages (doc ids d1, d2, ...) and query."""
    passages = [
        {"doc_id": f"d{i}", "chunk_id": f"d{i}#0", "text": t}
        for i, t in enumerate(context or [], 1)
    ]
    data: dict[str, Any] = {
        "trace_id": f"{next(_ids):032x}",
        "query": query,
        "context": passages,
        "answer": answer,
    }
    data.update(extra)
    return RagTrace.from_data(data)


def view(answer: str = "", context: list[str] | None = None, query: str = "") -> TraceView:
    return TraceView(make_trace(answer, context, query))


def ends_in_time(code: str, seconds: float = 60) -> bool:
    """Whether Python ``code`` run in a child process ends well within ``seconds``: a test of
    a pattern or loop that once hung fails on a regression instead of hanging the tier."""
    try:
        done = subprocess.run([sys.executable, "-c", code], timeout=seconds, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


@pytest.fixture
def trace_factory() -> Any:
    return make_trace


def run_daemon_pipeline(settings: Any, traces: int) -> tuple[Any, Any, Any]:
    """The pipeline ``ragmon run`` builds from ``settings``, run over ``traces`` demo traces
    to the end: (metrics, an in-memory sink holding the evaluations, the pipeline)."""
    import threading

    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.sources import ListSource, demo
    from sinks.memory import InMemorySink

    metrics = registry.build_metrics(CollectorRegistry())
    sink = InMemorySink()
    pipeline = registry.build_pipeline(
        settings, metrics, source=ListSource([demo.generate_bytes(i) for i in range(traces)]),
        extra_sinks=[sink],
    )  # fmt: skip
    pipeline.start()
    pipeline.run(threading.Event())
    pipeline.close()
    return metrics, sink, pipeline
