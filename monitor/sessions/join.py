"""Turns of one conversation, paired in time order, and what the next turn says.

A ``Turn`` is the compact record of one evaluated trace of a session: the session and trace
ids, when the turn began, the question (cut to ``MAX_QUERY``), what the checks made of the
answer (``outcome``) and its language segment. ``Sessions`` holds the turns not yet paired and
releases each consecutive pair (A, B) as a ``Followup`` once no turn between them can still
come, or an unpaired turn once nothing can follow it:

* turns are ordered by their own time, never by arrival; a pair is final when its later
  arrival is ``lateness`` old on the clock of the partition the turns came through (a turn
  that arrives later than that, older than the second turn of a pair already written, is
  ``late``: counted and dropped, its pairs lost — see docs, "Conversations");
* B pairs with A only within ``window`` seconds of A; a turn with nothing after it is
  released ``window + lateness`` after it arrived;
* a turn whose trace was already held or released (a trace evaluated twice after a restart)
  is a ``duplicate``: counted and dropped;
* the held turns are bounded in bytes: beyond ``max_bytes`` the least recently active
  session is dropped (``evicted``).

The clock of a partition is what the caller says it is: for the Kafka repartition topic the
later of the newest record time read from the partition and the time it is known read to
(``ReadProgress``); in memory (one process), this machine's clock.
"""

from __future__ import annotations

import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import structlog

from monitor.core.model import Followup, Turn
from monitor.sessions.due import Clock, DueTimes
from monitor.sessions.signals import read
from monitor.sources import Partition, Position, ReplayNote
from monitor.sources.notes import OLD, Notebook

_log = structlog.get_logger("ragmon.sessions")


class _Held(NamedTuple):
    """A turn held (a tuple of plain values, like ``Turn``: not walked by the collector)."""

    turn: Turn
    arrived: float  # on the clock of the turn's partition
    position: Position | None  # the repartition-topic record (None: in memory)
    replayed: bool = False  # re-read below a replay note's end and not named in it
    size: int = 0  # the turn's size, counted once


@dataclass(slots=True)
class _Session:
    part: Partition | None
    turns: list[_Held] = field(default_factory=list)  # in time order
    floor: float = float("-inf")  # a turn older than this comes too late (see ``_settle``)
    bytes: int = 0
    due: float = float("inf")  # when to look at it again: its one live entry in ``_due``


class Released(NamedTuple):
    """What ``Sessions`` lets go of: a follow-up (None when the turn left unpaired), the
    repartition-topic records now finished (a tuple: one is made for every turn) and a turn
    that left with nothing after it (what ``outcomes`` needs beside the pairs)."""

    followup: Followup | None
    positions: tuple[Position, ...]
    turn: Turn | None = None  # a turn let go with no pair after it (last, outside_window)
    last: bool = False  # ``turn`` is its session's last: nothing came within the window


Observer = Callable[[str], None]  # a turn's outcome (model.TURN_OUTCOMES)


