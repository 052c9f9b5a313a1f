"""Token counts of a judge call before it is made: what the budget reserves.

The budget is settled with the provider's own ``usage``; this estimate only decides whether
there is budget for the call (and stands in for the usage of a server that reports none).
Where a local tokenizer fits the model family it counts: OpenAI models through their
tiktoken encodings (``o200k_base``, ``cl100k_base``), embedded in ``bpe-openai`` (no
download). Anthropic publishes no tokenizer: its ``count_tokens`` endpoint counts one sample
request once at start-up, and the characters per token it implies scale every estimate —
one call per process and rubric, never one per trace. Otherwise (self-hosted models of other
families), about four characters a token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sized
from functools import cache

CHARS_PER_TOKEN = 4.0
# Messages around the data (roles, tool definitions): a small fixed overhead per call.
OVERHEAD_TOKENS = 200
_OPENAI_MODEL = re.compile(r"^(?:gpt-|o\d|chatgpt-|text-embedding-|ft:gpt-)", re.IGNORECASE)


class TokenCounter:
    """Counts the tokens of a text: with a tokenizer, or by a characters-per-token ratio."""

    def __init__(self, encode: Callable[[str], Sized] | None = None, chars_per_token: float = 4.0):
        self._encode = encode
        self.chars_per_token = chars_per_token

    @property
    def source(self) -> str:
        """``tokenizer`` or ``characters`` (what the estimate rests on)."""
        return "tokenizer" if self._encode is not None else "characters"

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        if self._encode is not None:
            return len(self._encode(text))
        return int(len(text) / self.chars_per_token)


def for_model(model: str) -> TokenCounter:
    """The OpenAI encoding of ``model`` when it is an OpenAI model, else characters."""
    encode = _openai_encoder(model) if _OPENAI_MODEL.match(model) else None
    return TokenCounter(encode)


@cache
def _openai_encoder(model: str) -> Callable[[str], Sized] | None:
    import bpe_openai  # the encodings are embedded: no download

    try:
        name = bpe_openai.encoding_name_for_model(model)
    except Exception:  # a model the package does not know: the newest encoding
        name = "o200k_base"
    return bpe_openai.get_encoding(name).encode  # type: ignore[no-any-return]


def calibrated(chars: int, tokens: int) -> TokenCounter:
    """A counter from one sample the provider counted: ``chars`` characters were ``tokens``."""
    if tokens <= 0 or chars <= 0:
        return TokenCounter()
    return TokenCounter(chars_per_token=chars / tokens)
