"""OTLP spans end to end: produced to the real broker exactly as the OTel Collector's
``kafkaexporter`` writes them, and posted to the OTLP/HTTP receiver the way an OTel SDK
exporter does. The daemon must reach the same evaluation as for the equivalent native
records, commit every offset once the traces are assembled, and dead-letter garbage."""

from __future__ import annotations

import gzip
import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from tests import otel_spans
from tests.integration.conftest import ragmon, start_otlp_http_daemon
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    bootstrap,
    committed_offsets,
    create_topic,
    wait_until,
)

pytestmark = pytest.mark.integration

ENV = {
    "RAGMON_SOURCE__KAFKA__FORMAT": "otlp_proto",
    "RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS": "0.3",
    "RAGMON_JUDGE__BACKEND": "none",
}


def built(n: int) -> list[tuple[list[ReadableSpan], dict[str, Any]]]:
    """``n`` traces cycling through every convention (fresh trace ids each)."""
    makers = list(otel_spans.CONVENTIONS.values())
    return [makers[i % len(makers)]() for i in range(n)]


def sarama_partition(key: bytes, partitions: int) -> int:
    """The Collector's default partitioner for keyed records (sarama_compat: FNV-1a 32,
    as int32, absolute value, modulo the partition count)."""
    h = 0x811C9DC5
    for b in key:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    signed = h - (1 << 32) if h & 0x80000000 else h
    return abs(signed) % partitions


