"""Configuration of the segments (``segments``): the dimensions every evaluation is split by,
and their bounds."""

from __future__ import annotations

from pydantic import Field, field_validator

from monitor.core.model import ConfigSection

# The languages the refusal check knows (monitor/checks/languages/*.toml); a test holds the two
# lists equal.
REFUSAL_LANGUAGES = (
    "ar", "de", "en", "es", "fr", "hi", "it", "ja", "ko", "nl", "pl", "pt", "ru", "tr", "zh",
)  # fmt: skip


class SegmentsConfig(ConfigSection):
    """``segments``: each evaluation's segment values (language, query shape and length, app,
    route, release, data source, document age, chosen trace attributes) and measured inputs,
    computed on every trace without a model; every dimension's values are bounded."""

    enabled: bool = Field(
        default=True, description="Compute segments and inputs (off: lines carry empty ones)."
    )
    languages: list[str] = Field(
        default_factory=lambda: list(REFUSAL_LANGUAGES),
        description="ISO 639-1 codes kept as the language segment; any other detected "
        "language is 'other', an undecidable query 'unknown'.",
    )
    min_language_confidence: float = Field(
        default=0.3, ge=0, le=1,
        description="Below this detector probability the language is 'unknown'.",
    )  # fmt: skip
    short_chars: int = Field(
        default=30, ge=1, description="A query of at most this many characters is 'short'."
    )
    long_chars: int = Field(
        default=120, ge=1, description="A query of more than this many characters is 'long'."
    )
    keyword_words: int = Field(
        default=6, ge=1,
        description="A query without the form of a question and of at most this many words "
        "is a 'keyword' lookup (longer ones are an 'instruction').",
    )  # fmt: skip
    new_document_days: float = Field(
        default=30.0, gt=0,
        description="A packed document updated within this many days of the trace is 'new'.",
    )  # fmt: skip
    attributes: list[str] = Field(
        default_factory=list,
        description="Trace attributes that become dimensions of their own (e.g. tenant_tier, "
        "channel); each is bounded like the others.",
    )
    max_values: int = Field(
        default=50, ge=1, le=1000,
        description="Distinct values kept per dimension (first seen); later ones are 'other' "
        "and counted in ragmon_segment_values_folded_total.",
    )  # fmt: skip

    @field_validator("languages")
    @classmethod
    def _codes(cls, v: list[str]) -> list[str]:
        bad = [c for c in v if len(c) != 2 or not c.isalpha() or not c.islower()]
        if bad:
            raise ValueError(f"not ISO 639-1 codes (two lower-case letters): {bad}")
        return v

    @field_validator("attributes")
    @classmethod
    def _not_builtin(cls, v: list[str]) -> list[str]:
        clash = [a for a in v if a in BUILTIN_DIMENSIONS]
        if clash:
            raise ValueError(f"{clash} are built-in dimensions, not attributes")
        return v


BUILTIN_DIMENSIONS = (
    "language", "query_shape", "query_length", "app", "route", "release", "data_source",
    "doc_age", "agent",
)  # fmt: skip
