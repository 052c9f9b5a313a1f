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


def _judged(verdict: str, weight: float) -> Evaluation:
    from monitor.core.verdict import Verdict

    trace = RagTrace.from_data(demo.generate(0))
    made = Verdict(judge="heuristic", model="m", rubric_version="r", verdict=verdict,  # type: ignore[arg-type]
                   score=None, weight=weight, claims=[])  # fmt: skip
    return Evaluation(trace=trace, checks={}, judge=made)


def test_every_verdicts_share_has_an_interval_from_its_weights() -> None:
    """The judge's verdict table gives each share a 95 % interval as the checks' table does
    (before: a share alone), Wilson's at Kish's effective sample size: ten verdicts at weight
    1 and ten at weight 20 (a base-rate sample) are worth fewer than twenty; none of a
    verdict is 0 % with its bound, not '-'; not_applicable has no share."""
    sink = SummarySink([])
    sink.start()
    for i in range(20):
        sink.write(_judged("hard_fail" if i % 4 == 0 else "pass", 1.0 if i < 10 else 20.0))
    sink.write(_judged("not_applicable", 1.0))
    rows = {r.split()[0]: r for r in sink.table().splitlines() if r.strip()}
    assert "95% CI (Wilson, Kish n)" in rows["judge"]
    for verdict in ("pass", "fail", "hard_fail"):
        assert rows[verdict].count("[") == 1 and rows[verdict].endswith("]"), rows[verdict]
    assert "0.00%    [0.00%," in rows["fail"]
    lo, hi = (float(x.strip("[]%,")) for x in rows["hard_fail"].split()[-2:])
    # n_eff = 210^2 / 4010 = 11: wider than twenty equal weights' [10.4 %, 45.2 %]
    assert hi - lo > 40
    assert "[" not in rows["not_applicable"]
