"""The budget's pre-flight token count: OpenAI models through their own encoding, others by
characters; the Anthropic ratio comes from the API (tests/integration/test_anthropic_judge)."""

from __future__ import annotations

import bpe_openai

from monitor.core.model import RagTrace
from monitor.judge.openai_judge import OpenAIJudge
from monitor.judge.rubric import RUBRIC, estimate_input_tokens, user_prompt
from monitor.judge.tokens import OVERHEAD_TOKENS, calibrated, for_model
from monitor.sources import demo

TRACE = RagTrace.from_data(demo.generate(3))


def test_an_openai_model_is_counted_with_its_encoding() -> None:
    counter = for_model("gpt-4.1-mini")
    assert counter.source == "tokenizer"
    text = user_prompt(TRACE)
    assert counter.count(text) == len(bpe_openai.get_encoding("o200k_base").encode(text))
    assert for_model("gpt-3.5-turbo").count(text) == len(
        bpe_openai.get_encoding("cl100k_base").encode(text)
    )


def test_other_families_fall_back_to_characters() -> None:
    for model in ("qwen2.5:7b", "llama-3.1-8b-instruct", "bespoke-minicheck"):
        assert for_model(model).source == "characters"


def test_the_openai_judge_estimates_the_prompt_as_sent() -> None:
    judge = OpenAIJudge("gpt-4.1-mini", api_key="k", base_url="http://127.0.0.1:9/v1")
    enc = bpe_openai.get_encoding("o200k_base")
    want = len(enc.encode(RUBRIC)) + len(enc.encode(user_prompt(TRACE))) + OVERHEAD_TOKENS
    assert judge.estimate_input_tokens(TRACE) == want
    assert want != estimate_input_tokens(TRACE)  # not the ~4-characters figure
    judge.close()
    local = OpenAIJudge("qwen2.5:7b", api_key="k", base_url="http://127.0.0.1:9/v1")
    assert local.estimate_input_tokens(TRACE) == estimate_input_tokens(TRACE)
    local.close()


def test_a_provider_count_sets_the_ratio() -> None:
    counter = calibrated(chars=9_000, tokens=2_500)
    assert counter.chars_per_token == 3.6 and counter.count("x" * 360) == 100
    assert calibrated(100, 0).chars_per_token == 4.0  # no count: the fallback
