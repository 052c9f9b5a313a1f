"""Watermark checkpointing: the committable offset never passes an open record."""

from __future__ import annotations

import random
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checkpoint import Checkpoint

P = ("traces", 0)


def test_nothing_read_nothing_to_commit() -> None:
    """A fresh checkpoint has no offsets to commit."""
    assert Checkpoint().committable() == {}


def test_in_order_completion_commits_next_offset() -> None:
    """After offsets 0..4 finish, the next offset to read (5) is committable."""
    cp = Checkpoint()
    for off in range(5):
        cp.open(P, off)
        cp.done(P, off)
    assert cp.committable() == {P: 5}


def test_open_record_holds_the_watermark() -> None:
    """With 0..9 read and 3 still open, the watermark is 3 even though 4..9 are done."""
    cp = Checkpoint()
    for off in range(10):
        cp.open(P, off)
    for off in range(10):
        if off != 3:
            cp.done(P, off)
    assert cp.committable() == {P: 3}
    cp.done(P, 3)
    assert cp.committable() == {P: 10}


def test_marked_offsets_are_not_offered_again() -> None:
    """Once committed, an offset is offered again only when the watermark moves."""
    cp = Checkpoint()
    cp.open(P, 0)
    cp.done(P, 0)
    cp.mark_committed(cp.committable())
    assert cp.committable() == {}
    cp.open(P, 1)
    cp.done(P, 1)
    assert cp.committable() == {P: 2}


def test_revoked_partition_is_forgotten() -> None:
    """After a revoke, late completions of that partition are ignored and never committed."""
    cp = Checkpoint()
    other = ("traces", 1)
    cp.open(P, 0)
    cp.open(other, 0)
    cp.revoke([P])
    cp.done(P, 0)
    cp.done(other, 0)
    assert cp.committable() == {other: 1}
    assert cp.open_count() == 0


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 60), seed=st.integers(0, 10_000))
def test_watermark_is_lowest_open_offset(n: int, seed: int) -> None:
    """For any completion order, the committable offset is the lowest open offset (or n)."""
    rng = random.Random(seed)
    cp = Checkpoint()
    for off in range(n):
        cp.open(P, off)
    open_offsets = set(range(n))
    for off in rng.sample(range(n), rng.randint(0, n)):
        cp.done(P, off)
        open_offsets.discard(off)
        expected = min(open_offsets) if open_offsets else n
        got = cp.committable().get(P)
        assert got == (expected if expected > -1 else None)


def test_concurrent_completion_is_safe() -> None:
    """Completions from several threads (the judge, later) lose no update."""
    cp = Checkpoint()
    for off in range(4000):
        cp.open(P, off)

    def finish(offsets: range) -> None:
        for off in offsets:
            cp.done(P, off)

    threads = [threading.Thread(target=finish, args=(range(k, 4000, 4),)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cp.committable() == {P: 4000}
    assert cp.open_count() == 0


def test_a_finished_committed_partition_is_forgotten() -> None:
    """A partition per file (replay reading 10,000 files): once a file's records are all
    finished and committed, its state goes; one with a record still open stays, and a later
    record of a forgotten partition is committed again from a fresh state."""
    cp = Checkpoint()
    for i in range(10_000):
        part = (f"file-{i}.jsonl", 0)
        cp.open(part, 0)
        cp.done(part, 0)
    cp.open(("slow.jsonl", 0), 0)
    cp.mark_committed(cp.committable())
    assert cp.tracked() == 1 and cp.open_count() == 1
    cp.open(("file-7.jsonl", 0), 1)
    cp.done(("file-7.jsonl", 0), 1)
    assert cp.committable() == {("file-7.jsonl", 0): 2}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([P, ("traces", 1)]), st.integers(0, 50)), max_size=40),
    st.lists(st.integers(0, 50), max_size=40),
)
def test_opening_a_poll_at_once_gives_the_watermark_rule(
    opened: list[tuple[tuple[str, int], int]], finished: list[int]
) -> None:
    """``open_all`` (the pipeline opens a poll's records under one lock), then records
    finished, offsets out of order and repeated: per partition the watermark is the lowest
    offset still open, or one past the highest read when none is (the module's rule, worked
    out here without the checkpoint)."""
    cp = Checkpoint()
    cp.open_all(opened)
    done: dict[tuple[str, int], set[int]] = {}
    for i, offset in enumerate(finished):
        partition = P if i % 2 else ("traces", 1)
        cp.done(partition, offset)
        done.setdefault(partition, set()).add(offset)
    want = {}
    for partition in {p for p, _ in opened}:
        read = {o for p, o in opened if p == partition}
        still = read - done.get(partition, set())
        want[partition] = (min(still) if still else max(read) + 1, max(read) + 1)
    assert cp.positions() == want
    assert cp.committable() == {p: mark for p, (mark, _) in want.items()}
