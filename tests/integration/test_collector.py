"""The real OpenTelemetry Collector between the application and Kafka: a LangChain chain
instrumented with OpenInference exports OTLP/HTTP to the Collector built by
``deploy/collector/install.sh`` (configuration ``deploy/collector/otelcol.yaml``), whose
``kafkaexporter`` writes the spans to a topic the daemon consumes. The daemon's evaluation
lines equal an offline replay of the same spans; nothing is dead-lettered or incomplete."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.integration.conftest import free_port, ragmon
from tests.integration.kafka_support import (
    ROOT,
    Daemon,
    all_committed,
    bootstrap,
    create_topic,
    wait_until,
)
from tests.integration.test_langchain import QUESTION, run_chain_for

pytestmark = pytest.mark.integration

COLLECTOR = ROOT / "var" / "otelcol" / "ragmon-otelcol"
ANSWERS = [
    "You can ask within 30 days of purchase [1].",
    "You can ask within 45 days [3].",  # a wrong figure, a citation to nothing
    "Sale items are final [2].",
    "I cannot find that in the documentation.",
]


def start_collector(tmp: Path, topic: str, encoding: str, by_id: bool) -> tuple[Any, str]:
    if not COLLECTOR.exists():
        pytest.fail("the Collector is not built: `make test` runs deploy/collector/install.sh")
    port = free_port()
    env = {**os.environ, "OTLP_HTTP_ENDPOINT": f"127.0.0.1:{port}",
           "KAFKA_BROKERS": bootstrap(), "KAFKA_TOPIC": topic, "KAFKA_ENCODING": encoding,
           "PARTITION_TRACES_BY_ID": str(by_id).lower(), "BATCH_TIMEOUT": "200ms"}  # fmt: skip
    log = (tmp / "otelcol.log").open("w")
    proc = subprocess.Popen(
        [str(COLLECTOR), "--config", str(ROOT / "deploy" / "collector" / "otelcol.yaml")],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    proc.log = log  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{port}/v1/traces"
    deadline = time.monotonic() + 30
    while "Everything is ready" not in (tmp / "otelcol.log").read_text():
        assert proc.poll() is None, (tmp / "otelcol.log").read_text()
        assert time.monotonic() < deadline, "the Collector did not start"
        time.sleep(0.1)
    return proc, url


@pytest.mark.parametrize(
    ("encoding", "by_id"),
    [("otlp_proto", False), ("otlp_proto", True), ("otlp_json", True)],
    ids=["otlp_proto", "otlp_proto-partition_traces_by_id", "otlp_json-partition_traces_by_id"],
)
def test_spans_through_the_real_collector_evaluate_as_offline(
    tmp_path: Path, encoding: str, by_id: bool
) -> None:
    topic = create_topic(3)
    collector, url = start_collector(tmp_path, topic, encoding, by_id)
    kept = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=url)))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        for i in range(12):
            run_chain_for(QUESTION, ANSWERS[i % len(ANSWERS)])
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    spans = list(kept.get_finished_spans())
    # the same spans offline: one OTLP message, replayed
    stream = tmp_path / "spans.otlp"
    message = encode_spans(spans).SerializeToString()
    stream.write_bytes(len(message).to_bytes(4, "big") + message)
    offline = tmp_path / "offline.jsonl"
    done = ragmon("replay", "--format", "otlp-proto", str(stream), "--judge", "none",
                  "--output-jsonl", str(offline))  # fmt: skip
    assert done.returncode == 0, done.stderr
    want = {x["trace_id"]: x for x in map(json.loads, offline.read_text().splitlines())}
    assert len(want) == 12

    group = f"g-otelcol-{encoding}-{int(by_id)}"
    daemon = Daemon(tmp_path, topic, group, RAGMON_SOURCE__KAFKA__FORMAT=encoding,
                    RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="0.5",
                    RAGMON_JUDGE__BACKEND="none")  # fmt: skip
    daemon.start()
    try:
        wait_until(lambda: len(daemon.evaluated(1)) >= 12, 90, "every trace evaluated")
        wait_until(lambda: all_committed(group, topic), 60, "all offsets committed")
    finally:
        daemon.terminate()
        collector.terminate()
        collector.wait(timeout=30)
        collector.log.close()  # type: ignore[attr-defined]
    got = [json.loads(x) for x in daemon.evaluations_file(1).read_text().splitlines()]
    assert {x["trace_id"]: x for x in got} == want and len(got) == 12
    assert daemon.dead_letters() == []
    assert all("incomplete" not in json.dumps(x) for x in got)
