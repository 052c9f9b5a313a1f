"""gen_ai.evaluation.result events received by a local OTLP/HTTP endpoint, decoded with
opentelemetry-proto."""

from __future__ import annotations

import signal
import subprocess
import time
import urllib.request

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from monitor.sources import demo
from sinks.otel import EVENT_NAME, ROOT_SPAN_ATTRIBUTE, OtelEventSink
from tests.integration.conftest import RAGMON, clean_env, free_port
from tests.integration.otlp_receiver import OtlpLogsReceiver, attributes


def evaluate(index: int, **attrs: str) -> Evaluation:
    record = demo.generate(index)
    record["attributes"].update(attrs)
    trace = RagTrace.from_data(record)
    return Evaluation(trace=trace, checks=CheckSuite()(trace))


def test_events_carry_the_trace_and_root_span_ids() -> None:
    """One event per applicable check, parented to the trace's root span, with the
    convention's attribute names."""
    root = "00f067aa0ba902b7"
    ev = evaluate(3, **{ROOT_SPAN_ATTRIBUTE: root})
    with OtlpLogsReceiver() as receiver:
        sink = OtelEventSink(receiver.endpoint, service_name="ragmon-test")
        sink.start()
        sink.write(ev)
        assert sink.force_flush()
        sink.close()
    applicable = [r for r in ev.checks.values() if r.applicable]
    assert len(receiver.records) == len(applicable)
    by_name = {attributes(r)["gen_ai.evaluation.name"]: r for r in receiver.records}
    assert set(by_name) == {f"ragmon.{r.name}" for r in applicable}
    for result in applicable:
        record = by_name[f"ragmon.{result.name}"]
        attrs = attributes(record)
        assert record.event_name == EVENT_NAME
        assert record.trace_id.hex() == ev.trace_id
        assert record.span_id.hex() == root
        assert attrs["gen_ai.evaluation.score.label"] == ("fail" if result.flagged else "pass")
        assert attrs["gen_ai.evaluation.explanation"]
    overlap = attributes(by_name["ragmon.grounding_overlap"])
    assert overlap["gen_ai.evaluation.score.value"] == ev.checks["grounding_overlap"].score
    assert receiver.resources[0]["service.name"] == "ragmon-test"


def test_without_root_span_the_event_keeps_the_trace_id() -> None:
    """Native records without a span id still correlate by trace id."""
    ev = evaluate(5)
    with OtlpLogsReceiver() as receiver:
        sink = OtelEventSink(receiver.endpoint, include_passed=False)
        sink.start()
        sink.write(ev)
        sink.force_flush()
        sink.close()
    assert len(receiver.records) == len(ev.flagged)
    assert all(r.trace_id.hex() == ev.trace_id and not r.span_id for r in receiver.records)


def test_daemon_exports_events_and_counts_failures() -> None:
    """`ragmon run` with otel.endpoint set: events arrive; when the collector answers 503 the
    failures are counted and the daemon keeps evaluating."""
    with OtlpLogsReceiver() as receiver:
        port = free_port()
        proc = subprocess.Popen(
            [*RAGMON, "run"],
            env=clean_env(
                RAGMON_OTEL__ENDPOINT=receiver.endpoint,
                RAGMON_OTEL__TIMEOUT_SECONDS="2",
                RAGMON_METRICS__HOST="127.0.0.1",
                RAGMON_METRICS__PORT=str(port),
                RAGMON_SOURCE__DEMO__RATE_PER_SECOND="200",
            ),
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and len(receiver.records) < 50:
                time.sleep(0.2)
            assert len(receiver.records) >= 50
            assert {r.event_name for r in receiver.records} == {EVENT_NAME}
            receiver.status = 503
            time.sleep(4)
            url = f"http://127.0.0.1:{port}/metrics"
            body = urllib.request.urlopen(url).read().decode()
            failed = [x for x in body.splitlines()
                      if x.startswith('ragmon_otel_events_total{outcome="failed"}')]  # fmt: skip
            assert failed and float(failed[0].split()[-1]) > 0
            before = body.count("ragmon_traces_total")
            assert before and proc.poll() is None
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        assert proc.returncode == 0
