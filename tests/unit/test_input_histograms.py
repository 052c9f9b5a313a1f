"""The measured inputs' histograms, in Prometheus's base units."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor.telemetry.segments import InputHistograms


def test_the_document_age_is_exposed_in_seconds() -> None:
    """The evaluation line's ``doc_age_days`` (10 days) is the histogram
    ``ragmon_input_doc_age_seconds``: its sum and bounds in seconds."""
    histograms = InputHistograms()
    histograms.observe([{"doc_age_days": 10.0, "passages": 3.0}])
    reg = CollectorRegistry()
    reg.register(histograms)
    assert reg.get_sample_value("ragmon_input_doc_age_seconds_sum") == 864_000.0
    week, month = {"le": "604800"}, {"le": "2.592e+06"}  # 7 and 30 days
    assert reg.get_sample_value("ragmon_input_doc_age_seconds_bucket", week) == 0.0
    assert reg.get_sample_value("ragmon_input_doc_age_seconds_bucket", month) == 1.0
    assert reg.get_sample_value("ragmon_input_doc_age_days_sum") is None
    assert reg.get_sample_value("ragmon_input_passages_sum") == 3.0
