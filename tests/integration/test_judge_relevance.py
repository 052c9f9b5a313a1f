"""Answer relevance and per-passage context relevance come from the judge's one call, through
the real SDKs against local servers, into the evaluation lines, the metrics and calibration;
a relevance list that does not match the passages is dropped, never matched by guess."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from monitor.judge.rubric import TOOL
from monitor.sources import demo
from tests.integration import chat_completions_api, messages_api
from tests.integration.conftest import ragmon

pytestmark = pytest.mark.integration

_PASSAGE = re.compile(r'<passage n="\d+">')


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []))


def rated(body: dict[str, Any], shift: int = 0) -> dict[str, Any]:
    """A verdict as a model gives it after reading the prompt: the first passage relevant,
    the others not (``shift`` entries more than there were passages: a miscounting model)."""
    n = len(_PASSAGE.findall(_prompt(body))) + shift
    return {"claims": [{"text": "claim", "label": "SUPPORTED", "passage": 1}],
            "is_refusal": False, "context_has_answer": None, "answer_relevance": "partial",
            "context_relevance": ["relevant"] + ["irrelevant"] * (n - 1)}  # fmt: skip


def _traces(tmp_path: Path, n: int = 30) -> Path:
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(n)))
    return src


def _judged(out: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    return [x["judge"] for x in lines if "verdict" in x.get("judge", {})]


def test_relevance_from_the_anthropic_judges_one_call(tmp_path: Path) -> None:
    """Through `ragmon replay --judge anthropic`: the tool asks for both in one call, and each
    judged line carries answer relevance, the per-passage list and its precision."""
    out = tmp_path / "evals.jsonl"
    with messages_api.MessagesApi() as api:
        api.default = messages_api.Reply(reads=rated)
        result = ragmon("replay", str(_traces(tmp_path)), "--judge", "anthropic",
                        "--sample-rate", "1", "--output-jsonl", str(out),
                        RAGMON_JUDGE__ANTHROPIC__BASE_URL=api.base_url,
                        ANTHROPIC_API_KEY="test-key")  # fmt: skip
        requests = list(api.requests)
    assert result.returncode == 0, result.stderr
    bodies = [r["body"] for r in requests]
    schema = next(b for b in bodies if b.get("tools"))["tools"][0]["input_schema"]
    assert {"answer_relevance", "context_relevance"} <= set(schema["required"])
    judged = _judged(out)
    assert judged and len(bodies) <= len(judged)  # one call per judged trace (or cached)
    for j in judged:
        n = len(j["context_relevance"])
        assert j["answer_relevance"] == "partial"
        assert j["context_relevance"] == ["relevant"] + ["irrelevant"] * (n - 1)
        assert j["context_precision"] == pytest.approx(1 / n)


def test_relevance_from_an_openai_compatible_judge(tmp_path: Path) -> None:
    out = tmp_path / "evals.jsonl"
    with chat_completions_api.ChatCompletionsApi() as api:
        api.default = chat_completions_api.Reply(reads=rated)
        result = ragmon("replay", str(_traces(tmp_path)), "--judge", "openai", "--sample-rate", "1",
                        "--output-jsonl", str(out), RAGMON_JUDGE__OPENAI__BASE_URL=api.base_url,
                        RAGMON_JUDGE__OPENAI__MODEL="qwen2.5:7b")  # fmt: skip
        (first, *_) = api.requests
    assert result.returncode == 0, result.stderr
    assert first["response_format"]["json_schema"]["schema"] == TOOL["input_schema"]
    judged = _judged(out)
    assert judged and all(j["answer_relevance"] == "partial" for j in judged)
    assert all(j["context_precision"] == pytest.approx(1 / len(j["context_relevance"]))
               for j in judged)  # fmt: skip


def test_a_list_that_does_not_match_the_passages_is_dropped(tmp_path: Path) -> None:
    """One entry too many: which passage each entry meant cannot be known, so the line has
    no context relevance (the answer relevance, one value, stays)."""
    out = tmp_path / "evals.jsonl"
    with messages_api.MessagesApi() as api:
        api.default = messages_api.Reply(reads=lambda body: rated(body, shift=1))
        result = ragmon("replay", str(_traces(tmp_path, 10)), "--judge", "anthropic",
                        "--sample-rate", "1", "--output-jsonl", str(out),
                        RAGMON_JUDGE__ANTHROPIC__BASE_URL=api.base_url,
                        ANTHROPIC_API_KEY="test-key")  # fmt: skip
    assert result.returncode == 0, result.stderr
    judged = _judged(out)
    assert judged and all("context_relevance" not in j and "context_precision" not in j
                          for j in judged)  # fmt: skip
    assert all(j["answer_relevance"] == "partial" for j in judged)


def test_calibrate_reports_agreement_for_each_metric_the_labels_carry(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = []
    for i in range(6):
        trace = demo.generate(i)
        n = len(trace["context"])
        relevance = "partial" if i < 4 else "relevant"
        rows.append({**trace, "label": "pass", "answer_relevance": relevance,
                     "context_relevance": ["relevant"] * n})  # fmt: skip
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with messages_api.MessagesApi() as api:
        api.default = messages_api.Reply(reads=rated)
        result = ragmon("calibrate", "--labels", str(labels), "--judge", "anthropic",
                        RAGMON_JUDGE__ANTHROPIC__BASE_URL=api.base_url,
                        ANTHROPIC_API_KEY="test-key")  # fmt: skip
    assert result.returncode == 0, result.stderr
    # the daemon never judges a trace without context (demo trace 1: empty retrieval), so
    # calibrate measures the other five: the judge says partial, people partial on 0, 2, 3
    judgeable = [r for r in rows if r["context"]]
    agree = sum(r["answer_relevance"] == "partial" for r in judgeable) / len(judgeable)
    assert (len(judgeable), f"{agree:.1%}") == (5, "60.0%")
    assert f"answer relevance: agreement {agree:.1%}" in result.stdout, result.stdout
    # the judge calls the first passage of each relevant and the rest not; people all of them
    total = sum(len(r["context_relevance"]) for r in rows)
    firsts = sum(1 for r in rows if r["context_relevance"])
    assert f"context relevance: agreement {firsts / total:.1%}" in result.stdout, result.stdout
    assert f"({total} passages)" in result.stdout
