"""The trace and evaluation models: the values that flow through ragmon.

This module imports nothing of ours but the record's rules (``monitor.core.record``), the
verdict model (``monitor.core.verdict``), the base of the checks' evidence
(``monitor.core.evidence``) and the line types (``monitor.core.lines``), which import nothing
of ours. ``RagTrace`` is the native ``ragmon.trace/v1`` record as ragmon holds it: the exact
context the generator saw, the question and the answer. ``Evaluation`` is what the checks
produced for one trace; ``DeadLetter`` is what bad input becomes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NamedTuple, NotRequired, TypedDict

import msgspec
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    model_validator,
)

from monitor.core.evidence import NO_EVIDENCE, Evidence, NotApplicable
from monitor.core.lines import (
    CheckLine,
    DeadLetterLine,
    EvaluationLine,
    FollowupLine,
    SessionLine,
    ShadowLine,
)
from monitor.core.record import TraceRecord, normal_trace_id, parse_timestamp
from monitor.core.verdict import Verdict


class ConfigSection(BaseModel):
    """Base of every configuration section: unknown keys are errors, values are frozen. Each
    component's section lives next to the component; ``monitor.config`` composes them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class KafkaConnection(ConfigSection):
    """How to reach the Kafka cluster; shared by the source and the Kafka sinks."""

    bootstrap_servers: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:9092"], min_length=1, description="host:port list."
    )
    client_id: str = "ragmon"
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = Field(default=None, description="Prefer the env var.")
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_password: SecretStr | None = None
    bootstrap_timeout_seconds: float = Field(
        default=30.0, gt=0, le=600, description="Startup fails if the cluster is not reached."
    )
    request_timeout_ms: int = Field(default=30_000, ge=1000)

    @model_validator(mode="after")
    def _sasl_complete(self) -> KafkaConnection:
        sasl = self.security_protocol.startswith("SASL")
        if sasl and self.sasl_mechanism is None:
            raise ValueError(f"security_protocol {self.security_protocol} needs sasl_mechanism")
        if not sasl and self.sasl_mechanism is not None:
            raise ValueError("sasl_mechanism is set but security_protocol is not SASL_*")
        if self.sasl_mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and (
            self.sasl_username is None or self.sasl_password is None
        ):
            raise ValueError(
                f"sasl_mechanism {self.sasl_mechanism} needs sasl_username and sasl_password"
            )
        return self

    def client_kwargs(self) -> dict[str, object]:
        """kafka-python keyword arguments for the connection and security settings (the
        source's consumer and the sinks' producers use the same)."""
        kw: dict[str, Any] = {
            "bootstrap_servers": list(self.bootstrap_servers),
            "client_id": self.client_id,
            "security_protocol": self.security_protocol,
        }
        if self.sasl_mechanism is not None:
            kw["sasl_mechanism"] = self.sasl_mechanism
        if self.sasl_username is not None:
            kw["sasl_plain_username"] = self.sasl_username
        if self.sasl_password is not None:
            kw["sasl_plain_password"] = self.sasl_password.get_secret_value()
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            value = getattr(self, name)
            if value is not None:
                kw[name] = str(value)
        if self.ssl_password is not None:
            kw["ssl_password"] = self.ssl_password.get_secret_value()
        return kw


# The sections several parts read: the daemon's /metrics endpoint and its label bounds (the
# Prometheus sink, the golden probes, the review precision), and the daemon's own outputs
# (the JSONL and Kafka dead-letter sinks, the pipeline's flushes, the redaction of lines).


class MetricsConfig(ConfigSection):
    """``metrics``: the /metrics endpoint and the bounds on its labels."""

    host: str = Field(default="0.0.0.0", description="Address of /metrics, /healthz, /readyz.")
    port: int = Field(default=9464, ge=0, le=65535, description="0 picks a free port.")
    routes: list[str] = Field(
        default_factory=list,
        description="Route label allow-list. Empty: the first max_label_values routes seen.",
    )
    apps: list[str] = Field(
        default_factory=list,
        description="App label allow-list. Empty: the first max_label_values apps seen.",
    )
    max_label_values: int = Field(
        default=50, ge=1, le=1000, description="Bound on distinct app/route label values."
    )


