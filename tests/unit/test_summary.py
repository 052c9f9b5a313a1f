"""The replay summary's table."""

from __future__ import annotations

from monitor.checks import CheckSuite
from monitor.model import Evaluation, RagTrace
from monitor.sources import demo
from sinks.summary import SummarySink


def test_a_check_with_no_applicable_trace_says_no_data_not_zero_percent() -> None:
    """A rate over no trace is no rate: "no data", not 0.00 % [0.00 %, 0.00 %]; checks that
    did apply keep their rate and interval."""
    suite = CheckSuite()
    sink = SummarySink(suite.names)
    sink.start()
    for i in range(20):
        trace = RagTrace.model_validate(demo.generate(i))
        sink.write(Evaluation(trace=trace, checks=suite(trace)))
    sink.tallies["refusal"].applicable = sink.tallies["refusal"].flagged = 0  # none applied
    rows = {row.split()[0]: row for row in sink.table().splitlines() if row.strip()}
    assert rows["refusal"].split()[-2:] == ["no", "data"] and "%" not in rows["refusal"]
    assert "[" in rows["empty_context"] and "%" in rows["empty_context"]
