"""The contract every source keeps (see ``monitor/sources.py``): ``listen`` before
``start``, records with positions that increase per partition, ``commit`` of what the
pipeline finished, ``ready`` once started, ``close`` twice without harm. Kafka runs the
same contract against the real broker in ``tests/integration/test_kafka_contract.py``."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from monitor import registry
from monitor.config import Settings
from monitor.sources import (
    DemoSource,
    JsonlSource,
    ListSource,
    OtlpFileSource,
    Partition,
    ReplayNote,
    Source,
    SourceRecord,
    demo,
)
from monitor.sources.otlp_http import OtlpHttpSource

CORPUS = Path(__file__).resolve().parents[1] / "otel_corpus"
RECORDS = [demo.generate_bytes(i) for i in range(7)]


class Listener:
    """Records what a source tells; sources without partitions never call it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_revoked(
        self, partitions: list[Partition]
    ) -> tuple[dict[Partition, int], dict[Partition, ReplayNote]]:
        self.calls.append("revoked")
        return {}, {}

    def on_resumed(self, notes: dict[Partition, ReplayNote]) -> None:
        self.calls.append("resumed")

    def on_lost(self, partitions: list[Partition]) -> None:
        self.calls.append("lost")

    def resume_positions(self, partitions: list[Partition]) -> dict[Partition, int]:
        return {}

    def on_share(self, share: float) -> None:
        self.calls.append("share")


def list_source(tmp_path: Path) -> tuple[Source, Callable[[], None]]:
    return ListSource(RECORDS), lambda: None


def jsonl_source(tmp_path: Path) -> tuple[Source, Callable[[], None]]:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(RECORDS) + b"\n")
    return JsonlSource([path]), lambda: None


def otlp_file_source(tmp_path: Path) -> tuple[Source, Callable[[], None]]:
    return OtlpFileSource([CORPUS / "openai-genai.otlp"], "otlp-proto"), lambda: None


def demo_source(tmp_path: Path) -> tuple[Source, Callable[[], None]]:
    return DemoSource(demo.generate_bytes, rate_per_second=10_000, limit=len(RECORDS)), lambda: None


def otlp_http_source(tmp_path: Path) -> tuple[Source, Callable[[], None]]:
    src = OtlpHttpSource("127.0.0.1", 0)

    def feed() -> None:  # what an exporter does: POST the requests
        for body in RECORDS:
            conn = http.client.HTTPConnection("127.0.0.1", src.port, timeout=5)
            conn.request(
                "POST", "/v1/traces", body=body, headers={"Content-Type": "application/json"}
            )
            assert conn.getresponse().status == 200
            conn.close()

    return src, feed


SOURCES = [list_source, jsonl_source, otlp_file_source, demo_source, otlp_http_source]


def drain(source: Source, want: int) -> list[SourceRecord]:
    out: list[SourceRecord] = []
    for _ in range(200):
        out += source.poll(3, 0.05)
        if len(out) >= want or source.exhausted:
            break
    return out


@pytest.mark.parametrize("make", SOURCES, ids=lambda f: f.__name__)
def test_the_source_lifecycle(make: Callable[[Path], tuple[Source, Callable[[], None]]],
                              tmp_path: Path) -> None:  # fmt: skip
    source, feed = make(tmp_path)
    listener = Listener()
    source.listen(listener)
    source.start()
    try:
        assert source.ready()
        feed()
        records = drain(source, len(RECORDS))
        assert records, "no record read"
        # positions: one (source, partition) each, offsets strictly increasing
        last: dict[Partition, int] = {}
        for r in records:
            key = (r.position.source, r.position.partition)
            assert r.position.offset > last.get(key, -1)
            last[key] = r.position.offset
        # record time and progress go together: deadlines kept in record time need both
        progress = source.progress()
        if any(r.timestamp is not None for r in records):
            assert progress is not None and set(last) <= progress.assigned
            assert progress.behind <= progress.assigned
        else:
            assert progress is None
        source.commit({k: v + 1 for k, v in last.items()})  # "everything before is done"
        source.hold(frozenset(last))  # a source without partitions to hold ignores it
        source.hold(frozenset())
        assert listener.calls == []  # no partitions moved
        # a graceful stop: nothing new is taken; whatever a source that cannot replay
        # accepted was already returned by poll above
        assert isinstance(source.replays_unfinished, bool)
        source.stop_intake()
        if not source.replays_unfinished:
            assert source.poll(3, 0.05) == []
    finally:
        source.close()
        source.close()


def test_finite_sources_say_when_they_are_exhausted(tmp_path: Path) -> None:
    for make in (list_source, jsonl_source, otlp_file_source, demo_source):
        source, _ = make(tmp_path)
        source.start()
        drain(source, 10_000)
        assert source.exhausted, make.__name__
        source.close()


def test_a_jsonl_source_reports_lines_as_offsets(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(demo.generate(0)) + "\n\n" + json.dumps(demo.generate(1)) + "\n")
    source = JsonlSource([path])
    source.start()
    assert [r.position.offset for r in drain(source, 2)] == [1, 3]  # blank line 2 skipped


def test_every_source_of_the_registry_keeps_this_contract(tmp_path: Path) -> None:
    """A source added to the registry's table without a case here fails this test (the
    Kafka source keeps it against the real broker: tests/integration)."""
    covered = set()
    for make in SOURCES:
        (tmp_path / make.__name__).mkdir()
        source, _ = make(tmp_path / make.__name__)
        covered.add(source.name)
        source.close()
    assert {row.name for row in registry.SOURCES} - covered == {"kafka"}


SLACK = 0.25  # what a loaded machine may add to a poll's timeout (the runner's scheduling)


def polls_within_its_timeout(source: Source, timeout: float = 0.2, calls: int = 5) -> None:
    """The rule for ``poll``: it returns within ``timeout`` (plus scheduling slack), with
    records or without, so the poll loop keeps its commit interval and its stop."""
    import time

    for _ in range(calls):
        began = time.monotonic()
        source.poll(3, timeout)
        took = time.monotonic() - began
        assert took <= timeout + SLACK, f"{source.name}: poll took {took:.2f} s of {timeout} s"
        if source.exhausted:
            break


@pytest.mark.parametrize("make", SOURCES, ids=lambda f: f.__name__)
def test_poll_returns_within_its_timeout(make: Callable[[Path], tuple[Source, Callable[[], None]]],
                                         tmp_path: Path) -> None:  # fmt: skip
    source, _ = make(tmp_path)  # nothing fed: a live source waits, a file source reads on
    source.start()
    try:
        polls_within_its_timeout(source)
    finally:
        source.close()


class _Spinning(ListSource):
    """A source whose ``poll`` waits for a record that never comes, past its timeout: what
    the rule is there to catch."""

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        import time

        end = time.monotonic() + 3 * timeout + SLACK
        while time.monotonic() < end:
            pass
        return []


def test_the_timeout_rule_fails_a_source_that_spins() -> None:
    source = _Spinning([])
    source.start()
    with pytest.raises(AssertionError, match="poll took"):
        polls_within_its_timeout(source, timeout=0.05, calls=1)


@pytest.mark.parametrize("name", [row.name for row in registry.SOURCES])
def test_every_source_builds_from_the_default_settings(name: str) -> None:
    """Only ``source.type`` set: every other setting of a source has a default that builds
    (a new source whose section needs a value fails here, not at a user's first run)."""
    source = registry.build_source(Settings.model_validate({"source": {"type": name}}))
    try:
        assert source.name == name
    finally:
        source.close()
