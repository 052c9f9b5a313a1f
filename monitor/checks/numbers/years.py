"""The steps that read the context's years (see ``derived``): a decade or a century that
holds a year the context states, and an age two of its years give."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Protocol

from monitor.checks.numbers.mentions import EXPIRY, Lazy, Mention, locale_of, scan
from monitor.checks.numbers.patterns import SPELLED
from monitor.checks.numbers.quantities import Around

# "the 1960s" (the decade's two middle digits), and "in her 60s" (an age, not a decade)
_FULL_DECADE = re.compile(r"(?<!\d)\d\d(\d0)['’]?s\b")
_AGE_DECADE = re.compile(
    r"\b(?:her|his|their|my|your|our|its)(?:[ \t]+(?:early|mid|late))?[ \t-]+['‘’]?$"
)
# A decade written with two digits reads as one after "the" ("the 60s", "the early 60s"), an
# apostrophe ("'60s") or another decade ("the 1950s and 60s"); "after 60s" is sixty seconds.
_DECADE_BEFORE = re.compile(
    r"(?:\bthe[ \t]+(?:(?:early|mid|late)[ \t-]+)?|(?:\bthe[ \t]+|['‘’]|\d\d)\d0['’]?s"
    r"[ \t]*(?:,|and|or|to|through|into|-|–|/)[ \t]*(?:the[ \t]+)?)['‘’]?$|['‘’]$"
)
_CENTURY_AFTER = re.compile(r"\s*-?\s*century\b")
_AGE_AFTER = re.compile(r"\s?-?\s?years?[- ]old\b")
_AGE_BEFORE = re.compile(r"\b(?:aged|age of|at age)\s*$")


class Years(Protocol):
    """What these steps read of ``derived.Derivation``."""

    context: str

    @property
    def years(self) -> list[tuple[float, str]]:
        """Every year the context states, alone or in a date, with how it is written."""
        ...

    @property
    def sentences(self) -> list[str]:
        """The context's sentences."""
        ...

    @property
    def sentence_figures(self) -> list[list[tuple[str, float]]]:
        """Each context sentence's figures, as written and as values."""
        ...

    def rest(self, mention: Mention) -> str:
        """The answer after the figure, lower-cased, to the end of its sentence."""
        ...


def decade(d: Years, mention: Mention, value: float, around: Around) -> str | None:
    """A decade ("the 1990s") that holds a year the context states ("founded in 1994");
    one written with two digits ("the 60s", "the '60s") holds a year or a decade of any
    century ("1962", "the 1960s"), but not after a possessive ("in her 60s": an age) and only
    written as a decade: after "the", an apostrophe or another decade ("after 60s": seconds)."""
    raw = mention.raw
    if len(raw) == 3 and raw[2] == "s" and raw[:2].isdigit() and raw[1] == "0":
        if _AGE_DECADE.search(around[0]) or not _DECADE_BEFORE.search(around[0]):
            return None
        for m in _FULL_DECADE.finditer(d.context):
            if m.group(1) == raw[:2]:
                return f"the decade of {m.group(0)}"
        for year, written in d.years:
            if value <= year % 100 <= value + 9:
                return f"the decade of {written}"
        return None
    if not (len(raw) == 5 and raw[4] == "s" and raw[:4].isdigit() and raw[3] == "0"):
        return None
    for year, written in d.years:
        if value <= year <= value + 9:
            return f"the decade of {written}"
    return None


def century(d: Years, mention: Mention, value: float, around: Around) -> str | None:
    """A century ("the 21st century") that holds a year the context states (2015; the
    years ending in 00 count for either century, as people write them)."""
    raw = mention.raw.lower()
    if not (raw.endswith(("st", "nd", "rd", "th")) and 1 <= value <= 30):
        return None
    if not _CENTURY_AFTER.match(d.rest(mention)):
        return None
    for year, written in d.years:
        if (value - 1) * 100 <= year <= value * 100:
            return f"the century of {written}"
    return None


def age(d: Years, mention: Mention, value: float, around: Around) -> str | None:
    """An age ("45 years old", "aged 45", "a 45-year-old") that two years of one context
    sentence give ("born in 1970 and died in 2015", "(1970-2015)"): their difference, or
    one less (the birthday not yet reached)."""
    before, sentence, _ = around
    if not (_AGE_AFTER.match(d.rest(mention)) or _AGE_BEFORE.search(before)):
        return _age_on(d, value, before, sentence)
    for figures in d.sentence_figures:
        years = sorted({(v, r) for r, v in figures if r.isdigit() and 1000 <= v <= 2100})
        for i, (a, ra) in enumerate(years):
            for b, rb in years[i + 1 :]:
                if b - a - 1 <= value <= b - a:
                    return f"{rb} - {ra}"
    return None


