"""`ragmon rescore` on the real broker: a window of a topic's history by record time,
evaluated again without joining a group or committing, into evaluation lines and an
OpenMetrics file that promtool turns into Prometheus blocks."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaProducer

from monitor.sources import demo
from tests.integration.conftest import prometheus_server, ragmon
from tests.integration.kafka_support import bootstrap, create_topic

pytestmark = pytest.mark.integration

HOUR = 3600


def _produce(topic: str, start: float, n: int, every: float = 60) -> dict[str, float]:
    """``n`` demo traces with record times ``every`` seconds apart from ``start``; trace id
    -> time. Each trace's own time is its record time."""
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all")
    times = {}
    for i in range(n):
        at = start + every * i
        record = demo.generate(i, 5)
        record["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
        producer.send(topic, json.dumps(record).encode(), timestamp_ms=int(at * 1000))
        times[record["trace_id"]] = at
    producer.flush()
    producer.close()
    return times


def _group_ids() -> set[str]:
    """The consumer groups the broker knows, by id (their states move with the other tests
    that run beside this one, so they are not compared)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap())
    try:
        return {group["group_id"] for group in admin.list_groups()}
    finally:
        admin.close()


def test_a_window_of_history_is_rescored_without_touching_a_group(tmp_path: Path) -> None:
    topic = create_topic(3)
    start = time.time() - 4 * HOUR
    times = _produce(topic, start, 180)  # three hours, one trace a minute
    since, until = start + 30 * 60, start + 90 * 60
    lines, om = tmp_path / "lines.jsonl", tmp_path / "history.om"
    group = f"rescore-{topic}"  # the group the daemon would join with this configuration
    assert group not in _group_ids()
    result = ragmon("rescore", "--topic", topic, "--since", str(since), "--until", str(until),
                    "--output-jsonl", str(lines), "--openmetrics", str(om),
                    RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([bootstrap()]),
                    RAGMON_SOURCE__KAFKA__GROUP_ID=group)  # fmt: skip
    assert result.returncode == 0, result.stderr
    got = {json.loads(x)["trace_id"] for x in lines.read_text().splitlines()}
    assert got == {t for t, at in times.items() if since <= at < until}  # 60 traces
    assert "60 traces" in result.stdout
    line = json.loads(lines.read_text().splitlines()[0])
    assert set(line["evaluators"]) >= {"refusal", "unsupported_numbers"}
    # no consumer group was joined: the configured one is still unknown to the broker
    assert group not in _group_ids()
    text = om.read_text()
    assert text.endswith("# EOF\n") and 'source="rescore"' in text
    assert f'evaluator="{line["evaluators"]["refusal"]}"' in text
    totals = [ln for ln in text.splitlines() if ln.startswith("ragmon_traces_total")]
    last: dict[str, float] = {}
    for ln in totals:
        series, value, _ = ln.rsplit(" ", 2)
        last[series] = float(value)
    assert sum(last.values()) == 60
    # the size said before the last write, and what was written: samples about the steps
    # that hold traces only (60 traces a minute apart: 60 steps)
    samples = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert f"writing {om}: {len(samples):,} samples of " in result.stdout
    assert "about the 60 steps of 60 s that hold traces" in result.stdout
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool not found: `make test` installs Debian's prometheus package")
    blocks = tmp_path / "blocks"
    made = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(om),
                           str(blocks)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert made.returncode == 0, made.stderr + made.stdout
    assert any((blocks / d / "meta.json").exists() for d in (p.name for p in blocks.iterdir()))


def test_a_dry_run_counts_the_window_and_prices_the_judge(tmp_path: Path) -> None:
    topic = create_topic(1)
    start = time.time() - 2 * HOUR
    _produce(topic, start, 40)
    result = ragmon("rescore", "--topic", topic, "--since", str(start), "--until", "0s",
                    "--dry-run", RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([bootstrap()]),
                    RAGMON_JUDGE__BACKEND="anthropic", ANTHROPIC_API_KEY="unused",
                    RAGMON_JUDGE__SAMPLING__BASE_RATE="1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "40 traces" in result.stdout
    assert "the judge would take 40 of 40 traces" in result.stdout
    assert "$" in result.stdout and not list(tmp_path.iterdir())  # nothing written


def test_a_window_of_conversations_gets_each_pair_once_and_a_dry_run_prices_it(
    tmp_path: Path,
) -> None:
    """Sessions are on by default: a window whose traces are turns of conversations writes
    each consecutive pair's follow-up line once, and a dry run prices the judge (it crashed:
    its estimating sink had no ``write_followup``)."""
    topic = create_topic(3)
    start = time.time() - HOUR
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all")
    want = []
    for s in range(4):
        ids = [f"{s + 1:016x}{i + 1:016x}" for i in range(3)]
        want += list(itertools.pairwise(ids))
        for i, trace_id in enumerate(ids):
            at = start + 300 * s + 60 * i
            record = {**demo.generate(s * 3 + i, 5), "trace_id": trace_id,
                      "session_id": f"conv-{s}", "timestamp": time.strftime(
                          "%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))}  # fmt: skip
            producer.send(topic, json.dumps(record).encode(), timestamp_ms=int(at * 1000))
    producer.flush()
    producer.close()
    env = {"RAGMON_KAFKA__BOOTSTRAP_SERVERS": json.dumps([bootstrap()])}
    dry = ragmon("rescore", "--topic", topic, "--since", str(start - 60), "--dry-run",
                 RAGMON_JUDGE__BACKEND="heuristic", **env)  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    assert "12 traces" in dry.stdout and "the judge would take" in dry.stdout
    lines = tmp_path / "lines.jsonl"
    result = ragmon("rescore", "--topic", topic, "--since", str(start - 60),
                    "--output-jsonl", str(lines), **env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    got = [json.loads(x) for x in lines.read_text().splitlines()]
    pairs = [(x["trace_id"], x["followup"]["by"]) for x in got if "followup" in x]
    assert sorted(pairs) == sorted(want)


def test_an_empty_window_is_exit_1_and_bad_times_are_refused(tmp_path: Path) -> None:
    topic = create_topic(1)
    env = {"RAGMON_KAFKA__BOOTSTRAP_SERVERS": json.dumps([bootstrap()])}
    empty = ragmon("rescore", "--topic", topic, "--since", "1h", "--dry-run", **env)
    assert empty.returncode == 1 and "0 traces" in empty.stdout
    bad = ragmon("rescore", "--topic", topic, "--since", "yesterday", "--dry-run", **env)
    assert bad.returncode == 2 and "--since/--until" in bad.stderr
    missing = ragmon("rescore", "--topic", "no-such-topic", "--since", "1h", "--dry-run", **env)
    assert missing.returncode == 2 and "no such topic" in missing.stderr


def _query(prom: str, expr: str, at: float) -> list[str]:
    """The ``evaluator`` label of each series ``expr`` gives at time ``at``."""
    url = f"{prom}/api/v1/query?query={urllib.parse.quote(expr)}&time={at}"
    with urllib.request.urlopen(url, timeout=10) as resp:
        body = json.loads(resp.read())
    assert body["status"] == "success", body
    return sorted(r["metric"].get("evaluator", "") for r in body["data"]["result"])


def _rescore_to_blocks(topic: str, since: float, until: float, tmp: Path, name: str,
                       blocks: Path, **extra: str) -> dict[str, str]:  # fmt: skip
    """Re-score the window into an OpenMetrics file, make blocks of it; the versions."""
    om, lines = tmp / f"{name}.om", tmp / f"{name}.jsonl"
    done = ragmon("rescore", "--topic", topic, "--since", str(since), "--until", str(until),
                  "--openmetrics", str(om), "--output-jsonl", str(lines),
                  RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([bootstrap()]), **extra)  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om),
                           str(blocks)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert made.returncode == 0, made.stderr + made.stdout
    return dict(json.loads(lines.read_text().splitlines()[0])["evaluators"])


def test_two_definitions_rescored_sit_side_by_side_in_a_real_prometheus(tmp_path: Path) -> None:
    """A week of history; one day of it re-scored under the live definition and under a
    changed option of one check: both OpenMetrics files become blocks (promtool), a real
    Prometheus loads them, and the changed check's series carry two evaluator versions over
    the same day, the other checks' one."""
    topic = create_topic(2)
    start = time.time() - 7 * 24 * HOUR
    _produce(topic, start, 7 * 24 * 6, every=600)  # a week, one trace every ten minutes
    since, until = start + 3 * 24 * HOUR, start + 4 * 24 * HOUR  # its fourth day
    blocks = tmp_path / "data"
    live = _rescore_to_blocks(topic, since, until, tmp_path, "live", blocks)
    candidate = _rescore_to_blocks(topic, since, until, tmp_path, "candidate", blocks,
                                   RAGMON_CHECKS__CONTEXT_CONFLICT__SIMILARITY="0.3")  # fmt: skip
    assert live["context_conflict"] != candidate["context_conflict"]
    assert live["refusal"] == candidate["refusal"]
    config = tmp_path / "prometheus.yml"
    config.write_text("global: {}\n")
    with prometheus_server(config, blocks, "--storage.tsdb.retention.time=30d") as prom:
        at = since + 12 * HOUR  # inside the day both re-scored
        series = 'count by (evaluator) (ragmon_check_results_total{{check="{}",source="rescore"}})'
        assert _query(prom, series.format("context_conflict"), at) == sorted(
            [live["context_conflict"], candidate["context_conflict"]]
        )
        assert _query(prom, series.format("refusal"), at) == [live["refusal"]]


