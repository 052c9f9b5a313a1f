"""The candidate golden row of a conversation that ended badly: the user left after a failure
(``session_abandoned``) or asked for a person (``session_escalated``).

A closed session (``monitor.sessions.outcomes``) carries its last turns — each question, what
the checks made of its answer and what the turn said about the answer before it — not the
answers or the contexts (the turns are compact, and their traces may have been read by other
replicas). The row's question is the first turn kept, its trace the last (the answer the
session ended on); rows of sessions that began with the same question and ended the same way
are one row, counted.
"""

from __future__ import annotations

from datetime import UTC, datetime

from monitor.core.lines import GoldenRow, RowSession
from monitor.core.model import SessionOutcome
from monitor.core.pii import Redactor
from monitor.golden.rows import DEFAULT_REASONS, ROW_SCHEMA, SESSION_REASONS, STATUS_NEEDS_REVIEW
from monitor.golden.rows import row_id as _row_id


def session_reason(
    outcome: SessionOutcome, reasons: tuple[str, ...] = DEFAULT_REASONS
) -> str | None:
    """The row reason of a closed session among ``reasons``, or None (no row)."""
    reason = SESSION_REASONS.get(outcome.outcome)
    return reason if reason is not None and reason in reasons else None


def session_part(outcome: SessionOutcome, redactor: Redactor) -> RowSession:
    """How the session ended and its last turns, as a row shows them (PII-redacted)."""
    return {
        "outcome": outcome.outcome,
        "closed_by": outcome.closed_by,
        "turns": outcome.turns,
        "rephrases": outcome.rephrases,
        "seconds_to_outcome": round(outcome.seconds_to_outcome, 3),
        "kept": [
            {
                "trace_id": t.trace_id,
                "query": redactor.redact(t.query),
                "after": t.outcome,
                "failed": t.failed,
                "signals": list(t.signals),
            }
            for t in outcome.kept
        ],
    }


def build_session_row(
    outcome: SessionOutcome,
    redactor: Redactor,
    reasons: tuple[str, ...] = DEFAULT_REASONS,
) -> GoldenRow | None:
    """The candidate row of a session that ended badly, or None (see the module)."""
    reason = session_reason(outcome, reasons)
    if reason is None or not outcome.kept:
        return None
    first, last = outcome.kept[0], outcome.kept[-1]
    question = redactor.redact(first.query)
    return {
        "id": _row_id(first.query, reason),
        "schema": ROW_SCHEMA,
        "user_input": question,
        "reference": None,
        "input": question,
        "expected_output": None,
        "source_trace_id": last.trace_id,
        "ragmon": {
            "trace_id": last.trace_id,
            "reason": reason,
            "reasons": [reason],
            "category": None,
            "checks": {},
            "judge": None,
            "weight": 1.0,
            "app": None,  # the turns carry none of these but the route: unknown, not guessed
            "route": outcome.route,
            "release": None,
            "model": None,
            "golden_id": None,
            "first_seen": datetime.fromtimestamp(first.time, UTC).isoformat(),
            "last_seen": datetime.fromtimestamp(last.time, UTC).isoformat(),
            "count": 1,
            "examples": [last.trace_id],
            "recent_trace_ids": [last.trace_id],
            "status": STATUS_NEEDS_REVIEW,
            "session": session_part(outcome, redactor),
        },
    }
