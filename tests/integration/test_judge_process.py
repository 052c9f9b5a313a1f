"""The anthropic judge in a child process (``judge.isolate``), through the real SDK against
the local Messages API server: same verdicts, same error kinds, survives its child dying."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from monitor.core.errors import JudgeConfigError, JudgeError
from monitor.core.model import RagTrace
from monitor.judge.anthropic_judge import AnthropicJudge
from monitor.judge.process import ProcessJudge
from monitor.sources import demo
from tests.integration.messages_api import MessagesApi, Reply, verdict

pytestmark = pytest.mark.integration

TRACE = RagTrace.from_data(demo.generate(0))


def kwargs(api: MessagesApi) -> dict[str, Any]:
    return {"api_key": "test-key", "base_url": api.base_url, "max_retries": 0,
            "timeout_seconds": 10}  # fmt: skip


def test_same_verdict_as_in_process_and_the_same_errors() -> None:
    with MessagesApi() as api:
        judge = ProcessJudge(AnthropicJudge, kwargs(api), "anthropic", "claude-haiku-5-5")
        try:
            api.script.extend([verdict("SUPPORTED", "CONTRADICTED")] * 2)
            remote = judge.judge(TRACE)
            local = AnthropicJudge(**kwargs(api)).judge(TRACE)
            fields = ("verdict", "score", "weight", "claims", "input_tokens", "cost_usd")
            assert [getattr(remote, f) for f in fields] == [getattr(local, f) for f in fields]
            assert remote.verdict == "hard_fail" and remote.weight == 1.0

            api.script.append(Reply(status=500))
            with pytest.raises(JudgeError) as err:
                judge.judge(TRACE)
            assert err.value.kind == "server_error" and not isinstance(err.value, JudgeConfigError)
            api.script.append(Reply(status=401))
            with pytest.raises(JudgeConfigError) as config:
                judge.judge(TRACE)
            assert config.value.kind == "http_401"
        finally:
            judge.close()
        assert judge.restarts == 0


def test_calls_run_concurrently_in_the_child() -> None:
    """Four one-second calls on four threads take about one second, not four."""
    with MessagesApi() as api:
        slow = verdict("SUPPORTED")
        slow.delay = 1.0
        api.default = slow
        judge = ProcessJudge(AnthropicJudge, kwargs(api), "anthropic", "m", threads=4)
        try:
            judge.judge(TRACE)  # the child is up
            t0 = time.monotonic()
            threads = [threading.Thread(target=judge.judge, args=(TRACE,)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert time.monotonic() - t0 < 2.5
        finally:
            judge.close()


def test_a_dead_child_fails_its_calls_and_is_replaced() -> None:
    with MessagesApi() as api:
        slow = verdict("SUPPORTED")
        slow.delay = 3.0
        judge = ProcessJudge(AnthropicJudge, kwargs(api), "anthropic", "m")
        try:
            judge.judge(TRACE)
            api.script.append(slow)
            failures: list[BaseException] = []

            def call() -> None:
                try:
                    judge.judge(TRACE)
                except BaseException as exc:
                    failures.append(exc)

            caller = threading.Thread(target=call)
            caller.start()
            deadline = time.monotonic() + 10
            while len(api.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(judge._proc.pid, signal.SIGKILL)  # the call is in flight
            caller.join(timeout=10)
            assert len(failures) == 1 and isinstance(failures[0], JudgeError)
            assert failures[0].kind == "worker_died"  # type: ignore[attr-defined]
            assert judge.judge(TRACE).verdict == "pass"  # a new child answers
            assert judge.restarts == 1
        finally:
            judge.close()


def test_the_child_exits_when_the_parent_is_killed(tmp_path: Any) -> None:
    """kill -9 of the daemon must not leave a judge process behind."""
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        "from monitor.judge.anthropic_judge import AnthropicJudge\n"
        "from monitor.judge.process import ProcessJudge\n"
        "j = ProcessJudge(AnthropicJudge, {'api_key': 'k', 'base_url': 'http://127.0.0.1:9'},"
        " 'anthropic', 'm')\n"
        "with j._lock:\n"
        "    j._ensure_child()\n"
        "print(j._proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the judge process outlived its parent")


class BuggyJudge:
    """A judge with a bug (top level, so the spawned child can import it)."""

    name, model = "buggy", "m"

    def judge(self, trace: RagTrace) -> Any:
        return self.parse_claims(trace)

    def parse_claims(self, trace: RagTrace) -> Any:
        return [][0]  # IndexError: the kind of bug a worker race raised

    def close(self) -> None:
        """Nothing held."""


def test_a_bug_in_the_child_comes_back_with_its_traceback() -> None:
    """A judge that raises in the child is an ``internal`` error whose text carries the
    child's traceback, which the stage logs the first time (judge_crashed)."""
    judge = ProcessJudge(BuggyJudge, {}, "buggy", "m")
    try:
        with pytest.raises(JudgeError) as err:
            judge.judge(TRACE)
    finally:
        judge.close()
    assert err.value.kind == "internal"
    assert "Traceback" in str(err.value) and "parse_claims" in str(err.value)
    assert "IndexError" in str(err.value)