def native_lines(tmp: Path, traces: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Evaluation lines of the equivalent native records (``ragmon replay``)."""
    src, out = tmp / "native.jsonl", tmp / "native-evals.jsonl"
    src.write_text("".join(json.dumps(t) + "\n" for t in traces))
    done = ragmon("replay", str(src), "--judge", "none", "--output-jsonl", str(out))
    assert done.returncode == 0, done.stderr
    return {line["trace_id"]: line for line in map(json.loads, out.read_text().splitlines())}


def daemon_lines(daemon: Daemon) -> dict[str, dict[str, Any]]:
    lines = [json.loads(x) for x in daemon.evaluations_file(1).read_text().splitlines()]
    by_id = {line["trace_id"]: line for line in lines}
    assert len(by_id) == len(lines), "a trace was evaluated twice"
    return by_id


def scrape(daemon: Daemon) -> str:
    """The daemon's /metrics text."""
    return str(urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/metrics").read().decode())


def metrics_once_all_committed(daemon: Daemon, timeout: float) -> str:
    """Start ``daemon``, wait until it committed every offset of its topic, and return its
    /metrics text; the daemon is stopped (SIGTERM) either way."""
    daemon.start()
    try:
        wait_until(lambda: all_committed(daemon.group, daemon.topic), timeout,
                   "all offsets committed")  # fmt: skip
        return scrape(daemon)
    finally:
        daemon.terminate()


def encoded(spans: list[ReadableSpan], encoding: str) -> bytes:
    """One message as kafkaexporter encodes it (otlp_json: protobuf JSON, hex ids)."""
    from tests.unit.test_otlp import as_otlp_json

    raw = encode_spans(spans).SerializeToString()
    return as_otlp_json(raw) if encoding == "otlp_json" else raw


@pytest.mark.parametrize(
    ("by_trace_id", "encoding"),
    [(False, "otlp_proto"), (True, "otlp_proto"), (True, "otlp_json")],
    ids=["batches", "partition_traces_by_id", "partition_traces_by_id-otlp_json"],
)
def test_kafkaexporter_messages_assemble_to_the_native_evaluations(
    tmp_path: Path, by_trace_id: bool, encoding: str
) -> None:
    """Without ``partition_traces_by_id`` a message is one exporter batch mixing traces
    (nil key); with it, each message holds one trace id, keyed by its lower-case hex id and
    partitioned by FNV-1a. Either way every trace's spans are split over two messages (the
    root span in a later batch, as when a long request ends after its children)."""
    traces = built(24)
    partitions = 3
    topic = create_topic(partitions)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1)
    first = [[s for s in spans if s.parent is not None] for spans, _ in traces]
    roots = [[s for s in spans if s.parent is None] for spans, _ in traces]
    if by_trace_id:
        for group in (first, roots):
            for spans, (_, native) in zip(group, traces, strict=True):
                key = native["trace_id"].encode()
                value = encoded(spans, encoding)
                producer.send(topic, value=value, key=key,
                              partition=sarama_partition(key, partitions))  # fmt: skip
    else:
        for i in range(0, len(traces), 4):  # batches of four traces' children, then roots
            batch = [s for spans in first[i : i + 4] for s in spans]
            producer.send(topic, value=encoded(batch, encoding))
            later = [s for spans in roots[i : i + 4] for s in spans]
            producer.send(topic, value=encoded(later, encoding))
    garbage = producer.send(topic, value=b"\x0a\x05not otlp", partition=0).get(timeout=30)
    producer.flush()
    producer.close()

    group = f"g-otlp-{int(by_trace_id)}-{encoding}"
    daemon = Daemon(tmp_path, topic, group, **{**ENV, "RAGMON_SOURCE__KAFKA__FORMAT": encoding})
    metrics = metrics_once_all_committed(daemon, 90)
    got = daemon_lines(daemon)
    want = native_lines(tmp_path, [native for _, native in traces])
    assert got == want
    # one bad message; a rebalance that hands a partition straight back re-reads from the
    # lowest buffered offset, so its dead letter may be written twice (at-least-once)
    letters = daemon.dead_letters()
    reason = "invalid_otlp_json" if encoding == "otlp_json" else "invalid_protobuf"
    assert {(d["partition"], d["offset"], d["reason"]) for d in letters} == {
        (0, garbage.offset, reason)
    }
    for name in ("openinference", "otel_genai", "otel_genai_legacy", "openllmetry"):
        assert f'ragmon_assembly_traces_total{{convention="{name}",outcome="complete"}}' in metrics


def test_two_replicas_with_partition_traces_by_id(tmp_path: Path) -> None:
    """Keyed by trace id, every span of a trace reaches one replica: two replicas in one
    group split the partitions and together evaluate each trace once, as natively."""
    traces = built(40)
    partitions = 4
    topic = create_topic(partitions)
    group = "g-otlp-two"
    daemons = [Daemon(tmp_path, topic, group, name=n, **ENV).start() for n in ("a", "b")]
    try:
        wait_until(lambda: all(d.assigned() for d in daemons), 60, "both replicas assigned")
        time.sleep(3)  # let the group settle before producing
        producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1)
        for part in ("children", "roots"):
            for spans, native in traces:
                chosen = [s for s in spans if (s.parent is None) == (part == "roots")]
                key = native["trace_id"].encode()
                producer.send(topic, value=encode_spans(chosen).SerializeToString(), key=key,
                              partition=sarama_partition(key, partitions))  # fmt: skip
        producer.flush()
        producer.close()
        wait_until(lambda: all_committed(group, topic), 90, "all offsets committed")
    finally:
        for d in daemons:
            d.terminate()
    per = [daemon_lines(d) for d in daemons]
    assert per[0] and per[1], "both replicas evaluated traces"
    assert not set(per[0]) & set(per[1]), "a trace was evaluated by both replicas"
    assert {**per[0], **per[1]} == native_lines(tmp_path, [native for _, native in traces])


