"""The contract every sink keeps (see ``sinks/__init__.py``): start, take evaluations and
dead letters, have them delivered by ``flush``, close twice without harm, refuse any
write or flush after ``close``, and, when it writes trace text out of the process (lines,
rows, events), write none of its PII when built with the output's redactor.
The Kafka dead-letter sink runs the same contract against
the real broker in ``tests/integration/test_kafka_contract.py``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
from prometheus_client import CollectorRegistry

from monitor.checks import CheckSuite
from monitor.core.errors import SinkClosed
from monitor.core.model import (
    DeadLetter,
    Evaluation,
    Followup,
    RagTrace,
    SessionOutcome,
    SessionTurn,
    Turn,
)
from monitor.core.pii import Redactor
from monitor.sources import demo
from monitor.telemetry import Metrics
from sinks import Sink, SinkBase
from sinks.golden import GoldenRowSink, load_rows
from sinks.jsonl import JsonlSink
from sinks.memory import InMemorySink
from sinks.otel import OtelEventSink
from sinks.prometheus import PrometheusSink
from sinks.summary import SummarySink

N = 12


def evaluations() -> list[Evaluation]:
    suite = CheckSuite()
    out = []
    for i in range(N):
        trace = RagTrace.from_data(demo.generate(i))
        out.append(Evaluation(trace=trace, checks=suite(trace)))
    assert any(e.flagged for e in out)  # golden rows need flagged traces
    return out


LETTER = DeadLetter(reason="invalid_json", detail="line 1", source="t", partition=0, offset=3,
                    raw=b"{nope")  # fmt: skip


FOLLOWUP = Followup(
    Turn("s1", "a" * 32, 1.0, "how much?", "refusal"),
    Turn("s1", "b" * 32, 2.0, "human pls", "clean"),
    ("escalation",),
)
SESSION = SessionOutcome("s1", "abandoned", "idle", 2, 0, 1.0, None, "en", "a" * 32, (
    SessionTurn("a" * 32, "how much?", "refusal", True, (), 1.0),
    SessionTurn("b" * 32, "that's wrong", "clean", False, ("negative_feedback",), 2.0),
))  # fmt: skip


@dataclass
class Case:
    """A sink and how to see, from outside, how many evaluations it delivered, and
    ``written``: all it wrote out of this process, as text (None: it writes no trace text
    anywhere, only counts or in-process objects)."""

    sink: Sink
    delivered: Callable[[], int]
    written: Callable[[], str] | None = None


def prometheus(tmp_path: Path) -> Case:
    metrics = Metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)

    def delivered() -> int:
        value = 0.0
        for family in metrics.registry.collect():
            if family.name == "ragmon_traces":
                value += sum(s.value for s in family.samples if s.name == "ragmon_traces_total")
        return int(value)

    return Case(sink, delivered)


def jsonl_file(tmp_path: Path) -> Case:
    path = tmp_path / "out" / "evaluations.jsonl"
    dead = tmp_path / "dead.jsonl"
    sink = JsonlSink(path, dead, redactor=Redactor())
    return Case(sink, lambda: len(_evaluation_lines(path.read_text())) if path.exists() else 0,
                lambda: _texts(path, dead))  # fmt: skip


def jsonl_stream(tmp_path: Path) -> Case:
    stream = io.StringIO()
    sink = JsonlSink(stream=stream, redactor=Redactor())
    return Case(sink, lambda: len(_evaluation_lines(stream.getvalue())), stream.getvalue)


def _evaluation_lines(text: str) -> list[dict[str, object]]:
    """The evaluation lines among the lines (a follow-up line has no checks)."""
    lines = [json.loads(x) for x in text.splitlines()]
    assert sum(1 for x in lines if "followup" in x) <= 1
    return [x for x in lines if "checks" in x]


def golden(tmp_path: Path) -> Case:
    sink = GoldenRowSink(tmp_path / "golden")

    def delivered() -> int:
        rows = load_rows(tmp_path / "golden") if (tmp_path / "golden").is_dir() else {}
        return sum(r["ragmon"]["count"] for r in rows.values())

    return Case(sink, delivered, lambda: _texts(*(tmp_path / "golden").rglob("*")))


def memory(tmp_path: Path) -> Case:
    sink = InMemorySink()
    return Case(sink, lambda: len(sink.evaluations))


def summary(tmp_path: Path) -> Case:
    sink = SummarySink(CheckSuite().names)
    return Case(sink, lambda: sink.traces)


def tap(tmp_path: Path) -> Case:
    from monitor.judge.config import JudgeConfig
    from monitor.judge.estimate import JudgeEstimate
    from sinks.tap import TapSink

    estimate = JudgeEstimate(JudgeConfig(), 1.0, 1.0)  # every trace: what it was handed
    return Case(TapSink(estimate), lambda: estimate.traces)


def otel(tmp_path: Path) -> Case:
    exporter = InMemoryLogRecordExporter()
    sink = OtelEventSink("http://127.0.0.1:9/v1/logs", exporter=exporter, include_passed=False,
                         redactor=Redactor())  # fmt: skip

    def delivered() -> int:
        sink.force_flush()
        return len({r.log_record.trace_id for r in exporter.get_finished_logs()})

    def written() -> str:
        sink.force_flush()
        return "\n".join(str(r.log_record.attributes) + str(r.log_record.body)
                         for r in exporter.get_finished_logs())  # fmt: skip

    return Case(sink, delivered, written)


def probes(tmp_path: Path) -> Case:
    from monitor.golden import review
    from monitor.telemetry import LabelLimiter
    from sinks.probes import ProbeSink

    item = {"schema": "ragmon.golden/v1", "id": "g-1", "query": "q", "reference": "r",
            "gold_docs": [{"id": "refund-policy-v3", "grade": 2}], "gold_passages": [],
            "category": "answerable", "expected": "answer"}  # fmt: skip
    review.publish([item], tmp_path / "set")
    registry = CollectorRegistry()
    sink = ProbeSink(tmp_path / "set", registry, LabelLimiter())

    def delivered() -> int:  # probes scored, known golden id or not
        return int(sum(s.value for f in registry.collect() if f.name == "ragmon_probe_traces"
                       for s in f.samples if s.name == "ragmon_probe_traces_total"))  # fmt: skip

    return Case(sink, delivered)


def openmetrics(tmp_path: Path) -> Case:
    from sinks.openmetrics import OpenMetricsHistorySink

    path = tmp_path / "history.om"
    sink = OpenMetricsHistorySink(path)

    def delivered() -> int:  # the last value of each traces series, summed
        if not path.exists():
            return 0
        last: dict[str, float] = {}
        for line in path.read_text().splitlines():
            if line.startswith("ragmon_traces_total"):
                series, value, _ = line.rsplit(" ", 2)
                last[series] = float(value)
        return int(sum(last.values()))

    return Case(sink, delivered, lambda: _texts(path))


def store(tmp_path: Path) -> Case:
    import sqlite3

    from sinks.store import StoreSink

    path = tmp_path / "store" / "evaluations.db"
    sink = StoreSink(path, Redactor())

    def delivered() -> int:  # read by another connection: what was committed
        if not path.exists():
            return 0
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT count(*) FROM evaluations").fetchone()[0])

    def written() -> str:  # every table, as SQL text
        with sqlite3.connect(path) as db:
            return "\n".join(db.iterdump())

    return Case(sink, delivered, written)


def _texts(*paths: Path) -> str:
    """The text of the files among ``paths`` (those that exist)."""
    return "\n".join(p.read_text(errors="replace") for p in paths if p.is_file())


SINKS = [prometheus, jsonl_file, jsonl_stream, golden, memory, summary, otel, probes, openmetrics,
         store, tap]  # fmt: skip


def expected(name: str, evs: list[Evaluation]) -> int:
    """What each sink delivers of the batch: rows only for flagged traces, events only for
    traces with a flagged applicable check (include_passed off)."""
    if name == "golden":
        return sum(1 for e in evs if e.flagged)
    if name == "otel":
        return sum(1 for e in evs if any(r.flagged and r.applicable for r in e.checks.values()))
    if name == "probes":
        return sum(1 for e in evs if e.trace.golden_id)
    return len(evs)


@pytest.mark.parametrize("thread", ["writer", "another"])
@pytest.mark.parametrize("make", SINKS, ids=lambda f: f.__name__)
def test_written_evaluations_are_delivered_by_flush(
    make: Callable[[Path], Case], tmp_path: Path, thread: str
) -> None:
    """Also when the flush runs on another thread than the writes (the rebalance handler
    flushes on the consumer's IO thread; the pipeline's lock keeps the calls apart)."""
    import threading

    case = make(tmp_path)
    evs = evaluations()
    case.sink.start()
    for e in evs:
        case.sink.write(e)
    case.sink.write_dead_letter(LETTER)
    case.sink.write_followup(FOLLOWUP)  # taken by every sink, whatever it does with it
    case.sink.write_session(SESSION)  # likewise a closed session's outcome
    if thread == "writer":
        case.sink.flush()
    else:
        failed: list[BaseException] = []

        def flush() -> None:
            try:
                case.sink.flush()
            except BaseException as exc:
                failed.append(exc)

        other = threading.Thread(target=flush)
        other.start()
        other.join()
        assert failed == []
    want = expected(make.__name__, evs)
    assert want > 0
    got = case.delivered()
    if make.__name__ == "golden":  # a row counts each occurrence of its finding
        assert got >= want
    else:
        assert got == want
    case.sink.close()


@pytest.mark.parametrize("make", SINKS, ids=lambda f: f.__name__)
def test_close_is_idempotent_and_nothing_is_accepted_after_it(make: Callable[[Path], Case],
                                                              tmp_path: Path) -> None:  # fmt: skip
    case = make(tmp_path)
    evs = evaluations()
    case.sink.start()
    case.sink.write(evs[0])
    case.sink.close()
    case.sink.close()
    with pytest.raises(SinkClosed):
        case.sink.flush()
    with pytest.raises(SinkClosed):
        case.sink.write(evs[1])
    with pytest.raises(SinkClosed):
        case.sink.write_dead_letter(LETTER)
    with pytest.raises(SinkClosed):
        case.sink.write_followup(FOLLOWUP)
    with pytest.raises(SinkClosed):
        case.sink.write_session(SESSION)


def test_a_followup_is_a_line_among_the_evaluation_lines(tmp_path: Path) -> None:
    stream = io.StringIO()
    sink = JsonlSink(stream=stream)
    sink.start()
    sink.write_followup(FOLLOWUP)
    sink.flush()
    assert json.loads(stream.getvalue()) == FOLLOWUP.to_line()
    assert "human pls" not in stream.getvalue()  # ids and signals: no text of the turns


def test_closing_delivers_what_was_written_since_the_last_flush(tmp_path: Path) -> None:
    """A sink that buffers (the Prometheus counts) hands everything over on close."""
    case = prometheus(tmp_path)
    case.sink.start()
    for e in evaluations():
        case.sink.write(e)
    assert case.delivered() == 0  # counted, not yet added
    case.sink.close()
    assert case.delivered() == N


def test_every_sink_of_the_registry_keeps_this_contract(tmp_path: Path) -> None:
    """A sink added to the registry's table without a case here fails this test (the Kafka
    dead-letter sink keeps it against the real broker: tests/integration)."""
    from monitor import registry

    covered = {make(tmp_path / make.__name__).sink.name for make in SINKS}
    assert {row.name for row in registry.SINKS} - covered == {"kafka_dead_letters"}


# A trace whose question and answer carry PII, the answer's phone number quoted as an
# unsupported figure in the evaluation line's evidence.
PII = ("jane.doe@example.com", "+1 415 555 0132", "4111 1111 1111 1111")


def _with_pii() -> Evaluation:
    data = demo.generate(1)
    data["query"] = f"My card {PII[2]} was charged twice, mail me at {PII[0]}"
    data["answer"] = f"Card {PII[2]} gets 437 dollars back; call {PII[1]} or {PII[0]}."
    trace = RagTrace.from_data(data)
    evaluation = Evaluation(trace=trace, checks=CheckSuite()(trace))
    assert PII[1] in json.dumps(evaluation.to_line())  # quoted: the check is not vacuous
    return evaluation


def redacts(case: Case) -> None:
    """The rule for a sink that writes trace text out of the process: built with the
    output's redactor (``output.redact_pii``), it writes none of the trace's PII."""
    assert case.written is not None
    case.sink.start()
    case.sink.write(_with_pii())
    case.sink.flush()
    text = case.written()
    case.sink.close()
    leaked = [item for item in PII if item in text]
    assert not leaked, f"{case.sink.name} wrote PII unredacted: {leaked}"


@pytest.mark.parametrize("make", SINKS, ids=lambda f: f.__name__)
def test_a_sink_that_writes_trace_text_redacts_its_pii(make: Callable[[Path], Case],
                                                       tmp_path: Path) -> None:  # fmt: skip
    case = make(tmp_path)
    if case.written is None:
        pytest.skip("writes no trace text out of the process")
    redacts(case)


class _PlainLines(SinkBase):
    """A line sink that forgets to redact: what the rule is there to catch."""

    name = "plain_lines"

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def write(self, evaluation: Evaluation) -> None:
        self._check_open()
        self.stream.write(json.dumps(evaluation.to_line()) + "\n")


def test_the_redaction_rule_fails_a_line_sink_that_does_not_redact() -> None:
    stream = io.StringIO()
    with pytest.raises(AssertionError, match="wrote PII unredacted"):
        redacts(Case(_PlainLines(stream), lambda: 0, stream.getvalue))


def test_a_new_sink_is_write_and_what_it_needs() -> None:
    """``SinkBase`` defaults the rest: the planted sink, with ``write`` alone, keeps the
    contract's lifecycle (every call taken, nothing after ``close``)."""
    stream = io.StringIO()
    sink = _PlainLines(stream)
    sink.start()
    sink.write(evaluations()[0])
    sink.write_dead_letter(LETTER)
    sink.write_followup(FOLLOWUP)
    sink.write_session(SESSION)
    sink.flush()
    sink.close()
    sink.close()
    assert len(stream.getvalue().splitlines()) == 1
    for call in (sink.flush, lambda: sink.write_dead_letter(LETTER)):
        with pytest.raises(SinkClosed):
            call()
