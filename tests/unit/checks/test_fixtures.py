"""Every check proves its verdicts and its metrics on its own fixture (``tests/checks``), not
on the demo's traffic: a new check needs no new failure mode in the demo, and so rewrites
no stored verdict of the other checks."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from monitor.checks import CHECK_TYPES, CheckSuite, CheckType
from monitor.core.model import Evaluation, RagTrace
from monitor.telemetry import Metrics
from sinks.prometheus import PrometheusSink
from tests import checks as fixtures


def test_every_check_has_a_fixture_and_every_fixture_a_check() -> None:
    """A check left without a fixture, or a fixture whose check was renamed or removed, is
    found here (the table is where a check is named; the fixture must follow it)."""
    assert fixtures.names() == sorted(c.name for c in CHECK_TYPES)


@pytest.mark.parametrize("check", CHECK_TYPES, ids=lambda c: c.name)
def test_a_check_is_flagged_passes_and_exports_its_metrics_on_its_fixture(
    check: CheckType,
) -> None:
    suite = CheckSuite()
    registry = CollectorRegistry()
    sink = PrometheusSink(Metrics(registry))
    sink.start()
    results = []
    for raw in fixtures.records(check.name):
        trace = RagTrace.from_json(raw)
        evaluation = Evaluation(trace=trace, checks=suite(trace))
        results.append(evaluation.checks[check.name])
        sink.write(evaluation)
    sink.flush()
    if check.output == "score":
        assert any(r.score is not None for r in results), "never scored on its fixture"
    else:
        assert any(r.flagged for r in results), "never flagged on its fixture"
        assert any(r.applicable and not r.flagged for r in results), "never passes on it"
    samples = [s for family in registry.collect() for s in family.samples]
    for measure in check.measures:  # each declared measure was exported with values
        name = measure.metric.removesuffix("_total")
        wanted = f"{name}_count" if measure.kind == "histogram" else f"{name}_total"
        assert sum(s.value for s in samples if s.name == wanted) > 0, measure.metric
    # the outcome counter: the fixture's flags reached /metrics under the check's name
    if check.output != "score":
        flagged = [s for s in samples if s.name == "ragmon_check_results_total"
                   and s.labels["check"] == check.name and s.labels["result"] == "flagged"]  # fmt: skip
        assert sum(s.value for s in flagged) > 0
