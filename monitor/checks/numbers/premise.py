"""A figure of the query that the context gives otherwise: the user's premise ("Since the Pro
plan is £39 a month, ...") backs the answer's figure only while the context says nothing
else of the same thing. The context contradicts it when it states a figure of the same kind
and unit (a currency, "%", the word after it: "mph") with another value, the words before
which share with the words before the query's figure a capitalised word ("Pro" of "Pro
£45/month") or two words ("Ferry Road speed limit: 30 mph" for "the speed limit on Ferry Road
is 40 mph"); the words before a figure are its clause's last few, small words set aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import WORD_AFTER, is_percent, place

WINDOW = 5  # the words before a figure that name what it is
MAX_FIGURES = 200  # the context's figures read (the first ones)
_STOP = frozenset(
    "a an the is are was were be been being am my our your his her their its i i'm im we you "
    "he she it they this that these those on in at of to for from with by as and or but so "
    "since if what how much many does do did can could will would should right please tell "
    "me there here than then about around currently now just only still"
    .split()
)  # fmt: skip
_CLAUSE_END = re.compile(r"[.!?;\n]\s")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’]*")


def _before(text: str, i: int) -> list[str]:
    """The last ``WINDOW`` words before ``text[i]`` in its clause, small words set aside."""
    chunk = text[max(0, i - 100) : i]
    cut = max((m.end() for m in _CLAUSE_END.finditer(chunk)), default=0)
    words = [w.strip("'’") for w in _WORDS.findall(chunk[cut:])]
    return [w for w in words if w.lower() not in _STOP][-WINDOW:]


def _stem(word: str) -> str:
    low = word.lower()
    return low[:-1] if low.endswith("s") and len(low) > 3 else low


def _unit(text: str, raw: str, end: int) -> str:
    """A figure's unit: its currency, "%", or the word written after it (lower-cased)."""
    if raw[:1] in "$€£¥₹":
        return raw[0]
    if is_percent(raw):
        return "%"
    after = WORD_AFTER.match(text, end)
    return after.group(1).lower() if after is not None else ""


def _values(m: Mention) -> set[object]:
    if m.kind == "date":
        return {(mo, d) for _, mo, d in m.dates}
    return {round(r.value, 6) for r in m.readings}


def contradicted(
    query: str, context: str, mention: Mention, asked: Iterable[Mention], stated: Iterable[Mention]
) -> str | None:
    """The context's figure that gives the thing the query's figure ``mention`` states
    another value (see the module), as written; None when there is none. ``asked``: the
    query's figures; ``stated``: the context's."""
    mine = _values(mention)
    ours = next((q for q in asked if q.kind == mention.kind and _values(q) & mine), None)
    if ours is None or not mine:
        return None
    at = place(query, ours.raw)
    if at < 0:
        return None
    unit = _unit(query, ours.raw, at + len(ours.raw))
    words = _before(query, at)
    named = {_stem(w) for w in words if w[:1].isupper()}
    subject = {_stem(w) for w in words}
    if not subject:
        return None
    for n, theirs in enumerate(stated):
        if n >= MAX_FIGURES:
            break
        if theirs.kind != mention.kind:
            continue
        values = _values(theirs)
        if not values or values & mine:
            continue
        i = place(context, theirs.raw)
        if i < 0 or _unit(context, theirs.raw, i + len(theirs.raw)) != unit:
            continue
        shared = subject & {_stem(w) for w in _before(context, i)}
        if shared & named or len(shared) >= 2:
            return theirs.raw
    return None
