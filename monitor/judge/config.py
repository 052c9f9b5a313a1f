"""Configuration of the judge (``judge``): backend, call limits, the OpenAI-compatible
backend, the jury, sampling, budget and prices.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr, SecretStr, model_validator

from monitor.core.model import ConfigSection as _Section
from monitor.judge.prices import Prices
from monitor.judge.sampler import BudgetLimits


class SamplingConfig(_Section):
    """``judge.sampling``: which traces are judged, by deterministic hash. The cascade: the
    model-free checks run on every trace; the judge takes (a) a random share of all traces
    (``base_rate``, for unbiased rates) and (b) more of the traces a check flagged
    (``flagged_rate``); every judged trace counts 1/p. With ``target_cost_per_1k`` the two
    rates follow from a cost per 1,000 traces instead."""

    base_rate: float = Field(default=0.05, ge=0, le=1, description="Inclusion probability.")
    flagged_rate: float = Field(
        default=0.5, ge=0, le=1,
        description="Probability for traces a check flagged (by: risk, for risk 1).",
    )  # fmt: skip
    by: Literal["flagged", "risk"] = Field(
        default="flagged",
        description="What raises a trace above base_rate: 'flagged', flagged_rate for a "
        "trace a check flagged; 'risk', a probability rising from base_rate at risk 0 to "
        "flagged_rate at risk 1 (the evaluation line's risk, from the checks' evidence), so "
        "the budget goes where answers fail (with target_cost_per_1k, expected_flagged_share "
        "then stands for the mean risk). Every judged trace counts 1/p either way.",
    )
    target_cost_per_1k: float | None = Field(
        default=None, gt=0,
        description="USD per 1,000 traces the judge may cost; base_rate and flagged_rate then "
        "follow (flagged_rate = flagged_boost x base_rate) from the price table, the expected "
        "call size and the expected flagged share. Logged at start.",
    )  # fmt: skip
    flagged_boost: float = Field(
        default=10.0, ge=1, le=1000,
        description="With target_cost_per_1k: how many times more often a flagged trace is "
        "judged than another.",
    )  # fmt: skip
    expected_flagged_share: float = Field(
        default=0.15, ge=0, le=1,
        description="With target_cost_per_1k: the share of traces a check flags (read it off "
        "ragmon_check_results_total).",
    )  # fmt: skip
    expected_input_tokens: int = Field(
        default=1_800, ge=1,
        description="With target_cost_per_1k: a judge call's input tokens, rubric included "
        "(ragmon_judge_tokens_total{kind='input'} / judged calls once running).",
    )  # fmt: skip
    expected_output_tokens: int = Field(
        default=300, ge=1,
        description="With target_cost_per_1k: a call's output tokens (a reasoning model's are "
        "many more).",
    )  # fmt: skip

    @model_validator(mode="after")
    def _rates_or_target(self) -> SamplingConfig:
        given = sorted({"base_rate", "flagged_rate"} & self.model_fields_set)
        if self.target_cost_per_1k is not None and given:
            raise ValueError(
                f"judge.sampling.{given[0]} and target_cost_per_1k both set the rates: keep one"
            )
        # a planning key at its default changes nothing (the example file spells them all)
        planning = {k for k in ("flagged_boost", "expected_flagged_share",
                                "expected_input_tokens", "expected_output_tokens")
                    if getattr(self, k) != type(self).model_fields[k].default}  # fmt: skip
        if self.target_cost_per_1k is None and planning:
            raise ValueError(
                f"judge.sampling.{sorted(planning)[0]} plans the rates for target_cost_per_1k, "
                "which is not set: it would be ignored"
            )
        return self

    routes: dict[str, float] = Field(default_factory=dict, description="route -> probability")
    releases: dict[str, float] = Field(default_factory=dict, description="release -> probability")
    golden_always: bool = Field(default=True, description="Always judge golden_id traffic.")
    salt: str = Field(default="ragmon", description="Change it to draw another sample.")


class BudgetConfig(_Section):
    """Global limits: each replica takes its share of the assigned partitions."""

    calls_per_minute: float = Field(default=60.0, gt=0)
    input_tokens_per_minute: float = Field(default=200_000.0, gt=0)
    usd_per_day: float = Field(default=5.0, gt=0)

    def as_limits(self) -> BudgetLimits:
        """The budget's limits for the whole consumer group."""
        return BudgetLimits(self.calls_per_minute, self.input_tokens_per_minute, self.usd_per_day)


class PricesConfig(_Section):
    """USD per million tokens (defaults: Claude Haiku 5.5, prompts under 100K tokens)."""

    input: float = Field(default=0.10, ge=0)
    output: float = Field(default=0.50, ge=0)
    cache_read: float = Field(default=0.01, ge=0)
    cache_write: float = Field(default=0.125, ge=0)

    def as_prices(self) -> Prices:
        """The judge's price table."""
        return Prices(self.input, self.output, self.cache_read, self.cache_write)


