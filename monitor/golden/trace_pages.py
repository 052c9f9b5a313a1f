"""The trace pages of the review page's server, over the evaluation store (``store.path``):
``/trace/<id>`` (any stored trace with its evidence marked in the answer and in the packed
context), ``/session/<id>`` (the turns in order with their signals and the outcome) and
``/search`` (by route, release, check, segment and time window, with counts). Several
stores (a group's workers' files, several ``--store``) are read as one
(``monitor.golden.stores``); one that is missing or damaged is a line on the page, the
others still shown. Same login,
CSP, CSRF and TLS as the review page: the routes are the review site's own. Everything shown
is untrusted text, escaped by the templates."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import Response

from monitor.checks import evidence_of
from monitor.checks.evidence import ConflictEvidence
from monitor.core.store import StoreUnreadable
from monitor.golden.page import (
    Piece,
    Span,
    check_views,
    conflict_pairs,
    conflicting_passages,
    cut,
    mark_answer,
    mark_occurrences,
)
from monitor.golden.stores import EvaluationStores
from monitor.golden.traces import Search, StoredTrace

_FIGURE = re.compile(r"[$€£]?\d[\d,.]*(?:\s?%)?")
_T = TypeVar("_T")
SEARCH_KEYS = ("route", "release", "check", "outcome", "segment", "since", "until")


@dataclass(frozen=True)
class PassageView:
    """A packed passage as the trace page shows it: its place, ids, marked text and why it
    is marked (named by a check's evidence, cited by a judge's claim)."""

    number: int
    doc_id: str | None
    pieces: tuple[Piece, ...]
    named: bool
    claims: tuple[str, ...]


def mark_passage(text: str, figures: bool, states: tuple[str, ...]) -> list[Piece]:
    """``text`` in pieces: the figures a conflict names (``states``) marked ``conflict``;
    every other figure marked ``figure`` when ``figures`` (the answer stated a figure the
    context does not: the passage's own figures beside it)."""
    spans: list[Span] = []
    lower = text.lower()
    for state in states:
        mark_occurrences(lower, state, "conflict", spans)
    if figures:
        for m in _FIGURE.finditer(text):
            if not any(s < m.end() and m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), "figure"))
    return cut(text, spans)


def passage_views(stored: StoredTrace) -> list[PassageView]:
    """The packed passages of a stored trace with what the evidence and the judge's claims
    point at."""
    record, line = stored.record, stored.line
    checks = line.get("checks") or {}
    named = conflicting_passages(checks)
    states: dict[int, tuple[str, ...]] = {}
    for name, c in checks.items():
        evidence = evidence_of(name, c)
        if isinstance(evidence, ConflictEvidence):
            for conflict in evidence.conflicts:
                sides = (conflict.first_states, conflict.second_states)
                for n, said in zip(conflict.passages, sides, strict=False):
                    states[int(n)] = (*states.get(int(n), ()), *said)
    numbers = (checks.get("unsupported_numbers") or {}).get("flagged") is True
    judge = line.get("judge") or {}
    claims: dict[int, list[str]] = {}
    for c in judge.get("claims") or []:
        if isinstance(c, dict) and isinstance(c.get("passage"), int):
            claims.setdefault(c["passage"], []).append(f"{c.get('label')}: {c.get('text')}")
    out = []
    for i, p in enumerate(record.get("context") or [], 1):
        pieces = mark_passage(str(p.get("text") or ""), numbers, states.get(i, ()))
        out.append(PassageView(i, p.get("doc_id"), tuple(pieces), i in named,
                               tuple(claims.get(i, ()))))  # fmt: skip
    return out


def _time(value: str) -> float | None:
    """A search's time bound: ISO 8601 (``2026-12-01T10:00``, UTC unless it says) or Unix
    seconds; None when empty or unreadable."""
    value = value.strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def seconds_when(value: float) -> str:
    """A stored trace's time for people."""
    return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class TracePages:
    """The handlers over the stores ``stores`` name (each with its workers' files beside it,
    looked for at each request); ``page`` renders a template as the review site does,
    ``row_of`` names the candidate row a trace went into (or None)."""

    def __init__(
        self,
        stores: Sequence[Path],
        page: Callable[..., Response],
        row_of: Callable[[str], str | None],
    ) -> None:
        self.stores = tuple(stores)
        self.page = page
        self.row_of = row_of

    def _read(self, read: Callable[[EvaluationStores], _T]) -> tuple[_T, list[str]] | Response:
        """``read`` of the stores and the problems met (one line each), or the page that
        says that no store can be read."""
        try:
            stores = EvaluationStores(self.stores)
        except StoreUnreadable as exc:
            return self._unreadable(exc)
        try:
            return read(stores), stores.problems
        except StoreUnreadable as exc:
            return self._unreadable(exc)
        finally:
            stores.close()

    def _unreadable(self, exc: StoreUnreadable) -> Response:
        return self.page("message.html", 503, title="No evaluation store", message=str(exc))

    def trace(self, trace_id: str) -> Response | None:
        """The trace's page, or None when no store holds it."""
        read = self._read(lambda s: s.trace(trace_id))
        if isinstance(read, Response):
            return read
        found, problems = read
        if found is None:
            return None
        line, record = found.line, found.record
        checks = line.get("checks") or {}
        judge = line.get("judge") or {}
        agent = sorted((k.removeprefix("ragmon.agent."), v)
                       for k, v in (record.get("attributes") or {}).items()
                       if k.startswith("ragmon.agent"))  # fmt: skip
        texts = [str(p.get("text") or "") for p in record.get("context") or []]
        return self.page(
            "trace.html", t=found, record=record, line=line, when=seconds_when(found.time),
            answer=mark_answer(str(record.get("answer") or ""), checks),
            passages=passage_views(found), checks=check_views(checks),
            pairs=conflict_pairs(checks, texts), judge=judge, claims=judge.get("claims") or [],
            agent=agent, row=self.row_of(found.trace_id), problems=problems,
        )  # fmt: skip

    def session(self, request: Request) -> Response:
        """A session's turns in order, each with its checks and what the next turn said, and
        the session's outcome."""
        sid = str(request.path_params["session_id"])
        read = self._read(lambda s: s.session(sid))
        if isinstance(read, Response):
            return read
        found, problems = read
        if found is None:
            return self.page("message.html", 404, title="No such session",
                             message=f"The store holds no session {sid}.",
                             problems=problems)  # fmt: skip
        turns = [(t, seconds_when(t.time)) for t in found.turns]
        return self.page("session.html", s=found, turns=turns, problems=problems)

    def search(self, request: Request) -> Response:
        """The traces that match the filters: their count, each check's count among them,
        the newest fifty."""
        given = {k: request.query_params.get(k, "") for k in SEARCH_KEYS}
        wanted = Search(route=given["route"] or None, release=given["release"] or None,
                        check=given["check"] or None, outcome=given["outcome"] or "flagged",
                        segment=given["segment"] or None, since=_time(given["since"]),
                        until=_time(given["until"]))  # fmt: skip
        read = self._read(lambda s: (s.search(wanted), s.options()))
        if isinstance(read, Response):
            return read
        (result, options), problems = read
        found = [(f, seconds_when(f.time)) for f in result.traces]
        return self.page("search.html", given=given, result=result, found=found,
                         options=options, problems=problems)  # fmt: skip
