"""No native record stops the daemon, whatever its fields hold: arbitrary records (every
field of the trace record with arbitrary values of its type and beside it, numbers at the
ends of the float range, NaN and infinities as Python's JSON writes them, text with
controls, line separators and other scripts) go through the pipeline with the Prometheus
and JSONL sinks. Each record is written once, as an evaluation line or a dead letter; every
line is strict JSON (no NaN) on a line of its own; every offset is committed. It found a
sample rate of 1e-286 overflowing the Prometheus sink (a crash loop: the record was never
committed) and readers breaking lines at U+2028 and U+0085 inside JSON strings."""

from __future__ import annotations

import io
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.checks import CheckSuite
from monitor.ingest.native import NativeDecoder
from monitor.pipeline import Pipeline
from monitor.sources import ListSource
from sinks.jsonl import JsonlSink
from sinks.prometheus import PrometheusSink

EXAMPLES = int(os.environ.get("RAGMON_FUZZ_EXAMPLES", "150"))

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=200) | st.sampled_from([
    "", " ", "The fee is $5 [1].", "I don't know.", "Call 0800 123 456 by 5 pm.",
    "Paris\x00", "\u202eevil", "𝟙𝟚𝟛 million", "a\u2028b\x85c", "Dr. Müller (DVLA) £1.2bn",
])  # fmt: skip
NUMBER = st.floats() | st.integers(-(10**30), 10**30)
JSON = st.recursive(
    st.none() | st.booleans() | NUMBER | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
TIME = st.sampled_from(["2024-11-01T10:00:00Z", "2024-11-01T10:00:00.1234567+05:30",
                        "0001-01-01T00:00:00", "9999-12-31T23:59:59Z", "yesterday"])  # fmt: skip
PASSAGE = st.fixed_dictionaries(
    {"doc_id": TEXT, "text": TEXT},
    optional={"chunk_id": TEXT, "data_source": TEXT, "timestamp": TIME, "score": NUMBER},
)
RETRIEVED = st.fixed_dictionaries(
    {"doc_id": TEXT}, optional={"score": NUMBER, "rank": st.integers(-5, 10**12), "chunk_id": TEXT}
)
RECORD = st.fixed_dictionaries(
    {"trace_id": st.sampled_from(["4bf92f3577b34da6a3ce929d0e0e4736", "AB" * 16])},
    optional={
        "schema": st.just("ragmon.trace/v1"), "timestamp": TIME, "app": TEXT, "route": TEXT,
        "release": TEXT, "query": TEXT, "answer": TEXT, "model": TEXT,
        "context": st.lists(PASSAGE, max_size=4), "retrieved": st.lists(RETRIEVED, max_size=4),
        "attributes": st.dictionaries(TEXT, JSON, max_size=4), "golden_id": st.none() | TEXT,
        "session_id": TEXT, "sample_rate": NUMBER, "extra": JSON,
    },
)  # fmt: skip


def strict(line: str) -> Any:
    """The line as JSON; NaN and infinities (which Python writes and RFC 8259 does not
    allow) raise."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(line, parse_constant=refuse)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(st.lists(RECORD, min_size=1, max_size=3))
def test_no_record_stops_the_pipeline(records: list[dict[str, Any]]) -> None:
    raws = [json.dumps(r).encode() for r in records]  # allow_nan: as a careless producer writes
    out = io.StringIO()
    metrics = registry.build_metrics(CollectorRegistry())
    source = ListSource(raws, source="traces")
    with tempfile.TemporaryDirectory() as tmp:
        letters = Path(tmp) / "dead.jsonl"
        sinks = [PrometheusSink(metrics), JsonlSink(dead_letters=letters, stream=out)]
        p = Pipeline(source, NativeDecoder(), CheckSuite(), sinks, observer=metrics,
                     sleep=lambda _: None)  # fmt: skip
        p.start()
        p.run(threading.Event())
        p.close()
        dead = letters.read_text(encoding="utf-8").split("\n")[:-1]
    lines = out.getvalue().split("\n")[:-1]
    assert len(lines) + len(dead) == len(records)
    for line in lines + dead:
        assert isinstance(strict(line), dict)
    assert source.committed == {("traces", 0): len(records)}