class OutputConfig(ConfigSection):
    """``output``: evaluation and dead-letter files and topic."""

    evaluations_jsonl: Path | None = Field(
        default=None, description="Append one evaluation line per trace to this file."
    )
    dead_letters_jsonl: Path | None = Field(
        default=None, description="Append dead letters (reason, source position, raw bytes) here."
    )
    dead_letters_topic: str | None = Field(
        default=None,
        description="Kafka topic for dead letters: the raw bytes as value, reason and source "
        "position in headers (uses the top-level kafka connection).",
    )
    sink_flush_attempts: int = Field(
        default=3, ge=1, le=20, description="Flush tries before the daemon stops uncommitted."
    )
    redact_pii: bool = Field(
        default=True,
        description="Redact PII (the golden-row detectors and golden.pii_patterns) in the "
        "evidence and judge claims of evaluation lines written to files and stdout.",
    )


def revealed(secret: SecretStr | None) -> str | None:
    """A secret's value for the part that uses it (None when unset)."""
    return secret.get_secret_value() if secret is not None else None


class Timestamp(datetime):
    """A record's timestamp, parsed by the record's rule (``core.record.parse_timestamp``)
    rather than by msgspec's own, which differs at the edges (lower-case ``t``/``z``, a 7th
    fraction digit). A ``datetime`` in every other way."""


def _decode_hook(kind: type, value: object) -> object:
    if kind is Timestamp:
        if isinstance(value, str):
            return parse_timestamp(value, Timestamp)
        if isinstance(value, datetime):  # from Python data: taken as it is, as the record does
            return _stamp(value)
        raise ValueError("not an RFC 3339 timestamp")
    raise NotImplementedError(kind)


def _encode_hook(value: object) -> object:
    if isinstance(value, datetime):  # a Timestamp: written as the record reads it back
        return value.isoformat()
    raise NotImplementedError(type(value))


# A passage and a candidate hold strings and numbers only, so they can never be part of a
# reference cycle: not tracked by the cyclic collector (``gc=False``), they are made faster
# (~0.3 µs a 5-passage record) and leave the collector less to walk.