# An age said on a date: "will be 37 on 1 June 2025", "turns 18 on ..."; a birth date
_AGE_ON = re.compile(r"\b(?:will be|would be|is|was|turns?|turned|be)\s*$")
_BORN = re.compile(r"\b(?:born|birth|dob|d\.o\.b\.)", re.IGNORECASE)


def _age_on(d: Years, value: float, before: str, sentence: str) -> str | None:
    """An age on a full date of the answer's sentence ("will be 37 on the 1 June 2025 start
    date") from a birth date of the context ("Date of birth: 14 March 1988"): the full years
    between them, exactly."""
    if value != int(value) or not 0 <= value <= 120 or _AGE_ON.search(before) is None:
        return None
    births = [(day, m.raw) for s in d.sentences if _BORN.search(s)
              for m in scan(s, Lazy(functools.partial(locale_of, s))) if m.kind == "date"
              for day in m.dates[:1]]  # fmt: skip
    if not births:
        return None
    for m in scan(sentence, Lazy(functools.partial(locale_of, sentence))):
        for y, mo, dd in m.dates[:1] if m.kind == "date" else ():
            for (by, bm, bd), written in births:
                if y is None or dd is None or by is None or bd is None:
                    continue
                if y - by - ((mo, dd) < (bm, bd)) == value:
                    return f"the age on {m.raw} of one born {written}"
    return None


# A count of days or nights; the first day of a range written with the month once ("4-19
# April", "4 to 19 April"); a sentence that may hold a date (a month, or digits joined by a
# dash or slash)
_SPAN_AFTER = re.compile(r"\s?-?\s?(days?|nights?)\b")
_DAY_BEFORE = re.compile(r"\b(\d{1,2})\s*(?:-|–|to|until|till|through)\s*$")
_DATED = re.compile(r"(?<![a-z])(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\d[-/]\d", re.I)
Day = tuple[int | None, int, int]  # (year or None, month, day)
# A text's figures (``scan``), read once by their keeper (``index.NumberLookup.mentions``)
Figures = Callable[[], list[Mention]]


def date_span(d: Years, mention: Mention, value: float, around: Around) -> str | None:
    """A count of days between two dates of one sentence, the answer's or the context's
    ("16 days" for "from 4 April to 19 April": both days counted, or 15, the days from one to
    the other); a count of nights, the days from one to the other only. A year is read from
    the other date where one lacks it; with neither, the span holds in a leap year or not."""
    after = _SPAN_AFTER.match(d.rest(mention))
    if after is None or value != int(value) or not 1 <= value <= 366:
        return None
    nights = after.group(1).startswith("night")
    for text in (around[1], *d.sentences):
        days = _days_of(text) if _DATED.search(text) else []
        for i, (a, ra) in enumerate(days):
            for b, rb in days[i + 1 :]:
                if any(value in (gap, gap + (not nights)) for gap in _gaps(a, b)):
                    return f"{ra} to {rb}"
    return None


def _days_of(text: str) -> list[tuple[Day, str]]:
    """The dates of ``text`` with a day and a month, as written, in order; "4" of "4-19
    April" is the 4th of April."""
    out: list[tuple[Day, str]] = []
    at = 0
    for m in scan(text, Lazy(functools.partial(locale_of, text))):
        i = text.find(m.raw, at)
        at = i + len(m.raw) if i >= 0 else at
        if m.kind != "date" or i < 0:
            continue
        for year, month, day in m.dates[:1]:
            if day is None:
                continue
            first = _DAY_BEFORE.search(text, 0, i)
            if first is not None and int(first.group(1)) < day:
                out.append(((year, month, int(first.group(1))), first.group(1)))
            out.append(((year, month, day), m.raw))
    return out


def _gaps(a: Day, b: Day) -> set[int]:
    """The days from ``a`` to ``b`` (``b`` the later: a year after where no year is written
    and it reads earlier), in the years they could be in."""
    known = a[0] or b[0]
    out: set[int] = set()
    for year in (known,) if known is not None else (2001, 2004):
        try:
            start = date(a[0] or year, a[1], a[2])
            end = date(b[0] or year, b[1], b[2])
            if end < start and b[0] is None:
                end = date(end.year + 1, end.month, end.day)
        except ValueError:  # 29 February in a year that has none, 31 April
            continue
        if end > start:
            out.add((end - start).days)
    return out


