"""The conversations' values: a turn (one evaluated trace of a session, as pairing needs
it) and its record on the repartition topic, a follow-up (what a next turn says about the
answer before it), and a closed session's outcome with the turns it keeps.

``monitor.sessions`` pairs the turns and closes the sessions; the sinks write what it
releases. This module imports nothing of ours but the line types (``monitor.core.lines``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, NotRequired, TypedDict

from monitor.core.lines import FollowupLine, FollowupPart, SessionLine

MAX_QUERY = 1000  # characters of a question carried in a turn record
MAX_ROUTE = 200  # characters of a route carried in a turn record
TURN_VERSION: Final = 1
Outcome = Literal["refusal", "flagged", "clean"]
OUTCOMES: tuple[Outcome, ...] = ("refusal", "flagged", "clean")
# what a next turn can say about the answer before it (monitor.sessions.signals)
FOLLOWUP_SIGNALS = ("rephrase", "escalation", "negative_feedback", "positive_feedback")
# the reading of those signals where it raised: its name in ragmon_check_errors_total{check}
FOLLOWUP_READER: Final = "followup_signals"
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
    # the exception's type when reading the signals raised (a bug of ragmon's): ``signals``
    # is then empty and says nothing, the line carries ``error`` instead
    error: str | None = None

    def to_line(self) -> FollowupLine:
        """The follow-up line (docs, "Conversations")."""
        part: FollowupPart = {
            "by": self.by.trace_id,
            "seconds": round(self.by.time - self.turn.time, 3),
            "signals": list(self.signals),
            "after": self.turn.outcome,
        }
        if self.error is not None:
            part["error"] = self.error
        return {"trace_id": self.turn.trace_id, "session_id": self.turn.session,
                "followup": part}  # fmt: skip