class RetrievedDoc(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One candidate the retriever returned, before reranking and packing."""

    doc_id: str
    chunk_id: str | None = None
    score: float | None = None  # an integer is taken (1 is 1.0), never a bool
    rank: int | None = None


class Passage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One packed passage that reached the model, in prompt order; ``data_source`` (the index
    or store it came from) and ``timestamp`` (when its document was last updated) are
    optional and feed the data-source and document-age segments."""

    doc_id: str | None = None
    chunk_id: str | None = None
    text: str
    data_source: str | None = None
    timestamp: Timestamp | None = None


_SessionId = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
_SampleRate = Annotated[float, msgspec.Meta(gt=0, le=1)]


class RagTrace(msgspec.Struct, frozen=True, kw_only=True):
    """One RAG interaction as ragmon evaluates it (schema ``ragmon.trace/v1``).

    A msgspec struct, decoded straight from a record's bytes (``from_json``) or from Python
    data (``from_data``). The rules of the record — which fields, their types, how the trace
    id is normalised, how timestamps are read, the messages of a refusal — are
    ``core.record.TraceRecord``'s: what this type's decoder does not take goes there, and is
    refused with its message or accepted as it accepts it. Unknown fields are ignored; known
    fields are strict on type (a number is not accepted where a string is expected).
    """

    trace_id: str
    record_schema: Literal["ragmon.trace/v1"] | None = msgspec.field(default=None, name="schema")
    timestamp: Timestamp | None = None
    app: str | None = None
    route: str | None = None
    release: str | None = None
    query: str = ""
    retrieved: list[RetrievedDoc] = msgspec.field(default_factory=list)
    context: list[Passage] = msgspec.field(default_factory=list)
    answer: str = ""
    model: str | None = None
    attributes: dict[str, Any] = msgspec.field(default_factory=dict)
    golden_id: str | None = None
    session_id: _SessionId | None = None
    sample_rate: _SampleRate | None = None

    def __post_init__(self) -> None:
        trace_id = normal_trace_id(self.trace_id)
        if trace_id is not self.trace_id:
            msgspec.structs.force_setattr(self, "trace_id", trace_id)

    @classmethod
    def from_json(cls, raw: bytes | str) -> RagTrace:
        """The record's JSON as a trace; raises pydantic's ``ValidationError`` (the record's
        message, see ``first_error``) when it is not one."""
        try:
            return _decoded(raw)
        except Exception:
            return cls.from_record(TraceRecord.model_validate_json(raw))

    @classmethod
    def from_data(cls, data: object) -> RagTrace:
        """Python data (a mapping as JSON would give) as a trace; raises pydantic's
        ``ValidationError`` when it is not one."""
        try:
            return msgspec.convert(data, cls, dec_hook=_decode_hook)
        except Exception:
            return cls.from_record(TraceRecord.model_validate(data))

    @classmethod
    def from_record(cls, record: TraceRecord) -> RagTrace:
        """The trace a validated record stands for."""
        return cls(
            trace_id=record.trace_id, record_schema=record.record_schema,
            timestamp=_stamp(record.timestamp), app=record.app, route=record.route,
            release=record.release, query=record.query,
            retrieved=[RetrievedDoc(doc_id=d.doc_id, chunk_id=d.chunk_id, score=d.score,
                                    rank=d.rank) for d in record.retrieved],
            context=[Passage(doc_id=p.doc_id, chunk_id=p.chunk_id, text=p.text,
                             data_source=p.data_source, timestamp=_stamp(p.timestamp))
                     for p in record.context],
            answer=record.answer, model=record.model, attributes=record.attributes,
            golden_id=record.golden_id, session_id=record.session_id,
            sample_rate=record.sample_rate,
        )  # fmt: skip

    def to_json(self) -> str:
        """The trace as a record ``from_json`` reads back equal (the judge's hand-offs)."""
        return _ENCODER.encode(self).decode()

    def to_record(self) -> TraceRecord:
        """The trace as the pydantic record (what ``ragmon convert`` writes)."""
        return TraceRecord.model_validate(msgspec.to_builtins(self, enc_hook=_encode_hook))

    @property
    def adjusted_count(self) -> float:
        """How many traces of the population this one stands for (1 / ``sample_rate``)."""
        rate = self.sample_rate
        return 1.0 if rate is None else 1.0 / rate

    @property
    def context_text(self) -> str:
        """All packed passages joined in prompt order."""
        return "\n\n".join(p.text for p in self.context)


def _stamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    return Timestamp(value.year, value.month, value.day, value.hour, value.minute, value.second,
                     value.microsecond, value.tzinfo, fold=value.fold)  # fmt: skip


_JSON = msgspec.json.Decoder(RagTrace, dec_hook=_decode_hook)


def _decoded(raw: bytes | str) -> RagTrace:
    """msgspec's decode of the record; raises on anything it does not take."""
    if isinstance(raw, bytes) and not raw.isascii():
        raw.decode()  # msgspec skips an unknown field's bytes without checking their UTF-8
    return _JSON.decode(raw)


_ENCODER = msgspec.json.Encoder(enc_hook=_encode_hook)

# What a trace's agent did to answer: set by the span mapping (``ingest/conventions/agent.py``)
# as trace attributes; a native record may carry them too. The ``agent`` segment's attribute
# and its values, and each measured input's attribute (input name -> attribute).
AGENT_ATTRIBUTE: Final = "ragmon.agent"
AGENT_SEGMENTS: tuple[str, ...] = ("no_tools", "tools", "retrieval_tools")
AGENT_INPUTS: dict[str, str] = {
    "model_calls": "ragmon.agent.model_calls",  # model calls in the trace
    "tool_calls": "ragmon.agent.tool_calls",  # tool calls (not a framework's answer tool)
    "retrieval_calls": "ragmon.agent.retrieval_calls",  # retrievals: spans or tool results
    "agent_steps": "ragmon.agent.steps",  # model calls that asked for a tool
    "tool_errors": "ragmon.agent.tool_errors",  # tool calls that failed
    # loops: calls of a tool with an earlier call's arguments; the longest run of one call
    "repeated_calls": "ragmon.agent.repeated_calls",
    "longest_repeat": "ragmon.agent.longest_repeat",
}
# per tool name: {"calls", "errors", "seconds", "repeats"} (traces from spans with tool spans)
AGENT_TOOLS: Final = "ragmon.agent.tools"


def first_error(exc: ValidationError) -> str:
    """One line naming the offending field, for dead letters and CLI messages."""
    errors = exc.errors(include_url=False)
    err = errors[0]
    loc = ".".join(str(part) for part in err["loc"]) or "<record>"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return f"{loc}: {msg}{more}"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What one check found on one trace.

    A plain dataclass, not a pydantic model: six are built per trace on the hot path.
    """

    name: str
    flagged: bool
    applicable: bool = True
    score: float | None = None
    evidence: Evidence = NO_EVIDENCE
    # the check raised (a bug of ragmon's): "<exception type>: <message>", bounded
    error: str | None = None

    @classmethod
    def not_applicable(cls, name: str, reason: str) -> CheckResult:
        """The check had nothing to judge (an empty answer, a single passage, ...)."""
        return cls(name=name, flagged=False, applicable=False, evidence=NotApplicable(reason))

    @classmethod
    def failed(cls, name: str, exc: BaseException) -> CheckResult:
        """The check raised ``exc``: no result (not applicable, so no rate counts it), the
        error named in ``error`` and in the evidence's reason; counted as an error by the
        sinks (``ragmon_check_errors_total``), never a silent not-applicable."""
        error = f"{type(exc).__name__}: {exc}"[:200]
        return cls(name=name, flagged=False, applicable=False,
                   evidence=NotApplicable(f"error: {error}"[:200]), error=error)  # fmt: skip

    @property
    def error_type(self) -> str | None:
        """The type of the exception the check raised (a bounded metric label), or None."""
        return None if self.error is None else self.error.partition(":")[0]

    @property
    def outcome(self) -> Literal["flagged", "passed", "not_applicable"]:
        """flagged, passed or not_applicable."""
        if not self.applicable:
            return "not_applicable"
        return "flagged" if self.flagged else "passed"

    def to_line(self) -> CheckLine:
        """The result as written in evaluation lines."""
        line: CheckLine = {
            "flagged": self.flagged,
            "applicable": self.applicable,
            "evidence": self.evidence.to_line(),
        }
        if self.score is not None:
            line["score"] = self.score
        if self.error is not None:
            line["error"] = self.error
        return line


@dataclass(frozen=True, slots=True)
class ShadowResults:
    """A shadow candidate's check results on one trace and the versions of its definitions
    (the ``shadow`` config): written beside the live results, never counted as them."""

    checks: dict[str, CheckResult] | None  # None: the candidate checks did not run on it
    evaluators: Mapping[str, str]
    # the shadow judge's verdict on a trace the live judge judged, or why there is none
    judge: Verdict | None = None
    judge_skipped: str | None = None

    def to_line(self) -> ShadowLine:
        """The shadow's part of an evaluation line."""
        line: ShadowLine = {"evaluators": dict(self.evaluators)}
        if self.checks is not None:
            line["checks"] = {name: r.to_line() for name, r in self.checks.items()}
        if self.judge is not None or self.judge_skipped is not None:
            line["judge"] = self.judge.to_line() if self.judge else {"skipped": self.judge_skipped}
        return line


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Everything ragmon concluded about one trace."""

    trace: RagTrace
    checks: dict[str, CheckResult]
    # The verdict when judged, or why it was not judged.
    judge: Verdict | None = None
    judge_skipped: str | None = None
    # A verdict that came later than the checks (batch mode): the line carries the judge only.
    judge_only: bool = False
    # Where the trace belongs and its measured inputs (monitor.segments; empty if unsegmented)
    segments: Mapping[str, str] = field(default_factory=dict)
    inputs: Mapping[str, float] = field(default_factory=dict)
    # check name (and "judge") -> the version of its definition (monitor.registry.evaluators)
    evaluators: Mapping[str, str] = field(default_factory=dict)
    # the shadow candidate's results, on the traces it ran on (never golden rows or alerts)
    shadow: ShadowResults | None = None
    # how likely the answer is unfaithful, from the checks' evidence (monitor.checks.risk)
    risk: float | None = None

    @property
    def trace_id(self) -> str:
        """The trace's id."""
        return self.trace.trace_id

    @property
    def flagged(self) -> list[str]:
        """Names of the checks that flagged the trace."""
        return [name for name, r in self.checks.items() if r.flagged]

    @property
    def any_flagged(self) -> bool:
        """Whether some check flagged the trace (a loop, not ``any`` over a generator: asked
        of every trace by the sampler and the session stage)."""
        for result in self.checks.values():  # noqa: SIM110 (a generator costs more here)
            if result.flagged:
                return True
        return False

    def skipped(self, reason: str) -> Evaluation:
        """This evaluation, not judged for ``reason`` (as ``replace`` would, at a fraction of
        its cost: it runs for every trace the judge stage does not take)."""
        return Evaluation(self.trace, self.checks, self.judge, reason, self.judge_only,
                          self.segments, self.inputs, self.evaluators, self.shadow,
                          self.risk)  # fmt: skip

    def to_line(self) -> EvaluationLine:
        """The stable evaluation-line contract (see the docs, "Evaluation lines")."""
        line: EvaluationLine = {
            "trace_id": self.trace.trace_id,
            "app": self.trace.app,
            "route": self.trace.route,
            "checks": {name: r.to_line() for name, r in self.checks.items()},
            "segments": dict(self.segments),
            "inputs": dict(self.inputs),
        }
        if self.evaluators:
            line["evaluators"] = dict(self.evaluators)
        if self.judge is not None:
            line["judge"] = self.judge.to_line()
        elif self.judge_skipped is not None:
            line["judge"] = {"skipped": self.judge_skipped}
        if self.judge_only:
            line["judge_only"] = True
        if self.shadow is not None:
            line["shadow"] = self.shadow.to_line()
        incomplete = self.trace.attributes.get("ragmon.incomplete")
        if incomplete:
            line["incomplete"] = str(incomplete)
        if self.trace.sample_rate is not None:  # sampled upstream: it stands for this many
            line["adjusted_count"] = self.trace.adjusted_count
        if self.risk is not None:
            line["risk"] = self.risk
        if self.trace.session_id is not None:  # a turn: its follow-up line comes later
            line["session_id"] = self.trace.session_id
        tools = self.trace.attributes.get(AGENT_TOOLS)
        if isinstance(tools, dict) and tools:  # an agent's tool calls, per tool name
            line["agent_tools"] = tools
        if self.trace.timestamp is not None:  # when the trace happened (explain --since)
            line["timestamp"] = self.trace.timestamp.isoformat()
        return line


class DeadLetter(BaseModel):
    """A record that could not become a trace: the reason, where it came from, its bytes."""

    model_config = ConfigDict(frozen=True)

    reason: str  # bounded label: invalid_json, invalid_record, not_an_object, too_large, ...
    detail: str  # one line, human readable, names the field when there is one
    source: str  # topic or file
    partition: int
    offset: int  # Kafka offset, or 1-based line number for files
    raw: bytes
    key: bytes | None = None

    def to_line(self) -> DeadLetterLine:
        """The dead letter as one JSON-ready line (the raw bytes as text, bad UTF-8 replaced)."""
        return {
            "reason": self.reason,
            "detail": self.detail,
            "source": self.source,
            "partition": self.partition,
            "offset": self.offset,
            "raw": self.raw.decode("utf-8", errors="replace"),
        }


# --- conversations (monitor.sessions pairs the turns) ------------------------------------

MAX_QUERY = 1000  # characters of a question carried in a turn record
MAX_ROUTE = 200  # characters of a route carried in a turn record
TURN_VERSION: Final = 1
Outcome = Literal["refusal", "flagged", "clean"]
OUTCOMES: tuple[Outcome, ...] = ("refusal", "flagged", "clean")
# what a next turn can say about the answer before it (monitor.sessions.signals)
FOLLOWUP_SIGNALS = ("rephrase", "escalation", "negative_feedback", "positive_feedback")
# what becomes of a turn (ragmon_session_turns_total{outcome}; monitor.sessions.join)
TURN_OUTCOMES = ("paired", "last", "outside_window", "late", "duplicate", "evicted",
                 "replayed", "invalid", "untimed", "shared", "revoked")  # fmt: skip
# a held turn's cost beside its text (objects, dict entries, heap entry): 1,000,000 sessions
# of one turn measured 1,050 B a session with 60-character questions (bench/sessions.py;
# counted: 1,062 B, so that max_bytes bounds what is held)
_TURN_BYTES = 950


class TurnRecord(TypedDict):
    """A turn as written to the repartition topic (JSON, keyed by session id)."""

    v: int
    session: str
    trace: str
    time: float
    query: str
    outcome: str
    language: str
    route: NotRequired[str | None]  # None: the trace had none; absent: an older replica's
    end: NotRequired[bool]  # present (true) only on a turn that ends its session
    failed: NotRequired[bool]  # absent: a record of an older replica (read from outcome)


class Turn(NamedTuple):
    """One evaluated trace of a conversation, as much of it as pairing needs. A named tuple
    of strings and a float: cheap to make for every turn, and out of the garbage collector's
    walks while it is held (CPython stops tracking a tuple of such values)."""

    session: str
    trace_id: str
    time: float  # when the turn began (Unix seconds)
    query: str
    outcome: Outcome
    language: str = "unknown"  # the language segment of the question (bounded)
    route: str | None = None  # the trace's route (bounded where it is a label)
    ends: bool = False  # the trace carried sessions.end_attribute: its session ends here
    failed: bool = False  # the answer was refused or ungrounded, or the judge failed it

    def to_record(self) -> bytes:
        """The turn as a repartition-topic value (compact JSON)."""
        record: TurnRecord = {
            "v": TURN_VERSION, "session": self.session, "trace": self.trace_id,
            "time": self.time, "query": self.query, "outcome": self.outcome,
            "language": self.language, "route": self.route, "failed": self.failed,
        }  # fmt: skip
        if self.ends:
            record["end"] = True
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_record(cls, raw: bytes) -> Turn | None:
        """A repartition-topic value as a turn, or None when it is not one."""
        try:
            data = json.loads(raw)
            outcome = data["outcome"]
            if data.get("v") != TURN_VERSION or outcome not in OUTCOMES:
                return None
            return cls(
                session=str(data["session"]),
                trace_id=str(data["trace"]),
                time=float(data["time"]),
                query=str(data["query"])[:MAX_QUERY],
                outcome=outcome,
                language=str(data.get("language", "unknown"))[:16],
                route=None if data.get("route") is None else str(data["route"])[:MAX_ROUTE],
                ends=data.get("end") is True,
                failed=bool(data.get("failed", outcome != "clean")),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    @property
    def size(self) -> int:
        """What holding the turn costs, roughly, in bytes."""
        return _TURN_BYTES + len(self.query) + len(self.session) + len(self.trace_id)


# how a session ended (monitor.sessions.outcomes; docs, "Conversations")
SessionOutcomeName = Literal["resolved", "escalated", "abandoned", "unresolved"]
SESSION_OUTCOMES: tuple[SessionOutcomeName, ...] = ("resolved", "escalated", "abandoned",
                                                    "unresolved")  # fmt: skip
ClosedBy = Literal["idle", "end", "max_age", "input_end"]
CLOSED_BY: tuple[ClosedBy, ...] = ("idle", "end", "max_age", "input_end")


@dataclass(frozen=True, slots=True)
class SessionTurn:
    """One turn as a closed session keeps it: its trace, question, what the checks made of
    its answer, and what it said about the answer before it (the signals, read model-free)."""

    trace_id: str
    query: str
    outcome: Outcome
    failed: bool
    signals: tuple[str, ...]
    time: float


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """A session closed: how it ended (``outcome``), why it closed (``closed_by``), its
    turns (``turns``: the count; ``kept``: the last ones, for its candidate golden row)."""

    session: str
    outcome: SessionOutcomeName
    closed_by: ClosedBy
    turns: int
    rephrases: int
    seconds_to_outcome: float
    route: str | None  # the last turn's route (unbounded here: the metrics bound it)
    language: str  # the last turn's language segment
    first_trace: str  # the first turn's trace id (of this opening)
    kept: tuple[SessionTurn, ...]  # the last turns, oldest first (at least the last one)
    resumed: int = 0  # times closed before and re-opened

    def to_line(self) -> SessionLine:
        """The session's outcome line (docs, "Conversations")."""
        return {
            "session_id": self.session,
            "session": {
                "outcome": self.outcome,
                "turns": self.turns,
                "closed_by": self.closed_by,
                "rephrases": self.rephrases,
                "seconds_to_outcome": round(self.seconds_to_outcome, 3),
                "first_trace": self.first_trace,
                "last_trace": self.kept[-1].trace_id if self.kept else "",
                "resumed": self.resumed,
            },
        }


@dataclass(frozen=True, slots=True)
class Followup:
    """Turn B followed turn A of the same session: what B says about A's answer."""

    turn: Turn  # A
    by: Turn  # B
    signals: tuple[str, ...]

    def to_line(self) -> FollowupLine:
        """The follow-up line (docs, "Conversations")."""
        return {
            "trace_id": self.turn.trace_id,
            "session_id": self.turn.session,
            "followup": {
                "by": self.by.trace_id,
                "seconds": round(self.by.time - self.turn.time, 3),
                "signals": list(self.signals),
                "after": self.turn.outcome,
            },
        }