class AnthropicJudgeConfig(_Section):
    """The judge through the Anthropic Messages API (judge.backend, or judge.jury.backend,
    anthropic)."""

    model: str = Field(default="claude-haiku-5-5", description="The Claude model.")
    base_url: str | None = Field(
        default=None, description="The Messages API base URL; None: api.anthropic.com."
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="Prefer the environment: ANTHROPIC_API_KEY (or "
        "RAGMON_JUDGE__ANTHROPIC__API_KEY).",
    )


# The keys judge.model, base_url and api_key, from before each backend had its own section:
# still read for one release as judge.anthropic's, with a deprecation warning.
LEGACY_KEYS = ("model", "base_url", "api_key")


class OpenAIJudgeConfig(_Section):
    """The judge through an OpenAI-compatible Chat Completions server (judge.backend:
    openai): OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server, LM Studio."""

    model: str = Field(
        default="gpt-4.1-mini", description="The model name the server knows (e.g. qwen2.5:7b)."
    )
    base_url: str | None = Field(
        default=None,
        description="The server's API base, e.g. http://localhost:8000/v1 (vLLM) or "
        "http://localhost:11434/v1 (Ollama); None: api.openai.com.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="Prefer the environment: OPENAI_API_KEY (or RAGMON_JUDGE__OPENAI__API_KEY); "
        "self-hosted servers often need none.",
    )
    output: Literal["auto", "json_schema", "tool", "json"] = Field(
        default="auto",
        description="How the verdict is asked for: a JSON schema, a forced tool call or JSON "
        "mode; auto tries them in that order and keeps the first the server honours.",
    )
    profile: Literal["rubric", "minicheck", "lynx"] = Field(
        default="rubric",
        description="rubric: ragmon's claims rubric (SUPPORTED / ABSENT / CONTRADICTED); "
        "minicheck: Bespoke-MiniCheck (one sentence per request, Yes/No: no CONTRADICTED); "
        "lynx: Patronus Lynx (PASS/FAIL for the whole answer: no per-claim labels).",
    )


class JuryConfig(_Section):
    """A second judge of another model family on a share of the judged traces."""

    backend: Literal["none", "heuristic", "anthropic", "openai"] = Field(
        default="none",
        description="The second judge ('none': no jury; unused without a first judge); its "
        "settings are its backend's section (judge.anthropic, judge.openai). Must differ "
        "from judge.backend.",
    )
    share: float = Field(
        default=1.0, gt=0, le=1,
        description="Share of the judged traces the second judge also grades (by trace id).",
    )  # fmt: skip
    prices: PricesConfig | None = Field(
        default=None,
        description="The second judge's USD per million tokens (e.g. 0 for a self-hosted "
        "model); None: judge.prices.",
    )
    hard_fail: Literal["both", "either"] = Field(
        default="both",
        description="A hard fail needs both judges to find a contradiction (both), or one "
        "(either). Both: a page needs two families to agree.",
    )


class BatchConfig(_Section):
    """Batch mode: sampled traces go to a durable outbox and a provider's batch API (half
    price, results within 24 h) instead of one call each; verdicts arrive as judge-only
    evaluation lines. For ``ragmon run`` with the anthropic backend (Message Batches) or the
    openai one (the Batch API, where the server offers it)."""

    enabled: bool = Field(default=False, description="Judge through the batch API.")
    dir: Path | None = Field(
        default=None, description="The outbox directory (durable requests and batches)."
    )
    max_requests: int = Field(
        default=1000, ge=1, le=100_000, description="A batch is submitted at this many requests"
    )
    max_wait_seconds: float = Field(
        default=300.0, gt=0, le=86_400, description="... or this long after the oldest waits."
    )
    poll_seconds: float = Field(
        default=30.0, gt=0, le=3600, description="How often submitted batches are polled."
    )
    discount: float = Field(
        default=0.5, gt=0, le=1, description="The batch price as a share of the online price."
    )

    @model_validator(mode="after")
    def _needs_dir(self) -> BatchConfig:
        if self.enabled and self.dir is None:
            raise ValueError("batch mode needs judge.batch.dir (the durable outbox)")
        return self


