"""One contract for every judge backend and profile: the verdict's shape, error kinds, the
stage's cache and weight, and the same result from a child process as in this one. API
backends run through their real SDKs against local servers that speak their APIs."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from msgspec.structs import replace
from prometheus_client import CollectorRegistry

from monitor.core.errors import JudgeConfigError, JudgeError
from monitor.core.model import Evaluation, RagTrace
from monitor.core.verdict import VERDICTS, Verdict
from monitor.judge.anthropic_judge import AnthropicJudge
from monitor.judge.cache import VerdictCache
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.openai_judge import OpenAIJudge
from monitor.judge.process import ProcessJudge
from monitor.judge.sampler import Budget, HashSampler, SamplingRules
from monitor.judge.stage import JudgeStage
from monitor.sources import demo
from monitor.telemetry import Metrics
from tests.integration import chat_completions_api as chat
from tests.integration import messages_api as messages

pytestmark = pytest.mark.integration

TRACE = RagTrace.from_data(demo.generate(0))


@contextlib.contextmanager
def anthropic() -> Iterator[tuple[Callable[..., Any], dict[str, Any], Any]]:
    with messages.MessagesApi() as api:
        api.default = messages.verdict("SUPPORTED", "ABSENT")
        yield AnthropicJudge, {"api_key": "k", "base_url": api.base_url, "max_retries": 0,
                               "timeout_seconds": 5}, api  # fmt: skip


def _openai(profile: str, default: Any) -> Any:
    @contextlib.contextmanager
    def server() -> Iterator[tuple[Callable[..., Any], dict[str, Any], Any]]:
        with chat.ChatCompletionsApi() as api:
            api.default = default
            yield OpenAIJudge, {"model": "local", "base_url": api.base_url, "max_retries": 0,
                                "timeout_seconds": 5, "profile": profile}, api  # fmt: skip

    return server


@contextlib.contextmanager
def heuristic() -> Iterator[tuple[Callable[..., Any], dict[str, Any], Any]]:
    yield HeuristicJudge, {}, None


BACKENDS = {
    "anthropic": anthropic,
    "openai": _openai("rubric", chat.verdict("SUPPORTED", "ABSENT")),
    "openai-minicheck": _openai("minicheck", chat.Reply(prose="Yes")),
    "openai-lynx": _openai("lynx", chat.Reply(prose='{"REASONING": [], "SCORE": "PASS"}')),
    "heuristic": heuristic,
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_verdict_has_the_contract_shape(backend: str) -> None:
    with BACKENDS[backend]() as (cls, kwargs, _):
        v = cls(**kwargs).judge(TRACE)
    assert isinstance(v, Verdict) and v.verdict in VERDICTS and v.weight == 1.0
    assert v.judge in ("anthropic", "openai", "heuristic") and v.rubric_version
    assert v.claims or v.verdict == "not_applicable"
    assert min(v.input_tokens, v.output_tokens, v.cost_usd) >= 0
    if v.score is not None:
        assert 0.0 <= v.score <= 1.0


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "heuristic"])
def test_failures_are_judge_errors_by_kind(backend: str) -> None:
    with BACKENDS[backend]() as (cls, kwargs, api):
        judge = cls(**kwargs)
        api.default = (messages.Reply if backend == "anthropic" else chat.Reply)(status=500)
        with pytest.raises(JudgeError) as failed:
            judge.judge(TRACE)
        api.default = (messages.Reply if backend == "anthropic" else chat.Reply)(status=401)
        with pytest.raises(JudgeConfigError) as rejected:
            judge.judge(TRACE)
    assert failed.value.kind == "server_error" and not isinstance(failed.value, JudgeConfigError)
    assert rejected.value.kind == "http_401"


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "heuristic"])
def test_a_child_process_gives_the_same_verdict(backend: str) -> None:
    with BACKENDS[backend]() as (cls, kwargs, _):
        local = cls(**kwargs).judge(TRACE)
        remote_judge = ProcessJudge(cls, kwargs, backend, local.model)
        try:
            remote = remote_judge.judge(TRACE)
        finally:
            remote_judge.close()
    fields = ("judge", "verdict", "score", "claims", "input_tokens", "cost_usd", "rubric_version")
    assert [getattr(remote, f) for f in fields] == [getattr(local, f) for f in fields]


@pytest.mark.parametrize("backend", BACKENDS)
def test_through_the_stage_identical_content_is_judged_once_and_weighted(backend: str) -> None:
    with BACKENDS[backend]() as (cls, kwargs, _):
        calls = 0
        inner = cls(**kwargs)

        class Counting:
            name, model = inner.name, inner.model

            def judge(self, trace: RagTrace) -> Verdict:
                nonlocal calls
                calls += 1
                return inner.judge(trace)

            def close(self) -> None:
                """Nothing held."""

        metrics = Metrics(CollectorRegistry())
        stage = JudgeStage(Counting(), HashSampler(SamplingRules(0.5, 0.5)), Budget(None),
                           observer=metrics, cache=VerdictCache(100))  # fmt: skip
        ids = [f"{i:032x}" for i in range(200)]
        twins = [t for t in ids if stage.sampler.position(t) < (1 << 63)][:2]  # both sampled
        stage.start()
        try:
            for tid in twins:
                ev = Evaluation(replace(TRACE, trace_id=tid, golden_id=None), {})
                if (now := stage.consider(ev)) is None:  # queued: wait for its verdict
                    while not stage.drain(wait=0.2):
                        pass
                else:
                    assert now.judge is not None and now.judge.weight == 2.0
        finally:
            stage.close()
    assert calls == 1  # the twin's verdict came from the cache, weighted for its own trace


def test_every_judge_of_the_registry_keeps_this_contract() -> None:
    """A judge added to the registry's table without a case here fails this test."""
    from monitor import registry

    assert {row.name for row in registry.JUDGES} <= {b.split("-")[0] for b in BACKENDS}
