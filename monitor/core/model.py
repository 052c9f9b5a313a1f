"""The trace and evaluation models: the values that flow through ragmon.

This module imports nothing of ours but the record's rules (``monitor.core.record``), the
verdict model (``monitor.core.verdict``), the base of the checks' evidence
(``monitor.core.evidence``) and the line types (``monitor.core.lines``), which import nothing
of ours. ``RagTrace`` is the native ``ragmon.trace/v1`` record as ragmon holds it: the exact
context the generator saw, the question and the answer. ``Evaluation`` is what the checks
produced for one trace; ``DeadLetter`` is what bad input becomes.

The shared configuration sections (``monitor.core.sections``) and the conversations' values
(``monitor.core.conversations``) are modules of their own; their names are still read from
here by the modules written before the split.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError

from monitor.core.conversations import (
    CLOSED_BY,
    FOLLOWUP_READER,
    FOLLOWUP_SIGNALS,
    MAX_QUERY,
    MAX_ROUTE,
    OUTCOMES,
    SESSION_OUTCOMES,
    TURN_OUTCOMES,
    TURN_VERSION,
    ClosedBy,
    Followup,
    Outcome,
    SessionOutcome,
    SessionOutcomeName,
    SessionTurn,
    Turn,
    TurnRecord,
)
from monitor.core.evidence import NO_EVIDENCE, Evidence, NotApplicable
from monitor.core.lines import (
    CheckLine,
    DeadLetterLine,
    EvaluationLine,
    ShadowLine,
    WrittenLine,
    check_line,
)
from monitor.core.record import MIN_SAMPLE_RATE, TraceRecord, normal_trace_id, parse_timestamp
from monitor.core.sections import (
    ConfigSection,
    KafkaConnection,
    MetricsConfig,
    OutputConfig,
    revealed,
)
from monitor.core.verdict import Verdict

if TYPE_CHECKING:
    from monitor.core.pii import Redactor

# the names of the two modules split off, as importers before the split read them here
__all__ = [
    "AGENT_ATTRIBUTE", "AGENT_INPUTS", "AGENT_SEGMENTS", "AGENT_TOOLS", "CLOSED_BY",
    "FOLLOWUP_READER", "FOLLOWUP_SIGNALS", "MAX_QUERY", "MAX_ROUTE", "OUTCOMES", "SESSION_OUTCOMES",
    "TURN_OUTCOMES", "TURN_VERSION", "CheckResult", "ClosedBy", "ConfigSection", "DeadLetter",
    "Evaluation", "Followup", "KafkaConnection", "MetricsConfig", "Outcome", "OutputConfig",
    "Passage", "RagTrace", "RetrievedDoc", "SessionOutcome", "SessionOutcomeName",
    "SessionTurn", "ShadowResults", "Timestamp", "Turn", "TurnRecord", "error_text", "error_type",
    "first_error", "revealed",
]  # fmt: skip


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
_SampleRate = Annotated[float, msgspec.Meta(ge=MIN_SAMPLE_RATE, le=1)]


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
        """How many traces of the population this one stands for (1 / ``sample_rate``; a
        trace built in code below the records' floor counts as at the floor, 2**56)."""
        rate = self.sample_rate
        return 1.0 if rate is None else 1.0 / max(rate, MIN_SAMPLE_RATE)

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


def error_text(exc: BaseException) -> str:
    """How an evaluation line names an exception ragmon raised on a trace (a bug):
    "<exception type>: <message>", bounded; the type before the colon is the metric label."""
    return f"{type(exc).__name__}: {exc}"[:200]


def error_type(error: str) -> str:
    """The exception's type in an ``error_text`` (the metric label it is counted under)."""
    return error.partition(":")[0]


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
        error = error_text(exc)
        return cls(name=name, flagged=False, applicable=False,
                   evidence=NotApplicable(f"error: {error}"[:200]), error=error)  # fmt: skip

    @property
    def error_type(self) -> str | None:
        """The type of the exception the check raised (a bounded metric label), or None."""
        return None if self.error is None else error_type(self.error)

    @property
    def outcome(self) -> Literal["flagged", "passed", "not_applicable"]:
        """flagged, passed or not_applicable."""
        if not self.applicable:
            return "not_applicable"
        return "flagged" if self.flagged else "passed"

    def to_line(self) -> CheckLine:
        """The result as written in evaluation lines."""
        return check_line(self.flagged, self.applicable, self.evidence.to_line(), self.score,
                          self.error)  # fmt: skip


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
    # computing the risk raised (a bug): ``error_text``; ``risk`` is then None
    risk_error: str | None = None
    # its line as the sinks write it and the redactor it was made for (None: as it is), kept
    # by the first sink that makes it for the others (``sinks.jsonl.written_line``): made
    # once an evaluation. Not what was concluded: not compared, not shown, and not copied
    # (``replace`` and ``skipped`` make an evaluation without it)
    written: tuple[Redactor | None, WrittenLine] | None = field(
        default=None, init=False, compare=False, repr=False
    )

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
                          self.risk, self.risk_error)  # fmt: skip

    def to_line(self, checks: dict[str, CheckLine] | None = None) -> EvaluationLine:
        """The stable evaluation-line contract (see the docs, "Evaluation lines"). ``checks``:
        the checks' part as it is given (a sink that makes it elsewhere: the store's writer
        process), instead of each result's ``to_line``."""
        line: EvaluationLine = {
            "trace_id": self.trace.trace_id,
            "app": self.trace.app,
            "route": self.trace.route,
            "checks": {name: r.to_line() for name, r in self.checks.items()}
            if checks is None
            else checks,
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
        if self.risk_error is not None:
            line["risk_error"] = self.risk_error
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
