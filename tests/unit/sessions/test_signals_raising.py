"""Reading a pair's signals raises (a bug of ragmon's, over any user text): the pair still
gets its line, with the error and no claim of "no signal", it is counted as a check that
raised, said once per exception type, and the daemon goes on (raised on, the session stage
would stop it, and every restart on the same turns)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.core.model import FOLLOWUP_READER, Followup, Turn
from monitor.sessions.join import Sessions
from monitor.telemetry import Metrics
from sinks.prometheus import PrometheusSink
from sinks.summary import SummarySink


def turn(tid: str, at: float, query: str, sid: str = "s1") -> Turn:
    return Turn(sid, tid, at, query, "clean")


def raising_on(word: str) -> object:
    def read(a: str, b: str) -> list[str]:
        if word in b:
            raise ValueError(f"cannot read {b!r}")
        return ["rephrase"]

    return read


def test_a_reading_that_raises_gives_the_pair_its_line_with_the_error() -> None:
    seen: list[str] = []
    s = Sessions(1800.0, 60.0, 1 << 20, observe=seen.append, reader=raising_on("boom"))  # type: ignore[arg-type]
    s.add(turn("a", 100, "how much is pro?"), arrived=0)
    s.add(turn("b", 200, "boom secret text"), arrived=1)
    s.add(turn("c", 300, "boom again"), arrived=2)
    s.add(turn("d", 400, "and the team plan?"), arrived=3)
    with capture_logs() as logs:
        released = [r.followup for r in s.due(lambda p: 100) if r.followup is not None]
    assert [(f.turn.trace_id, f.signals, f.error) for f in released] == [
        ("a", (), "ValueError"),
        ("b", (), "ValueError"),
        ("c", ("rephrase",), None),
    ]
    assert seen == ["paired"] * 3
    said = [e for e in logs if e["event"] == "followup_signals_raised"]
    assert len(said) == 1  # once per exception type
    assert said[0]["error"] == "ValueError" and said[0]["at"].startswith("test_signals_raising")
    assert "secret" not in repr(said)  # where in the code, never the turns' text
    line = released[0].to_line()
    assert line["followup"]["error"] == "ValueError" and line["followup"]["signals"] == []
    assert "error" not in released[2].to_line()["followup"]


def test_the_error_is_counted_as_a_check_that_raised_and_no_signal_is_counted() -> None:
    a, b = turn("a", 100, "q"), turn("b", 200, "q")
    unread = Followup(a, b, (), error="KeyError")
    metrics = Metrics(CollectorRegistry())
    sink = PrometheusSink(metrics)
    sink.start()
    sink.write_followup(unread)
    sink.write_followup(Followup(a, b, ("escalation",)))
    sink.flush()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in metrics.registry.collect()
        for s in family.samples
    }
    raised = ("ragmon_check_errors_total", (("check", FOLLOWUP_READER), ("error", "KeyError")))
    assert samples[raised] == 1
    followups = {k: v for k, v in samples.items() if k[0] == "ragmon_followups_total" and v}
    assert [dict(k[1])["signal"] for k in followups] == ["escalation"]
    summary = SummarySink(["refusal"])
    summary.start()
    summary.write_followup(unread)
    assert summary.check_errors == {(FOLLOWUP_READER, "KeyError"): 1}
    assert "followup_signals 1 (KeyError)" in summary.table()
