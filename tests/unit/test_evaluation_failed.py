"""A trace whose evaluation raises outside the checks' guard (a bug of ragmon's in the
segmenter, the trace's view, the shadow candidate or the line's making) is a dead letter
``evaluation_failed`` at its record, with the trace as its record's JSON, counted and logged
once per exception type, and the daemon goes on with the next trace. Before, the exception
left ``Pipeline._handle``: the daemon ended, and ended again on the same record after every
restart, since the record was never committed.

The checks' and the risk's own raises are caught inside the suite (``test_risk_errors.py``,
``test_no_check_raises``); no trace is known to make the segmenter or the view raise (the
segmenter is fuzzed in ``test_segmenter_fuzz.py``), so the fault is injected."""

from __future__ import annotations

import io
import json
import sys
import threading
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.checks import CheckSuite
from monitor.commands.cli import build_parser, runner
from monitor.core.model import RagTrace
from monitor.ingest.native import DEAD_LETTER_REASONS, NativeDecoder
from monitor.pipeline import Pipeline, evaluate
from monitor.segments import Segmenter
from monitor.sources import ListSource, SourcePosition, SourceRecord
from monitor.telemetry import Metrics
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink


def record(i: int, answer: str) -> bytes:
    context: list[dict[str, str]] = [{"doc_id": "d", "text": "It takes 5 days."}]
    trace = {"trace_id": f"{i + 1:032x}", "query": "How long?", "answer": answer,
             "context": context}  # fmt: skip
    return json.dumps(trace).encode()


ANSWERS = ["It takes 5 days.", "It takes 7 days.", "About 5 days.", "Week 7.", "5 days."]


@pytest.fixture
def broken_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's view of a trace raises, as a bug would, on an answer holding a 7."""
    real = CheckSuite.view

    def view(self: CheckSuite, trace: RagTrace):  # type: ignore[no-untyped-def]
        if "7" in trace.answer:
            raise KeyError(" 5")
        return real(self, trace)

    monkeypatch.setattr(CheckSuite, "view", view)


@pytest.mark.usefixtures("broken_view")
def test_the_daemon_dead_letters_the_trace_and_goes_on() -> None:
    source = ListSource([record(i, a) for i, a in enumerate(ANSWERS)], source="traces")
    metrics = Metrics(CollectorRegistry())
    sink = InMemorySink()
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [PrometheusSink(metrics), sink],
                        observer=metrics, batch_size=2, sleep=lambda _: None)  # fmt: skip
    pipeline.start()
    with capture_logs() as logs:
        stats = pipeline.run(threading.Event())
    pipeline.close()
    assert [e.trace.answer for e in sink.evaluations] == ["It takes 5 days.", "About 5 days.",
                                                          "5 days."]  # fmt: skip
    letters = sink.dead_letters
    assert [(d.reason, d.offset, d.source) for d in letters] == [
        ("evaluation_failed", 1, "traces"), ("evaluation_failed", 3, "traces")]  # fmt: skip
    assert letters[0].detail == "KeyError: ' 5'"
    assert "evaluation_failed" in DEAD_LETTER_REASONS
    # the trace itself, as a record the decoder reads back: replayable once the bug is fixed
    again = NativeDecoder()(SourceRecord(SourcePosition("dlq", 0, 0), letters[1].raw))
    assert isinstance(again, RagTrace) and again.answer == "Week 7."
    assert again.trace_id == f"{4:032x}"
    # every record is finished: committed past the last, nothing replays the bug again
    assert source.committed == {("traces", 0): 5}
    assert stats.traces == 3 and stats.dead_letters == 2
    get = metrics.registry.get_sample_value
    assert get("ragmon_dead_letters_total", {"reason": "evaluation_failed"}) == 2
    failed = [e for e in logs if e["event"] == "evaluation_failed"]
    assert len(failed) == 1 and failed[0]["trace_id"] == f"{2:032x}"  # once per type


@pytest.mark.usefixtures("broken_view")
def test_a_replay_names_the_bad_records_and_writes_the_rest(tmp_path: Path) -> None:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"".join(record(i, a) + b"\n" for i, a in enumerate(ANSWERS)))
    args = build_parser().parse_args(["replay", "--progress", "never", str(src),
                                      "--output-jsonl", str(out)])  # fmt: skip
    summary, err = io.StringIO(), io.StringIO()
    assert runner(args.command)(args, summary, err) == 0, err.getvalue()
    answers = [json.loads(x)["trace_id"] for x in out.read_text().splitlines()]
    assert answers == [f"{i:032x}" for i in (1, 3, 5)]
    said = err.getvalue()
    assert "line 2 (evaluation_failed): KeyError: ' 5'" in said
    assert "line 4 (evaluation_failed)" in said
    assert "bad records: 2" in summary.getvalue()


@pytest.mark.usefixtures("broken_view")
def test_check_says_it_and_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(record(0, "Day 7."))))
    args = build_parser().parse_args(["check"])
    out, err = io.StringIO(), io.StringIO()
    assert runner(args.command)(args, out, err) == 1
    assert out.getvalue() == ""
    assert "evaluating the trace failed, a bug of ragmon's" in err.getvalue()
    assert "KeyError: ' 5'" in err.getvalue()


def test_evaluate_is_what_the_daemon_writes() -> None:
    """The one evaluation both paths make: the same line as the pipeline's for a trace."""
    trace = NativeDecoder()(SourceRecord(SourcePosition("x", 0, 0), record(0, "It takes 7 days.")))
    assert isinstance(trace, RagTrace)
    sink = InMemorySink()
    pipeline = Pipeline(ListSource([record(0, "It takes 7 days.")]), NativeDecoder(),
                        CheckSuite(), [sink], sleep=lambda _: None)  # fmt: skip
    pipeline.start()
    pipeline.run(threading.Event())
    line = evaluate(trace, CheckSuite(), Segmenter()).to_line()
    daemon = sink.evaluations[0].to_line()
    assert line["checks"] == daemon["checks"] and line["risk"] == daemon["risk"]
    assert line["checks"]["unsupported_numbers"]["flagged"]
