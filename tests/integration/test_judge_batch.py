"""Batch mode end to end: the daemon on a real Kafka topic, the real anthropic SDK against a
local server that speaks the Message Batches API, kill -9 at the two moments that matter.
Nothing may be submitted twice, no result may be lost, and the offsets must not wait."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from monitor.judge.outbox import LOG_NAME, read
from tests.integration.kafka_support import (
    Daemon,
    all_committed,
    create_topic,
    produce,
    wait_until,
)
from tests.integration.messages_api import MessagesApi


def batch_daemon(tmp: Path, api: MessagesApi, topic: str, group: str) -> Daemon:
    return Daemon(
        tmp, topic, group,
        RAGMON_JUDGE__BACKEND="anthropic",
        ANTHROPIC_API_KEY="test-key",
        RAGMON_JUDGE__ANTHROPIC__BASE_URL=api.base_url,
        RAGMON_JUDGE__MAX_RETRIES="0",
        RAGMON_JUDGE__SAMPLING__BASE_RATE="1.0",
        RAGMON_JUDGE__SAMPLING__FLAGGED_RATE="1.0",
        RAGMON_JUDGE__BATCH__ENABLED="true",
        RAGMON_JUDGE__BATCH__DIR=str(tmp / "outbox"),
        RAGMON_JUDGE__BATCH__MAX_WAIT_SECONDS="1",
        RAGMON_JUDGE__BATCH__POLL_SECONDS="0.3",
        RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID=f"{group}-1",
    )  # fmt: skip


def lines(daemon: Daemon) -> list[dict[str, Any]]:
    out = []
    for run in range(1, daemon.runs + 1):
        path = daemon.evaluations_file(run)
        for line in path.read_text().splitlines() if path.exists() else ():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # torn by kill -9 after the last flush
                continue
    return out


def requested(api: MessagesApi) -> list[str]:
    """Every request id in every batch created, in order."""
    with api.lock:
        return [r["custom_id"] for b in api.batches.values() for r in b["requests"]]


def judged(daemon: Daemon) -> list[str]:
    return [x["trace_id"] for x in lines(daemon) if x.get("judge_only")]


def metric(daemon: Daemon, name: str) -> float:
    """A sample of the daemon's /metrics."""
    body = httpx.get(f"http://127.0.0.1:{daemon.port}/metrics", timeout=10).text
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            if sample.name == name:
                return float(sample.value)
    raise AssertionError(f"{name} not exported")


def submitted_in_log(tmp: Path) -> bool:
    state = read(tmp / "outbox" / LOG_NAME)
    return bool(state.batches) and all(b.provider for b in state.batches.values())


def test_kill_between_submit_and_results(tmp_path: Path) -> None:
    """The batch is in flight when the daemon dies: the restarted daemon polls it (no second
    create) and writes every verdict; the offsets were committed long before."""
    topic = create_topic(1)
    produced = produce(topic, 30)
    with MessagesApi() as api:
        daemon = batch_daemon(tmp_path, api, topic, "g-batch-a").start()
        try:
            wait_until(lambda: all_committed("g-batch-a", topic), 60, "offsets committed")
            wait_until(lambda: submitted_in_log(tmp_path), 60, "a batch submitted")
            batched = {x["trace_id"] for x in lines(daemon)
                       if x.get("judge", {}).get("skipped") == "batched"}  # fmt: skip
            wait_until(lambda: set(requested(api)) == batched, 30, "every request in a batch")
        finally:
            daemon.kill9()
        assert judged(daemon) == []  # nothing ended yet
        api.end_batches = True
        daemon.start()
        try:
            wait_until(lambda: set(judged(daemon)) >= batched, 60, "every verdict written")
            cost = metric(daemon, "ragmon_judge_cost_usd_total")
        finally:
            daemon.terminate()
    ids = requested(api)
    assert len(ids) == len(set(ids)), "a request was submitted twice"
    assert set(ids) == batched and batched <= set(produced.valid)
    check_lines = [x for x in lines(daemon) if not x.get("judge_only")]
    assert len(check_lines) == 30  # the restart read nothing again: it was all committed
    verdicts = [x for x in lines(daemon) if x.get("judge_only")]
    assert all(x["judge"]["verdict"] in ("pass", "fail", "hard_fail") for x in verdicts)
    # at half the online price: (900 input, 120 output, 400 cache-read tokens) at the defaults
    online = (900 * 0.10 + 120 * 0.50 + 400 * 0.01) / 1e6
    assert abs(cost - 0.5 * online * len(verdicts)) < 1e-9