def _tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes (a directory's whole state)."""
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


def test_a_command_run_with_the_daemons_config_leaves_its_outputs_alone(tmp_path: Path) -> None:
    """`rescore --config <the daemon's config>` (with and without --dry-run) and `replay
    --config` of the same traces write only where their own options say: the daemon's
    evaluation file, dead-letter file, golden directory and dead-letter topic stay
    byte-identical (before: every re-scored line appended to the daemon's file, a new
    candidate-row segment in its golden directory and every dead letter sent again)."""
    topic, dlq = create_topic(2), create_topic(1)
    start = time.time() - HOUR
    _produce(topic, start, 60, every=20)
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all")
    for i in range(3):  # poison records in the window: dead letters
        producer.send(topic, b"{not json", timestamp_ms=int((start + 30 + i) * 1000))
    producer.flush()
    producer.close()
    daemon = tmp_path / "daemon"
    (daemon / "golden").mkdir(parents=True)
    (daemon / "golden" / "rows-0001.jsonl").write_text('{"id": "kept"}\n')
    (daemon / "evals.jsonl").write_text('{"trace_id": "already there"}\n')
    (daemon / "dead.jsonl").write_text("")
    config = tmp_path / "daemon.yaml"
    config.write_text(
        "source:\n  type: kafka\n"
        f"  kafka: {{topics: [{topic}], group_id: live-daemon}}\n"
        f"kafka: {{bootstrap_servers: ['{bootstrap()}']}}\n"
        f"output:\n  evaluations_jsonl: {daemon / 'evals.jsonl'}\n"
        f"  dead_letters_jsonl: {daemon / 'dead.jsonl'}\n  dead_letters_topic: {dlq}\n"
        f"golden:\n  dir: {daemon / 'golden'}\n"
    )
    before, dlq_before = _tree(daemon), _end_offsets(dlq)
    out = tmp_path / "mine.jsonl"
    for extra in (["--output-jsonl", str(out)], ["--dry-run"]):
        result = ragmon("rescore", "--config", str(config), "--since", str(start - 60), *extra)
        assert result.returncode == 0, result.stderr
        assert "60 traces, 3 dead letters" in result.stdout
    assert len(out.read_text().splitlines()) == 60  # its own option: written
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(demo.generate(i, 5)) + "\n" for i in range(30)) + "{bad\n")
    result = ragmon("replay", str(traces), "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert _tree(daemon) == before
    assert _end_offsets(dlq) == dlq_before


def _end_offsets(topic: str) -> dict[int, int]:
    from tests.integration.kafka_support import end_offsets

    return end_offsets(topic)


def test_a_dry_run_without_a_judge_says_so_and_since_takes_the_form_help_shows() -> None:
    """`--since -2h` as `rescore --help` writes it (argparse took it for an option:
    "expected one argument"), and a dry run with judge.backend none says that no judge
    would run instead of pricing one."""
    topic = create_topic(1)
    _produce(topic, time.time() - 600, 5)
    result = ragmon("rescore", "--topic", topic, "--since", "-2h", "--dry-run",
                    RAGMON_KAFKA__BOOTSTRAP_SERVERS=json.dumps([bootstrap()]))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "5 traces" in result.stdout and "no judge would run" in result.stdout
    assert "$" not in result.stdout
