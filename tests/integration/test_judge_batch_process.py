"""Batch mode's provider calls in a child process (``judge.isolate``, the default): the same
batches and outcomes as in this process, through both real SDKs against the local batch
servers; a call that stalls or a child that dies fails as a ``JudgeError`` and the next call
gets a new child."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from typing import Any

import pytest

from monitor.core.errors import JudgeError
from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.anthropic_judge import AnthropicJudge
from monitor.judge.batch import InProcess, Outcome, Request, batch_api
from monitor.judge.batch_process import ProcessBatches, provider_api
from monitor.judge.openai_judge import OpenAIJudge
from monitor.sources import demo
from tests.integration.chat_completions_api import ChatCompletionsApi
from tests.integration.kafka_support import wait_until
from tests.integration.messages_api import MessagesApi


def requests(n: int, start: int = 0) -> list[Request]:
    traces = [RagTrace.from_data(demo.generate(i)) for i in range(start, start + n)]
    # as a process that appended them holds them, and as a restarted one reads them back
    return [Request(t.trace_id, {"trace": t.to_json(), "held": t}) if i % 2 else
            Request(t.trace_id, {"trace": json.loads(t.to_json())})
            for i, t in enumerate(traces)]  # fmt: skip


def comparable(outcomes: list[tuple[str, Outcome]]) -> list[tuple[str, Any]]:
    def line(o: Outcome) -> Any:
        return o if isinstance(o, str) else o.model_copy(update={"latency_seconds": 0.0})

    return sorted((rid, line(o)) for rid, o in outcomes)


def judge_of(backend: str, base_url: str) -> tuple[type[Any], dict[str, Any]]:
    if backend == "anthropic":
        return AnthropicJudge, {"api_key": "k", "base_url": base_url, "max_retries": 0}
    return OpenAIJudge, {"model": "gpt-4.1-mini", "api_key": "k", "base_url": base_url,
                         "max_retries": 0}  # fmt: skip


@pytest.mark.parametrize("backend", ["anthropic", "openai"])
def test_the_child_creates_and_reads_batches_as_this_process_does(backend: str) -> None:
    server: Any = MessagesApi() if backend == "anthropic" else ChatCompletionsApi()
    with server:
        cls, kwargs = judge_of(backend, server.base_url)
        here = InProcess(batch_api(cls(**kwargs), 0.5))
        child = ProcessBatches(provider_api, {"judge": cls, "kwargs": kwargs, "discount": 0.5})
        try:
            batch = requests(4)
            failed = batch[1].id
            if backend == "anthropic":
                server.outcomes = {failed: "errored"}
            else:
                server.failed_ids = {failed}
            server.end_batches = True
            ids = [here.submit(batch, "k-here"), child.submit(batch, "k-child")]
            wait_until(lambda: all(here.ended(i) and child.ended(i) for i in ids), 20, "ended")
            mine, theirs = here.outcomes(ids[0], batch), child.outcomes(ids[1], batch)
            for key in ("k-here", "k-child"):
                assert child.created_since(0.0, key, 4) == here.created_since(0.0, key, 4)
        finally:
            child.close()
    assert comparable(mine) == comparable(theirs)
    assert sum(isinstance(o, Verdict) for _, o in theirs) == 3
    assert dict(theirs)[failed] == "errored"


@pytest.mark.parametrize("failure", ["timeout", "worker_died"])
def test_a_stalled_or_dead_child_fails_its_call_and_the_next_call_gets_a_new_one(
    failure: str,
) -> None:
    """A results download that stalls past the call's bound (the child is killed), or a
    child killed while it reads: the call is a JudgeError of that kind, the next succeeds."""
    with MessagesApi() as api:
        cls, kwargs = judge_of("anthropic", api.base_url)
        child = ProcessBatches(provider_api, {"judge": cls, "kwargs": kwargs, "discount": 0.5},
                               call_timeout=60.0)  # fmt: skip
        try:
            batch = requests(3)
            api.end_batches = True
            provider = child.submit(batch, "k")  # the child's start is not the bound under test
            assert child.ended(provider)
            if failure == "timeout":
                child._call_timeout = 2.0
            api.results_stall = 30.0
            if failure == "worker_died":

                def kill_when_reading() -> None:
                    api.results_started.wait(20)
                    os.kill(child._proc.pid, signal.SIGKILL)

                threading.Thread(target=kill_when_reading, daemon=True).start()
            with pytest.raises(JudgeError) as raised:
                child.outcomes(provider, batch)
            assert raised.value.kind == failure
            child._call_timeout = 60.0  # nor is the new child's start
            api.results_stall = 0.0
            api.results_release.set()
            assert len(child.outcomes(provider, batch)) == 3
            assert child.restarts == 1
        finally:
            child.close()


def test_a_provider_error_is_a_judge_error_of_its_kind() -> None:
    with MessagesApi() as api:
        cls, kwargs = judge_of("anthropic", api.base_url)
        child = ProcessBatches(provider_api, {"judge": cls, "kwargs": kwargs, "discount": 0.5})
        try:
            with pytest.raises(JudgeError) as raised:
                child.ended("msgbatch_unknown")
            assert raised.value.kind == "NotFoundError"
            assert child.restarts == 0  # the child lives on
            assert child.submit(requests(1), "k")
        finally:
            child.close()


def test_close_does_not_wait_for_a_stalled_call() -> None:
    """A stop during a results download that stalls: close ends the child at once, the
    call fails, and no later call starts a new child."""
    with MessagesApi() as api:
        cls, kwargs = judge_of("anthropic", api.base_url)
        child = ProcessBatches(provider_api, {"judge": cls, "kwargs": kwargs, "discount": 0.5})
        batch = requests(2)
        api.end_batches = True
        provider = child.submit(batch, "k")
        api.results_stall = 30.0
        failed: list[str] = []

        def read() -> None:
            try:
                child.outcomes(provider, batch)
            except JudgeError as exc:
                failed.append(exc.kind)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        api.results_started.wait(20)
        t0 = time.monotonic()
        child.close()
        reader.join(10)
        assert time.monotonic() - t0 < 5
        assert failed == ["worker_died"]
        with pytest.raises(JudgeError) as raised:
            child.ended(provider)
        assert raised.value.kind == "closed"
        api.results_release.set()
