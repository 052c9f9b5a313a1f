"""Labelled case files for the text checks, one JSON object per line, grouped by class.

``numbers.jsonl``: ``answer``, ``context`` (passage texts), ``query``, ``unsupported`` (the
figures the check must report, as written in the answer). ``refusal.jsonl``: ``answer``,
``lang``, ``refusal``. ``citation.jsonl``: ``answer``, ``docs`` (the packed passages' doc
ids, in prompt order), ``cited`` and ``invalid`` (ids as the evidence lists them: the index
as digits, or the id as written). Each file carries hard negatives in every class: text that
looks like the thing and is not. A case may carry ``known_miss``: why the check is known to
get it wrong (the label stays what a reader expects; the test expects the miss, strictly).
Read by the tests and by ``bench/quality.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
_FIELDS = {"class", "answer", "context", "query", "docs", "note", "known_miss"}


@dataclass(frozen=True)
class Case:
    """One labelled case: what the check sees and what it must say."""

    cls: str
    answer: str
    context: list[str] = field(default_factory=list)
    query: str = ""
    docs: list[str] = field(default_factory=list)
    expected: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    known_miss: str | None = None  # why the check is known to get this case wrong

    def passages(self) -> list[tuple[str, str]]:
        """(doc_id, text) of the packed passages."""
        if self.docs:
            texts = self.context or [f"Passage {i} of {d}." for i, d in enumerate(self.docs, 1)]
            return list(zip(self.docs, texts, strict=True))
        return [(f"d{i}", t) for i, t in enumerate(self.context, 1)]

    @property
    def id(self) -> str:
        return f"{self.cls}:{self.line}"


def load_cases(name: str) -> list[Case]:
    """The cases of ``tests/quality/{name}.jsonl``; blank lines and ``//`` lines skipped."""
    cases = []
    path = HERE / f"{name}.jsonl"
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        row = json.loads(line)
        cases.append(
            Case(
                cls=row["class"],
                answer=row["answer"],
                context=list(row.get("context", [])),
                query=row.get("query", ""),
                docs=list(row.get("docs", [])),
                expected={k: v for k, v in row.items() if k not in _FIELDS},
                line=n,
                known_miss=row.get("known_miss"),
            )
        )
    return cases
