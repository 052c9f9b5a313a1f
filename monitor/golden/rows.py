"""Candidate golden rows: failing traces shaped for review and import into eval tools.

One row carries, side by side, the keys Ragas (``user_input``, ``retrieved_contexts``,
``retrieved_context_ids``, ``response``, ``reference``), DeepEval (``input``,
``actual_output``, ``retrieval_context``, ``expected_output``) and Langfuse
(``id``, ``source_trace_id``) read, plus a ``ragmon`` block with why the row exists. Rows
with the same normalised query and reason are one row (counted, with a few examples); the
row id is derived from exactly that, so a replay rewrites the same row. Text is PII-redacted
before a row is built.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

from monitor.checks import (
    Citation,
    ContextConflict,
    EmptyContext,
    Refusal,
    UnsupportedNames,
    UnsupportedNumbers,
)
from monitor.core.lines import GoldenRow, RowFollowup, RowMeta, map_strings
from monitor.core.model import Evaluation, Followup
from monitor.core.pii import Redactor

ROW_SCHEMA = "ragmon.golden/v1"
RECENT_TRACES = 20  # trace ids of a row's newest occurrences it keeps
STATUS_NEEDS_REVIEW = "needs_review"

# Reasons a conversation's next turn gives (monitor.sessions), in priority order: the user
# said the answer was wrong, asked for a person, or asked again.
FOLLOWUP_REASONS = {
    "negative_feedback": "user_said_wrong",
    "escalation": "user_escalated",
    "rephrase": "user_rephrased",
}
# Reasons a closed conversation gives (monitor.sessions.outcomes): the user left after a
# failure, or asked for a person.
SESSION_REASONS = {
    "abandoned": "session_abandoned",
    "escalated": "session_escalated",
}
# Reasons in priority order: the first flagged one names the row.
DEFAULT_REASONS = (
    EmptyContext.name,
    "judge_hard_fail",
    ContextConflict.name,
    UnsupportedNumbers.name,
    UnsupportedNames.name,
    "judge_false_refusal",
    Refusal.name,
    "judge_fail",
    Citation.name,
    *FOLLOWUP_REASONS.values(),
    *SESSION_REASONS.values(),
)
# Reasons that come from the judge's verdict rather than from a check.
JUDGE_REASONS = ("judge_hard_fail", "judge_fail", "judge_false_refusal")
CATEGORIES = (
    "unanswerable",
    "false_refusal",
    "stale_policy",
    "hallucination",
    "citation",
    "empty_retrieval",
)

_WORD = re.compile(r"[a-z0-9]+")
_CONTENT = re.compile(r"[a-z][a-z'-]{3,}")


def normalise_query(query: str) -> str:
    """Lower-case words only: "How long is the refund window?" and "how long is the
    refund window" are one question."""
    return " ".join(_WORD.findall(query.lower()))


def row_id(query: str, reason: str) -> str:
    """The id of the row for ``query`` and ``reason`` (a replay rewrites the same row)."""
    return hashlib.sha256(f"{normalise_query(query)}\x1f{reason}".encode()).hexdigest()[:32]


def suggest_category(reason: str, evaluation: Evaluation) -> str:
    """A first guess for the reviewer; the judge (when it ran) knows better."""
    if reason == EmptyContext.name:
        return "empty_retrieval"
    if reason == ContextConflict.name:
        return "stale_policy"
    if reason in (UnsupportedNumbers.name, UnsupportedNames.name):
        return "hallucination"
    if reason == Citation.name:
        return "citation"
    if reason in ("judge_hard_fail", "judge_fail"):
        return "hallucination"
    if reason == "judge_false_refusal":
        return "false_refusal"
    # A refusal: a false refusal when the context covers the question's words, else the
    # question was unanswerable from what was retrieved.
    words = set(_CONTENT.findall(evaluation.trace.query.lower()))
    context = evaluation.trace.context_text.lower()
    covered = sum(1 for w in words if w in context) / len(words) if words else 0.0
    return "false_refusal" if covered >= 0.6 else "unanswerable"


def build_row(
    evaluation: Evaluation,
    redactor: Redactor,
    reasons: tuple[str, ...] = DEFAULT_REASONS,
    now: datetime | None = None,
) -> GoldenRow | None:
    """The candidate row for a failing trace, or None when no configured reason applies."""
    failing = _judge_reasons(evaluation)
    flagged = [
        r for r in reasons
        if r in failing or (r in evaluation.checks and evaluation.checks[r].flagged)
    ]  # fmt: skip
    if not flagged:
        return None
    trace = evaluation.trace
    question = redactor.redact(trace.query)
    answer = redactor.redact(trace.answer)
    contexts = redactor.redact_all(p.text for p in trace.context)
    # The unit people grade and probes score is the document the retriever returns
    # (doc_id), not the chunk: a gold document is found whichever of its chunks comes back.
    context_ids = [p.doc_id or p.chunk_id or f"passage-{i}" for i, p in enumerate(trace.context, 1)]
    chunk_ids = [p.chunk_id for p in trace.context]
    return {
        "id": row_id(trace.query, flagged[0]),
        "schema": ROW_SCHEMA,
        # Ragas SingleTurnSample
        "user_input": question,
        "retrieved_contexts": contexts,
        "retrieved_context_ids": context_ids,
        "retrieved_chunk_ids": chunk_ids,
        "response": answer,
        "reference": None,
        # DeepEval Golden
        "input": question,
        "actual_output": answer,
        "retrieval_context": contexts,
        "expected_output": None,
        # Langfuse dataset item
        "source_trace_id": trace.trace_id,
        "ragmon": _row_meta(evaluation, redactor, flagged, now),
    }


