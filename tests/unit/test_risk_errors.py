"""Computing a trace's risk that raises (a bug of ragmon's) is a counted error, as a check's:
the evaluation line carries ``risk_error`` and no ``risk``, ``ragmon_check_errors_total``
counts it under ``check="risk"``, the replay summary says it, the log says it once per
exception type, and the daemon goes on with the next trace (before, ``Pipeline._handle``
called the risk unguarded: one raise ended the daemon).

The fault is injected by replacing the risk's function with one that raises on some traces:
no text is known to make ``risk/7`` raise (``test_no_check_raises`` fuzzes it), and the guard
is for the one not found yet."""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec
import pytest
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

import monitor.checks
from monitor.checks import CheckResult, CheckSuite, TraceView
from monitor.checks.risk import risk as real_risk
from monitor.commands.cli import build_parser, runner
from monitor.core.log import CheckErrors
from monitor.core.model import Evaluation
from monitor.telemetry import Metrics
from sinks.prometheus import PrometheusSink
from sinks.store_record import Captured, capture, decode_hook, encode_hook, line_of
from sinks.summary import SummarySink
from tests.conftest import make_trace


def raising_on_sevens(checks: dict[str, CheckResult], view: TraceView) -> float:
    """The risk, except on an answer holding a 7, where it raises as a bug would."""
    if "7" in view.answer:
        raise KeyError(" 5")
    return real_risk(checks, view)


@pytest.fixture
def broken_risk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(monitor.checks, "trace_risk", raising_on_sevens)


def evaluated(answers: list[str]) -> list[Evaluation]:
    suite = CheckSuite(on_error=CheckErrors())
    out = []
    for answer in answers:
        trace = make_trace(answer, ["It takes 5 days."], app="a", route="r")
        view = suite.view(trace)
        checks = suite(trace, view)
        risk, risk_error = suite.risk(checks, view)
        out.append(Evaluation(trace, checks, risk=risk, risk_error=risk_error))
    return out


@pytest.mark.usefixtures("broken_risk")
def test_the_line_names_the_error_instead_of_a_risk() -> None:
    bad, good = evaluated(["It takes 7 days.", "It takes 5 days."])
    line = bad.to_line()
    assert "risk" not in line
    assert line["risk_error"] == "KeyError: ' 5'"
    assert line["checks"]["unsupported_numbers"]["flagged"]  # the checks' results are kept
    assert "risk_error" not in good.to_line() and 0 <= good.to_line()["risk"] <= 1


@pytest.mark.usefixtures("broken_risk")
def test_the_store_writer_makes_the_same_line() -> None:
    """The store's writer process makes the line of an unjudged evaluation from its members
    as it is sent them (``line_of``): the error must travel with them."""
    for evaluation in evaluated(["It takes 7 days.", "It takes 5 days."]):
        sent = msgspec.msgpack.encode(capture(evaluation, 0.0), enc_hook=encode_hook)
        taken = msgspec.msgpack.decode(sent, type=Captured, dec_hook=decode_hook)
        assert taken.members is not None  # the line is made by the writer
        assert line_of(taken) == evaluation.to_line()


@pytest.mark.usefixtures("broken_risk")
def test_it_is_counted_and_said_in_the_summary() -> None:
    metrics = Metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    summary = SummarySink(list(CheckSuite().names))
    for evaluation in evaluated(["It takes 7 days.", "Day 7.", "It takes 5 days."]):
        sink.write(evaluation)
        summary.write(evaluation)
    sink.flush()
    errors = {"check": "risk", "error": "KeyError"}
    assert metrics.registry.get_sample_value("ragmon_check_errors_total", errors) == 2
    # the histogram holds the one trace whose risk was computed
    assert metrics.registry.get_sample_value("ragmon_trace_risk_count", {}) == 1
    assert "risk 2 (KeyError)" in summary.table()


@pytest.mark.usefixtures("broken_risk")
def test_the_log_says_it_once_per_exception_type() -> None:
    with capture_logs() as logs:
        evaluated(["It takes 7 days.", "Day 7.", "7"])
    failed = [(e["check"], e["error"]) for e in logs if e["event"] == "check_failed"]
    assert failed == [("risk", "KeyError: ' 5'")]


@pytest.mark.usefixtures("broken_risk")
def test_a_replay_goes_on_past_a_raising_risk(tmp_path: Path) -> None:
    """The daemon's own pipeline (``ragmon replay`` is its path on a file): every trace's
    line is written, the raising ones with ``risk_error``; it used to end at the first."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    answers = ["It takes 5 days.", "It takes 7 days.", "About 5 days.", "Week 7.", "5 days."]
    src.write_text("".join(
        json.dumps({"trace_id": f"{i + 1:032x}", "query": "How long?", "answer": a,
                    "context": [{"doc_id": "d", "text": "It takes 5 days."}]}) + "\n"
        for i, a in enumerate(answers)
    ))  # fmt: skip
    args = build_parser().parse_args(["replay", "--progress", "never", str(src),
                                      "--output-jsonl", str(out)])  # fmt: skip
    summary, err = io.StringIO(), io.StringIO()
    assert runner(args.command)(args, summary, err) == 0, err.getvalue()
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [("risk" in x, x.get("risk_error")) for x in lines] == [
        (True, None), (False, "KeyError: ' 5'"), (True, None), (False, "KeyError: ' 5'"),
        (True, None),
    ]  # fmt: skip
    assert "risk 2 (KeyError)" in summary.getvalue()
