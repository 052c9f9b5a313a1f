"""Segment names (sinks/segments.py): a process never writes over another's segment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sinks.segments import SegmentWriter


def _row(row_id: str, count: int) -> Any:
    return {"id": row_id, "count": count}


def test_a_restart_with_the_same_pid_in_the_same_second_writes_beside_not_over(
    tmp_path: Path,
) -> None:
    # A container restarted at once runs as pid 1 again: the same pid, the same second.
    first = SegmentWriter(tmp_path, "golden", clock=lambda: 1_700_000_000.0)
    first.start()
    first.put(_row("a", 3))
    first.flush()
    second = SegmentWriter(tmp_path, "golden", clock=lambda: 1_700_000_000.0)
    second.start()
    second.put(_row("b", 1))
    second.flush()
    segments = sorted(tmp_path.glob("golden-*.jsonl"))
    rows = [json.loads(line) for path in segments for line in path.read_text().splitlines()]
    assert len(segments) == 2
    assert sorted(r["id"] for r in rows) == ["a", "b"]


def test_a_writer_rewrites_its_own_segment_on_each_flush(tmp_path: Path) -> None:
    writer = SegmentWriter(tmp_path, "golden", clock=lambda: 1_700_000_000.0)
    writer.start()
    writer.put(_row("a", 1))
    writer.flush()
    writer.put(_row("a", 2))
    writer.flush()
    (segment,) = tmp_path.glob("golden-*.jsonl")
    assert [json.loads(line)["count"] for line in segment.read_text().splitlines()] == [2]
