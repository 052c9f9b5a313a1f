"""The JSON lines ragmon writes, typed at the boundary: an evaluation line, a check's result in
it, a dead letter (docs, "Evaluation lines"). Imports nothing of ours."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NotRequired, Required, TypedDict, TypeVar, cast

JsonObject = dict[str, object]  # a JSON object another tool reads (an export's item)

Tree = TypeVar("Tree")


def map_strings(tree: Tree, change: Callable[[str], str]) -> Tree:
    """``tree`` (JSON: dicts, lists, scalars) with ``change`` applied to every string value
    (keys are kept): its shape, and so its type, are those of ``tree``."""

    def walk(value: object) -> object:
        if isinstance(value, str):
            return change(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return cast(Tree, walk(tree))


class CheckLine(TypedDict, total=False):
    """A check's result in an evaluation line (``score`` only for a scored check, ``error``
    only when the check raised)."""

    flagged: Required[bool]
    applicable: Required[bool]
    evidence: Required[dict[str, Any]]  # the check's own evidence type, as JSON
    score: float
    error: str  # the check raised (a bug): "<exception type>: <message>"; applicable is false


def check_line(
    flagged: bool,
    applicable: bool,
    evidence: dict[str, object],
    score: float | None,
    error: str | None,
) -> CheckLine:
    """A check's result as the line writes it, from its parts (``CheckResult.to_line``, and
    the store's writer process from the results it was sent): ``score`` and ``error`` only
    when there is one."""
    line: CheckLine = {"flagged": flagged, "applicable": applicable, "evidence": evidence}
    if score is not None:
        line["score"] = score
    if error is not None:
        line["error"] = error
    return line


class EvaluationLine(TypedDict, total=False):
    """The evaluation line (docs, "Evaluation lines"): the trace's id, app and route, each
    check's result, and the judge's verdict or why it was not judged."""

    trace_id: Required[str]
    app: Required[str | None]
    route: Required[str | None]
    checks: Required[dict[str, CheckLine]]
    segments: Required[dict[str, str]]  # dimension -> bounded value (monitor.segments)
    inputs: Required[dict[str, float]]  # measured input -> value
    evaluators: dict[str, str]  # check name (and "judge") -> the version of its definition
    judge: dict[str, Any]  # Verdict.to_line(), or {"skipped": reason}
    judge_only: bool
    shadow: ShadowLine  # the shadow candidate's results, where it ran on the trace
    incomplete: str  # assembled from spans before all came: max_wait, evicted, end_of_input
    adjusted_count: float  # sampled upstream: the traces this one stands for (1/sample_rate)
    session_id: str  # the conversation the trace is a turn of (its follow-up line comes later)
    timestamp: str  # the trace's time, RFC 3339, when it has one (``explain --since``)
    risk: float  # how likely the answer is unfaithful, 0-1, from the checks (docs, "The judge")
    risk_error: str  # computing the risk raised (a bug): "<exception type>: <message>"; no risk
    # per tool name: calls, errors, seconds, repeats (an agent's tool spans; docs, "Agents")
    agent_tools: dict[str, dict[str, float]]


@dataclass(frozen=True, slots=True)
class WrittenLine:
    """An evaluation's line as the sinks write it, with the trace's question and answer as
    they are written beside it (all three redacted when the output redacts). Shared: a sink
    reads it and never changes it (``sinks.jsonl.written_line``)."""

    line: EvaluationLine
    query: str
    answer: str


class FollowupPart(TypedDict):
    """What turn B of a session said about turn A's answer."""

    by: str  # B's trace id
    seconds: float  # B's time less A's
    signals: list[str]  # monitor.sessions.signals.SIGNALS that B carries; empty: none
    after: str  # what the checks made of A's answer: refusal, flagged or clean
    error: NotRequired[str]  # reading the signals raised (this type): ``signals`` says nothing


class FollowupLine(TypedDict):
    """A follow-up line, among the evaluation lines (docs, "Conversations"): turn A's trace
    and session, and what the next turn said about it."""

    trace_id: str
    session_id: str
    followup: FollowupPart


class SessionPart(TypedDict):
    """How a closed session ended (docs, "Conversations", "Sessions that end")."""

    outcome: str  # resolved, escalated, abandoned, unresolved
    turns: int
    closed_by: str  # idle, end, max_age, input_end
    rephrases: int
    seconds_to_outcome: float
    first_trace: str  # the session's first turn's trace id (of this opening)
    last_trace: str
    resumed: int  # how many times this session was closed before and re-opened (0: never)


class SessionLine(TypedDict):
    """A session's outcome line, among the evaluation lines: written when it closes, one
    more (appended) each time it resumes and closes again."""

    session_id: str
    session: SessionPart


Line = EvaluationLine | FollowupLine  # what an evaluation-lines file holds (and session lines)


