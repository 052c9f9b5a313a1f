"""The evaluation store's deletions: retention's (``StoreSink.retain``: the rows written before
a time, with everything that goes with them; the pages a store's rows use) and a replay's
(the rows of traces written again)."""

from __future__ import annotations

import sqlite3

DAY = 86_400.0  # seconds: a stored passage's time is refreshed once a day at most (StoreSink)


def delete_before(db: sqlite3.Connection, cutoff: float, inclusive: bool = False) -> int:
    """Delete every row written before ``cutoff`` (at it too when ``inclusive``), a trace's
    body and check rows with it, and the combinations of segments no trace has any more, in
    one transaction; how many traces."""
    op = "<=" if inclusive else "<"
    old = f"SELECT {{}} FROM evaluations WHERE stored {op} ?"
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"DELETE FROM checks WHERE trace_id IN ({old.format('trace_id')})",
                   (cutoff,))  # fmt: skip
        db.execute(f"DELETE FROM bodies WHERE id IN ({old.format('id')})", (cutoff,))
        gone = db.execute(f"DELETE FROM evaluations WHERE stored {op} ?", (cutoff,)).rowcount
        # a combination of segments goes with its last trace (one index probe each)
        db.execute("DELETE FROM segment_sets WHERE NOT EXISTS (SELECT 1 FROM evaluations e "
                   "WHERE e.segments = segment_sets.id)")  # fmt: skip
        db.execute("DELETE FROM segment_values WHERE segments NOT IN (SELECT id FROM "
                   "segment_sets)")  # fmt: skip
        for table in ("followups", "sessions"):
            db.execute(f"DELETE FROM {table} WHERE stored {op} ?", (cutoff,))
        # a day's slack: a passage's time is refreshed once a day at most
        db.execute("DELETE FROM passages WHERE last < ?", (cutoff - DAY,))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return int(gone)


def used_bytes(db: sqlite3.Connection) -> int:
    """The bytes of the store's pages in use (its pages less the free ones)."""
    pages = int(db.execute("PRAGMA page_count").fetchone()[0])
    free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
    size = int(db.execute("PRAGMA page_size").fetchone()[0])
    return (pages - free) * size


def forget(db: sqlite3.Connection, trace_ids: list[str]) -> None:
    """Delete the rows of the traces of ``trace_ids`` that are stored already (a replay:
    they are about to be written again), with their bodies and check rows. Inside the
    caller's transaction."""
    for at in range(0, len(trace_ids), 500):
        chunk = trace_ids[at : at + 500]
        marks = ",".join("?" * len(chunk))
        old = db.execute(
            f"SELECT id, trace_id FROM evaluations WHERE trace_id IN ({marks})", chunk
        ).fetchall()
        if not old:
            continue
        db.executemany("DELETE FROM checks WHERE trace_id = ?", [(t,) for _, t in old])
        db.executemany("DELETE FROM bodies WHERE id = ?", [(i,) for i, _ in old])
        db.executemany("DELETE FROM evaluations WHERE id = ?", [(i,) for i, _ in old])