def _post(url: str, body: bytes, ctype: str, gzipped: bool = False) -> int:
    headers = {"Content-Type": ctype}
    if gzipped:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        return int(urllib.request.urlopen(req, timeout=10).status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_otlp_http_receiver_takes_sdk_exports_json_and_gzip(tmp_path: Path) -> None:
    """The real OTLP/HTTP span exporter (protobuf, gzip) and hand-posted OTLP/JSON reach
    the same evaluations as native records; bad requests get the documented codes."""
    from tests.unit.test_otlp import as_otlp_json

    evals = tmp_path / "evals.jsonl"
    daemon = start_otlp_http_daemon(
        tmp_path / "stderr.log",
        RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="0.3",
        RAGMON_JUDGE__BACKEND="none",
        RAGMON_OUTPUT__EVALUATIONS_JSONL=str(evals),
    )
    url = daemon.url
    try:
        wait_until(lambda: _post(url, b"", "application/x-protobuf") == 200, 30, "receiver up")
        traces = built(12)
        from opentelemetry.exporter.otlp.proto.http import Compression

        exporter = OTLPSpanExporter(endpoint=url, compression=Compression.Gzip)
        for spans, _ in traces[:6]:
            assert exporter.export(spans) == SpanExportResult.SUCCESS
        exporter.shutdown()
        for i, (spans, _) in enumerate(traces[6:]):
            body = as_otlp_json(encode_spans(spans).SerializeToString())
            assert _post(url, body, "application/json", gzipped=i % 2 == 1) == 200
        assert _post(url, b"hello", "text/plain") == 415
        assert _post(url, b"\x1f\x8b broken", "application/x-protobuf", gzipped=False) == 200
        assert _post(url.replace("/v1/traces", "/v1/logs"), b"", "application/json") == 404

        def evaluated() -> int:
            return len(evals.read_text().splitlines()) if evals.exists() else 0

        wait_until(lambda: evaluated() == len(traces), 30, "every posted trace evaluated")
        metrics = urllib.request.urlopen(daemon.metrics_url).read()
    finally:
        daemon.stop()
    got = {json.loads(x)["trace_id"]: json.loads(x) for x in evals.read_text().splitlines()}
    assert got == native_lines(tmp_path, [native for _, native in traces])
    text = metrics.decode()
    assert 'ragmon_otlp_http_requests_total{code="415"} 1.0' in text
    assert 'ragmon_dead_letters_total{reason="invalid_protobuf"} 1.0' in text


def test_buffered_spans_survive_kill_minus_nine(tmp_path: Path) -> None:
    """Messages whose spans still wait for their root are never committed: after kill -9
    the restarted daemon reads them again and, once the roots arrive, evaluates every trace
    exactly as the native records would be."""
    traces = built(12)
    topic = create_topic(1)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1)

    def send(part: str) -> None:
        for spans, _ in traces:
            chosen = [s for s in spans if (s.parent is None) == (part == "roots")]
            producer.send(topic, value=encode_spans(chosen).SerializeToString())
        producer.flush()

    send("children")
    group = "g-otlp-crash"
    env = {**ENV, "RAGMON_SOURCE__ASSEMBLY__MAX_WAIT_SECONDS": "600"}
    daemon = Daemon(tmp_path, topic, group, **env).start()

    def buffered() -> float:
        for line in scrape(daemon).splitlines():
            if line.startswith("ragmon_assembly_buffered_traces "):
                return float(line.split()[1])
        return 0.0

    wait_until(lambda: buffered() == len(traces), 60, "all children buffered")
    time.sleep(2)  # several commit intervals pass while the spans wait
    assert committed_offsets(group, topic).get(0, 0) == 0
    daemon.kill9()
    send("roots")
    daemon.start()
    try:
        wait_until(lambda: all_committed(group, topic), 90, "all offsets committed after restart")
    finally:
        daemon.terminate()
    assert not daemon.evaluations_file(1).exists() or not daemon.evaluations_file(1).read_text()
    got = {json.loads(x)["trace_id"]: json.loads(x)
           for x in daemon.evaluations_file(2).read_text().splitlines()}  # fmt: skip
    assert got == native_lines(tmp_path, [native for _, native in traces])


# The request that used to stop the daemon: an attribute without its key.
POISON = (
    b'{"resourceSpans": [{"resource": {"attributes": [{"value": {"stringValue": "python"}}]}}]}'
)
WRONG_TYPES = (
    b'{"resourceSpans": [{"scopeSpans": [{"spans": '
    b'[{"traceId": 5, "attributes": [{"key": 7}]}]}]}]}'
)


