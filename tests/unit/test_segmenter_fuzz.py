"""No trace makes the segmenter raise: the daemon's pipeline segments every trace before its
checks run, outside the checks' guard, so a raise there would end the daemon and, the
record not committed, end it again on the same record after each restart. Traces are built
as the decoders build them (``RagTrace.from_data``) from arbitrary texts, attributes of any
JSON type (the agent's and the data source's among them), timestamps with and without a
zone, and retrieval scores of any float, including NaN and infinities."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.core.model import AGENT_ATTRIBUTE, RagTrace
from monitor.segments import DATA_SOURCE_ATTRIBUTE, Segmenter
from monitor.segments.config import SegmentsConfig

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                   max_size=3),
    max_leaves=5,
)  # fmt: skip
STAMPS = st.one_of(
    st.none(),
    st.datetimes().map(lambda d: d.isoformat()),
    st.datetimes().map(lambda d: d.isoformat() + "Z"),
    st.datetimes().map(lambda d: d.isoformat() + "+05:30"),
)
KEYS = st.sampled_from([AGENT_ATTRIBUTE, DATA_SOURCE_ATTRIBUTE, "ragmon.agent.tool_calls",
                        "ragmon.agent.steps", "tenant", "plan", "x"])  # fmt: skip


@st.composite
def traces(draw: st.DrawFn) -> RagTrace:
    record: dict[str, Any] = {
        "trace_id": "0123456789abcdef0123456789abcdef",
        "query": draw(st.text(max_size=200)),
        "answer": draw(st.text(max_size=50)),
        "app": draw(st.none() | st.text(max_size=40)),
        "route": draw(st.none() | st.text(max_size=40)),
        "release": draw(st.none() | st.text(max_size=40)),
        "context": [
            {"doc_id": draw(st.text(min_size=1, max_size=8)), "text": draw(st.text(max_size=40)),
             "data_source": draw(st.none() | st.text(max_size=12)), "timestamp": draw(STAMPS)}
            for _ in range(draw(st.integers(0, 4)))
        ],
        "retrieved": [
            {"doc_id": draw(st.text(min_size=1, max_size=8)),
             "score": draw(st.none() | st.floats(allow_nan=True, allow_infinity=True))}
            for _ in range(draw(st.integers(0, 4)))
        ],
        "attributes": draw(st.dictionaries(KEYS, JSON, max_size=4)),
    }  # fmt: skip
    stamp = draw(STAMPS)
    if stamp is not None:
        record["timestamp"] = stamp
    try:
        return RagTrace.from_data(record)
    except ValueError:  # a record the decoder would dead-letter: a valid one instead
        record["context"], record["retrieved"], record["attributes"] = [], [], {}
        record.pop("timestamp", None)
        return RagTrace.from_data(record)


SEGMENTERS = [
    Segmenter(),
    Segmenter(SegmentsConfig(attributes=["tenant", "plan", AGENT_ATTRIBUTE]), detect=None),
]


@FUZZ
@given(traces())
def test_no_trace_makes_the_segmenter_raise(trace: RagTrace) -> None:
    for segmenter in SEGMENTERS:
        segments, inputs = segmenter(trace)
        assert set(segments) == set(segmenter.dimensions) or not segmenter.config.enabled
        assert all(isinstance(v, str) and len(v) <= 100 for v in segments.values())
        assert all(isinstance(v, int | float) for v in inputs.values())
