"""The daemon's garbage-collector settings: the heap left by start-up frozen, young
collections spaced for a trace's allocations."""

from __future__ import annotations

import gc

# Allocations between young collections (CPython's default: 700). A trace allocates a few
# hundred objects that die with it; at 700, most young collections walk a live trace's
# objects, at 5,000 most of them have been freed first: measured over 10,000 benchmark traces,
# 111 ms of collections became 62 ms (+3.6 % pipeline throughput); 20,000 was no better.
YOUNG_THRESHOLD = 5_000


def freeze_startup_heap() -> None:
    """Move everything alive after start-up (modules, config, compiled patterns) out of the
    garbage collector's reach, once per process before the first record. Every collection
    otherwise walks those long-lived objects again; on the benchmark corpus that was 10-20 %
    of the per-trace CPU time. Records and evaluations stay collectable as before. Young
    collections run every ``YOUNG_THRESHOLD`` allocations. A later call (a benchmark runs many
    pipelines in one process) first thaws what an earlier one froze: what died since inside a
    reference cycle (an earlier pipeline, its consumer) is collected, not kept forever (25
    pipelines in one process grew from 430 to 593 MiB of RSS before it did so)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