def test_otlp_http_receiver_survives_malformed_json_requests(tmp_path: Path) -> None:
    """Malformed OTLP/JSON bodies are answered, dead-lettered with a reason, and the daemon
    goes on evaluating the next real trace."""
    evals, dead = tmp_path / "evals.jsonl", tmp_path / "dead.jsonl"
    daemon = start_otlp_http_daemon(
        tmp_path / "stderr.log",
        RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="0.3",
        RAGMON_JUDGE__BACKEND="none",
        RAGMON_OUTPUT__EVALUATIONS_JSONL=str(evals),
        RAGMON_OUTPUT__DEAD_LETTERS_JSONL=str(dead),
    )
    try:
        wait_until(lambda: _post(daemon.url, b"", "application/x-protobuf") == 200, 30, "up")
        assert _post(daemon.url, POISON, "application/json") == 200
        assert _post(daemon.url, WRONG_TYPES, "application/json") == 200
        spans, native = built(1)[0]
        assert _post(daemon.url, encoded(spans, "otlp_json"), "application/json") == 200
        wait_until(lambda: evals.exists() and evals.read_text().strip() != "", 30, "evaluated")
        assert daemon.proc.poll() is None, "the daemon is still running"
    finally:
        daemon.stop()
    assert daemon.proc.returncode == 0
    assert json.loads(evals.read_text().splitlines()[0])["trace_id"] == native["trace_id"]
    letters = [json.loads(x) for x in dead.read_text().splitlines()]
    assert [d["reason"] for d in letters] == ["invalid_otlp_json"]
    assert "traceId" in letters[0]["detail"]


def test_kafka_otlp_json_topic_survives_a_malformed_record(tmp_path: Path) -> None:
    """On an ``otlp_json`` topic the malformed record is dead-lettered and committed past:
    the traces after it are evaluated and the partition does not stall."""
    topic = create_topic(1)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1)
    traces = built(4)
    producer.send(topic, value=POISON)
    producer.send(topic, value=WRONG_TYPES)
    for spans, _ in traces:
        producer.send(topic, value=encoded(spans, "otlp_json"))
    producer.flush()
    group = "g-otlp-poison"
    daemon = Daemon(tmp_path, topic, group, **{**ENV, "RAGMON_SOURCE__KAFKA__FORMAT": "otlp_json"})
    daemon.start()
    try:
        wait_until(lambda: all_committed(group, topic), 90, "every offset committed")
        assert daemon.alive()
    finally:
        daemon.terminate()
    assert sorted(daemon.evaluated()) == sorted(native["trace_id"] for _, native in traces)
    assert [d["reason"] for d in daemon.dead_letters()] == ["invalid_otlp_json"]


def test_sigterm_evaluates_every_span_the_receiver_accepted(tmp_path: Path) -> None:
    """Three requests answered 200, SIGTERM half a second later, long before their quiet
    period ends: every trace is still evaluated (the one whose root never came counted as
    incomplete), and the daemon exits 0 within the budget."""
    evals = tmp_path / "evals.jsonl"
    daemon = start_otlp_http_daemon(
        tmp_path / "stderr.log",
        RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="30",
        RAGMON_JUDGE__BACKEND="none",
        RAGMON_OUTPUT__EVALUATIONS_JSONL=str(evals),
    )
    traces = built(3)
    try:
        wait_until(lambda: _post(daemon.url, b"", "application/x-protobuf") == 200, 30, "up")
        for i, (spans, _) in enumerate(traces):
            chosen = [s for s in spans if s.parent is not None] if i == 2 else spans
            assert _post(daemon.url, encoded(chosen, "otlp_proto"), "application/x-protobuf") == 200
        time.sleep(0.5)
    finally:
        t0 = time.monotonic()
        daemon.stop()
    assert daemon.proc.returncode == 0 and time.monotonic() - t0 < 20
    lines = {json.loads(x)["trace_id"]: json.loads(x) for x in evals.read_text().splitlines()}
    assert set(lines) == {native["trace_id"] for _, native in traces}
    log = (tmp_path / "stderr.log").read_text()
    assert "accepted_work_finished" in log and "traces=3" in log.replace('"traces": 3', "traces=3")


