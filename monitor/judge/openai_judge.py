"""``OpenAIJudge``: one Chat Completions call per judged trace, through the official ``openai``
SDK, against any server that speaks the API — OpenAI, Azure OpenAI, or a self-hosted model
behind vLLM, Ollama, llama.cpp's server or LM Studio (``judge.openai.base_url``).

Same rubric, same data blocks and the same verdict schema as the Anthropic judge. The
structured output is asked for the strongest way the server takes (``output: auto``): a
JSON schema (``response_format: json_schema``), else a forced tool call, else JSON mode, each
validated with pydantic. A server that refuses a way (400) is asked the next way at once; a
server that ignores it (prose instead of JSON) is asked once more the next way; the way that
worked is kept for later calls. Invalid output twice is a judge error (``invalid_output``).
Retries of 408/409/429/5xx and timeouts are the SDK's (it honours ``retry-after``); another
4xx (bad key, unknown model) is a configuration error that pauses the judge. A server that
reports no token usage is charged by estimate (about four characters a token), so the
budget keeps working.

``profile`` speaks the format of an open detector model instead of the rubric
(``monitor.judge.profiles``: MiniCheck, Lynx), with the labels that model can give.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import openai
from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from monitor.core.errors import ConfigError, JudgeConfigError, JudgeError
from monitor.core.lines import JsonObject
from monitor.core.model import RagTrace, revealed
from monitor.core.verdict import JudgeOutput, Verdict
from monitor.judge import profiles
from monitor.judge.config import JudgeConfig
from monitor.judge.prices import Prices
from monitor.judge.replies import read_output
from monitor.judge.rubric import (
    RUBRIC,
    TOOL,
    estimate_input_tokens,
    rubric_version,
    user_prompt,
)
from monitor.judge.tokens import for_model as token_counter

if TYPE_CHECKING:
    from anthropic.types import ToolParam

T = TypeVar("T")
Output = Literal["json_schema", "tool", "json"]
Body = dict[str, Any]  # a Chat Completions request body, as JSON
WAYS: tuple[Output, ...] = ("json_schema", "tool", "json")
_RETRIED_BY_SDK = {408, 409, 429}


def _json_hint(schema: Mapping[str, object]) -> str:
    """What JSON mode adds to the prompt: the answer's schema."""
    return "\n\nAnswer with one JSON object and nothing else, of this JSON schema:\n" + (
        json.dumps(schema)
    )


def _forced_tool(tool: ToolParam) -> dict[str, object]:
    """The request options that force a call of ``tool`` (an Anthropic-style definition)."""
    fn = {"name": tool["name"], "description": tool.get("description", ""),
          "parameters": tool["input_schema"]}  # fmt: skip
    return {"tools": [{"type": "function", "function": fn}],
            "tool_choice": {"type": "function", "function": {"name": tool["name"]}}}  # fmt: skip


