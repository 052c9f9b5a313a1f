"""The OpenAI-compatible judge through the real ``openai`` SDK against a local server that
speaks Chat Completions, in each of the ways real servers differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.core.errors import ConfigError, JudgeConfigError, JudgeError
from monitor.core.model import RagTrace
from monitor.judge.openai_judge import OpenAIJudge
from monitor.judge.rubric import RUBRIC, RUBRIC_ID
from monitor.sources import demo
from tests.integration.chat_completions_api import ChatCompletionsApi, Reply, verdict
from tests.integration.conftest import ragmon

pytestmark = pytest.mark.integration

TRACE = RagTrace.from_data(demo.generate(0))


def make_judge(api: ChatCompletionsApi, **kw: object) -> OpenAIJudge:
    opts: dict[str, object] = {"model": "qwen2.5:7b", "base_url": api.base_url,
                               "max_retries": 1, "timeout_seconds": 5}  # fmt: skip
    opts.update(kw)
    return OpenAIJudge(**opts)  # type: ignore[arg-type]


def test_structured_output_by_json_schema_in_one_call() -> None:
    """A server with JSON-schema output: one request, the rubric as the system message, the
    trace in data blocks, the verdict schema as response_format; the verdict is computed
    from the claims (a contradiction is a hard fail) and the usage is the server's."""
    with ChatCompletionsApi() as api:
        api.default = verdict("SUPPORTED", "CONTRADICTED")
        v = make_judge(api).judge(TRACE)
    (request,) = api.requests
    assert request["messages"][0] == {"role": "system", "content": RUBRIC}
    assert "<answer>" in request["messages"][1]["content"]
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"]["required"]
    assert (v.verdict, v.judge, v.rubric_version, v.weight) == ("hard_fail", "openai", RUBRIC_ID, 1)
    assert (v.input_tokens, v.output_tokens) == (900, 120)


def test_a_server_without_json_schema_is_asked_by_tool_call_and_keeps_it() -> None:
    """400 on response_format json_schema (older vLLM / llama.cpp): the same call is made
    at once as a forced tool call, and later calls go straight to the tool."""
    with ChatCompletionsApi(json_schema=False) as api:
        api.default = verdict("ABSENT")
        judge = make_judge(api)
        first, second = judge.judge(TRACE), judge.judge(TRACE)
    kinds = ["tools" if r.get("tools") else r.get("response_format", {}).get("type")
             for r in api.requests]  # fmt: skip
    assert kinds == ["json_schema", "tools", "tools"]
    assert first.verdict == second.verdict == "fail"


def test_a_server_that_ignores_response_format_is_asked_once_more_by_tool() -> None:
    """Prose instead of JSON (the server dropped response_format): asked again by tool."""
    with ChatCompletionsApi(ignores_response_format=True) as api:
        api.default = verdict("SUPPORTED")
        v = make_judge(api).judge(TRACE)
    assert [bool(r.get("tools")) for r in api.requests] == [False, True]
    assert v.verdict == "pass"


def test_json_mode_when_neither_schema_nor_tools_are_served() -> None:
    with ChatCompletionsApi(json_schema=False, tools=False) as api:
        api.default = verdict("SUPPORTED", "SUPPORTED")
        v = make_judge(api).judge(TRACE)
    last = api.requests[-1]
    assert last["response_format"] == {"type": "json_object"}
    assert "JSON schema" in last["messages"][1]["content"]
    assert v.verdict == "pass"


def test_no_usage_is_charged_by_estimate() -> None:
    """A server that reports no token usage (many self-hosted ones): the budget is charged
    an estimate instead of zero, so it keeps limiting."""
    with ChatCompletionsApi(usage=False) as api:
        v = make_judge(api).judge(TRACE)
    assert v.input_tokens > 300 and v.output_tokens > 10 and v.usage_estimated
    from prometheus_client import CollectorRegistry

    from monitor.telemetry import Metrics

    metrics = Metrics(CollectorRegistry())
    metrics.on_verdict(v)  # counted as an estimate, next to the tokens it charged
    got = metrics.registry.get_sample_value("ragmon_judge_usage_estimated_total",
                                            {"judge": "openai"})  # fmt: skip
    assert got == 1
    with ChatCompletionsApi() as api:
        assert not make_judge(api).judge(TRACE).usage_estimated


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(status=500), "server_error"),
        (Reply(status=429, headers={"retry-after": "0"}), "rate_limited"),
        (Reply(raw_body=b'{"choices": [trunc'), "invalid_response"),
        (Reply(raw_body=b'{"object": "chat.completion"}'), "invalid_response"),
        (Reply(prose="I think it is fine."), "invalid_output"),
        (Reply(delay=3.0), "timeout"),
    ],
)
def test_failures_are_judge_errors_by_kind(reply: Reply, kind: str) -> None:
    with ChatCompletionsApi() as api:
        api.default = reply
        with pytest.raises(JudgeError) as exc:
            make_judge(api, max_retries=0, timeout_seconds=1, output="json_schema").judge(TRACE)
    assert exc.value.kind == kind
    assert not isinstance(exc.value, JudgeConfigError)