class JudgeConfig(_Section):
    """``judge``: the backend, its call limits, and the sampling, budget and prices."""

    backend: Literal["none", "heuristic", "anthropic", "openai"] = Field(
        default="none",
        description="'none' (the default): no judge; 'anthropic' calls the Messages API (key "
        "from ANTHROPIC_API_KEY or api_key); 'openai' an OpenAI-compatible Chat Completions "
        "server (judge.openai); 'heuristic' a lexical screen without a model (no network; "
        "the built-in demo turns it on unless judge.backend is set).",
    )
    model: str | None = Field(
        default=None,
        exclude=True,
        description="Deprecated: judge.anthropic.model (read as it for now).",
    )
    base_url: str | None = Field(
        default=None,
        exclude=True,
        description="Deprecated: judge.anthropic.base_url (read as it for now).",
    )
    api_key: SecretStr | None = Field(
        default=None,
        exclude=True,
        description="Deprecated: judge.anthropic.api_key (read as it for now).",
    )
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    max_retries: int = Field(default=3, ge=0, le=10, description="SDK retries (429/5xx/529).")
    max_tokens: int = Field(default=2048, ge=256, le=32_000)
    concurrency: int = Field(default=4, ge=1, le=256)
    max_queue: int = Field(default=1000, ge=1)
    breaker_failures: int = Field(default=5, ge=1)
    breaker_cooldown_seconds: float = Field(default=30.0, gt=0)
    drain_seconds: float = Field(
        default=10.0, ge=0, description="On shutdown, wait this long for verdicts in flight."
    )
    calibration_file: Path | None = Field(
        default=None, description="Record written by `ragmon calibrate -o`, exported as metrics."
    )
    cache_entries: int = Field(
        default=10_000, ge=0, description="Verdicts kept by content hash (0: no cache)."
    )
    cache_file: Path | None = Field(
        default=None, description="Also keep verdicts on disk (JSONL), reused after restarts."
    )
    isolate: bool = Field(
        default=True,
        description="Run the API judge's calls (online, or batch mode's create and read) in a "
        "child process, so the SDK's HTTP and JSON work does not compete with the checks for "
        "the GIL.",
    )
    redact_pii: bool = Field(
        default=False,
        description="Redact PII from question, passages and answer before "
        "the judge sees them (the same detectors as golden rows).",
    )
    anthropic: AnthropicJudgeConfig = AnthropicJudgeConfig()
    openai: OpenAIJudgeConfig = OpenAIJudgeConfig()
    _deprecated: list[str] = PrivateAttr(default_factory=list)
    _legacy: set[str] = PrivateAttr(default_factory=set)  # judge.anthropic keys set as judge.*
    jury: JuryConfig = JuryConfig()
    sampling: SamplingConfig = SamplingConfig()
    budget: BudgetConfig = BudgetConfig()
    prices: PricesConfig = PricesConfig()
    batch: BatchConfig = BatchConfig()

    @model_validator(mode="after")
    def _legacy_keys(self) -> JudgeConfig:
        """judge.model, base_url, api_key: judge.anthropic's, unless it sets them itself."""
        old = {k: getattr(self, k) for k in LEGACY_KEYS if k in self.model_fields_set}
        if not old:
            return self
        ours = self.anthropic.model_fields_set
        moved = {k: v for k, v in old.items() if k not in ours and v is not None}
        anthropic = self.anthropic.model_copy(update=moved)
        anthropic.__pydantic_fields_set__ |= set(moved)
        out = self.model_copy(update={"anthropic": anthropic, **dict.fromkeys(LEGACY_KEYS)})
        out.__pydantic_fields_set__ -= set(LEGACY_KEYS)
        out.__pydantic_fields_set__.add("anthropic")
        out._deprecated = [f"judge.{k} is deprecated: set judge.anthropic.{k}" for k in old]
        out._legacy = set(moved)
        return out

    @property
    def deprecated(self) -> list[str]:
        """What of this section is deprecated, in one line each (logged at start)."""
        return list(self._deprecated)

    @model_validator(mode="after")
    def _bound_to_a_backend(self) -> JudgeConfig:
        """A section of a backend no judge uses would be ignored: refused while a judge
        runs. API keys are exempt (a key for another provider in the environment is usual)."""
        if self.backend == "none":
            return self
        used = {self.backend, self.jury.backend}
        for name in ("anthropic", "openai"):
            section = getattr(self, name)
            unused = sorted(section.model_fields_set - {"api_key"})
            if name not in used and unused:
                key = unused[0]
                said = f"judge.{key}" if name == "anthropic" and key in self._legacy else (
                    f"judge.{name}.{key}")  # fmt: skip
                own = (f"set judge.{self.backend}.{key}" if self.backend in ("anthropic", "openai")
                       else "remove it")  # fmt: skip
                raise ValueError(
                    f"{said} is the {name} judge's, but judge.backend is {self.backend} (and "
                    f"no jury member is {name}): it would be ignored; {own}"
                )
        return self

    @model_validator(mode="after")
    def _jury_of_two_families(self) -> JudgeConfig:
        if self.jury.backend != "none" and self.jury.backend == self.backend:
            raise ValueError("judge.jury.backend must differ from judge.backend")
        if self.batch.enabled and self.backend not in ("anthropic", "openai"):
            raise ValueError("judge.batch needs judge.backend anthropic or openai")
        if self.batch.enabled and self.backend == "openai" and self.openai.profile != "rubric":
            raise ValueError("judge.batch takes the rubric profile only (one request a trace)")
        if self.batch.enabled and self.jury.backend != "none":
            raise ValueError("judge.batch and judge.jury do not go together")
        if self.sampling.target_cost_per_1k is not None and self.backend == "heuristic":
            raise ValueError(
                "judge.sampling.target_cost_per_1k: the heuristic judge costs nothing, so no "
                "rate follows from a cost; set the rates instead"
            )
        return self
