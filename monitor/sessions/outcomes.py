"""Sessions that end: when a conversation is over, and how it ended, model-free.

``Outcomes`` is fed what ``Sessions`` releases — each pair (A, B) with what B said about A's
answer, and each turn released with nothing after it — so it sees every turn of a session
once, in time order, with its signals. It closes a session on whichever comes first:

* ``idle`` — no turn began within ``idle`` seconds of its last (looked at ``grace`` seconds
  later still: the time a pair takes to be final, so a turn near the end of the gap is not
  missed);
* ``end`` — a turn carried the configured end attribute (``Turn.ends``);
* ``max_age`` — ``max_age`` seconds after its first turn;
* ``input_end`` — the end of a finite input (``replay``): every session still open.

A session splits where its turns' own times say (a gap over ``idle``, an age over
``max_age``); it closes while open on the caller's clock — the partition's record clock on
the repartition topic, this machine's in memory, the newest turn's time in ``replay`` —
counted from when its turns were released on that clock (``pair`` and ``lone``'s ``now``), so
that traces timed in the past (a backlog read late, a file replayed into the topic) do not
close every session as soon as its first turn is seen.

A closed session's **outcome** (``decide``):

* ``escalated`` — the user asked for a person at any turn;
* ``resolved`` — the last turn thanked, or the last answer was clean and nothing complained
  about it;
* ``abandoned`` — the last answer was refused or ungrounded (``Turn.failed``: a grounding
  check flagged it or the judge failed it; a missing citation is no failure), or the last
  turn complained, and no turn came after: closed ``idle`` or ``end``;
* ``unresolved`` — the same failure, but closed by ``max_age`` or the end of the input: that
  the user left is not known.

A turn of a session already closed re-opens it: a new outcome is written when it closes
again (``resumed`` counts the earlier closes remembered), the first one stands.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from monitor.core.model import (
    ClosedBy,
    Followup,
    SessionOutcome,
    SessionOutcomeName,
    SessionTurn,
    Turn,
)
from monitor.sessions.due import Clock, DueTimes, Key
from monitor.sessions.signals import ESCALATION, NEGATIVE, POSITIVE, REPHRASE, read
from monitor.sources import Partition

KEEP = 10  # turns a session keeps for its candidate golden row (its last ones)
REMEMBERED = 50_000  # closed sessions remembered, to count a resumed one
# an open session's own cost, and a kept turn's beside its question: 200,000 sessions of one
# turn with a 60-character question measured 676 B a session (bench/sessions.py), counted 680
_SESSION_BYTES = 500
_TURN_BYTES = 120

Observer = Callable[[str], None]  # a dropped session's reason: evicted, revoked


@dataclass(slots=True)
class _Open:
    first_time: float  # the turns' own times (what splits a session: gaps, age)
    first_trace: str
    last_time: float
    first_seen: float = 0.0  # on the clock it was released on (what closes it: see ``due``)
    last_seen: float = 0.0
    last_trace: str = ""
    turns: int = 0
    rephrases: int = 0
    escalated_at: float | None = None
    last_failed: bool = False
    last_signals: tuple[str, ...] = ()
    route: str | None = None
    language: str = "unknown"
    kept: list[SessionTurn] = field(default_factory=list)  # the last KEEP turns
    bytes: int = _SESSION_BYTES
    resumed: int = 0
    due: float = float("inf")


def decide(
    escalated: bool, last_failed: bool, last_signals: Iterable[str], closed_by: ClosedBy
) -> SessionOutcomeName:
    """A closed session's outcome (see the module): ``last_failed`` says the last answer was
    refused or ungrounded (``Turn.failed``)."""
    if escalated:
        return "escalated"
    said = tuple(last_signals)
    if POSITIVE in said:
        return "resolved"
    if last_failed or NEGATIVE in said:
        return "abandoned" if closed_by in ("idle", "end") else "unresolved"
    return "resolved"


class Outcomes:
    """The open sessions' turns so far, closed into ``SessionOutcome`` (see the module)."""

    def __init__(
        self,
        idle: float,
        max_age: float,
        grace: float = 0.0,
        max_bytes: int = 64 << 20,
        observe: Observer | None = None,
        reader: Callable[[str, str], list[str]] = read,
    ) -> None:
        self.idle = idle
        self.max_age = max_age
        self.grace = grace
        self.max_bytes = max_bytes
        self._observe = observe
        self._read = reader
        self._open: OrderedDict[Key, _Open] = OrderedDict()  # least recently active first
        self._due = DueTimes()  # when each session's idle gap or age runs out
        # session -> (times closed, the last turn's trace): a turn released again after its
        # session closed (the lone release of a pair's second turn) re-opens nothing
        self._closed: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self.newest = float("-inf")  # the newest turn's time seen (replay's clock)
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._open)

    # --- turns in -------------------------------------------------------------------------

    def pair(
        self, followup: Followup, part: Partition | None, now: float, out: list[SessionOutcome]
    ) -> None:
        """A pair released at ``now`` on its partition's clock: its first turn (if not seen
        yet), then its second with what it said about the first's answer."""
        self._turn(followup.turn, None, part, now, out)
        self._turn(followup.by, followup.signals, part, now, out)

    def lone(
        self, turn: Turn, part: Partition | None, now: float, out: list[SessionOutcome]
    ) -> None:
        """A turn released at ``now`` with nothing after it (or nothing within the window)."""
        self._turn(turn, None, part, now, out)

    def _turn(
        self,
        turn: Turn,
        signals: tuple[str, ...] | None,
        part: Partition | None,
        now: float,
        out: list[SessionOutcome],
    ) -> None:
        key = (part, turn.session)
        s = self._open.get(key)
        if s is None:
            was = self._closed.get(turn.session)
            if was is not None and was[1] == turn.trace_id:
                return  # the last turn of the session closed: seen already
        elif s.last_trace == turn.trace_id:
            return  # seen already: the second turn of the pair before
        at = turn.time
        if at > self.newest:
            self.newest = at
        if s is not None:
            if at - s.last_time > self.idle:
                out.append(self._close(key, "idle"))
                s = None
            elif at - s.first_time > self.max_age:
                out.append(self._close(key, "max_age"))
                s = None
        if signals is None:  # not the second turn of a pair: what it says on its own
            signals = tuple(self._read("", turn.query))
        if s is None:
            was = self._closed.get(key[1])
            s = self._open[key] = _Open(at, turn.trace_id, at, first_seen=now,
                                        resumed=was[0] if was else 0)  # fmt: skip
            self.bytes += s.bytes
        else:
            self._open.move_to_end(key)
        s.turns += 1
        s.last_time = max(s.last_time, at)
        s.last_seen = max(s.last_seen, now)
        s.last_trace = turn.trace_id
        s.last_failed = turn.failed
        s.last_signals = signals
        s.route, s.language = turn.route, turn.language
        if REPHRASE in signals:
            s.rephrases += 1
        if ESCALATION in signals and s.escalated_at is None:
            s.escalated_at = at
        if len(s.kept) == KEEP:
            gone = s.kept.pop(0)
            s.bytes -= _TURN_BYTES + len(gone.query)
            self.bytes -= _TURN_BYTES + len(gone.query)
        s.kept.append(
            SessionTurn(turn.trace_id, turn.query, turn.outcome, turn.failed, signals, at)
        )
        size = _TURN_BYTES + len(turn.query)
        s.bytes += size
        self.bytes += size
        if turn.ends:
            out.append(self._close(key, "end"))
            return
        self._schedule(key, s)
        if self.bytes > self.max_bytes:
            self._evict()

    # --- outcomes out ---------------------------------------------------------------------

    def due(self, clock: Clock, flush: bool = False) -> list[SessionOutcome]:
        """Every session whose idle gap or age ran out on its partition's clock; ``flush``
        (the end of a finite input): every session, ``idle`` or ``max_age`` if that ran out
        by the newest turn's time, else ``input_end``."""
        out: list[SessionOutcome] = []
        if flush:
            newest = self.newest
            for key in list(self._open):
                s = self._open[key]
                if s.last_time + self.idle <= newest:
                    why: ClosedBy = "idle"
                elif s.first_time + self.max_age <= newest:
                    why = "max_age"
                else:
                    why = "input_end"
                out.append(self._close(key, why))
            self._due.clear()
            return out
        for key, held, _ in self._due.passed(clock, self._open):
            aged = held.first_seen + self.max_age < held.last_seen + self.idle
            out.append(self._close(key, "max_age" if aged else "idle"))
        return out

    def _schedule(self, key: Key, s: _Open) -> None:
        at = min(s.last_seen + self.idle, s.first_seen + self.max_age) + self.grace
        self._due.schedule(key, s, at)

    def _close(self, key: Key, closed_by: ClosedBy) -> SessionOutcome:
        s = self._open.pop(key)
        self.bytes -= s.bytes
        escalated = s.escalated_at is not None
        outcome = decide(escalated, s.last_failed, s.last_signals, closed_by)
        decided = s.escalated_at if s.escalated_at is not None else s.last_time
        closed = self._closed
        times = closed.pop(key[1], (0, ""))[0] + 1
        closed[key[1]] = (times, s.last_trace)
        if len(closed) > REMEMBERED:
            closed.popitem(last=False)
        return SessionOutcome(
            session=key[1], outcome=outcome, closed_by=closed_by, turns=s.turns,
            rephrases=s.rephrases, seconds_to_outcome=max(0.0, decided - s.first_time),
            route=s.route, language=s.language, first_trace=s.first_trace,
            kept=tuple(s.kept), resumed=s.resumed,
        )  # fmt: skip

    def _evict(self) -> None:
        while self.bytes > self.max_bytes and self._open:
            _, s = self._open.popitem(last=False)
            self.bytes -= s.bytes
            self._count("evicted")

    def _count(self, reason: str) -> None:
        if self._observe is not None:
            self._observe(reason)

    # --- partitions moving ----------------------------------------------------------------

    def drop_all(self, reason: str) -> None:
        """Forget every open session, each counted ``reason`` (a replica pairing in memory
        that is no longer alone: what it would close is only part of a session)."""
        for _ in range(len(self._open)):
            self._count(reason)
        self._open.clear()
        self._due.clear()
        self.bytes = 0

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget the sessions of ``partitions`` (counted ``revoked``): their next owner sees
        the turns it reads again, not the ones released here before."""
        gone = set(partitions)
        for key in [k for k in self._open if k[0] in gone]:
            self.bytes -= self._open.pop(key).bytes
            self._count("revoked")
        for part in gone:
            self._due.forget(part)