def test_429_then_success_is_retried_by_the_sdk() -> None:
    with ChatCompletionsApi() as api:
        api.script.append(Reply(status=429, headers={"retry-after": "0"}))
        api.default = verdict("SUPPORTED")
        assert make_judge(api, max_retries=2).judge(TRACE).verdict == "pass"
    assert len(api.requests) == 2


@pytest.mark.parametrize(("status", "message"), [(401, "rejected the key"),
                                                 (404, "does not know")])  # fmt: skip
def test_a_rejected_key_or_unknown_model_stops_the_start(status: int, message: str) -> None:
    with ChatCompletionsApi() as api:
        api.models_status = status
        with pytest.raises(ConfigError, match=message):
            make_judge(api).verify()


def test_replay_with_an_openai_compatible_judge(tmp_path: Path) -> None:
    """`ragmon replay --judge openai` against the local server: one call per judged trace,
    the verdicts in the evaluation lines, no key needed for a self-hosted server."""
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(40)))
    out = tmp_path / "evals.jsonl"
    with ChatCompletionsApi(json_schema=False) as api:
        api.default = verdict("SUPPORTED", "CONTRADICTED")
        result = ragmon("replay", str(src), "--judge", "openai", "--sample-rate", "0.5",
                        "--output-jsonl", str(out), RAGMON_JUDGE__OPENAI__BASE_URL=api.base_url,
                        RAGMON_JUDGE__OPENAI__MODEL="qwen2.5:7b")  # fmt: skip
        calls = sum(1 for r in api.requests if r.get("tools"))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    judged = [x for x in lines if "verdict" in x["judge"]]
    assert judged and 1 <= calls <= len(judged)  # identical content is judged once (cache)
    assert {x["judge"]["verdict"] for x in judged} == {"hard_fail"}
    assert {x["judge"]["judge"] for x in judged} == {"openai"}


def test_minicheck_profile_asks_one_sentence_at_a_time_in_its_format() -> None:
    """MiniCheck: `Document: …` / `Claim: …` per sentence of the answer, Yes or No; a No is
    ABSENT (the model has no CONTRADICTED, so never a hard fail)."""
    record = demo.generate(0)
    record["answer"] = "Refunds take 30 days. They are paid in cash."
    trace = RagTrace.from_data(record)
    with ChatCompletionsApi() as api:
        api.script.extend([Reply(prose="Yes"), Reply(prose="No")])
        v = make_judge(api, profile="minicheck").judge(trace)
    prompts = [r["messages"][0]["content"] for r in api.requests]
    assert [p.split("\nClaim: ")[1] for p in prompts] == [
        "Refunds take 30 days.", "They are paid in cash."]  # fmt: skip
    assert all(p.startswith("Document: ") and trace.context[0].text in p for p in prompts)
    assert all("response_format" not in r and "tools" not in r for r in api.requests)
    assert [c.label for c in v.claims] == ["SUPPORTED", "ABSENT"]
    assert (v.verdict, v.rubric_version) == ("fail", "minicheck-v1")


def test_lynx_profile_reads_pass_or_fail_for_the_whole_answer() -> None:
    with ChatCompletionsApi() as api:
        api.script.append(Reply(prose='{"REASONING": ["the fee is not in the document"], '
                                      '"SCORE": "FAIL"}'))  # fmt: skip
        api.script.append(Reply(prose='```json\n{"REASONING": [], "SCORE": "PASS"}\n```'))
        judge = make_judge(api, profile="lynx")
        failed, passed = judge.judge(TRACE), judge.judge(TRACE)
    prompt = api.requests[0]["messages"][0]["content"]
    assert "QUESTION (THIS DOES NOT COUNT AS BACKGROUND INFORMATION):" in prompt
    assert TRACE.query in prompt and TRACE.answer in prompt and '"SCORE"' in prompt
    assert failed.verdict == "fail" and "not in the document" in failed.claims[0].text
    assert passed.verdict == "pass" and [c.label for c in passed.claims] == ["SUPPORTED"]