# A span a date is counted from: "24 months", "2 years", "30 days", "a year", "twelve weeks"
_SPAN = re.compile(
    r"\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"[ -](day|week|month|year)s?\b",
    re.IGNORECASE,
)


# The day after a date the context states: "reopens the following day", "the next day"
_NEXT_DAY = re.compile(r"\b(?:following|next)\s+day\b|\bthe\s+day\s+after\b", re.IGNORECASE)


def date_after(context: str, mention: Mention, figures: Figures) -> str | None:
    """A date of the answer that is a full date of the context moved by a span the context
    states ("15 August 2026" for "24 months from ... Purchase date: 15/08/2024"; "2 January"
    for "closed to 1 January 2026 ... reopens the following day": the answer's date without
    its year is in the year the move lands in), or one day short of it (an end "until" the
    day before); ``figures``: the context's (``scan``), asked for only when the answer's
    date and the context's span are there."""
    if mention.kind != "date" or not mention.dates or mention.dates[0][2] is None:
        return None
    year, month, day = mention.dates[0]
    spans = [(int(n) if n.isdigit() else SPELLED.get(n.lower(), 1), unit.lower())  # (a, an: 1)
             for n, unit in _SPAN.findall(context)]  # fmt: skip
    if _NEXT_DAY.search(context) is not None:
        spans.append((1, "day"))
    if not spans:
        return None
    for start, written in _full_dates(figures()):
        for n, unit in spans:
            end = _moved(start, n, unit)
            if end is None:
                continue
            try:
                target = date(year or end.year, month, day or 0)
            except ValueError:  # "31/02/2024": no day of the calendar
                return None
            if 0 <= (end - target).days <= 1:
                return f"{written} + {n} {unit}s"
    return None


def _full_dates(figures: list[Mention]) -> list[tuple[date, str]]:
    out = []
    for m in figures:
        for y, mo, d in m.dates[:1] if m.kind == "date" else ():
            if y is not None and d is not None:
                try:
                    out.append((date(y, mo, d), m.raw))
                except ValueError:
                    continue
    return out


def _moved(start: date, n: int, unit: str) -> date | None:
    """``start`` moved ``n`` days, weeks, months or years on (a month's day past its end: its
    last day)."""
    if unit in ("day", "week"):
        return start + timedelta(days=n * (7 if unit == "week" else 1))
    months = start.month - 1 + n * (12 if unit == "year" else 1)
    y, m = start.year + months // 12, months % 12 + 1
    for d in (start.day, 30, 29, 28):
        try:
            return date(y, m, min(start.day, d))
        except ValueError:
            continue
    return None


def month_of_expiry(context: str, mention: Mention) -> str | None:
    """A month and year of the answer ("November 2026") that a card expiry of the context
    writes ("11/26", "11/2026")."""
    if mention.kind != "date" or not mention.dates:
        return None
    year, month, day = mention.dates[0]
    if year is None or day is not None:
        return None
    for m in EXPIRY.finditer(context):
        if int(m.group(1)) == month and 2000 + int(m.group(2)) == year:
            return m.group(0)
    return None


# A span in hours and/or minutes ("2 hours 20 minutes", "2h 20m", "90 minutes", "3 hours")
_HM = re.compile(
    r"\b(?:(\d{1,2})\s*(?:h|hrs?|hours?)\b\.?\s*(?:and\s+)?)?(?:(\d{1,3})\s*(?:m|mins?|minutes?)\b)?",
    re.IGNORECASE,
)


def time_after(context: str, mention: Mention, figures: Figures) -> str | None:
    """A clock time of the answer that is a clock time of the context moved by a span the
    context states, either way ("9:50pm" for "starts 19:30" and "running time 2 hours 20
    minutes"), past midnight too; ``figures``: the context's (``scan``)."""
    if mention.kind != "time" or not mention.readings:
        return None
    target = mention.readings[0].value
    starts = [m.readings[0].value for m in figures() if m.kind == "time" and m.readings]
    spans = [(int(m.group(1) or 0) * 60 + int(m.group(2) or 0), m.group(0).strip())
             for m in _HM.finditer(context) if m.group(1) or m.group(2)]  # fmt: skip
    if not starts or len(starts) > _FEW or len(spans) > _FEW:
        return None  # (a timetable's times and spans would back almost any time)
    for span, written in spans:
        for start in starts:
            if span and any((start + way * span - target) % 1440 == 0 for way in (1, -1)):
                return f"{written} from a clock time"
    return None


_FEW = 4