def _row_meta(
    evaluation: Evaluation, redactor: Redactor, flagged: list[str], now: datetime | None
) -> RowMeta:
    """The row's ``ragmon`` block: why it was written, where the trace came from, and the
    review state (occurrences are merged into it later)."""
    trace, judge = evaluation.trace, evaluation.judge
    seen = (trace.timestamp or now or datetime.now(UTC)).isoformat()
    checks = {name: r.to_line() for name, r in evaluation.checks.items() if r.flagged}
    return {
        "trace_id": trace.trace_id,
        "reason": flagged[0],
        "reasons": flagged,
        "category": suggest_category(flagged[0], evaluation),
        # check evidence quotes the answer (a refusal phrase, figures): redacted too
        "checks": map_strings(checks, redactor.redact),
        "judge": map_strings(judge.to_line(), redactor.redact) if judge else None,
        "weight": judge.weight if judge else 1.0,
        "app": trace.app,
        "route": trace.route,
        "release": trace.release,
        "model": trace.model,
        "golden_id": trace.golden_id,
        "first_seen": seen,
        "last_seen": seen,
        "count": 1,
        "examples": [trace.trace_id],
        # the newest occurrences, newest last (a metric's exemplar names one of them)
        "recent_trace_ids": [trace.trace_id],
        "status": STATUS_NEEDS_REVIEW,
    }


def _judge_reasons(evaluation: Evaluation) -> set[str]:
    v = evaluation.judge
    if v is None:
        return set()
    out = set()
    if v.verdict == "hard_fail":
        out.add("judge_hard_fail")
    elif v.verdict == "fail":
        out.add("judge_fail")
    if v.context_has_answer is True:
        out.add("judge_false_refusal")
    return out


def followup_reasons(followup: Followup, reasons: tuple[str, ...] = DEFAULT_REASONS) -> list[str]:
    """The row reasons of a follow-up's signals among ``reasons``, in priority order (empty:
    none of them)."""
    return [r for s, r in FOLLOWUP_REASONS.items() if s in followup.signals and r in reasons]


def followup_part(followup: Followup, redactor: Redactor) -> RowFollowup:
    """The next turn as a row shows it beside the question it followed (PII-redacted)."""
    return {
        "by": followup.by.trace_id,
        "query": redactor.redact(followup.by.query),
        "signals": list(followup.signals),
        "seconds": round(followup.by.time - followup.turn.time, 3),
        "after": followup.turn.outcome,
    }


def build_followup_row(
    followup: Followup,
    redactor: Redactor,
    reasons: tuple[str, ...] = DEFAULT_REASONS,
    now: datetime | None = None,
) -> GoldenRow | None:
    """The candidate row of a turn the user's next turn said failed (it asked again, asked
    for a person or said it was wrong), or None. A follow-up carries the question, not the
    answer or the context (the turn record is compact, and its trace may have been read by
    another replica): the row has the question, the next turn beside it and the trace id,
    which the review page and any tracing tool open; no category is suggested."""
    found = followup_reasons(followup, reasons)
    if not found:
        return None
    reasons = tuple(found)
    turn = followup.turn
    question = redactor.redact(turn.query)
    seen = (now or datetime.fromtimestamp(turn.time, UTC)).isoformat()
    return {
        "id": row_id(turn.query, reasons[0]),
        "schema": ROW_SCHEMA,
        "user_input": question,
        "reference": None,
        "input": question,
        "expected_output": None,
        "source_trace_id": turn.trace_id,
        "ragmon": {
            "trace_id": turn.trace_id,
            "reason": reasons[0],
            "reasons": list(reasons),
            "category": None,
            "checks": {},
            "judge": None,
            "weight": 1.0,
            # the turn record carries its route ("-": the trace had none), none of the
            # others: unknown, not guessed
            "app": None,
            "route": turn.route if turn.route not in (None, "-") else None,
            "release": None,
            "model": None,
            "golden_id": None,
            "first_seen": seen,
            "last_seen": seen,
            "count": 1,
            "examples": [turn.trace_id],
            "recent_trace_ids": [turn.trace_id],
            "status": STATUS_NEEDS_REVIEW,
            "followup": followup_part(followup, redactor),
        },
    }


def merge(existing: GoldenRow, new: GoldenRow, seen: set[str], max_examples: int) -> bool:
    """Fold an occurrence into an existing row of the same id. ``seen`` holds the trace ids
    already counted for the row; a replayed trace is not counted again. Returns whether the
    row changed."""
    old, cur = existing["ragmon"], new["ragmon"]
    trace_id = cur["trace_id"]
    if trace_id in seen or trace_id in old["examples"]:
        return False
    seen.add(trace_id)
    old["count"] += 1
    old["first_seen"] = min(old["first_seen"], cur["first_seen"])
    recent = [t for t in old.get("recent_trace_ids", []) if t != trace_id] + [trace_id]
    old["recent_trace_ids"] = recent[-RECENT_TRACES:]
    old["last_seen"] = max(old["last_seen"], cur["last_seen"])
    if len(old["examples"]) < max_examples:
        old["examples"].append(trace_id)
    return True