def test_a_reply_outside_the_profile_format_is_asked_once_more_then_invalid() -> None:
    with ChatCompletionsApi() as api:
        api.default = Reply(prose="Maybe, hard to say.")
        with pytest.raises(JudgeError) as exc:
            make_judge(api, profile="minicheck").judge(TRACE)
    assert exc.value.kind == "invalid_output" and len(api.requests) == 2


def test_a_jury_of_anthropic_and_an_openai_compatible_judge(tmp_path: Path) -> None:
    """`replay --judge anthropic` with judge.jury.backend openai: both local servers see the
    sampled traces; the first finds a contradiction, the second does not, so by the default
    rule (a hard fail needs both) the verdict is a fail; each pair's disagreement counted."""
    from tests.integration.messages_api import MessagesApi
    from tests.integration.messages_api import verdict as messages_verdict

    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(20)))
    out = tmp_path / "evals.jsonl"
    with MessagesApi() as claude, ChatCompletionsApi() as other:
        claude.default = messages_verdict("SUPPORTED", "CONTRADICTED")
        other.default = verdict("SUPPORTED", "SUPPORTED")
        result = ragmon("replay", str(src), "--judge", "anthropic", "--output-jsonl", str(out),
                        ANTHROPIC_API_KEY="test-key",
                        RAGMON_JUDGE__ANTHROPIC__BASE_URL=claude.base_url,
                        RAGMON_JUDGE__JURY__BACKEND="openai",
                        RAGMON_JUDGE__OPENAI__BASE_URL=other.base_url)  # fmt: skip
        first = sum(1 for r in claude.requests if r["path"].endswith("/messages"))
        second = len(other.requests)
    assert result.returncode == 0, result.stderr
    judged = [x["judge"] for x in map(json.loads, out.read_text().splitlines())
              if "verdict" in x["judge"]]  # fmt: skip
    assert judged and first >= 1 and second >= 1
    assert {j["judge"] for j in judged} == {"jury(anthropic+openai)"}
    assert {j["verdict"] for j in judged} == {"fail"}
    assert {tuple((m["judge"], m["verdict"]) for m in j["members"]) for j in judged} == {
        (("anthropic", "hard_fail"), ("openai", "pass"))}  # fmt: skip


def test_compare_judges_two_releases_pairwise_in_both_orders(tmp_path: Path) -> None:
    """`ragmon compare --judge openai`: two calls per probe (both orders) through the real
    SDK; a judge that always prefers the answer shown first wins nothing — every pair is a
    tie and is listed as position bias."""
    from tests.integration.conftest import candidate_rows

    golden, rows = candidate_rows(tmp_path)
    rows = [r for r in rows if r["retrieved_context_ids"]][:3]
    for row in rows:
        done = ragmon("golden", "review", "--dir", str(golden), "--row", row["id"], "--accept",
                      "--reference", "r", "--gold", f"{row['retrieved_context_ids'][0]}=2",
                      "--reviewer", "ana")  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert ragmon("golden", "publish", "--dir", str(golden)).returncode == 0
    traces = tmp_path / "probes.jsonl"
    with traces.open("w") as out:
        for i, row in enumerate(rows):
            for release in ("v1", "v2"):
                record = {**demo.generate(i), "golden_id": row["id"], "release": release,
                          "trace_id": f"{i:02x}{release[1]}".ljust(32, "0"),
                          "answer": f"answer of {release}"}  # fmt: skip
                out.write(json.dumps(record) + "\n")
    report = tmp_path / "cmp.json"
    with ChatCompletionsApi() as api:
        api.default = Reply(tool_input={"better": "1", "reason": "the first"})
        result = ragmon("compare", str(traces), "--golden", str(golden / "set"), "--release",
                        "v1", "--release", "v2", "--judge", "openai", "--output-json",
                        str(report), RAGMON_JUDGE__OPENAI__BASE_URL=api.base_url)  # fmt: skip
        calls = len(api.requests)
    assert result.returncode == 0, result.stderr
    pair = json.loads(report.read_text())["pairwise"]
    assert calls == 2 * pair["pairs"] == 6 and pair["calls"] == 6
    assert pair["ties"] == 3 and pair["position_bias_rate"] == 1.0
    assert "position bias 100%" in result.stdout
    assert all(r["tools"][0]["function"]["name"] == "record_preference" for r in api.requests)


