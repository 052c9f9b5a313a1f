"""The candidate rows as stored: the segment files of a golden dir (``golden-*.jsonl``,
written crash-safe by ``sinks.segments``) read back and merged by row id. Reading rows is the
golden wing's (the review page, the golden commands); the golden sink only writes them.

Under ``run --workers`` each worker writes its rows to a directory of its own in the golden
dir (``worker-<i>/``, ``worker_dir``): one writer a directory, so that a worker started again
reads back only its own rows and counts nothing twice. Every reader reads them all
(``load_rows``): one writer's successive states of a row by the newest, the same row of
several writers (a question asked on two workers' partitions) as one, its occurrences added
up."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from monitor.core.lines import GoldenRow

PREFIX = "golden"  # the segments' file names: golden-<time>-<n>.jsonl
TMP_PREFIX = ".tmp-"  # a segment being written: never read


_RECENT = 20  # the recent traces a row keeps (golden.rows.RECENT_TRACES: not imported here,
# the rows' module imports the checks)
_MACHINE = "needs_review"  # a row's status until a reviewer decides (golden.rows)
WORKERS = "worker-"  # a worker's own directory in the golden dir: worker-<i>/


def worker_dir(directory: Path, index: int) -> Path:
    """Where worker ``index`` of ``run --workers`` writes its rows in ``directory``."""
    return directory / f"{WORKERS}{index}"


def is_worker_dir(directory: Path) -> bool:
    """Whether ``directory`` is a worker's own in a golden dir (``worker_dir``)."""
    return directory.name.startswith(WORKERS) and directory.name[len(WORKERS) :].isdigit()


def load_rows(directory: Path) -> dict[str, GoldenRow]:
    """Every row of the golden dir ``directory``: its own segments' and each worker's
    directory's (``worker-<i>/``), merged by id; a row more than one writer holds is one row
    with the occurrences of each (``joined``)."""
    rows = own_rows(directory)
    writers = sorted(directory.glob(f"{WORKERS}*")) if directory.is_dir() else []
    for sub in writers:
        if not sub.is_dir():
            continue
        for rid, row in own_rows(sub).items():
            old = rows.get(rid)
            rows[rid] = row if old is None else joined(old, row)
    return rows


def joined(a: GoldenRow, b: GoldenRow, latest: bool = False) -> GoldenRow:
    """One row as two writers hold it (each counted its own occurrences): the newer state
    (a reviewer's edit first; then the higher count, or with ``latest`` the later last
    sighting) with both writers' counts added, the earliest first and latest last sighting,
    and the examples and recent traces of both."""
    sa, sb = a["ragmon"].get("status"), b["ragmon"].get("status")
    if sa != sb and _MACHINE in (sa, sb):  # a reviewer's edit wins over the machine's copy
        newer, other = (b, a) if sa == _MACHINE else (a, b)
    elif latest:
        newer, other = (a, b) if a["ragmon"]["last_seen"] >= b["ragmon"]["last_seen"] else (b, a)
    else:
        newer, other = (a, b) if _newer(a, b) else (b, a)
    row: GoldenRow = json.loads(json.dumps(newer))
    r, o = row["ragmon"], other["ragmon"]
    r["count"] += o["count"]
    r["first_seen"] = min(r["first_seen"], o["first_seen"])
    r["last_seen"] = max(r["last_seen"], o["last_seen"])
    r["examples"] += [t for t in o["examples"] if t not in r["examples"]]
    recent = r.get("recent_trace_ids", [])
    recent += [t for t in o.get("recent_trace_ids", []) if t not in recent]
    r["recent_trace_ids"] = recent[-_RECENT:]
    return row


def topic_rows(values: Iterable[GoldenRow]) -> dict[str, GoldenRow]:
    """The rows of ``golden.topic`` from its record values in the order read (one partition's
    records in offset order): each writer's latest state of a row (the record key is
    ``<row id>/<writer>``, the value names both), and a row several writers hold as one: the
    sum of their counts, the state of the writer that saw it last (``joined``)."""
    latest: dict[tuple[str, str], GoldenRow] = {}
    for value in values:
        latest[(value["id"], str(value["ragmon"].get("writer", "")))] = value
    rows: dict[str, GoldenRow] = {}
    for (rid, _), row in latest.items():
        old = rows.get(rid)
        rows[rid] = json.loads(json.dumps(row)) if old is None else joined(old, row, latest=True)
    for row in rows.values():  # a copy: the values read stay as they were
        row["ragmon"].pop("writer", None)  # type: ignore[typeddict-item]  # the record's
    return rows


def own_rows(directory: Path) -> dict[str, GoldenRow]:
    """The rows one writer wrote in ``directory`` (not its workers' directories), merged by
    id: the state with the latest ``last_seen`` and highest count wins (segments hold
    successive states of one row)."""
    rows: dict[str, GoldenRow] = {}
    for row in read_rows(directory, PREFIX):
        old = rows.get(row["id"])
        if old is None or _newer(row, old):
            rows[row["id"]] = row
    return rows


def _newer(a: GoldenRow, b: GoldenRow) -> bool:
    ra, rb = a["ragmon"], b["ragmon"]
    if ra.get("status") != rb.get("status") and rb.get("status") == _MACHINE:
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
