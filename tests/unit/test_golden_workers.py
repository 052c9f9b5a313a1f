"""Candidate golden rows under ``run --workers``: each worker writes its own directory in the
golden dir (``worker-<i>/``), every reader reads them all as one, nothing lost or doubled; a
worker started again reads back only its own rows."""

from __future__ import annotations

from pathlib import Path

import msgspec

from monitor.core.model import Evaluation
from monitor.core.pii import Redactor
from monitor.golden.rows import build_row
from monitor.golden.stored import is_worker_dir, joined, load_rows, own_rows, worker_dir
from sinks.golden import GoldenRowSink
from tests.unit.test_golden import demo_evaluations


def _written(directory: Path, evaluations: list[Evaluation]) -> None:
    sink = GoldenRowSink(directory, max_examples=3)
    sink.start()
    for ev in evaluations:
        sink.write(ev)
    sink.flush()
    sink.close()


def test_two_workers_rows_read_as_one_nothing_lost_or_doubled(tmp_path: Path) -> None:
    """400 demo traces split between two workers as a group's partitions would split them
    (by trace): the golden dir holds the rows one process writes for all 400, each once, with
    the same counts; a row both workers hold counts the occurrences of both."""
    evaluations = demo_evaluations(400)
    alone = tmp_path / "alone"
    _written(alone, evaluations)
    shared = tmp_path / "golden"
    halves = ([e for e in evaluations if int(e.trace_id, 16) % 2 == 0],
              [e for e in evaluations if int(e.trace_id, 16) % 2 == 1])  # fmt: skip
    for i, half in enumerate(halves):
        _written(worker_dir(shared, i), half)
    one, both = load_rows(alone), load_rows(shared)
    assert set(both) == set(one)  # nothing lost, no row twice
    counts = {rid: r["ragmon"]["count"] for rid, r in both.items()}
    assert counts == {rid: r["ragmon"]["count"] for rid, r in one.items()}  # nor an occurrence
    flagged = sum(build_row(e, Redactor()) is not None for e in evaluations)
    assert sum(counts.values()) == flagged
    held = [set(own_rows(worker_dir(shared, i))) for i in (0, 1)]
    assert held[0] & held[1], "no row on both workers: the test shows nothing"
    for rid in held[0] & held[1]:  # the examples of both, each once
        examples = both[rid]["ragmon"]["examples"]
        assert len(examples) == len(set(examples)) >= 2
    assert own_rows(shared) == {}  # the parent's directory holds none of its own


def test_a_writer_reads_back_only_its_own_rows(tmp_path: Path) -> None:
    """Worker 0 started again re-reads its own rows (not worker 1's): its replay of traces
    its rows hold changes nothing. One process on the golden dir afterwards (back to one
    worker) holds none of the workers' rows: a new occurrence adds one to its row's count,
    never the workers' counts a second time."""
    evaluations = demo_evaluations(300)
    shared = tmp_path / "golden"
    _written(worker_dir(shared, 0), evaluations[:150])
    _written(worker_dir(shared, 1), evaluations[150:])
    before = load_rows(shared)
    held = {t for r in own_rows(worker_dir(shared, 0)).values() for t in r["ragmon"]["examples"]}
    _written(worker_dir(shared, 0), [e for e in evaluations if e.trace_id in held])
    assert load_rows(shared) == before
    again = next(e for e in evaluations if build_row(e, Redactor()) is not None)
    rid = build_row(again, Redactor())["id"]  # type: ignore[index]
    fresh = Evaluation(trace=msgspec.structs.replace(again.trace, trace_id="f" * 32),
                       checks=again.checks)  # fmt: skip
    _written(shared, [fresh])
    after = load_rows(shared)
    assert after[rid]["ragmon"]["count"] == before[rid]["ragmon"]["count"] + 1
    assert {k: v for k, v in after.items() if k != rid} == {
        k: v for k, v in before.items() if k != rid
    }


def test_joined_rows_add_up_and_keep_the_reviewers_state() -> None:
    a = {"id": "r", "ragmon": {"count": 2, "first_seen": "2026-01-02", "last_seen": "2026-01-05",
                               "examples": ["t1", "t2"], "recent_trace_ids": ["t1", "t2"],
                               "status": "needs_review"}}  # fmt: skip
    b = {"id": "r", "ragmon": {"count": 1, "first_seen": "2026-01-01", "last_seen": "2026-01-03",
                               "examples": ["t3"], "recent_trace_ids": ["t3"],
                               "status": "accepted"}}  # fmt: skip
    row = joined(a, b)  # type: ignore[arg-type]
    m = row["ragmon"]
    assert (m["count"], m["first_seen"], m["last_seen"]) == (3, "2026-01-01", "2026-01-05")
    assert m["examples"] == ["t3", "t1", "t2"] and m["status"] == "accepted"
    assert a["ragmon"]["count"] == 2  # the rows read are not changed


def test_a_workers_directory_is_told_apart() -> None:
    assert is_worker_dir(worker_dir(Path("var/golden"), 3))
    assert not is_worker_dir(Path("var/golden")) and not is_worker_dir(Path("worker-x"))