def test_a_restart_loop_shorter_than_the_max_wait_still_commits(tmp_path: Path) -> None:
    """A trace whose root never comes, written two minutes ago, before newer complete
    traces: a daemon that lives far shorter than the 30 s max wait (a crash loop, a rolling
    deploy) still emits it at once by record time and commits past it, instead of holding
    the partition's offsets at its first message on every restart."""
    topic = create_topic(1)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1)
    traces = built(6)
    old_ms = int((time.time() - 120) * 1000)
    rootless = [s for s in traces[0][0] if s.parent is not None]
    producer.send(topic, value=encoded(rootless, "otlp_proto"), timestamp_ms=old_ms)
    for spans, _ in traces[1:]:
        producer.send(topic, value=encoded(spans, "otlp_proto"))
    producer.flush()
    group = "g-otlp-restart-loop"
    daemon = Daemon(tmp_path, topic, group, **ENV)  # max wait: the default 30 s
    daemon.start()
    try:
        wait_until(lambda: all_committed(group, topic), 20, "committed within one short life")
    finally:
        daemon.kill9()
    assert set(daemon.evaluated()) == {native["trace_id"] for _, native in traces}


def backlog(n: int, partitions: int = 3) -> tuple[str, list[dict[str, Any]]]:
    """A finished topic written as the Collector's kafkaexporter writes it by default (no
    key, batches mixing traces on any partition), each trace's first-ending spans (the
    retriever's) in one batch and its model call and root in a later one on another
    partition, over fifteen minutes of record time; the traces' native records."""
    import random

    rng = random.Random(7)
    traces = built(n)
    topic = create_topic(partitions)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks=1, linger_ms=20)
    start_ms = int((time.time() - 900) * 1000)
    step = 900_000 * 4 // n
    for i in range(0, n, 4):  # a batch: four traces' first-ending spans, then the rest
        ended = [sorted(spans, key=lambda s: s.end_time or 0) for spans, _ in traces[i : i + 4]]
        early = [s for spans in ended for s in spans[: len(spans) // 2]]
        late = [s for spans in ended for s in spans[len(spans) // 2 :]]  # model call, root
        first = rng.randrange(partitions)
        second = (first + rng.randrange(1, partitions)) % partitions
        when = start_ms + (i // 4) * step
        producer.send(topic, value=encoded(early, "otlp_proto"), partition=first,
                      timestamp_ms=when)  # fmt: skip
        producer.send(topic, value=encoded(late, "otlp_proto"), partition=second,
                      timestamp_ms=when + step // 4)  # fmt: skip
    producer.flush()
    producer.close()
    return topic, [native for _, native in traces]


def whole_and_incomplete(daemon: Daemon) -> tuple[dict[str, int], set[str]]:
    """Per trace id, how many runs evaluated it; and the ids of evaluations marked
    incomplete (a line torn by kill -9 is skipped: its offset was never committed)."""
    lines, _ = daemon.lines()
    seen = {tid: len(ls) for tid, ls in lines.items()}
    incomplete = {tid for tid, ls in lines.items() if any("incomplete" in x for x in ls)}
    return seen, incomplete


def evicted(metrics: str) -> float:
    """Traces the assembly evicted, from a /metrics text."""
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith("ragmon_assembly_traces_total{") and 'outcome="evicted"' in line
    )


def test_a_fresh_group_catching_up_over_a_backlog_loses_no_trace(tmp_path: Path) -> None:
    """A new group reads the partitions of a finished topic unevenly while it catches up:
    every trace must still come out whole — none cut at the max wait because one
    partition's record time ran ahead of another's, none marked incomplete, none late."""
    topic, natives = backlog(3000)
    daemon = Daemon(tmp_path, topic, "g-otlp-catch-up", **ENV)
    metrics = metrics_once_all_committed(daemon, 120)
    got = daemon_lines(daemon)
    seen, incomplete = whole_and_incomplete(daemon)
    lost = {native["trace_id"] for native in natives} - set(got)
    print(f"\ncatch-up: {len(natives)} traces, {len(lost)} lost, "
          f"{sum(seen.values()) - len(seen)} duplicates, {len(incomplete)} incomplete")  # fmt: skip
    assert (len(lost), len(incomplete)) == (0, 0), metrics
    assert got == native_lines(tmp_path, natives)
    # no span group came after its trace was emitted (the assembly's own counter: other
    # families, such as the conversations' turns, have a "late" outcome of their own)
    assert not re.search(r'ragmon_assembly_traces_total\{[^}]*outcome="late"', metrics)


def test_a_backlog_wider_than_the_assembly_buffer_is_read_in_step(tmp_path: Path) -> None:
    """A backlog of more traces than the assembly buffer holds, read by a fresh group that
    reads one partition far ahead of the others: the partitions ahead are held (paused) while
    the buffer is past half its bound, so no trace is evicted before its spans on a slower
    partition are read (before holding: 10,000-trace buffer full, ~1,000 traces evicted
    unevaluated and lost over 12,000)."""
    topic, natives = backlog(4000)
    env = {**ENV, "RAGMON_SOURCE__ASSEMBLY__MAX_TRACES": "600",
           "RAGMON_SOURCE__KAFKA__MAX_POLL_RECORDS": "50"}  # fmt: skip
    daemon = Daemon(tmp_path, topic, "g-otlp-wide-backlog", **env)
    metrics = metrics_once_all_committed(daemon, 120)
    seen, incomplete = whole_and_incomplete(daemon)
    lost = {native["trace_id"] for native in natives} - set(seen)
    print(f"\nwide backlog: {len(natives)} traces, buffer 600, {len(lost)} lost, "
          f"{evicted(metrics):g} evicted, {len(incomplete)} incomplete")  # fmt: skip
    assert (len(lost), evicted(metrics), len(incomplete)) == (0, 0, 0)


def test_kill_minus_nine_while_catching_up_loses_no_trace(tmp_path: Path) -> None:
    """Three kill -9 while a new group catches up over the same kind of backlog: every trace
    is evaluated whole in some run; a trace evaluated twice was not committed when the
    process died (at-least-once); none is cut short by a record-time deadline."""
    import random

    rng = random.Random(3)
    topic, natives = backlog(12_000)  # wider than the 10,000-trace buffer
    group = "g-otlp-catch-up-crash"
    daemon = Daemon(tmp_path, topic, group, RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID="otlp-1",
                    **ENV)  # fmt: skip
    at_kill: list[int] = []
    dropped = 0.0  # evicted from the assembly buffer, over every run
    for _ in range(3):  # each kill lands after this run evaluated something, before the end
        daemon.start()
        run = daemon.runs
        wait_until(lambda: len(daemon.evaluated(run)) > 0 or all_committed(group, topic), 60,  # noqa: B023
                   "the daemon evaluating")  # fmt: skip
        time.sleep(rng.uniform(0.2, 0.6))
        if all_committed(group, topic):  # a fast machine finished the backlog: no more kills
            break
        dropped += evicted(scrape(daemon))
        daemon.kill9()
        at_kill.append(sum(committed_offsets(group, topic).values()))
    assert at_kill, "no kill landed while the backlog was being read"
    if not daemon.alive():
        daemon.start()
    try:
        wait_until(lambda: all_committed(group, topic), 120, "all offsets committed")
        dropped += evicted(scrape(daemon))
    finally:
        daemon.terminate()
    seen, incomplete = whole_and_incomplete(daemon)
    lost = {native["trace_id"] for native in natives} - set(seen)
    print(f"\nkill -9 catch-up: {len(natives)} traces, kills at committed {at_kill}, "
          f"{len(lost)} lost, {sum(seen.values()) - len(seen)} duplicates, "
          f"{dropped:g} evicted, {len(incomplete)} incomplete")  # fmt: skip
    assert (len(lost), dropped, len(incomplete)) == (0, 0, 0)