@pytest.mark.parametrize("stop", ["kill9", "sigterm"])
def test_kill_between_results_and_write(tmp_path: Path, stop: str) -> None:
    """The daemon dies (or is stopped) while it reads a batch's results: the restarted daemon
    fetches them again and writes every verdict, without creating the batch again. A SIGTERM
    does not wait for the stalled download (the batch child is ended) and exits 0."""
    topic = create_topic(1)
    produce(topic, 20)
    with MessagesApi() as api:
        api.end_batches = True
        api.results_stall = 30.0  # the download stops after its first line
        daemon = batch_daemon(tmp_path, api, topic, f"g-batch-b-{stop}").start()
        try:
            wait_until(api.results_started.is_set, 60, "the results download started")
        finally:
            if stop == "kill9":
                daemon.kill9()
            else:
                assert daemon.terminate() < 8
                assert daemon.proc is not None and daemon.proc.returncode == 0
        assert judged(daemon) == []
        before = requested(api)
        api.results_stall = 0.0
        api.results_release.set()
        daemon.start()
        try:
            wait_until(lambda: set(judged(daemon)) >= set(before), 60, "every verdict written")
        finally:
            daemon.terminate()
    ids = requested(api)
    assert len(ids) == len(set(ids)), "a request was submitted twice"
    assert set(judged(daemon)) >= set(ids)


