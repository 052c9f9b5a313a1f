"""The replay summary's table."""

from __future__ import annotations

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.sources import demo
from sinks.summary import SummarySink


def test_a_check_with_no_applicable_trace_says_no_data_not_zero_percent() -> None:
    """A rate over no trace is no rate: "no data", not 0.00 % [0.00 %, 0.00 %]; checks that
    did apply keep their rate and interval."""
    suite = CheckSuite()
    sink = SummarySink(suite.names)
    sink.start()
    for i in range(20):
        trace = RagTrace.from_data(demo.generate(i))
        sink.write(Evaluation(trace=trace, checks=suite(trace)))
    sink.tallies["refusal"].applicable = sink.tallies["refusal"].flagged = 0  # none applied
    rows = {row.split()[0]: row for row in sink.table().splitlines() if row.strip()}
    assert rows["refusal"].split()[-2:] == ["no", "data"] and "%" not in rows["refusal"]
    assert "[" in rows["empty_context"] and "%" in rows["empty_context"]


def test_a_checks_declared_output_decides_its_row() -> None:
    """Every check declares what its result is (flag, score or both); the summary reports a
    score as a mean even where no trace was scored ("no data", never a 0 % rate). (Each
    check's declared metrics are proven on its own fixture: tests/unit/checks.)"""
    from monitor.checks import CHECK_TYPES

    assert {c.output for c in CHECK_TYPES} <= {"flag", "score", "both"}
    assert {c.name: c.output for c in CHECK_TYPES}["grounding_overlap"] == "score"
    suite = CheckSuite()
    sink = SummarySink(suite.names)
    sink.start()
    for i in range(60):
        trace = RagTrace.from_data(demo.generate(i))
        sink.write(Evaluation(trace=trace, checks=suite(trace)))
    sink.tallies["grounding_overlap"].scored = 0
    row = next(r for r in sink.table().splitlines() if r.startswith("grounding_overlap"))
    assert row.split()[-2:] == ["no", "data"]


def test_the_follow_ups_are_split_by_what_came_before() -> None:
    """The docs' headline is the rephrase rate after a refusal: the summary gives each kind
    of first answer its own line, with its pairs and its signals' shares."""
    from monitor.core.model import Followup, Turn

    sink = SummarySink(["refusal"])
    said = [("refusal", ("rephrase",)), ("refusal", ()), ("clean", ("positive_feedback",)),
            ("refusal", ("rephrase", "escalation"))]  # fmt: skip
    for i, (after, signals) in enumerate(said):
        a = Turn("s", f"a{i}", 0.0, "q", after)  # type: ignore[arg-type]
        sink.write_followup(Followup(a, Turn("s", f"b{i}", 60.0, "q", "clean"), signals))
    rows = sink.table().splitlines()
    start = next(i for i, r in enumerate(rows) if r.startswith("follow-ups:"))
    assert rows[start : start + 3] == [
        "follow-ups: 4 pairs of turns; escalation 1 (25.0%), positive_feedback 1 (25.0%), "
        "rephrase 2 (50.0%)",
        "  after refusal: 3 pairs of turns; escalation 1 (33.3%), rephrase 2 (66.7%)",
        "  after clean: 1 pair of turns; positive_feedback 1 (100.0%)",
    ]
