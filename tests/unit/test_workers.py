"""``ragmon run --workers``: what the parent refuses and what each worker is told."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.commands.cli import build_parser
from monitor.commands.workers import refusal, worker_env, worker_path
from monitor.config import Settings

KAFKA = {"source": {"type": "kafka"}, "sessions": {"topic": "turns"}}


def test_only_a_consumer_group_is_shared() -> None:
    assert refusal(Settings.model_validate(KAFKA), 2) is None
    off = {"source": {"type": "kafka"}, "sessions": {"enabled": False}}
    assert refusal(Settings.model_validate(off), 2) is None
    for kind in ("demo", "jsonl", "otlp_http"):
        said = refusal(Settings.model_validate({"source": {"type": kind}}), 3)
        assert said is not None and said.startswith(
            f"--workers 3 needs source.type kafka (it is {kind})"
        )


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ({"golden": {"dir": "g", "review_port": 8081}}, "golden.review_port"),
        (
            {
                "golden": {"set_path": "s.jsonl"},
                "probes": {"endpoint": "http://127.0.0.1:9/ask", "request_template": "t.json"},
            },
            "probes.endpoint",
        ),
        (
            {"judge": {"backend": "anthropic", "batch": {"enabled": True, "dir": "o"}}},
            "judge.batch.enabled",
        ),
    ],
)
def test_parts_one_process_owns_are_refused(given: dict[str, object], key: str) -> None:
    said = refusal(Settings.model_validate({**KAFKA, **given}), 2)
    assert said is not None and said.startswith(f"--workers 2 with {key}: ")


def test_every_reason_is_named_at_once(tmp_path: Path) -> None:
    """A demo source, the daemon's review page, the probes and a config that is not a
    regular file: one line names all four (it used to name the first, one run at a time)."""
    given = {"source": {"type": "demo"},
             "golden": {"dir": "g", "set_path": "s.jsonl", "review_port": 8081},
             "probes": {"endpoint": "http://127.0.0.1:9/ask", "request_template": "t.json"},
             "sessions": {"enabled": False}}  # fmt: skip
    said = refusal(Settings.model_validate(given), 2, tmp_path)
    assert said is not None and "\n" not in said
    for reason in ("needs source.type kafka", "with golden.review_port: ", "probes.endpoint: ",
                   f"--config {tmp_path}: "):  # fmt: skip
        assert reason in said, reason


@pytest.mark.parametrize("golden", [{"topic": "candidates"}, {"dir": "g", "topic": "candidates"}])
def test_golden_topic_runs_under_workers(golden: dict[str, str]) -> None:
    """golden.topic is accepted with two workers: each worker's records are keyed by row and
    writer (sinks.kafka_sink), so no worker's count hides another's."""
    assert refusal(Settings.model_validate({**KAFKA, "golden": golden}), 2) is None


def test_a_golden_dir_is_shared_a_directory_a_worker() -> None:
    """golden.dir runs under workers (issue 71: the example local config could not): each
    worker writes its own directory in it, read back as one by every reader."""
    settings = Settings.model_validate({**KAFKA, "golden": {"dir": "var/golden"}})
    assert refusal(settings, 2) is None
    assert worker_env(settings, 1, 1)["RAGMON_GOLDEN__DIR"] == str(Path("var/golden/worker-1"))


def test_each_worker_has_its_own_endpoint_files_and_member_id() -> None:
    settings = Settings.model_validate({
        **KAFKA,
        "output": {"evaluations_jsonl": "out/evals.jsonl", "dead_letters_jsonl": "dead.jsonl"},
    })  # fmt: skip
    env = worker_env(settings, 1, 40001)
    assert env == {
        "RAGMON_METRICS__HOST": "127.0.0.1",
        "RAGMON_METRICS__PORT": "40001",
        "RAGMON_OUTPUT__EVALUATIONS_JSONL": str(Path("out/evals.worker-1.jsonl")),
        "RAGMON_OUTPUT__DEAD_LETTERS_JSONL": str(Path("dead.worker-1.jsonl")),
    }
    static = Settings.model_validate(
        {"source": {"type": "kafka", "kafka": {"group_instance_id": "pod-a"}}}
    )
    assert worker_env(static, 0, 1)["RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID"] == "pod-a-0"
    assert worker_path(Path("a/b.jsonl.gz"), 2) == Path("a/b.jsonl.worker-2.gz")


def test_workers_takes_a_count_or_auto() -> None:
    parser = build_parser()
    assert parser.parse_args(["run"]).workers == 1
    assert parser.parse_args(["run", "--workers", "3"]).workers == 3
    assert parser.parse_args(["run", "--workers", "auto"]).workers >= 1
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--workers", "0"])


def _exposition(seed: float) -> bytes:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

    reg = CollectorRegistry()
    Counter("t_traces", "Traces.", ["app"], registry=reg).labels("a").inc(seed)
    Gauge("t_up", "Up, no labels.", registry=reg).set(1)
    Histogram("t_seconds", "Latency.", registry=reg, buckets=(0.1, 1.0)).observe(seed / 10)
    return generate_latest(reg)


def test_the_workers_series_merge_into_one_exposition_each_once() -> None:
    """Two workers' real expositions (prometheus_client's text format): one HELP and TYPE
    per family, every sample of each worker once with its worker label, read back by the
    parser as Prometheus would read it."""
    from prometheus_client.parser import text_string_to_metric_families

    from monitor.commands.workers import merged

    text = merged([("0", _exposition(2)), ("1", _exposition(5))]).decode()
    assert text.count("# HELP t_traces_total ") == 1 and text.count("# TYPE t_up ") == 1
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for f in text_string_to_metric_families(text) for s in f.samples}  # fmt: skip
    assert samples[("t_traces_total", (("app", "a"), ("worker", "0")))] == 2
    assert samples[("t_traces_total", (("app", "a"), ("worker", "1")))] == 5
    assert samples[("t_up", (("worker", "1"),))] == 1
    assert samples[("t_seconds_bucket", (("le", "1.0"), ("worker", "0")))] == 1
    one = {k for k in samples if ("worker", "0") in k[1]}
    assert len(samples) == 2 * len(one)  # no sample lost or doubled
    assert merged([]) == b""


def test_the_example_local_config_runs_with_two_workers() -> None:
    """deploy/ragmon.local.yaml (a golden dir, conversations on their topic) is not refused
    by ``run --workers 2`` (issue 71)."""
    from monitor.config import load

    config = Path(__file__).resolve().parents[2] / "deploy" / "ragmon.local.yaml"
    settings = load(config)
    assert settings.golden.dir is not None
    assert refusal(settings, 2, config) is None
