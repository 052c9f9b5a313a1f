"""The repartition topic's records are counted in ``ragmon_records_total`` with the traces'
records: ``ragmon_session_turn_records_total`` says how many of them were turns, and the
records metric's help says so."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.config import Settings
from monitor.core.model import Turn
from monitor.ingest.decoder import OneItemPerRecord
from monitor.ingest.native import NativeDecoder
from monitor.sessions.stage import WithSessions
from monitor.sources import SourcePosition, SourceRecord

TOPIC = "ragmon_turns"


def test_the_turn_records_read_back_are_counted_on_their_own() -> None:
    metrics = registry.build_metrics(CollectorRegistry())
    settings = Settings.model_validate({"source": {"type": "kafka"}, "sessions": {"topic": TOPIC}})
    stage, _ = registry.build_sessions(settings, metrics, OneItemPerRecord(NativeDecoder()),
                                       through_topic=True)  # fmt: skip
    assert isinstance(stage, WithSessions)
    for offset in range(3):
        turn = Turn("s1", f"{offset + 1:032x}", 100.0 + offset, "how much?", "clean")
        stage.feed(SourceRecord(SourcePosition(TOPIC, 0, offset), turn.to_record()))
    stage.feed(SourceRecord(SourcePosition(TOPIC, 0, 3), b"not a turn"))
    stage.feed(SourceRecord(SourcePosition("rag_traces", 0, 0), b"{}"))  # a trace record
    metrics.on_batch("kafka", 5, 0.01)
    got = metrics.registry.get_sample_value
    assert got("ragmon_session_turn_records_total") == 4
    assert got("ragmon_records_total", {"source": "kafka"}) == 5
    (family,) = [f for f in metrics.registry.collect() if f.name == "ragmon_records"]
    assert "ragmon_session_turn_records_total" in family.documentation


def test_without_a_topic_there_is_no_such_count() -> None:
    metrics = registry.build_metrics(CollectorRegistry())
    registry.build_sessions(Settings(), metrics, OneItemPerRecord(NativeDecoder()), False)
    assert metrics.registry.get_sample_value("ragmon_session_turn_records_total") is None