@pytest.mark.parametrize("own_prices", [False, True])
def test_a_jury_member_is_charged_its_own_prices(own_prices: bool) -> None:
    """judge.jury.prices: a self-hosted second member at 0 USD adds nothing to the verdict's
    cost (which the budget is settled with); without it both members pay judge.prices."""
    from prometheus_client import CollectorRegistry

    from monitor import registry
    from monitor.config import Settings
    from monitor.telemetry import Metrics
    from tests.integration.messages_api import MessagesApi

    free = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
    with MessagesApi() as claude, ChatCompletionsApi() as other:
        jury = {"backend": "openai", **({"prices": free} if own_prices else {})}
        settings = Settings.model_validate({"judge": {
            "backend": "anthropic", "api_key": "k", "base_url": claude.base_url,
            "isolate": False, "max_retries": 0, "jury": jury,
            "openai": {"base_url": other.base_url, "api_key": "k"},
        }})  # fmt: skip
        stage = registry.build_judge_stage(settings, Metrics(CollectorRegistry()))
        assert stage is not None
        verdict = stage.judge.judge(TRACE)
        stage.close()
    claude_alone = (900 * 0.10 + 120 * 0.50 + 400 * 0.01) / 1e6  # the local server's usage
    assert verdict.judge == "jury(anthropic+openai)"
    if own_prices:
        assert verdict.cost_usd == pytest.approx(claude_alone)
    else:
        assert verdict.cost_usd > claude_alone * 1.01