def _reply_text(completion: ChatCompletion) -> str | None:
    """The first choice's tool-call arguments or text ("" when empty), None when the answer
    has no choices."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        return None
    message = choices[0].message
    calls = getattr(message, "tool_calls", None) or []
    if not calls:
        return str(message.content or "")
    arguments = calls[0].function.arguments  # a JSON string; some servers send the object
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


class OpenAIJudge:
    """Faithfulness through an OpenAI-compatible Chat Completions server."""

    name = "openai"

    @staticmethod
    def arguments(cfg: JudgeConfig) -> dict[str, Any]:
        """The constructor arguments ``judge.openai`` configures, with the shared call limits
        and prices of ``judge``."""
        o = cfg.openai
        return {
            "model": o.model,
            "api_key": revealed(o.api_key),
            "base_url": o.base_url,
            "timeout_seconds": cfg.timeout_seconds,
            "max_retries": cfg.max_retries,
            "max_tokens": cfg.max_tokens,
            "output": o.output,
            "profile": o.profile,
            "prices": cfg.prices.as_prices(),
        }

    def __init__(
        self,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_seconds: float = 60.0,
        max_retries: int = 3,
        max_tokens: int = 2048,
        output: Literal["auto", "json_schema", "tool", "json"] = "auto",
        profile: profiles.Profile = "rubric",
        prices: Prices | None = None,
        client_factory: Callable[..., openai.OpenAI] = openai.OpenAI,
    ) -> None:
        self.model = model
        self.tokens = token_counter(model)
        self.profile = profile
        self.max_tokens = max_tokens
        self.prices = prices or Prices(0.0, 0.0, 0.0, 0.0)
        # The ways still to try, strongest first; every worker thread shares them, so they
        # change only under the lock, and only by the way a worker was answered about.
        self._ways: list[Output] = list(WAYS) if output == "auto" else [output]
        self._ways_lock = threading.Lock()
        self._keyless_public = api_key is None and base_url is None
        self.client = client_factory(
            api_key=api_key or "unused",  # self-hosted servers often take any key
            base_url=base_url,
            timeout=timeout_seconds,
            max_retries=max_retries,
        )

    def verify(self) -> None:
        """At start-up: a rejected key (401/403) or an unknown model (404 on
        ``GET /models/{model}``) is a ``ConfigError``. A server without that endpoint or one
        that is not reachable now is not: judged calls will tell. No key and no base URL is
        a ``ConfigError`` at once: the public endpoint needs one, and every judged call would
        otherwise spend its retries there for nothing."""
        if self._keyless_public:
            raise ConfigError(
                f"judge.backend openai would call {self.client.base_url} without a key: set "
                "OPENAI_API_KEY (or judge.openai.api_key), or judge.openai.base_url for a "
                "self-hosted server"
            )
        try:
            self.client.models.retrieve(self.model, timeout=10.0)
        except openai.APIStatusError as exc:
            code = exc.status_code
            if code in (401, 403):
                raise ConfigError(
                    f"the judge server rejected the key (HTTP {code}): check OPENAI_API_KEY "
                    "(or judge.openai.api_key)"
                ) from exc
            if code == 404 and "model" in str(exc).lower():
                raise ConfigError(
                    f"the judge server does not know judge.openai.model {self.model!r} (HTTP 404)"
                ) from exc
        except openai.APIError:
            pass

    def close(self) -> None:
        """Close the SDK client's connection pool."""
        self.client.close()

    def estimate_input_tokens(self, trace: RagTrace) -> int:
        """A budget estimate of the call's input before it is made: counted with the model's
        own encoding for OpenAI models, else ~4 characters a token."""
        counter = self.tokens if self.tokens.source == "tokenizer" else None
        return estimate_input_tokens(trace, counter)

    def judge(self, trace: RagTrace) -> Verdict:
        """The verdict on ``trace`` (raises ``JudgeError`` by kind when there is none)."""
        t0 = time.monotonic()
        tokens = {"input_tokens": 0, "output_tokens": 0}
        if self.profile != "rubric":
            output = self._profiled(trace, tokens)
            return self._verdict(output, tokens, t0)
        last: Exception | None = None
        for _attempt in range(2):  # invalid output is asked for once more
            completion, way = self._call(trace, self._way())
            text = self._count(completion, trace, tokens)
            try:
                output, repairs = _parse(way, text)
            except (ValidationError, ValueError) as exc:
                last = exc
                self._drop(way)  # the server ignored this way: the next call asks the next one
                continue
            with self._ways_lock:
                self._ways = [way]  # it works: keep it
            return self._verdict(output, tokens, t0, repairs)
        raise JudgeError("invalid_output", f"judge output failed validation twice: {last}")

    def request(self, trace: RagTrace) -> dict[str, Any]:
        """The Chat Completions body that judges ``trace`` the way this server takes (the
        first of ``judge.openai.output``'s ways): one request of a Batch API input file."""
        return self._request(trace, self._way())

    def verdict(
        self, completion: ChatCompletion, trace: RagTrace, discount: float = 1.0
    ) -> Verdict:
        """The verdict in a completion answered to ``request(trace)``, ``discount`` scaling
        its price (a batch's). Raises ``ValueError`` or ``JudgeError`` when it holds none."""
        tokens = {"input_tokens": 0, "output_tokens": 0}
        output, repairs = _parse(self._way(), self._count(completion, trace, tokens))
        verdict = self._verdict(output, tokens, time.monotonic(), repairs)
        return verdict.model_copy(update={"cost_usd": discount * verdict.cost_usd})

    def _verdict(self, output: JudgeOutput, tokens: dict[str, int], t0: float,
                 repairs: tuple[str, ...] = ()) -> Verdict:  # fmt: skip
        estimated = bool(tokens.pop("usage_estimated", 0))
        cost = self.prices.cost(tokens["input_tokens"], tokens["output_tokens"], 0, 0)
        return Verdict.from_output(
            output, judge=self.name, model=self.model, rubric_version=rubric_version(self.profile),
            cost_usd=cost, latency_seconds=time.monotonic() - t0, usage_estimated=estimated,
            output_repairs=repairs, **tokens,
        )  # fmt: skip

    def _profiled(self, trace: RagTrace, tokens: dict[str, int]) -> JudgeOutput:
        """A detector model in its own format (``monitor.judge.profiles``)."""
        if self.profile == "minicheck":
            labelled = [(claim, self._ask(trace, messages, tokens, profiles.minicheck_label))
                        for claim, messages in profiles.minicheck_requests(trace)]  # fmt: skip
            return profiles.minicheck_output(labelled)
        return self._ask(trace, profiles.lynx_messages(trace), tokens,
                         lambda reply: profiles.lynx_output(reply, trace.answer))  # fmt: skip

    def _ask(self, trace: RagTrace, messages: list[dict[str, Any]], tokens: dict[str, int],
             read: Callable[[str], T]) -> T:  # fmt: skip
        """One request in a profile's format, read by ``read``; asked once more when the
        reply is not the format, then ``invalid_output``."""
        last: Exception | None = None
        for _attempt in range(2):
            request = {"model": self.model, "messages": messages, "temperature": 0,
                       "max_tokens": self.max_tokens}  # fmt: skip
            text = self._count(self._send(request), trace, tokens)
            try:
                return read(text)
            except ValueError as exc:
                last = exc
        raise JudgeError("invalid_output", f"{self.profile} reply not in its format twice: {last}")

    def structured(self, system: str, prompt: str, tool: ToolParam) -> JsonObject:
        """One call with ``system`` and ``prompt`` answered as ``tool``'s input: a forced
        tool call, or JSON mode with the schema in the prompt where tools are refused."""
        base = {"model": self.model, "max_tokens": self.max_tokens, "temperature": 0}
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        completion = self._send({**base, "messages": messages, **_forced_tool(tool)},
                                refusable=True)  # fmt: skip
        if completion is None:  # no tools here: JSON mode
            messages[1] = {"role": "user", "content": prompt + _json_hint(tool["input_schema"])}
            completion = self._send({**base, "messages": messages,
                                     "response_format": {"type": "json_object"}})  # fmt: skip
        text = _reply_text(completion)
        try:
            value = json.loads(text or "")
        except ValueError as exc:
            raise JudgeError("invalid_output", f"no {tool['name']} answer: {exc}") from exc
        if not isinstance(value, dict):
            raise JudgeError("invalid_output", f"no {tool['name']} object in the answer")
        return value

    def _count(self, completion: ChatCompletion, trace: RagTrace, tokens: dict[str, int]) -> str:
        """The answer's text (or tool arguments); the usage added to ``tokens``, estimated
        when the server reports none."""
        text = _reply_text(completion)
        if text is None:
            raise JudgeError("invalid_response", "the answer has no choices")
        if getattr(completion.choices[0], "finish_reason", None) == "length":
            # a half JSON must never pass (a reasoning model spent max_tokens thinking)
            raise JudgeError("truncated", f"the answer hit max_tokens ({self.max_tokens})")
        usage = getattr(completion, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            tokens["input_tokens"] += usage.prompt_tokens or 0
            tokens["output_tokens"] += usage.completion_tokens or 0
        else:  # no usage reported: charge an estimate so the budget still holds
            tokens["input_tokens"] += self.estimate_input_tokens(trace)
            tokens["output_tokens"] += len(text) // 4 + 1
            tokens["usage_estimated"] = 1
        return text

    def _call(self, trace: RagTrace, way: Output) -> tuple[ChatCompletion, Output]:
        """One request the given way, and the way it was answered: a 400 that refuses the
        way moves on to the next."""
        while True:
            with self._ways_lock:
                refusable = len(self._ways) > 1 and way in self._ways
            completion = self._send(self._request(trace, way), refusable)
            if completion is not None:
                return completion, way
            way = self._drop(way)  # this server does not take this way: the next one

    def _way(self) -> Output:
        """The strongest way not ruled out yet."""
        with self._ways_lock:
            return self._ways[0]

    def _drop(self, way: Output) -> Output:
        """Rule ``way`` out (unless it is the last; another worker may have done so already)
        and say which way to ask now."""
        with self._ways_lock:
            if way in self._ways and len(self._ways) > 1:
                self._ways.remove(way)
            return self._ways[0]

    @overload
    def _send(self, request: Body, refusable: Literal[False] = False) -> ChatCompletion: ...

    @overload
    def _send(self, request: Body, refusable: bool) -> ChatCompletion | None: ...

    def _send(self, request: Body, refusable: bool = False) -> ChatCompletion | None:
        """The completion, or None for a 400 when ``refusable`` (the caller asks another
        way); every failure else is a ``JudgeError`` by kind."""
        try:
            # the body as JSON (also a Batch API line): the SDK parses the answer
            completion: ChatCompletion = self.client.chat.completions.create(**request)
            return completion
        except openai.BadRequestError as exc:
            if refusable:
                return None
            raise JudgeConfigError("http_400", f"judge request rejected: {exc}") from exc
        except openai.APIStatusError as exc:
            code = exc.status_code
            if 400 <= code < 500 and code not in _RETRIED_BY_SDK:
                why = f"judge request rejected: {exc}"
                raise JudgeConfigError(f"http_{code}", why) from exc
            kind = "rate_limited" if code == 429 else "server_error"
            raise JudgeError(kind, str(exc)[:300]) from exc
        except openai.APITimeoutError as exc:
            raise JudgeError("timeout", str(exc)[:300]) from exc
        except openai.APIConnectionError as exc:
            raise JudgeError("connection", str(exc)[:300]) from exc
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise JudgeError("invalid_response", str(exc)[:300]) from exc

    def _request(self, trace: RagTrace, way: Output) -> dict[str, Any]:
        prompt = user_prompt(trace)
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": RUBRIC},
                {"role": "user", "content": prompt},
            ],
        }
        if way == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": TOOL["name"], "schema": TOOL["input_schema"]},
            }
        elif way == "tool":
            request.update(_forced_tool(TOOL))
        else:
            request["response_format"] = {"type": "json_object"}
            request["messages"][1]["content"] = prompt + _json_hint(TOOL["input_schema"])
        return request


def _parse(way: Output, text: str) -> tuple[JudgeOutput, tuple[str, ...]]:
    """The verdict JSON of an answer given ``way`` and the repairs it took (see
    ``monitor.judge.replies``); ``ValueError`` when it is not there."""
    try:
        return read_output(text)
    except ValueError as exc:
        raise ValueError(f"{exc} (asked as {way})") from None
