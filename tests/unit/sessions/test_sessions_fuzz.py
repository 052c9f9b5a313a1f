"""No turn stops the conversations' stage: native records of a few sessions with arbitrary
times (the ends of the datetime range, offsets of +14:00 and -12:00, out of order), texts and
session-end attributes go through the daemon's own sessions stage (built as ``run`` builds
it, pairing in memory, with and without session outcomes) and the Prometheus and JSONL
sinks. Every record is written once as an evaluation line or a dead letter, every line is
strict JSON on a line of its own, and every offset is committed."""

from __future__ import annotations

import io
import json
import os
import threading
from datetime import UTC
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.checks import CheckSuite
from monitor.config import Settings
from monitor.ingest.decoder import OneItemPerRecord
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource
from sinks.jsonl import JsonlSink
from sinks.memory import InMemorySink
from sinks.prometheus import PrometheusSink

EXAMPLES = int(os.environ.get("RAGMON_FUZZ_EXAMPLES", "150"))
TEXT = st.text(max_size=60) | st.sampled_from(
    ["", "thanks!", "that's wrong", "What about Pro?", "I don't know.", "no, I meant the refund"]
)
TIME = st.sampled_from([
    "2024-11-01T10:00:00Z", "2024-11-01T10:00:05Z", "2024-11-01T09:00:00Z",
    "2024-11-01T10:00:00.999999Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    "2024-11-01T10:00:00+14:00", "2024-11-01T10:00:00-12:00",
]) | st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat())  # fmt: skip
RECORD = st.fixed_dictionaries(
    {
        "trace_id": st.integers(1, 2**128 - 1).map(lambda n: f"{n:032x}"),
        "session_id": st.sampled_from(["s1", "s2", "s3", "x" * 256]),
    },
    optional={
        "timestamp": TIME, "query": TEXT, "answer": TEXT,
        "context": st.lists(st.fixed_dictionaries({"doc_id": st.just("d"), "text": TEXT}),
                            max_size=2),
        "attributes": st.dictionaries(st.sampled_from(["ragmon.session_end", "session.end"]),
                                      st.booleans() | TEXT | st.integers(), max_size=2),
    },
)  # fmt: skip


def _refuse(constant: str) -> None:
    raise ValueError(f"not JSON (RFC 8259): {constant}")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORD, min_size=1, max_size=8), st.booleans())
def test_no_turn_stops_the_sessions_stage(records: list[dict[str, Any]], outcomes: bool) -> None:
    config = Settings(**{"sessions": {"enabled": True, "outcomes": outcomes}})
    metrics = registry.build_metrics(CollectorRegistry())
    decoder, turns = registry.build_sessions(config, metrics, OneItemPerRecord(NativeDecoder()),
                                             through_topic=False, record_time=True)  # fmt: skip
    out, memory = io.StringIO(), InMemorySink()
    source = ListSource([json.dumps(r).encode() for r in records], source="traces")
    sinks = [PrometheusSink(metrics), JsonlSink(stream=out), memory, turns]
    p = Pipeline(source, decoder, CheckSuite(), sinks, observer=metrics, sleep=lambda _: None)
    p.start()
    p.run(threading.Event())
    p.close()
    assert len(memory.evaluations) + len(memory.dead_letters) == len(records)
    for line in out.getvalue().split("\n")[:-1]:
        json.loads(line, parse_constant=_refuse)
    assert source.committed == {("traces", 0): len(records)}
