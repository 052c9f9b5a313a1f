"""The weekday an answer gives one of its dates ("Friday 9 January 2026", "on 2 January 2025,
which is a Friday", "17 June 2025 (Tuesday)", "… on 17 June 2025. That date falls on a
Wednesday."), which the scan does not read as a figure: a claim the calendar judges. It is
backed when it is the date's weekday (a day-first or month-first date, either reading), or
when the context writes that weekday right before that date. A date without its year takes
the year of the context's date of that day and month when the context gives one year for it;
otherwise the weekday is not judged (a year is never guessed). A weekday given a date the
answer gets wrong is not judged either: the date is the error, and it is reported itself."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable

from monitor.checks.numbers.mentions import Mention

_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DAY = "(" + "|".join(_NAMES) + ")"
WEEKDAY = re.compile(r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b")  # a cheap gate
# The weekday right before a date: "Friday 9 January", "**Friday**, 9 January", "Friday the 9th"
_BEFORE = re.compile(rf"\b{_DAY}[\s*_,]*(?:the\s+)?[\s*_]*$")
# Right after it: "(Friday)", ", which is a Friday", " - a Friday"
_AFTER = re.compile(
    rf"[\s*_]*(?:\(\s*{_DAY}\s*\)|,?\s+(?:which|that|this|it)\s+(?:is|was|will\s+be|falls\s+on)"
    rf"\s+a\s+[\s*_]*{_DAY}\b|\s*[-–—]\s*a\s+[\s*_]*{_DAY}\b)"
)
# In the next sentence, naming the date: "That date falls on a Wednesday", "It is a Friday"
_NEXT = re.compile(
    r"[^.!?\n]{0,40}?[.!?]\s+(?:That|This|It|The)\b[^.!?\n\d]{0,16}?\b(?:is|was|falls\s+on"
    rf"|will\s+be)\s+a\s+[\s*_]*{_DAY}\b"
)


def _weekday(date: tuple[int | None, int, int | None], year: int | None) -> int | None:
    y, month, day = date
    y = y if y is not None else year
    if y is None or day is None:
        return None
    try:
        return datetime.date(y, month, day).weekday()
    except ValueError:  # 30 February: no weekday
        return None


def _year_of(date: tuple[int | None, int, int | None], context: Iterable[Mention]) -> int | None:
    """The one year the context's dates give ``date``'s day and month, or None."""
    years = {
        y for m in context if m.kind == "date" for y, mo, d in m.dates
        if y is not None and (mo, d) == date[1:]
    }  # fmt: skip
    return years.pop() if len(years) == 1 else None


def _given(answer: str, at: int, end: int) -> str | None:
    """The weekday the answer gives the date written at ``answer[at:end]``, or None."""
    before = _BEFORE.search(answer, max(0, at - 24), at)
    if before is not None:
        return before.group(1)
    after = _AFTER.match(answer, end) or _NEXT.match(answer, end)
    if after is None:
        return None
    return next(g for g in after.groups() if g)


def weekdays(
    answer: str, context: str, dates: Iterable[Mention], figures: Callable[[], list[Mention]]
) -> list[tuple[str, bool]]:
    """The weekdays the answer gives its ``dates`` (the answer's dates the check backed), each
    once as written, and whether each is the date's (see the module); ``figures``, the
    context's figures (read only for a date without its year)."""
    out: dict[str, bool] = {}
    lower: str | None = None  # the context lower-cased, when the calendar says otherwise
    for m in dates:
        days: set[int | None] | None = None  # the date's weekdays, when a weekday is given
        at = answer.find(m.raw)
        while at >= 0:
            word = _given(answer, at, at + len(m.raw))
            at = answer.find(m.raw, at + 1)
            if word is None:
                continue
            if days is None:
                yearless = any(d[0] is None for d in m.dates)
                year = _year_of(m.dates[0], figures()) if yearless else None
                days = {_weekday(d, year) for d in m.dates} - {None}
            if not days:
                break  # no year: not judged
            backed = _NAMES.index(word) in days
            if not backed:
                lower = context.lower() if lower is None else lower
                backed = any(f"{word.lower()}{sep}{m.raw.lower()}" in lower for sep in (" ", ", "))
            out[word] = out.get(word, True) and backed
    return list(out.items())
