"""Memory of open conversations: one million sessions, each holding its last turn (a question
of ``--chars`` characters), measured with tracemalloc against what ``Sessions`` counts
towards ``sessions.max_bytes``; and the cost of adding a turn and of releasing a pair. Then
the sessions open for their outcome (``Outcomes``: one turn each, and three), measured
against what it counts towards ``sessions.outcomes_max_bytes``, and the cost of closing one.

    .venv/bin/python bench/sessions.py [--sessions 1000000] [--chars 60]

Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

from monitor.core.model import Followup, SessionOutcome, Turn
from monitor.sessions.join import Sessions
from monitor.sessions.outcomes import Outcomes

PART = ("ragmon_turns", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument("--chars", type=int, default=60)
    args = parser.parse_args()
    n = args.sessions
    query = ("how much is the pro plan for a team of twelve people " * 20)[: args.chars]

    def turn(i: int) -> Turn:  # as a decoded turn record: its own strings
        return Turn(f"session-{i:012d}", f"{i:032x}", 1.7e9 + i, query[:-1] + str(i % 10),
                    "clean", "en")  # fmt: skip

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    sessions = Sessions(1800.0, 60.0, 1 << 40)
    for i in range(n):
        sessions.add(turn(i), 0.0, (PART, i))
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(f"{n:,} open sessions, one held turn each, {args.chars}-character questions")
    print(f"measured (tracemalloc, turns and state): {held / n:,.0f} B a session "
          f"({held / 2**20:,.0f} MiB)")  # fmt: skip
    print(f"counted towards sessions.max_bytes: {sessions.bytes / n:,.0f} B a session "
          f"({sessions.bytes / 2**20:,.0f} MiB)")  # fmt: skip
    del sessions
    gc.collect()
    made = [turn(i) for i in range(n)]
    sessions = Sessions(1800.0, 60.0, 1 << 40)
    t0 = time.perf_counter()
    for i, t in enumerate(made):
        sessions.add(t, 0.0, (PART, i))
    print(f"adding a turn (untraced): {(time.perf_counter() - t0) / n * 1e6:.2f} µs")
    t0 = time.perf_counter()
    released = sessions.due(lambda part: 1e12)
    print(f"releasing every session (expiry): {(time.perf_counter() - t0) / n * 1e6:.2f} µs "
          f"a session, {len(released):,} released")  # fmt: skip
    del sessions, made, released
    for turns in (1, 3):
        outcomes(n, turns, turn)


def outcomes(n: int, per: int, turn: Callable[[int], Turn]) -> None:
    """``n`` sessions of ``per`` turns open in ``Outcomes``: measured and counted bytes, and
    the cost of closing them (signals of a first turn read once, as released)."""
    gc.collect()
    made = [[turn(i)._replace(trace_id=f"{i:028x}{k:04x}", time=1.7e9 + k) for k in range(per)]
            for i in range(n)]  # fmt: skip
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    o = Outcomes(1800.0, 86400.0, max_bytes=1 << 40)
    out: list[SessionOutcome] = []
    for turns in made:
        for a, b in itertools.pairwise(turns):
            o.pair(Followup(a, b, ()), PART, 0.0, out)
        o.lone(turns[-1], PART, 0.0, out)
    del made  # what is left is what the open sessions hold
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(f"{n:,} sessions open for their outcome, {per} turn(s) each: measured "
          f"{held / n:,.0f} B a session, counted {o.bytes / n:,.0f} B")  # fmt: skip
    t0 = time.perf_counter()
    closed = o.due(lambda part: 1e12)
    print(f"closing a session: {(time.perf_counter() - t0) / n * 1e6:.2f} µs, "
          f"{len(closed):,} closed")  # fmt: skip


if __name__ == "__main__":
    main()