class Sessions:
    """The turns not yet paired, per partition and session (see the module)."""

    def __init__(
        self,
        window: float,
        lateness: float,
        max_bytes: int,
        observe: Observer | None = None,
        reader: Callable[[str, str], list[str]] = read,
    ) -> None:
        self.window = window
        self.lateness = lateness
        self.max_bytes = max_bytes
        self._observe = observe
        self._read = reader
        # (partition, session) -> held turns, least recently active first
        self._open: OrderedDict[tuple[Partition | None, str], _Session] = OrderedDict()
        self._due = DueTimes()  # when each session is to be looked at again
        self._book = Notebook()  # the turn partitions' notes given, and the next ones
        self._arriving: list[tuple[Turn, float]] = []  # ``hold``'s, added by ``due``
        self._raised: set[str] = set()  # exception types the signals' reading raised, said
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._open)

    def drop_all(self, outcome: str) -> int:
        """Let go of every turn held or arriving without a pair, each counted ``outcome``:
        for turns held in memory only (they have no record to finish). How many."""
        n = len(self._arriving)
        self._arriving.clear()
        for session in self._open.values():
            n += len(session.turns)
        self._open.clear()
        self._due.clear()
        self.bytes = 0
        for _ in range(n):
            self._count(outcome)
        return n

    # --- turns in -------------------------------------------------------------------------

    def add(self, turn: Turn, arrived: float, position: Position | None = None) -> list[Released]:
        """Hold ``turn`` (arrived at ``arrived`` on its partition's clock); what it makes
        final now is released by ``due``. Returns what leaves at once (a duplicate, a late
        turn, sessions evicted to make room)."""
        part = position[0] if position is not None else None
        # re-read below its partition's note and finished there: its line was written before
        replayed = position is not None and self.skip(position, turn.trace_id) == OLD
        key = (part, turn.session)
        session = self._open.get(key)
        if session is None:
            session = self._open[key] = _Session(part)
        else:
            self._open.move_to_end(key)
        turns = session.turns
        trace_id = turn.trace_id
        held_already = False
        for h in turns:
            if h.turn.trace_id == trace_id:
                held_already = True
                break
        if held_already or turn.time < session.floor:
            why = "duplicate" if held_already else "late"
            self._count(why)
            return [Released(None, _at(position))]
        size = turn.size
        held = _Held(turn, arrived, position, replayed, size)
        at = len(turns)
        while at and turns[at - 1].turn.time > turn.time:
            at -= 1
        turns.insert(at, held)
        session.bytes += size
        self.bytes += size
        self._schedule(key, session)
        return self._evict() if self.bytes > self.max_bytes else []

    def hold(self, turn: Turn, arrived: float) -> None:
        """``add`` a turn that has no record (in memory, one process), at the next ``due``:
        the turns of a batch are added together, in one warm loop, rather than one between
        every two traces' checks (what ``add`` returns at once has no record to finish)."""
        self._arriving.append((turn, arrived))

    def skip(self, position: Position, trace_id: str | None = None) -> int | None:
        """A turn record read (``trace_id``: its turn's trace; None for a record that is no
        turn): kept for the next note; the verdict of the note given with its partition on
        it (``notes.NEWS``, ``OLD``, ``UNSURE``), None where no note speaks of it."""
        traces = () if trace_id is None else (trace_id,)
        verdicts = self._book.read(position[0], position[1], traces)
        return verdicts[0] if verdicts else None

    # --- pairs out ------------------------------------------------------------------------

    def due(self, clock: Clock, flush: bool = False) -> list[Released]:
        """Every pair made final by the partitions' clocks, and every turn nothing can follow
        any more; ``flush`` (the end of a finite input, a stop that must finish what it
        accepted): every pair held, and every turn."""
        if self._arriving:
            arriving, self._arriving = self._arriving, []
            for turn, arrived in arriving:
                self.add(turn, arrived)
        out: list[Released] = []
        if flush:
            for key in list(self._open):
                self._settle(key, float("inf"), out, flush=True)
            self._due.clear()
            return out
        for key, session, now in self._due.passed(clock, self._open):
            session.due = float("inf")
            self._settle(key, now, out)
        return out

    def _settle(
        self,
        key: tuple[Partition | None, str],
        now: float,
        out: list[Released],
        flush: bool = False,
    ) -> None:
        session = self._open.get(key)
        if session is None:
            return
        turns = session.turns
        while len(turns) >= 2 and (
            flush or max(turns[0].arrived, turns[1].arrived) + self.lateness <= now
        ):
            a = turns.pop(0)
            b = turns[0]
            session.floor = b.turn.time  # a turn before B now would break a pair written
            self._drop(session, a)
            if a.replayed:
                self._count("replayed")
                out.append(Released(None, _at(a.position)))
            elif b.turn.time - a.turn.time > self.window:
                self._count("outside_window")
                out.append(Released(None, _at(a.position), a.turn))
            else:
                self._count("paired")
                out.append(Released(self._pair(a.turn, b.turn), _at(a.position)))
        if len(turns) == 1 and (flush or turns[0].arrived + self.window + self.lateness <= now):
            last = turns.pop()
            session.floor = last.turn.time
            self._drop(session, last)
            self._count("replayed" if last.replayed else "last")
            kept = None if last.replayed else last.turn
            out.append(Released(None, _at(last.position), kept, True))
        if not turns:
            del self._open[key]
        elif not flush:
            self._schedule(key, session)

    def _schedule(self, key: tuple[Partition | None, str], session: _Session) -> None:
        """Look at the session again when its first pair (or its one turn) may be final; an
        entry already there for that time stands, an earlier or later one goes stale."""
        turns = session.turns
        if len(turns) >= 2:
            at = max(turns[0].arrived, turns[1].arrived) + self.lateness
        else:
            at = turns[0].arrived + self.window + self.lateness
        self._due.schedule(key, session, at)

    def _drop(self, session: _Session, held: _Held) -> None:
        session.bytes -= held.size
        self.bytes -= held.size

    def _evict(self) -> list[Released]:
        out = []
        while self.bytes > self.max_bytes and self._open:
            _, session = self._open.popitem(last=False)
            for held in session.turns:
                self._count("evicted")
                out.append(Released(None, _at(held.position)))
            self.bytes -= session.bytes
        return out

    def _pair(self, a: Turn, b: Turn) -> Followup:
        """A and B's follow-up. Reading the signals is ragmon's code over user text: should
        it raise, the pair still gets its line, with the error instead of signals (never a
        guess of none), and the reading is said once per exception type. Raised on, the
        stage would stop the daemon, and every restart would stop on the same turns."""
        try:
            return Followup(a, b, tuple(self._read(a.query, b.query)))
        except Exception as exc:  # any fault of the reading: counted and said
            kind = type(exc).__name__
            if kind not in self._raised:
                self._raised.add(kind)
                where = traceback.extract_tb(exc.__traceback__)[-1]  # code, not user text
                _log.error("followup_signals_raised", error=kind,
                           at=f"{Path(where.filename).name}:{where.lineno}",
                           hint="a bug of ragmon's: please report it")  # fmt: skip
            return Followup(a, b, (), error=kind)

    def _count(self, outcome: str) -> None:
        if self._observe is not None:
            self._observe(outcome)

    # --- partitions moving ----------------------------------------------------------------

    def revoke(self, partitions: Iterable[Partition]) -> None:
        """Forget the turns that came through ``partitions`` (their next owner reads them
        again from the committed offsets)."""
        gone = set(partitions)
        for key in [k for k in self._open if k[0] in gone]:
            self.bytes -= self._open.pop(key).bytes
        self._book.revoke(gone)
        for part in gone:
            self._due.forget(part)

    def held_from(self, partitions: Iterable[Partition]) -> dict[Partition, int]:
        """The lowest offset of a held turn per partition of ``partitions``."""
        wanted = set(partitions)
        low: dict[Partition, int] = {}
        if not wanted:
            return low
        for (part, _), session in self._open.items():
            if part in wanted:
                for held in session.turns:
                    if held.position is not None:
                        offset = held.position[1]
                        low[part] = min(low.get(part, offset), offset)
        return low

    def pending(self, partitions: Iterable[Partition]) -> dict[Partition, set[str]]:
        """Per partition, the trace of every turn held that is still the A of a follow-up
        line not written: not one re-read below a note's end that was finished there (held
        only to order the others: its line was written before)."""
        ids: dict[Partition, set[str]] = {p: set() for p in partitions}
        if not ids:
            return ids
        for (part, _), session in self._open.items():
            if part in ids:
                ids[part].update(h.turn.trace_id for h in session.turns if not h.replayed)
        return ids

    def notes(
        self, marks: Mapping[Partition, tuple[int, int]], unfinished: Mapping[Partition, set[str]]
    ) -> dict[Partition, ReplayNote]:
        """The note of each turn partition of ``unfinished`` (``notes.Notebook.note``)."""
        book = self._book
        return {p: book.note(p, marks[p][0], marks[p][1], ids) for p, ids in unfinished.items()}

    def resume(self, notes: Mapping[Partition, ReplayNote]) -> None:
        """Partitions given to this process with their notes: a turn re-read below a note's
        end that was finished there was released before (its follow-up line written), so it
        is released again without a line (``replayed``). A turn the note cannot speak of (a
        note cut short to fit) is paired again: perhaps a line written twice, never one
        lost."""
        self._book.resume(notes)


def _at(position: Position | None) -> tuple[Position, ...]:
    return () if position is None else (position,)
