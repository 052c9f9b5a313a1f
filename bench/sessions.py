"""Memory of open conversations: one million sessions, each holding its last turn (a question
of ``--chars`` characters), measured with tracemalloc against what ``Sessions`` counts
towards ``sessions.max_bytes``; and the cost of adding a turn and of releasing a pair.

    .venv/bin/python bench/sessions.py [--sessions 1000000] [--chars 60]

Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from monitor.core.model import Turn
from monitor.sessions.join import Sessions

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


if __name__ == "__main__":
    main()
