"""The native record's rules, as a pydantic schema of record (``ragmon.trace/v1``).

``TraceRecord`` and its ``Passage`` and ``RetrievedDoc`` are the definition the JSON Schema
(``ragmon schema trace``) is generated from and the validator whose one-line messages dead
letters carry. The value that flows through ragmon is ``monitor.core.model.RagTrace``, decoded
straight from the bytes by msgspec; a record that decoder does not take is validated here, so
what is accepted and what a refusal says are defined by these classes alone (a test holds the
two decoders to the same result on every record it can make).

Imports nothing of ours.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The smallest sampling probability a trace may carry: OpenTelemetry's consistent sampling
# writes none smaller (OTEP 235: 56-bit thresholds). Beyond, a trace's weight 1/p squared
# (the Kish design effect's sum) leaves the range of a float.
MIN_SAMPLE_RATE: Final = 2.0**-56

SCHEMA_ID = "ragmon.trace/v1"
_D = TypeVar("_D", bound=datetime)

_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
_ZERO_ID = "0" * 32  # not a trace id (W3C)
# what the record may carry before it is normalised: 32 hex digits, dashes and spaces around
TRACE_ID_PATTERN = r"^\s*-*(?:[0-9A-Fa-f]-*){32}\s*$"


def normal_trace_id(v: str) -> str:
    """The trace id as stored: lower case, without dashes or surrounding spaces; raises
    ``ValueError`` when it is not 32 hex digits or is all zeros."""
    if len(v) == 32 and _TRACE_ID.match(v) and v != _ZERO_ID:
        return v  # already as stored: the common case, one match and no copies
    v = v.strip().lower().replace("-", "")
    if not _TRACE_ID.match(v) or v == _ZERO_ID:
        raise ValueError("must be 32 hex characters and not all zero")
    return v


def parse_timestamp(text: str, as_type: type[_D]) -> _D:
    """A record's timestamp text as ``as_type`` (``datetime`` or a subclass); raises
    ``ValueError`` when it is not one."""
    try:
        return as_type.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError("not an RFC 3339 timestamp") from exc


def rfc3339(v: object) -> object:
    """A string parsed as the record's timestamps are (anything else is left to the type):
    strict mode refuses strings for datetimes, and JSON only has strings."""
    return parse_timestamp(v, datetime) if isinstance(v, str) else v


class RetrievedDoc(BaseModel):
    """One candidate the retriever returned, before reranking and packing."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    doc_id: str
    chunk_id: str | None = None
    score: float | None = None  # strict still takes an integer (1 is 1.0), never a bool
    rank: int | None = None


class Passage(BaseModel):
    """One packed passage that reached the model, in prompt order; ``data_source`` (the index
    or store it came from) and ``timestamp`` (when its document was last updated) are
    optional and feed the data-source and document-age segments."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    doc_id: str | None = None
    chunk_id: str | None = None
    text: str
    data_source: str | None = None
    timestamp: datetime | None = None

    @field_validator("timestamp", mode="before")
    @classmethod
    def _parse_timestamp(cls, v: object) -> object:
        return rfc3339(v)


class TraceRecord(BaseModel):
    """One RAG interaction as ragmon evaluates it (schema ``ragmon.trace/v1``).

    Unknown fields are ignored so producers can add their own; known fields are strict on
    type (a number is not accepted where a string is expected).
    """

    model_config = ConfigDict(
        extra="ignore",
        frozen=True,
        strict=True,
        title="ragmon.trace/v1",
        json_schema_extra={"$id": SCHEMA_ID},
    )

    trace_id: str = Field(
        description="32 hex characters, the W3C / OTel trace id; upper case, dashes (a UUID) "
        "and surrounding spaces are normalised away; all zeros is refused.",
        json_schema_extra={"pattern": TRACE_ID_PATTERN},
    )
    record_schema: Literal["ragmon.trace/v1"] | None = Field(
        default=None,
        alias="schema",
        exclude=True,
        description="Optional; when present it must name this schema.",
    )
    timestamp: datetime | None = Field(
        default=None, description="When the answer was produced (RFC 3339)."
    )
    app: str | None = Field(default=None, description="Application name (low cardinality).")
    route: str | None = Field(default=None, description="Route or use case (low cardinality).")
    release: str | None = Field(default=None, description="Release or version label.")
    query: str = Field(default="", description="The user's question.")
    retrieved: list[RetrievedDoc] = Field(
        default_factory=list, description="What the retriever returned before packing."
    )
    context: list[Passage] = Field(
        default_factory=list, description="The packed passages the model saw, in prompt order."
    )
    answer: str = Field(default="", description="The final answer.")
    model: str | None = Field(default=None, description="Generator model id.")
    attributes: dict[str, Any] = Field(default_factory=dict, description="Free-form extras.")
    golden_id: str | None = Field(
        default=None, description="Set on synthetic probe traffic whose gold labels are known."
    )
    session_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=256,
        description="The conversation this trace is one turn of: turns of one session are "
        "paired in time order and the next turn read for what the user did next (docs, "
        '"Conversations").',
    )
    sample_rate: float | None = Field(
        default=None,
        ge=MIN_SAMPLE_RATE,
        le=1,
        description="The probability with which this trace was kept by a sampler upstream of "
        "ragmon (0.1: one in ten); every rate counts it 1/sample_rate times. Unset: 1. At "
        "least 2**-56, the smallest OpenTelemetry's consistent sampling writes.",
    )

    @field_validator("trace_id", mode="before")
    @classmethod
    def _normalise_trace_id(cls, v: object) -> object:
        return normal_trace_id(v) if isinstance(v, str) else v

    @field_validator("timestamp", mode="before")
    @classmethod
    def _parse_timestamp(cls, v: object) -> object:
        return rfc3339(v)
