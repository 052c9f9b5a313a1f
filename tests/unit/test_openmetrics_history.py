"""The re-scored history as OpenMetrics: samples about the steps that hold traces only, and
what ``rate()`` needs of them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prometheus_client.openmetrics.parser import text_string_to_metric_families

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.sources import demo
from sinks.openmetrics import OpenMetricsHistorySink

DAY = 86_400.0


def _evaluated(at: list[float]) -> list[Evaluation]:
    """Demo traces (one app and route) stamped at ``at`` (Unix seconds)."""
    suite, out = CheckSuite(), []
    for i, t in enumerate(at):
        data = dict(demo.generate(0)) | {"trace_id": f"{i + 1:032x}"}
        data["timestamp"] = datetime.fromtimestamp(t, UTC).isoformat()
        trace = RagTrace.from_data(data)
        out.append(Evaluation(trace=trace, checks=suite(trace)))
    return out


def _series(path: Path, family: str) -> list[tuple[float, float]]:
    """(time, value) of the one ``family`` series of the file, read by the OpenMetrics parser
    (which refuses a file Prometheus's backfill would refuse: out of order, no EOF)."""
    found = [
        (s.timestamp, s.value)
        for f in text_string_to_metric_families(path.read_text())
        for s in f.samples
        if s.name == family
    ]
    return [(float(t), v) for t, v in found]


def test_two_months_of_sparse_traces_write_a_few_samples_a_series(tmp_path: Path) -> None:
    """Two traces in one minute, one in the next minute, one two months later: each series
    has samples at those steps and the steps before them only (it had one every minute of
    the two months: 86,400 a series), and every increase shows between two samples."""
    start = 1_700_000_040.0  # the start of a minute
    evs = _evaluated([start + 1, start + 2, start + 61, start + 60 * DAY + 5])
    path = tmp_path / "history.om"
    sink = OpenMetricsHistorySink(path, step_seconds=60)
    sink.start()
    for ev in evs:
        sink.write(ev)
    sink.close()
    text = path.read_text()
    lines = [x for x in text.splitlines() if not x.startswith("#")]
    named = {(s.name, tuple(sorted(s.labels.items())))
             for f in text_string_to_metric_families(text) for s in f.samples}  # fmt: skip
    print(f"\n{len(lines)} samples of {len(named)} series")
    assert len(lines) <= 2 * len(named) * 3  # three steps hold traces
    assert _series(path, "ragmon_traces_total") == [
        (start, 0.0),  # the step before the first: 0, so its increase is seen
        (start + 60, 2.0),
        (start + 120, 3.0),
        (start + 60 * DAY, 3.0),  # the step before, which held none
        (start + 60 * DAY + 60, 4.0),
    ]
    assert sink.size() == (len(lines), len(named), 3)


def test_the_size_is_known_before_the_file_is_written(tmp_path: Path) -> None:
    """``size`` counts what ``flush`` writes, without writing it."""
    sink = OpenMetricsHistorySink(tmp_path / "h.om", step_seconds=60)
    sink.start()
    for ev in _evaluated([0.0, 30.0, 600.0, 660.0]):
        sink.write(ev)
    samples, series, steps = sink.size()
    assert not (tmp_path / "h.om").exists()
    sink.flush()
    written = [x for x in (tmp_path / "h.om").read_text().splitlines() if not x.startswith("#")]
    assert (len(written), steps) == (samples, 3)
    text = (tmp_path / "h.om").read_text()
    named = {(s.name, tuple(sorted(s.labels.items())))
             for f in text_string_to_metric_families(text) for s in f.samples}  # fmt: skip
    assert series == len(named)