@pytest.mark.parametrize("isolate", [True, False])
def test_openai_batch_api_through_the_sdk(tmp_path: Path, isolate: bool) -> None:
    """Batch mode with judge.backend openai: the requests uploaded as one JSONL file, the
    batch polled, the output file and the error file read back into judge-only lines; the
    provider calls in a child process (judge.isolate, the default) or in this one."""
    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.config import Settings
    from monitor.ingest.native import NativeDecoder
    from monitor.pipeline import Pipeline
    from monitor.sources import ListSource, demo
    from monitor.telemetry import Metrics
    from sinks.memory import InMemorySink
    from tests.integration.chat_completions_api import ChatCompletionsApi

    with ChatCompletionsApi() as api:
        settings = Settings.model_validate({"judge": {
            "backend": "openai", "openai": {"base_url": api.base_url, "api_key": "k"},
            "max_retries": 0, "sampling": {"base_rate": 1.0, "flagged_rate": 1.0},
            "isolate": isolate,
            "batch": {"enabled": True, "dir": str(tmp_path / "outbox"), "max_requests": 5,
                      "poll_seconds": 0.1},
        }})  # fmt: skip
        metrics = Metrics(CollectorRegistry())
        stage = registry.build_judge_stage(settings, metrics)
        assert stage is not None
        sink = InMemorySink()
        source = ListSource([demo.generate_bytes(i) for i in range(12)], source="traces")
        pipeline = Pipeline(source, NativeDecoder(), registry.build_suite(settings), [sink],
                            judge_stage=stage)  # fmt: skip
        pipeline.start()
        pipeline.process(source.poll(12, 0))
        pipeline.checkpoint()
        batched = [e.trace_id for e in sink.evaluations if e.judge_skipped == "batched"]
        wait_until(lambda: len(api.batches) == len(batched) // 5, 20, "full batches created")
        first = next(iter(api.batches.values()))["input"]
        api.failed_ids = {first[0]["custom_id"]}
        api.end_batches = True

        def judged_now() -> int:
            pipeline._write_judged(stage.drain())
            return sum(e.judge_only for e in sink.evaluations)

        wait_until(lambda: judged_now() == 5 * len(api.batches), 20, "every result written")
        pipeline.checkpoint()
        stage.close()
    lines = [e for e in sink.evaluations if e.judge_only]
    assert {e.trace_id for e in lines} == {r["custom_id"] for b in api.batches.values()
                                           for r in b["input"]}  # fmt: skip
    failed = [e for e in lines if e.judge_skipped == "error:errored"]
    assert [e.trace_id for e in failed] == [first[0]["custom_id"]]
    body = first[1]["body"]  # the same rubric and schema as the online judge
    assert body["messages"][0]["role"] == "system"
    assert body["response_format"]["type"] == "json_schema"
    ok = [e for e in lines if e.judge is not None]
    assert ok and all(e.judge.verdict == "pass" for e in ok)
    online = (900 * 0.10 + 120 * 0.50) / 1e6  # the local server's usage at judge.prices
    assert all(abs(e.judge.cost_usd - 0.5 * online) < 1e-12 for e in ok)


def test_adoption_looks_back_only_to_the_submit_time() -> None:
    """created_since, which a restart uses to adopt a batch it may have created, through each
    SDK: batches created before the time are not candidates; one for another key (OpenAI:
    in its metadata) or of another size (Anthropic, whose batches keep no metadata) is not."""
    import time as clock

    from monitor.core.model import RagTrace
    from monitor.judge.anthropic_batches import AnthropicBatches
    from monitor.judge.anthropic_judge import AnthropicJudge
    from monitor.judge.openai_batches import OpenAIBatches
    from monitor.judge.openai_judge import OpenAIJudge
    from monitor.sources import demo
    from tests.integration.chat_completions_api import ChatCompletionsApi

    traces = [RagTrace.from_data(demo.generate(i)) for i in range(3)]
    with MessagesApi() as claude, ChatCompletionsApi() as other:
        apis = [
            AnthropicBatches(AnthropicJudge(api_key="k", base_url=claude.base_url)),
            OpenAIBatches(OpenAIJudge("gpt-4.1-mini", api_key="k", base_url=other.base_url)),
        ]
        for api in apis:
            api.submit([(t.trace_id, t) for t in traces[:2]], "older")
        clock.sleep(1.1)  # OpenAI's created_at is in whole seconds (floored)
        since = clock.time()
        found = {}
        for api in apis:
            assert api.created_since(since, "older", 2) == []  # created before the time
            newer = api.submit([(t.trace_id, t) for t in traces], "newer")
            found[api.name] = (
                newer,
                api.created_since(since - 1, "newer", 3),  # a floored stamp is > since - 1
                api.created_since(since - 1, "another", 2),
            )
    for newer, mine, other in found.values():
        assert mine == [newer] and other == []


def openai_batch_stage(tmp: Path, base_url: str, isolate: bool = False) -> Any:
    """Batch mode with judge.backend openai as the registry builds it: five requests a batch."""
    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.config import Settings
    from monitor.telemetry import Metrics

    settings = Settings.model_validate({"judge": {
        "backend": "openai", "openai": {"base_url": base_url, "api_key": "k"},
        "max_retries": 2, "sampling": {"base_rate": 1.0, "flagged_rate": 1.0},
        "isolate": isolate,
        "batch": {"enabled": True, "dir": str(tmp / "outbox"), "max_requests": 5,
                  "poll_seconds": 0.1},
    }})  # fmt: skip
    stage = registry.build_judge_stage(settings, Metrics(CollectorRegistry()))
    assert stage is not None
    return stage


def twelve_traces_batched(tmp: Path, base_url: str, isolate: bool = False) -> tuple[Any, Any, Any]:
    """A pipeline with the OpenAI batch stage that has read, checked and checkpointed twelve
    demo traces (their sampled requests in the outbox): the pipeline, the stage, the sink."""
    from monitor.checks import CheckSuite
    from monitor.ingest.native import NativeDecoder
    from monitor.pipeline import Pipeline
    from monitor.sources import ListSource, demo
    from sinks.memory import InMemorySink

    stage = openai_batch_stage(tmp, base_url, isolate)
    sink = InMemorySink()
    source = ListSource([demo.generate_bytes(i) for i in range(12)], source="traces")
    pipeline = Pipeline(source, NativeDecoder(), CheckSuite(), [sink], judge_stage=stage)
    pipeline.start()
    pipeline.process(source.poll(12, 0))
    pipeline.checkpoint()
    return pipeline, stage, sink


def test_a_crash_between_create_and_its_record_pays_for_the_batch_once(tmp_path: Path) -> None:
    """The outbox has the submit line, the provider has the batch — still validating, every
    request count 0, as a new OpenAI batch is — and the submitted line never made it: the
    restarted stage finds the batch by the key in its metadata and creates nothing."""
    import time

    from monitor.core.model import RagTrace
    from monitor.judge.openai_batches import OpenAIBatches
    from monitor.judge.openai_judge import OpenAIJudge
    from monitor.judge.outbox import Outbox
    from monitor.sources import demo
    from tests.integration.chat_completions_api import ChatCompletionsApi

    traces = [RagTrace.from_data(demo.generate(i)) for i in range(3)]
    with ChatCompletionsApi() as api:
        api.validating_seconds = 60.0
        outbox = Outbox(tmp_path / "outbox")
        outbox.open()
        for t in traces:
            outbox.add(t.trace_id, {"weight": 1.0, "usd": 0.0, "at": time.time()},
                       t.to_json())  # fmt: skip
        outbox.submitting("b1", [t.trace_id for t in traces], time.time())
        sdk = OpenAIBatches(OpenAIJudge("gpt-4.1-mini", api_key="k", base_url=api.base_url))
        provider = sdk.submit([(t.trace_id, t) for t in traces], "b1")  # ... and it died here
        outbox.close()
        assert api.batch(provider)["request_counts"]["total"] == 0  # validating
        stage = openai_batch_stage(tmp_path, api.base_url)
        stage.start()
        try:
            wait_until(lambda: read(tmp_path / "outbox" / LOG_NAME).batches["b1"].provider
                       == provider, 20, "the batch adopted")  # fmt: skip
            time.sleep(0.5)  # several cycles
        finally:
            stage.close()
        assert api.creates == 1


@pytest.mark.parametrize("isolate", [False, True])
def test_a_create_whose_answer_is_lost_is_looked_up_not_made_again(
    tmp_path: Path, isolate: bool
) -> None:
    """The provider records the batch, then its answer is lost (a 500): the SDK does not
    retry the create (a retry would make a second, paid batch); the next cycle finds the
    batch by its key, and every request gets its one result line."""
    from tests.integration.chat_completions_api import ChatCompletionsApi

    with ChatCompletionsApi() as api:
        api.lose_create_answers = 1
        pipeline, stage, sink = twelve_traces_batched(tmp_path, api.base_url, isolate)
        batched = [e.trace_id for e in sink.evaluations if e.judge_skipped == "batched"]
        full = len(batched) // 5
        wait_until(
            lambda: (
                submitted_in_log(tmp_path)
                and len(read(tmp_path / "outbox" / LOG_NAME).batches) == full
            ),
            20,
            "batches recorded",
        )
        api.end_batches = True

        def judged_now() -> int:
            pipeline._write_judged(stage.drain())
            return sum(e.judge_only for e in sink.evaluations)

        wait_until(lambda: judged_now() == 5 * full, 20, "every result written")
        stage.close()
        assert api.creates == full  # each batch paid once
    lines = [e.trace_id for e in sink.evaluations if e.judge_only]
    assert sorted(lines) == sorted(set(lines)) and len(lines) == 5 * full


def test_expired_requests_of_an_openai_batch_are_counted_expired(tmp_path: Path) -> None:
    """A request the Batch API could not run in the completion window comes back in the error
    file with code batch_expired: its line says expired, not errored."""
    from tests.integration.chat_completions_api import ChatCompletionsApi

    with ChatCompletionsApi() as api:
        pipeline, stage, sink = twelve_traces_batched(tmp_path, api.base_url)
        wait_until(lambda: len(api.batches) >= 1, 20, "a batch created")
        first = next(iter(api.batches.values()))["input"]
        api.expired_ids = {first[0]["custom_id"]}
        api.end_batches = True

        def results() -> list[Any]:
            pipeline._write_judged(stage.drain())
            return [e for e in sink.evaluations if e.judge_only]

        expired = first[0]["custom_id"]  # the other batch may end first: wait for this one
        wait_until(lambda: any(e.trace_id == expired for e in results()), 20, "its line written")
        stage.close()
    by_id = {e.trace_id: e for e in results()}
    assert by_id[first[0]["custom_id"]].judge_skipped == "error:expired"
