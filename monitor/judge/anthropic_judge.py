"""``AnthropicJudge``: one Messages API call per judged trace, through the real SDK.

The rubric is the system block, marked for prompt caching; the trace goes in data blocks;
the answer is forced through the ``record_verdict`` tool and validated with pydantic. Invalid
output is asked for once more, then it is a judge error. Retries of 408/409/429/5xx/529 and
timeouts are the SDK's (it honours ``retry-after``); a 4xx that is not one of those is a
configuration error (bad key, unknown model) that pauses the judge. The SDK's own OTel spans
are switched off: they would otherwise flow back into the traces ragmon consumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import anthropic
from anthropic.types import Message, ToolParam, ToolUseBlock
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from pydantic import ValidationError

from monitor.core.errors import ConfigError, JudgeConfigError, JudgeError
from monitor.core.lines import JsonObject
from monitor.core.model import Passage, RagTrace, revealed
from monitor.core.verdict import JudgeOutput, TokenCounts, Verdict
from monitor.judge.config import JudgeConfig
from monitor.judge.prices import Prices
from monitor.judge.rubric import RUBRIC, RUBRIC_ID, TOOL, estimate_input_tokens, user_prompt
from monitor.judge.tokens import TokenCounter, calibrated

_RETRIED_BY_SDK = {408, 409, 429}
# What count_tokens is asked about once: a request of typical shape.
_SAMPLE = RagTrace(
    trace_id="0" * 31 + "1",
    query="How many days do customers have to return an item for a full refund?",
    context=[
        Passage(
            doc_id=f"kb-{i}",
            text="Items can be returned within 30 days of delivery for a "
            "full refund, provided they are unused and in their original packaging. "
            "Refunds are issued to the original payment method within 5 to 7 business "
            "days after the return is received. " * 2,
        )
        for i in range(4)
    ],
    answer="Customers have 30 days from delivery to return an unused item in its original "
    "packaging for a full refund [1]; the money reaches the original payment method within "
    "5 to 7 business days [2].",
)
# Verdict usage fields and the Messages API's names for them.
TokenKind = Literal["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
_USAGE: dict[TokenKind, str] = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cache_read_input_tokens",
    "cache_write_tokens": "cache_creation_input_tokens",
}


def _no_tokens() -> TokenCounts:
    return TokenCounts(input_tokens=0, output_tokens=0, cache_read_tokens=0, cache_write_tokens=0)


class AnthropicJudge:
    """The faithfulness judge through the Anthropic Messages API (a forced tool call returns the
    verdict)."""

    name = "anthropic"

    @staticmethod
    def arguments(cfg: JudgeConfig) -> dict[str, Any]:
        """The constructor arguments ``judge`` configures (``judge.anthropic``; the key from
        ANTHROPIC_API_KEY or ``judge.anthropic.api_key``)."""
        return {
            "model": cfg.anthropic.model,
            "api_key": revealed(cfg.anthropic.api_key),
            "base_url": cfg.anthropic.base_url,
            "timeout_seconds": cfg.timeout_seconds,
            "max_retries": cfg.max_retries,
            "max_tokens": cfg.max_tokens,
            "prices": cfg.prices.as_prices(),
        }

    def __init__(
        self,
        model: str = "claude-haiku-5-5",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_seconds: float = 60.0,
        max_retries: int = 3,
        max_tokens: int = 2048,
        prices: Prices | None = None,
        client_factory: Callable[..., anthropic.Anthropic] = anthropic.Anthropic,
    ) -> None:
        self.model = model
        self.tokens: TokenCounter | None = None  # calibrated by verify()
        self.max_tokens = max_tokens
        self.prices = prices or Prices()
        self.client = client_factory(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_seconds,
            max_retries=max_retries,
            open_telemetry={"traces": False},
        )

    def verify(self) -> None:
        """At start-up: ask the API about the configured model (no tokens spent). A rejected
        key (401/403) or an unknown model (404) is a ``ConfigError``: ragmon will not start
        with a judge that cannot work. An unreachable API is not: it may come back, and the
        checks run without it."""
        try:
            self.client.models.retrieve(self.model, timeout=10.0)
        except anthropic.APIStatusError as exc:
            code = exc.status_code
            if code in (401, 403):
                raise ConfigError(
                    f"the Anthropic API rejected the key (HTTP {code}): check ANTHROPIC_API_KEY"
                ) from exc
            if code == 404:
                raise ConfigError(
                    f"the Anthropic API does not know judge.anthropic.model {self.model!r} "
                    "(HTTP 404)"
                ) from exc
        except anthropic.APIError:
            return  # unreachable or slow now: judged calls will tell (breaker, error counts)
        self._calibrate_tokens()

    def _calibrate_tokens(self) -> None:
        """Count one sample request with the API's ``count_tokens`` (free, once per start):
        its characters per token scale every later estimate. Left at ~4 when it fails."""
        p = self.request(_SAMPLE)
        try:
            counted = self.client.messages.count_tokens(
                model=p["model"], system=p["system"], tools=p["tools"],
                tool_choice=p["tool_choice"], messages=p["messages"], timeout=10.0,
            )  # fmt: skip
        except (anthropic.APIError, ValueError):
            return
        chars = len(RUBRIC) + len(user_prompt(_SAMPLE))
        self.tokens = calibrated(chars, int(getattr(counted, "input_tokens", 0) or 0))

    def close(self) -> None:
        """Close the SDK client's connection pool."""
        self.client.close()

    def estimate_input_tokens(self, trace: RagTrace) -> int:
        """A budget estimate of the call's input before it is made: the prompt's characters
        at the ratio ``count_tokens`` gave at start-up (else ~4 characters a token)."""
        return estimate_input_tokens(trace, self.tokens)

    def judge(self, trace: RagTrace) -> Verdict:
        """The verdict on ``trace`` (raises ``JudgeError`` by kind when there is none)."""
        t0 = time.monotonic()
        usage = _no_tokens()
        last: Exception | None = None
        for _attempt in range(2):  # invalid output is asked for once more
            message = self._call(trace)
            try:
                return self.verdict(message, time.monotonic() - t0, usage)
            except (ValidationError, ValueError) as exc:
                last = exc
        raise JudgeError("invalid_output", f"judge output failed validation twice: {last}")

    def request(self, trace: RagTrace) -> MessageCreateParamsNonStreaming:
        """The Messages API parameters of the call that judges ``trace`` (the body of one
        request of a Message Batch)."""
        return self._params(RUBRIC, TOOL, user_prompt(trace))

    def verdict(
        self,
        message: Message,
        latency: float,
        usage: TokenCounts | None = None,
        discount: float = 1.0,
    ) -> Verdict:
        """The verdict in a Messages API answer; ``usage`` accumulates the tokens of earlier
        attempts, ``discount`` scales the price (0.5 for a batch). Raises ``ValueError`` (or
        ``ValidationError``) when the answer holds no valid verdict, ``JudgeError`` when it
        is not a message."""
        usage = usage if usage is not None else _no_tokens()
        u = getattr(message, "usage", None)
        if u is None or not isinstance(getattr(message, "content", None), list):
            # a 200 whose body parsed but is not a message (no usage, no content)
            raise JudgeError("invalid_response", "the answer has no usage or no content")
        for key, attr in _USAGE.items():
            usage[key] += getattr(u, attr, 0) or 0
        output = self._parse(message)
        cost = discount * self.prices.cost(
            usage["input_tokens"], usage["output_tokens"],
            usage["cache_read_tokens"], usage["cache_write_tokens"],
        )  # fmt: skip
        return Verdict.from_output(
            output, judge=self.name, model=self.model, rubric_version=RUBRIC_ID,
            cost_usd=cost, latency_seconds=latency, **usage,
        )  # fmt: skip

    def _call(self, trace: RagTrace) -> Message:
        return self._create(RUBRIC, TOOL, user_prompt(trace))

    def structured(self, system: str, prompt: str, tool: ToolParam) -> JsonObject:
        """One call with ``system`` (cached) and ``prompt``, forced through ``tool``: the
        tool's input (pairwise comparison asks this way)."""
        message = self._create(system, tool, prompt)
        for block in getattr(message, "content", None) or []:
            if isinstance(block, ToolUseBlock) and block.name == tool["name"]:
                return dict(block.input)
        raise JudgeError("invalid_output", f"no {tool['name']} tool call in the answer")

    def _params(self, system: str, tool: ToolParam, prompt: str) -> MessageCreateParamsNonStreaming:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "tools": [tool],
            "tool_choice": {
                "type": "tool",
                "name": tool["name"],
                "disable_parallel_tool_use": True,
            },
            "messages": [{"role": "user", "content": prompt}],
        }

    def _create(self, system: str, tool: ToolParam, prompt: str) -> Message:
        try:
            return self.client.messages.create(**self._params(system, tool, prompt))
        except anthropic.APIStatusError as exc:
            code = exc.status_code
            if 400 <= code < 500 and code not in _RETRIED_BY_SDK:
                raise JudgeConfigError(f"http_{code}", f"judge request rejected: {exc}") from exc
            raise JudgeError("rate_limited" if code == 429 else "server_error", str(exc)) from exc
        except anthropic.APITimeoutError as exc:
            raise JudgeError("timeout", str(exc)) from exc
        except anthropic.APIConnectionError as exc:
            raise JudgeError("connection", str(exc)) from exc
        except (anthropic.APIResponseValidationError, ValueError) as exc:
            # a 200 whose body is not a message (truncated, not JSON)
            raise JudgeError("invalid_response", str(exc)[:300]) from exc

    @staticmethod
    def _parse(message: Message) -> JudgeOutput:
        for block in message.content:
            if isinstance(block, ToolUseBlock) and block.name == TOOL["name"]:
                return JudgeOutput.model_validate(block.input)
        raise ValueError(f"no {TOOL['name']} tool call (stop_reason={message.stop_reason})")
