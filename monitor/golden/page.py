"""What a candidate row looks like on the review page: the answer cut into pieces with the
checks' evidence marked, the passages the evidence names, the queue's filters, and times for
people. Pure functions of a stored row; the page (``monitor.golden.web``) renders them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from monitor.checks import evidence_of
from monitor.checks.evidence import ConflictEvidence
from monitor.core.evidence import Evidence, Highlight
from monitor.core.lines import CheckLine, GoldenRow


@dataclass(frozen=True)
class Piece:
    """A piece of the answer, marked (number, name, citation, refusal) or not."""

    text: str
    mark: str | None = None  # why it is marked: number, name, citation, refusal


def mark_answer(answer: str, checks: dict[str, CheckLine]) -> list[Piece]:
    """The answer cut into pieces, what the checks' evidence points at marked (unsupported
    numbers and names, invalid citation markers, the refusal phrase) where it occurs; on
    overlap a number wins over a name, a name over a citation, a citation over a refusal."""
    wanted = sorted(
        ((str(h.text), h.why) for h in _highlights(checks)),
        key=lambda w: _MARK_ORDER.get(w[1], len(_MARK_ORDER)),
    )
    spans: list[tuple[int, int, str]] = []
    lower = answer.lower()
    for needle, why in wanted:
        mark_occurrences(lower, needle, why, spans)
    return cut(answer, spans)


Span = tuple[int, int, str]  # start, end, why it is marked


def mark_occurrences(lower: str, needle: str, why: str, spans: list[Span]) -> None:
    """Add to ``spans`` every occurrence of ``needle`` in ``lower`` (a lower-cased text),
    case-insensitively, that overlaps no span already there (the earlier mark wins)."""
    if not needle:
        return
    sought = needle.lower()
    start = lower.find(sought)
    while start != -1:
        end = start + len(needle)
        whole = why != "name" or not (  # a name is marked as a word, not inside one
            (start and lower[start - 1].isalpha()) or (end < len(lower) and lower[end].isalpha())
        )
        if whole and not any(s < end and start < e for s, e, _ in spans):
            spans.append((start, end, why))
        start = lower.find(sought, end if whole else start + 1)


def cut(text: str, spans: list[Span]) -> list[Piece]:
    """``text`` in pieces: each of the (non-overlapping) ``spans`` marked, the rest not."""
    pieces, at = [], 0
    for s, e, why in sorted(spans):
        if s > at:
            pieces.append(Piece(text[at:s]))
        pieces.append(Piece(text[s:e], why))
        at = e
    if at < len(text):
        pieces.append(Piece(text[at:]))
    return pieces


def conflicting_passages(checks: dict[str, CheckLine]) -> set[int]:
    """1-based passage numbers the checks' evidence names (near-duplicates that disagree)."""
    return {i for name, line in _lines(checks) for i in evidence_of(name, line).passages_named()}


_MARK_ORDER = {"number": 0, "name": 1, "citation": 2, "refusal": 3}


def _lines(checks: dict[str, CheckLine]) -> list[tuple[str, CheckLine]]:
    return [(str(n), line) for n, line in checks.items() if isinstance(line, dict)]


def _highlights(checks: dict[str, CheckLine]) -> list[Highlight]:
    return [h for name, line in _lines(checks) for h in evidence_of(name, line).highlights()]


@dataclass(frozen=True)
class CheckView:
    """One check's result as the page lists it: whether it flagged the answer, its one-line
    reason (None where the check has none of its own) and its evidence as labelled text."""

    name: str
    flagged: bool
    applicable: bool
    reason: str | None
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ConflictSide:
    """One passage of a conflicting pair: where it is, the figures only it states, and its
    sentences that state them (the figures alone when no sentence holds one)."""

    passage: int
    doc_id: str | None
    states: tuple[str, ...]
    sentences: tuple[str, ...]


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def conflict_pairs(
    checks: dict[str, CheckLine], texts: Sequence[str]
) -> list[tuple[ConflictSide, ConflictSide]]:
    """The conflicting pairs of ``context_conflict``'s evidence, each side with the sentences
    of its passage (``texts``, in prompt order) that state what the other does not: the two
    statements side by side, instead of the evidence's figures alone."""
    out = []
    for name, line in _lines(checks):
        evidence = evidence_of(name, line)
        if not isinstance(evidence, ConflictEvidence):
            continue
        for c in evidence.conflicts:
            if len(c.passages) != 2:
                continue
            sides: list[ConflictSide] = []
            for n, states in zip(c.passages, (c.first_states, c.second_states), strict=True):
                i = int(n) - 1
                text = texts[i] if 0 <= i < len(texts) else ""
                said = tuple(
                    sentence.strip()
                    for sentence in _SENTENCE_END.split(text)
                    if any(f and f.lower() in sentence.lower() for f in states)
                )
                doc = c.doc_ids[len(sides)] if len(c.doc_ids) > len(sides) else None
                sides.append(ConflictSide(int(n), doc, tuple(states), said))
            out.append((sides[0], sides[1]))
    return out


def check_views(checks: dict[str, CheckLine]) -> list[CheckView]:
    """The checks' results for people: flagged ones first, each field of the evidence as
    text (lists joined, numbers rounded) instead of raw JSON."""
    out = []
    for name, line in _lines(checks):
        evidence = evidence_of(name, line)
        reason = evidence.explain()
        generic = reason == Evidence.explain(evidence)  # the JSON fallback: no reason of its own
        out.append(CheckView(
            name, bool(line.get("flagged")), line.get("applicable") is not False,
            None if generic else reason,
            tuple((k.replace("_", " "), _shown(v)) for k, v in evidence.to_line().items()),
        ))  # fmt: skip
    out.sort(key=lambda v: (not v.flagged, v.name))
    return out


def _shown(value: object) -> str:
    """A field's value as short text."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return "; ".join(_shown(v) for v in value) or "none"
    return str(value)


def matches(row: GoldenRow, state: str, filters: dict[str, str]) -> bool:
    """Whether a row in ``state`` passes the queue's ``filters``."""
    meta = row.get("ragmon", {})
    want = {k: v for k, v in filters.items() if v}
    if want.get("state", "needs_review") not in ("any", state):
        return False
    for key in ("reason", "category", "route", "release"):
        if key in want and str(meta.get(key) or "") != want[key]:
            return False
    return not ("check" in want and want["check"] not in (meta.get("checks") or {}))


def when(value: object) -> str:
    """A time for people: ``2026-12-01 10:57 UTC``; what cannot be read is shown as is."""
    from datetime import UTC, datetime

    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    elif isinstance(value, datetime):
        parsed = value
    else:
        return "" if value is None else str(value)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%d %H:%M UTC")
