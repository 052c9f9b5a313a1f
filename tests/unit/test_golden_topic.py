"""``golden.topic`` keyed by row and writer: several processes (replicas, workers, a process
and its restart) each count their own occurrences of a row on a key of their own, and a
reader summing the writers' latest records finds the counts one process would have made."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from monitor.core.lines import GoldenRow
from monitor.core.model import Evaluation, KafkaConnection
from monitor.golden.stored import load_rows, topic_rows
from sinks.golden import GoldenRowSink
from sinks.kafka_sink import KafkaRowWriter, writer_identity
from tests.unit.test_golden import demo_evaluations
from tests.unit.test_kafka_sink import FakeProducer


def _written(
    producer: FakeProducer, writer: str, evaluations: list[Evaluation], directory: Path | None
) -> None:
    """One process's life: a sink on ``directory`` (or none) and the topic, as ``writer``."""
    topic = KafkaRowWriter(
        "golden", KafkaConnection(), writer, producer_factory=lambda **kw: producer
    )
    sink = GoldenRowSink(directory, max_examples=3, extra_writers=[topic])
    sink.start()
    for i, ev in enumerate(evaluations):
        sink.write(ev)
        if i % 50 == 49:
            sink.flush()
    sink.close()


def _records(producer: FakeProducer) -> list[tuple[str, GoldenRow]]:
    return [(key.decode(), json.loads(value)) for _, value, key, _ in producer.sent]


def _latest(producer: FakeProducer) -> dict[str, GoldenRow]:
    """What compaction keeps: the last record of each key."""
    return dict(_records(producer))


def _counts(rows: dict[str, GoldenRow]) -> dict[str, int]:
    return {rid: row["ragmon"]["count"] for rid, row in rows.items()}


def _alone(tmp_path: Path, evaluations: list[Evaluation]) -> dict[str, int]:
    """The counts one process makes of ``evaluations`` (its golden dir read back)."""
    sink = GoldenRowSink(tmp_path / "alone", max_examples=3)
    sink.start()
    for ev in evaluations:
        sink.write(ev)
    sink.close()
    return _counts(load_rows(tmp_path / "alone"))


def test_two_writers_of_one_row_have_two_keys_summed_by_the_reader(tmp_path: Path) -> None:
    """Two replicas split 400 traces by trace id: a row both hold is on two keys, one per
    writer, each record naming its row and writer; the compacted topic summed per row holds
    the counts of one process (on one key a row, the last writer's count hid the other's)."""
    evaluations = demo_evaluations(400)
    producer = FakeProducer()
    for name, parity in (("a-1-1", 0), ("b-1-1", 1)):
        _written(producer, name, [e for e in evaluations if int(e.trace_id, 16) % 2 == parity],
                 None)  # fmt: skip
    for key, value in _records(producer):
        assert key == f"{value['id']}/{value['ragmon']['writer']}"
    latest = _latest(producer)
    by_row: dict[str, set[str]] = {}
    for key in latest:
        rid, writer = key.split("/")
        by_row.setdefault(rid, set()).add(writer)
    shared = [rid for rid, writers in by_row.items() if writers == {"a-1-1", "b-1-1"}]
    assert shared, "no row on both writers: the test shows nothing"
    assert _counts(topic_rows(latest.values())) == _alone(tmp_path, evaluations)
    for rid in shared:  # each writer's own share, the two adding up
        share = [latest[f"{rid}/{w}"]["ragmon"]["count"] for w in ("a-1-1", "b-1-1")]
        assert all(n > 0 for n in share)