class ShadowLine(TypedDict, total=False):
    """The shadow candidate's results on a trace, beside the live ones (``shadow`` config)."""

    checks: dict[str, CheckLine]  # where the candidate checks ran
    evaluators: Required[dict[str, str]]
    judge: dict[str, Any]  # the shadow judge's Verdict.to_line(), or {"skipped": reason}


class DeadLetterLine(TypedDict):
    """A dead letter as one JSON line."""

    reason: str
    detail: str
    source: str
    partition: int
    offset: int
    raw: str


class RowFollowup(TypedDict):
    """What the user's next turn said, on a candidate row (PII-redacted)."""

    by: str  # the next turn's trace id
    query: str  # the next turn's question
    signals: list[str]
    seconds: float
    after: str  # what the checks made of the answer: refusal, flagged, clean


class RowSessionTurn(TypedDict):
    """One turn of a session on its candidate row (PII-redacted)."""

    trace_id: str
    query: str
    after: str  # what the checks made of its answer: refusal, flagged, clean
    failed: bool  # refused or ungrounded (what a session's outcome reads)
    signals: list[str]  # what it said about the answer before it


class RowSession(TypedDict):
    """How a session ended, on the candidate row it made (session_* reasons)."""

    outcome: str
    closed_by: str
    turns: int  # all of them; ``kept`` holds the last ones
    rephrases: int
    seconds_to_outcome: float
    kept: list[RowSessionTurn]


class RowMeta(TypedDict, total=False):
    """A candidate golden row's ``ragmon`` block: why it was written, where the trace came
    from, its occurrences and its review state (docs, "Golden rows")."""

    trace_id: Required[str]
    reason: Required[str]
    reasons: list[str]
    category: str | None
    checks: dict[str, CheckLine]  # the flagged checks' results, PII-redacted
    judge: dict[str, Any] | None  # the verdict's line, PII-redacted
    weight: float
    app: str | None
    route: str | None
    release: str | None
    model: str | None
    golden_id: str | None
    first_seen: Required[str]  # ISO 8601
    last_seen: Required[str]
    count: Required[int]
    examples: Required[list[str]]
    recent_trace_ids: list[str]
    status: str  # needs_review, accepted, rejected
    decision: str  # the id of the latest review decision
    expected: str  # answer, or refuse: what the accepting review said the assistant should do
    followup: RowFollowup  # the user's next turn, on a row a follow-up made (user_* reasons)
    session: RowSession  # the session's turns, on a row a closed session made (session_*)


class GoldenRow(TypedDict, total=False):
    """A candidate golden row: the keys Ragas, DeepEval and Langfuse read, and ``ragmon``."""

    id: Required[str]
    schema: str
    user_input: str  # Ragas SingleTurnSample
    retrieved_contexts: list[str]
    retrieved_context_ids: list[str]
    retrieved_chunk_ids: list[str | None]
    response: str
    reference: str | None
    input: str  # DeepEval Golden
    actual_output: str
    retrieval_context: list[str]
    expected_output: str | None
    source_trace_id: str  # Langfuse dataset item
    ragmon: Required[RowMeta]


class GoldDoc(TypedDict):
    """A document a reviewer graded relevant (grade ≥ 1) or not (0)."""

    id: str
    grade: int


class GoldPassage(TypedDict):
    """The text of a relevant document as it was packed (PII-redacted)."""

    id: str
    text: str


class GoldenItem(TypedDict, total=False):
    """An item of a published golden set (``ragmon.golden/v1``, docs, "The golden set")."""

    schema: str
    id: Required[str]
    query: str | None
    reference: str | None
    gold_docs: list[GoldDoc]
    gold_passages: list[GoldPassage]
    category: str | None
    expected: str  # answer, or refuse
    source_trace_ids: list[str]
    route: str | None
    reviewer: str
    reviewed_at: str
    decision: str


class RetrievedRecord(TypedDict, total=False):
    """A retrieved document in a native trace record (before packing)."""

    doc_id: Required[str]
    chunk_id: str | None
    score: float | None
    rank: int | None


class PassageRecord(TypedDict, total=False):
    """A packed passage in a native trace record."""

    doc_id: str | None
    chunk_id: str | None
    text: Required[str]
    data_source: str | None
    timestamp: str | None  # RFC 3339


class TraceRecord(TypedDict, total=False):
    """A native trace record (``ragmon.trace/v1``; docs, "The trace record"): what the
    sources read, ``ragmon convert`` writes and the demo makes."""

    schema: str
    trace_id: Required[str]
    timestamp: str | None
    app: str | None
    route: str | None
    release: str | None
    query: str
    retrieved: list[RetrievedRecord]
    context: list[PassageRecord]
    answer: str
    model: str | None
    attributes: dict[str, Any]
    golden_id: str | None
