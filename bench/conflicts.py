"""Labelled passage sets for ``context_conflict``: the case file and ConflictNQ (development
data, read from where you put it; nothing of it is committed here).

* ``tests/quality/conflict.jsonl``: stale and current versions of one page (a figure changed)
  against passages that differ without conflicting (other plans, regions, versions,
  periods, products; the same page reworded).
* ConflictNQ (``4-en/ConflictNQ`` on GitHub, ``dataset/conflict_nq_{val,test}.jsonl``):
  Natural Questions items, each with the real Wikipedia passage and five generated passages
  that support a fabricated answer. A real passage next to a fabricated one is a conflict
  (``real_vs_fabricated``); two fabricated passages of one item agree
  (``fabricated_agreeing``); real passages of two different items are unrelated
  (``unrelated``). Chosen because it is fetchable here as plain JSON lines (ConflictBank,
  ContraDoc and the knowledge-conflict sets of Xie et al. and Wang et al. publish their data
  only on Hugging Face or as files this machine cannot reach), and because its conflicts
  are what a RAG context meets when a wrong page is retrieved next to a right one; they
  are not near-duplicates, so it measures how much of that the check cannot see.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PassageSet:
    """Passages packed together, and whether a human or the set's construction says they
    conflict."""

    cls: str
    passages: tuple[str, ...]
    conflict: bool


def conflict_nq(path: Path) -> Iterator[PassageSet]:
    """The passage pairs of a ConflictNQ JSON-lines file (see the module docstring)."""
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for n, item in enumerate(items):
        real = [p["passage"] for p in item.get("real_passages", []) if p.get("passage")]
        fake = [p["passage"] for p in item.get("fake_passages", []) if p.get("passage")]
        if real and fake:
            yield PassageSet("conflictnq_real_vs_fabricated", (real[0], fake[0]), True)
        if len(fake) >= 2:
            yield PassageSet("conflictnq_fabricated_agreeing", (fake[0], fake[1]), False)
        other = items[(n + 1) % len(items)].get("real_passages") or []
        if real and other and other[0].get("passage"):
            yield PassageSet("conflictnq_unrelated", (real[0], other[0]["passage"]), False)


_WORD = re.compile(r"\w+")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def naive_conflict(passages: tuple[str, ...]) -> bool:
    """The baseline: two passages whose first five words are the same and whose figures (digit
    runs) differ."""
    heads = [tuple(w.lower() for w in _WORD.findall(p)[:5]) for p in passages]
    figures = [frozenset(_FIGURE.findall(p)) for p in passages]
    return any(
        heads[i] == heads[j] and figures[i] != figures[j]
        for i in range(len(passages))
        for j in range(i + 1, len(passages))
    )
