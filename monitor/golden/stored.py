"""The candidate rows as stored: the segment files of a golden dir (``golden-*.jsonl``,
written crash-safe by ``sinks.segments``) read back and merged by row id. Reading rows is the
golden wing's (the review page, the golden commands); the golden sink only writes them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from monitor.core.lines import GoldenRow

PREFIX = "golden"  # the segments' file names: golden-<time>-<n>.jsonl
TMP_PREFIX = ".tmp-"  # a segment being written: never read


def load_rows(directory: Path) -> dict[str, GoldenRow]:
    """Every row in ``directory``, merged by id: the state with the latest ``last_seen`` and
    highest count wins (segments hold successive states of one row)."""
    rows: dict[str, GoldenRow] = {}
    for row in read_rows(directory, PREFIX):
        old = rows.get(row["id"])
        if old is None or _newer(row, old):
            rows[row["id"]] = row
    return rows


def _newer(a: GoldenRow, b: GoldenRow) -> bool:
    ra, rb = a["ragmon"], b["ragmon"]
    if ra.get("status") != rb.get("status") and rb.get("status") == "needs_review":
        return True  # a reviewer's edit wins over the machine's copy
    return (ra["count"], ra["last_seen"]) >= (rb["count"], rb["last_seen"])


def segments(directory: Path, prefix: str) -> list[Path]:
    """Complete segments, oldest first (names sort by time)."""
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.glob(f"{prefix}-*.jsonl") if not p.name.startswith(TMP_PREFIX)
    )


def read_rows(directory: Path, prefix: str) -> Iterator[GoldenRow]:
    """Every row of the segments named ``prefix`` in ``directory``, oldest first."""
    for path in segments(directory, prefix):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)