@pytest.mark.parametrize("with_dir", [False, True], ids=["topic-only", "with-golden-dir"])
def test_a_restart_writes_new_keys_and_never_overwrites_the_old_count(
    tmp_path: Path, with_dir: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process restarted (a new writer identity) puts its rows on new keys: the old
    process's records stay as they were, and the sum is one process's count. With golden.dir
    the restarted process reads its rows back and continues their counts there, while its
    records carry only the occurrences it counted itself (the earlier ones are on the old
    keys), so nothing is counted twice."""
    evaluations = demo_evaluations(400)
    producer = FakeProducer()
    directory = tmp_path / "golden" if with_dir else None
    _written(producer, "host-7-1000", evaluations[:200], directory)
    before = _latest(producer)
    # another process: its segment names (time to the second and pid) are not the first's
    monkeypatch.setattr(os, "getpid", lambda: os.getppid() + 1_000_000)
    _written(producer, "host-7-2000", evaluations[200:], directory)
    latest = _latest(producer)
    assert {k: v for k, v in latest.items() if k.endswith("/host-7-1000")} == before
    again = {k.split("/")[0] for k in latest if k.endswith("/host-7-2000")}
    both = again & {k.split("/")[0] for k in before}
    assert both, "no row written before and after the restart: the test shows nothing"
    total = _alone(tmp_path, evaluations)
    assert _counts(topic_rows(latest.values())) == total
    first = _alone(tmp_path / "first", evaluations[:200])
    for rid in both:  # the new key holds what the new process counted, no more
        assert latest[f"{rid}/host-7-2000"]["ragmon"]["count"] == total[rid] - first[rid]
    if directory is not None:  # the dir continues the counts of the process before
        assert _counts(load_rows(directory)) == total


def test_writer_identity_names_host_process_and_start() -> None:
    """Two starts of one process (its restart) have two identities; no '/' splits the key."""
    first, second = writer_identity(lambda: 1.0), writer_identity(lambda: 2.0)
    assert first != second and "/" not in first
    with pytest.raises(ValueError, match="'/'"):
        KafkaRowWriter("golden", KafkaConnection(), "a/b")


def test_the_reader_sums_counts_and_takes_the_state_of_the_writer_that_saw_the_row_last() -> None:
    """Per row: the counts of its writers' latest records added, the earliest first sighting,
    and the other fields of the writer with the latest last sighting (not the higher count)."""

    def record(writer: str, count: int, first: str, last: str, answer: str) -> GoldenRow:
        meta = {"trace_id": "t", "reason": "refusal", "first_seen": first, "last_seen": last,
                "count": count, "examples": [f"{writer}-{count}"], "writer": writer}  # fmt: skip
        return {"id": "r", "response": answer, "ragmon": meta}  # type: ignore[typeddict-item]

    values = [record("a", 5, "2026-01-01", "2026-01-03", "old"),
              record("a", 9, "2026-01-01", "2026-01-04", "old"),  # a's latest record
              record("b", 2, "2026-01-02", "2026-01-05", "new")]  # fmt: skip
    row = topic_rows(values)["r"]
    assert row["ragmon"]["count"] == 11 and row["response"] == "new"
    assert (row["ragmon"]["first_seen"], row["ragmon"]["last_seen"]) == ("2026-01-01", "2026-01-05")
    assert sorted(row["ragmon"]["examples"]) == ["a-9", "b-2"] and "writer" not in row["ragmon"]


def test_a_row_read_back_counts_from_its_start_and_one_made_again_from_its_own() -> None:
    """A row the sink read back from golden.dir with 5 occurrences and now at 7: the record
    says 2 (the 5 are on the earlier process's key); the same row evicted and made again (a
    new row at 1) says 1, not 1 - 5."""
    writer = KafkaRowWriter("golden", KafkaConnection(), "w", producer_factory=FakeProducer)
    meta = {"trace_id": "t", "reason": "refusal", "first_seen": "a", "last_seen": "a",
            "count": 5, "examples": []}  # fmt: skip
    restored: GoldenRow = {"id": "r", "ragmon": meta}  # type: ignore[typeddict-item]
    writer.resume([restored])
    restored["ragmon"]["count"] = 7
    assert writer.value(restored)["ragmon"] == {**meta, "count": 2, "writer": "w"}
    again: GoldenRow = {"id": "r", "ragmon": {**meta, "count": 1}}  # type: ignore[typeddict-item]
    assert writer.value(again)["ragmon"] == {**meta, "count": 1, "writer": "w"}