def test_four_workers_negotiate_the_output_way_once_for_all() -> None:
    """judge.workers (4) call one judge at once against a server that refuses json_schema:
    every call gets its verdict by tool call — no worker drops a way another already
    dropped (it used to end in IndexError, error:internal and an open breaker)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    with ChatCompletionsApi(json_schema=False) as api:
        api.default = verdict("SUPPORTED")
        for _ in range(8):  # the first answers come late, so all four workers are refused together
            api.script.append(Reply(claims=api.default.claims, delay=0.3))
        judge = make_judge(api)
        start = threading.Barrier(4)
        traces = [RagTrace.from_data(demo.generate(i)) for i in range(37)]

        def one(trace: RagTrace) -> str:
            if trace is traces[0] or trace in traces[1:4]:
                start.wait(timeout=5)
            return judge.judge(trace).verdict

        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(one, traces))
    assert got == ["pass"] * 37


REASONING = "<think>\nThe answer says 30 days; passage 1 says 30 days {with braces}.\n</think>\n"


@pytest.mark.parametrize(
    ("reply", "repairs"),
    [
        (Reply(wrap=REASONING + "{json}"), ("reasoning_block",)),
        (Reply(wrap="<thinking>hm</thinking>```json\n{json}\n```"), ("reasoning_block", "fenced")),
        (
            Reply(wrap="Here is my verdict: {json} Let me know if you need more."),
            ("prose_wrapped",),
        ),
        (
            Reply(wrap='<reasoning>a {"claims": 1} aside</reasoning>\nSure! {json}'),
            ("reasoning_block", "prose_wrapped"),
        ),
        (Reply(reasoning="The user wants a verdict. Passage 1 ...", completion_tokens=3000), ()),
    ],
    ids=["think-block", "thinking-fenced", "prose", "reasoning-prose", "reasoning_content"],
)
def test_a_reasoning_server_without_a_parser_still_gives_a_verdict(
    reply: Reply, repairs: tuple[str, ...]
) -> None:
    """vLLM / SGLang / Ollama / llama.cpp serving a reasoning model without a reasoning parser,
    and servers that ignore response_format: the verdict is read after the reasoning, out of
    fences and sentences, through the real SDK; each repair is named; a long reasoning output
    is charged as the server reports it."""
    from prometheus_client import CollectorRegistry

    from monitor.telemetry import Metrics

    with ChatCompletionsApi() as api:
        reply.claims = verdict("SUPPORTED").claims
        api.script.append(reply)
        v = make_judge(api, prices=None).judge(TRACE)
    assert v.verdict == "pass" and v.output_repairs == repairs
    assert v.output_tokens == reply.completion_tokens
    metrics = Metrics(CollectorRegistry())
    metrics.on_verdict(v)
    for kind in repairs:
        got = metrics.registry.get_sample_value(
            "ragmon_judge_output_repairs_total", {"judge": "openai", "kind": kind}
        )
        assert got == 1.0, kind


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(wrap=REASONING + "{json}", finish_reason="length"), "truncated"),
        (Reply(wrap="<think>still thinking when max_tokens came"), "invalid_output"),
        (
            Reply(wrap='{json} or, on second thought, {"claims": [], "is_refusal": true}'),
            "invalid_output",
        ),
    ],
    ids=["cut-at-max-tokens", "unclosed-think", "two-verdicts"],
)
def test_no_verdict_is_guessed_from_a_cut_or_ambiguous_reply(reply: Reply, kind: str) -> None:
    """A reply cut at max_tokens is ``truncated`` (a half JSON never passes); reasoning never
    closed leaves no answer; two different objects that both validate are no verdict."""
    with ChatCompletionsApi() as api:
        reply.claims = verdict("SUPPORTED").claims
        api.script.extend([reply, reply])
        with pytest.raises(JudgeError) as err:
            make_judge(api, output="json_schema").judge(TRACE)
    assert err.value.kind == kind


def test_tool_call_arguments_sent_as_an_object_are_read() -> None:
    """Some servers put the tool call's arguments in as a JSON object instead of the string
    the API documents: the verdict is read all the same (not from a Python repr)."""
    with ChatCompletionsApi(json_schema=False) as api:
        api.default = Reply(claims=verdict("SUPPORTED").claims, object_arguments=True)
        v = make_judge(api).judge(TRACE)
    assert v.verdict == "pass"
    assert [bool(r.get("tools")) for r in api.requests] == [False, True]  # schema refused, tool


def test_no_key_and_no_base_url_stops_the_start_naming_the_endpoint(tmp_path: Path) -> None:
    """`--judge openai` with neither a key nor a base URL would spend every judged call's
    retries on the public endpoint: exit 2 at once, one line naming it and the settings."""
    import subprocess
    import time

    from tests.integration.conftest import RAGMON, clean_env

    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(5)))
    env = clean_env()
    env.pop("OPENAI_API_KEY", None)
    t0 = time.monotonic()
    done = subprocess.run([*RAGMON, "replay", str(src), "--judge", "openai"], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "api.openai.com" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert "base_url" in done.stderr and time.monotonic() - t0 < 20
    assert "Traceback" not in done.stderr


def test_replay_and_calibrate_use_the_configs_own_judge_and_sampling(tmp_path: Path) -> None:
    """`replay --config C` samples as the daemon with C would (judge.sampling: the same
    decision per trace id), and says so on stderr; `calibrate --config C` measures C's judge
    (before: replay judged every trace, and calibrate ran the heuristic judge and recorded
    it, which `run` and `replay` then refused)."""
    from monitor.config import load
    from monitor.core.model import Evaluation
    from monitor.judge.sampler import HashSampler, SamplingRules

    traces = [demo.generate(i) for i in range(60)]
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(t) + "\n" for t in traces))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({**t, "label": "pass"}) + "\n" for t in traces[:5]))
    config = tmp_path / "daemon.yaml"
    out, record = tmp_path / "evals.jsonl", tmp_path / "calibration.json"
    with ChatCompletionsApi() as api:
        api.default = verdict("SUPPORTED", "SUPPORTED")
        config.write_text(
            "judge:\n  backend: openai\n"
            f"  openai: {{base_url: '{api.base_url}', model: 'qwen2.5:7b'}}\n"
            "  sampling: {base_rate: 0.2, flagged_rate: 0.2, salt: walk}\n"
        )
        replayed = ragmon("replay", str(src), "--config", str(config), "--output-jsonl", str(out))
        calibrated = ragmon("calibrate", "--labels", str(labels), "--config", str(config),
                            "--output", str(record))  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
    assert "base rate 0.2" in replayed.stderr and "'walk'" in replayed.stderr
    judged = {x["trace_id"] for x in map(json.loads, out.read_text().splitlines())
              if "verdict" in x.get("judge", {})}  # fmt: skip
    settings = load(config)
    sampler = HashSampler(SamplingRules(0.2, 0.2), salt="walk")
    expected = {t.trace_id for t in map(RagTrace.from_data, traces)
                if sampler.decide(Evaluation(t, {})).sampled}  # fmt: skip
    assert judged == expected and 0 < len(judged) < len(traces)
    assert settings.judge.backend == "openai"
    assert calibrated.returncode == 0, calibrated.stderr
    assert json.loads(record.read_text())["judge"] == "openai"
