"""Configuration of OTLP trace assembly (``source.assembly``) and of the conversations' turns
(``sessions``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from monitor.core.model import ConfigSection as _Section


class AssemblyConfig(_Section):
    """How OTLP spans become traces: buffered per trace id until complete."""

    quiet_seconds: float = Field(
        default=2.0,
        gt=0,
        le=600,
        description="Emit a trace once its root span arrived and no span came for this long.",
    )
    max_wait_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Emit a trace this long after its first span even if incomplete "
        "(marked incomplete: checked, not judged).",
    )
    max_traces: int = Field(
        default=10_000, ge=1, description="Buffered traces; beyond it the oldest is evicted."
    )
    max_bytes: int = Field(
        default=256 << 20, ge=1 << 16, description="Buffered span bytes; beyond it evict."
    )

    @model_validator(mode="after")
    def _order(self) -> AssemblyConfig:
        if self.max_wait_seconds < self.quiet_seconds:
            raise ValueError("max_wait_seconds must be at least quiet_seconds")
        return self


class SessionsConfig(_Section):
    """``sessions``: the turns of a conversation (traces with a session id) paired in time
    order, and what each next turn says about the answer before it (docs, "Conversations")."""

    enabled: bool = Field(
        default=True,
        description="Pair the turns of each session and write follow-up lines (off: a "
        "trace's session id is ignored).",
    )
    window_seconds: float = Field(
        default=1800.0, gt=0, le=7 * 86400,
        description="A turn follows the one before only within this many seconds of it; a "
        "later one starts afresh (no follow-up line for the pair).",
    )  # fmt: skip
    lateness_seconds: float = Field(
        default=60.0, ge=0, le=3600,
        description="How long after a turn arrives a turn that began before it may still "
        "arrive (out of order, from another replica): a pair is written this long after its "
        "later turn arrived; a turn later than that is counted late and its pair lost.",
    )  # fmt: skip
    max_bytes: int = Field(
        default=256 << 20, ge=1 << 20,
        description="Memory the open sessions may hold (their last turns); beyond it the "
        "least recently active session is dropped and counted (evicted).",
    )  # fmt: skip
    topic: str | None = Field(
        default=None,
        description="With the Kafka source: the repartition topic the turns meet on, keyed "
        "by session id and consumed by the same group, so that each session has one owner "
        "however many replicas run (create it as the source topics: ragmon does not create "
        "topics; retention at least window_seconds + lateness_seconds + the longest outage). "
        "Unset: turns are paired in memory, which is right for one process only.",
    )
    outcomes: bool = Field(
        default=True,
        description="Close each session and write its outcome (resolved, escalated, "
        "abandoned, unresolved): a session line, counters, a candidate golden row.",
    )
    idle_seconds: float = Field(
        default=1800.0, gt=0, le=7 * 86400,
        description="A session closes (idle) when no turn began within this many seconds "
        "of its last; it is looked at lateness_seconds later still, so that a turn near the "
        "end of the gap is not missed.",
    )  # fmt: skip
    max_age_seconds: float = Field(
        default=86400.0, gt=0, le=30 * 86400,
        description="A session closes (max_age) this many seconds after its first turn; a "
        "later turn opens it again (a new outcome is written).",
    )  # fmt: skip
    end_attribute: str | None = Field(
        default=None, min_length=1,
        description="A trace attribute that ends its session (closed_by end) when present "
        "with a value other than false, 0, \"\" or \"false\" (e.g. ragmon.session.end). "
        "Unset: sessions close on idle_seconds and max_age_seconds only.",
    )  # fmt: skip
    outcomes_max_bytes: int = Field(
        default=64 << 20, ge=1 << 20,
        description="Memory the open sessions' outcomes may hold (counts and the last ten "
        "turns of each); beyond it the least recently active is dropped and counted.",
    )  # fmt: skip
