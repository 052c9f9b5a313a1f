"""Each check's own fixture: ``<check name>.jsonl``, native ``ragmon.trace/v1`` records on
which the check is flagged and passes (a score: is scored) and each metric it declares gets a
value. A new check brings its file; ``tests/unit/checks/test_fixtures.py`` fails on a check
without one and on a file without its check. The verdict guard keeps each fixture's results
in its check's stored file only, so a new check rewrites no other check's verdicts.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def names() -> list[str]:
    """The checks with a fixture here."""
    return sorted(p.stem for p in HERE.glob("*.jsonl"))


def records(name: str) -> list[bytes]:
    """Check ``name``'s fixture, one native record per line."""
    text = (HERE / f"{name}.jsonl").read_text(encoding="utf-8")
    return [line.encode() for line in text.splitlines() if line.strip()]
