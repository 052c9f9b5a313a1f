"""Finding and normalising the numbers, amounts, percentages and dates a text states.

The naive approach (pull every digit run out of answer and context, diff the sets) is noisy on
real answers: list markers, citation markers, thousands separators, decimal commas, currency,
percent spelled out, dates written three ways, rounded figures. This module turns a text into
``Mention``s whose ``values`` are comparable across all of those spellings.

A mention can have several readings (``1.600`` is 1.6 in English and 1600 in German); it is
supported when any reading is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_SCALES = {
    "thousand": 1e3, "k": 1e3, "K": 1e3,
    "million": 1e6, "mn": 1e6, "M": 1e6, "mio": 1e6,
    "billion": 1e9, "bn": 1e9, "B": 1e9,
    "trillion": 1e12, "tn": 1e12,
}  # fmt: skip

# Spelled-out numbers. In the context any of them supports the digit form ("six weeks" backs
# "6 weeks"). In the answer they are only read as a number claim when a unit noun follows
# ("six weeks"), because "one of the plans" or "no one" are not claims about quantities.
_SPELLED = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90,
    "hundred": 100, "dozen": 12,
}  # fmt: skip
_SPELLED_CLAIM = "|".join(k for k in _SPELLED if k not in ("one", "hundred"))
_UNITS = (
    r"(?:(?:business|calendar|working|full|more|additional|consecutive|separate)\s+)?"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|times|percent|per\s?cent"
    r"|dollars|euros|pounds|items|users|seats|devices|licen[cs]es|installments|payments"
    r"|attempts|steps|people|employees|members|accounts|copies|tickets|nights|sessions)\b"
)

# One scanner, alternatives in priority order: dates and times first so their parts are not
# read as loose numbers, then amounts, then spelled-out quantities.
_SCAN = re.compile(
    rf"""
    (?P<iso>(?<!\d)(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d))
  | (?P<dmy>(?<![\d.,/])(?P<a>\d{{1,2}})(?P<sep>[/.])(?P<b>\d{{1,2}})(?P=sep)(?P<y>\d{{4}}|\d{{2}})(?![\d/]|[.,]\d))
  | (?P<mdy>(?P<mdy_m>{_MONTH})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<mdy_y>\d{{4}})(?!\d))?)
  | (?P<dmy2>(?<!\d)(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_m>{_MONTH})\.?(?:,?\s+(?P<dm_y>\d{{4}})(?!\d))?)
  | (?P<my>(?P<my_m>{_MONTH})\.?,?\s+(?P<my_y>\d{{4}})(?!\d))
  | (?P<time>(?<![\d.])(?P<th>\d{{1,2}}):(?P<tm>\d{{2}})(?!\d)(?:\s?(?P<tap>[ap])\.?m\.?(?![a-z]))?
      |(?<![\d.,])(?P<th2>\d{{1,2}})\s?(?P<tap2>[ap])\.?m\.?(?![a-z]))
  | (?P<ident>(?<![\w-])\d+(?:-\d+){{2,}}(?![\w-]))
  | (?P<frac>(?<![\w/.])\d+/\d+(?![\w/]))
  | (?P<num>
        (?<![A-Za-z_\d])(?<![A-Za-z]-)(?<!\d[.,])
        (?P<cur>[$€£¥]\s?)?
        (?P<body>\d{{1,3}}(?:(?P<tsep>[,.\u00a0\u202f'])\d{{3}})(?:(?P=tsep)\d{{3}})*(?:[.,]\d+)?(?!\d)
                 |\d+(?:[.,]\d+)?)
        (?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|mio)(?![a-z])
          |(?P<scale2>[kKMB])(?![A-Za-z\d]))?
        (?P<ord>st|nd|rd|th)?
        (?:\s?(?P<pct>%|percent(?![a-z])|per\s?cent(?![a-z])))?
        (?:\s?(?P<cur2>USD|EUR|GBP|€|dollars?(?![a-z])|euros?(?![a-z])))?
        (?![A-Za-z\d])
    )
  | (?P<spelled>\b(?i:(?P<sw>{_SPELLED_CLAIM}))\s+{_UNITS})
    """,
    re.VERBOSE,
)

# What is not a claim in an answer: list markers, citation markers, footnotes, URLs, e-mail.
_ANSWER_NOISE = re.compile(
    r"""
      (?m:^[ \t]*(?:[-*•][ \t]*)?\(?\d{1,2}[.)](?=\s))   # "1." / "2)" list markers
    | (?m:^[ \t]*\#{1,6}[ \t]*\d{1,2}[.)]?)               # "## 2." headings
    | \[\^?[^\[\]\n]{1,60}\]                              # [1] [1, 2] [doc-3] [^2]
    | 【[^】]{0,60}】                                      # 【1†source】
    | [¹²³⁴⁵⁶⁷⁸⁹⁰]+                                       # superscript footnotes
    | https?://\S+ | www\.\S+                             # URLs
    | [\w.+-]+@[\w-]+\.[\w.-]+                            # e-mail addresses
    | \b(?:v|version\s)\d+(?:\.\d+)+                      # version strings
    """,
    re.VERBOSE,
)

_IDIOMS = frozenset({"24/7", "365"})
_EU_HINT = re.compile(r"\d\.\d{3},\d|(?<![\d,])\d+,\d{1,2}(?![\d,])")
_US_HINT = re.compile(r"\d,\d{3}\.\d|(?<![\d.])\d+\.\d{1,2}(?![\d.])")


@dataclass(frozen=True, slots=True)
class Reading:
    """One interpretation of a numeric mention: its value and the unit of its last digit."""

    value: float
    precision: float  # 1 for "12", 0.1 for "12.5", 1e6 for "181 million"


@dataclass(frozen=True, slots=True)
class Mention:
    """A number, amount, percentage, time or date as it appears in a text."""

    raw: str
    kind: str  # number | date | time | ident | fraction
    readings: tuple[Reading, ...] = ()
    dates: tuple[tuple[int | None, int, int | None], ...] = ()  # (year, month, day)
    parts: tuple[float, ...] = field(default=())  # plain numbers a date also backs (day, year)


def locale_of(text: str) -> str | None:
    """'eu' if the text writes decimals with a comma, 'us' if with a point, None if unclear."""
    eu = _EU_HINT.search(text) is not None
    us = _US_HINT.search(text) is not None
    if eu and not us:
        return "eu"
    if us and not eu:
        return "us"
    return None


def _body_readings(body: str, locale: str | None) -> list[tuple[float, int]]:
    """(value, decimals) readings of a digit body with separators."""
    for space in ("\u00a0", "\u202f", "'"):
        if space in body:
            return _body_readings(body.replace(space, ""), locale)
    has_comma, has_dot = "," in body, "." in body
    if has_comma and has_dot:
        dec = "," if body.rfind(",") > body.rfind(".") else "."
        ths = "." if dec == "," else ","
        intpart, _, frac = body.replace(ths, "").partition(dec)
        return [(float(f"{intpart}.{frac}"), len(frac))]
    if not (has_comma or has_dot):
        return [(float(body), 0)]
    sep = "," if has_comma else "."
    groups = body.split(sep)
    grouped = len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])
    if len(groups) > 2:
        # "1,600,000" / "1.600.000": only a thousands reading is possible.
        return [(float("".join(groups)), 0)] if grouped else []
    thousands = (float("".join(groups)), 0)
    decimal = (float(f"{groups[0]}.{groups[1]}"), len(groups[1]))
    if not grouped:
        return [decimal]
    # One group of three digits after the separator: "1,600" or "1.600". The text's decimal
    # convention decides; English is the default.
    decimal_sep = "," if locale == "eu" else "."
    return [decimal] if sep == decimal_sep else [thousands]


def _year(y: str) -> int:
    n = int(y)
    return n + 2000 if len(y) == 2 else n


def _month(name: str) -> int:
    return _MONTHS[name[:3].lower()]


def _date(m: re.Match[str], kind: str) -> Mention | None:
    g = m.group
    raw = m.group(0)
    if kind == "iso":
        y, mo, d = int(g("iy")), int(g("im")), int(g("id"))
        return Mention(raw, "date", dates=((y, mo, d),), parts=(y, d)) if 1 <= mo <= 12 else None
    if kind == "dmy":
        a, b, y = int(g("a")), int(g("b")), _year(g("y"))
        # 03/04/2024 is ambiguous (day-first or month-first); keep both readings.
        cands = tuple((y, mo, d) for d, mo in ((a, b), (b, a)) if 1 <= mo <= 12 and 1 <= d <= 31)
        return Mention(raw, "date", dates=cands, parts=(y,)) if cands else None
    if kind in ("mdy", "dmy2"):
        p = "mdy" if kind == "mdy" else "dm"
        year = int(g(f"{p}_y")) if g(f"{p}_y") else None
        day = int(g(f"{p}_d"))
        parts = (float(day),) + ((float(year),) if year else ())
        return Mention(raw, "date", dates=((year, _month(g(f"{p}_m")), day),), parts=parts)
    y = int(g("my_y"))
    return Mention(raw, "date", dates=((y, _month(g("my_m")), None),), parts=(y,))


def _time(m: re.Match[str]) -> Mention:
    g = m.group
    h = int(g("th") if g("th") is not None else g("th2"))
    mi = int(g("tm") or 0)
    ap = g("tap") or g("tap2")
    if ap == "p" and h < 12:
        h += 12
    elif ap == "a" and h == 12:
        h = 0
    # A time compares as minutes since midnight; "14:30" and "2:30 pm" are one reading.
    return Mention(m.group(0), "time", readings=(Reading(float(h * 60 + mi), 1.0),))


def _number(m: re.Match[str], locale: str | None) -> Mention | None:
    g = m.group
    readings = _body_readings(g("body"), locale)
    if not readings:
        return None
    scale_word = g("scale") or g("scale2")
    scale = _SCALES[scale_word] if scale_word else 1.0
    out = tuple(Reading(v * scale, 10.0 ** (-dec) * scale) for v, dec in readings)
    return Mention(m.group(0).strip(), "number", readings=out)


def _scan(text: str, locale: str | None) -> list[Mention]:
    out: list[Mention] = []
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        mention: Mention | None
        if kind in ("iso", "dmy", "mdy", "dmy2", "my"):
            mention = _date(m, kind)
        elif kind == "time":
            mention = _time(m)
        elif kind == "num":
            mention = _number(m, locale)
        elif kind == "spelled":
            value = float(_SPELLED[m.group("sw").lower()])
            mention = Mention(m.group("sw"), "number", readings=(Reading(value, 1.0),))
        elif kind == "ident":
            mention = Mention(m.group(0), "ident")
        else:
            raw = m.group(0)
            if raw in _IDIOMS:
                continue
            num, _, den = raw.partition("/")
            value = float(num) / float(den) if float(den) else float(num)
            mention = Mention(raw, "fraction", readings=(Reading(value, 0.0),))
        if mention is not None:
            out.append(mention)
    return out


_AMBIGUOUS = re.compile(r"(?<![\d.,])\d{1,3}[.,]\d{3}(?![\d.,])")


def answer_mentions(
    answer: str, context_locale: Callable[[], str | None] | None = None
) -> list[Mention]:
    """The numeric claims an answer makes, with list/citation markers and URLs removed.

    ``context_locale`` is asked only when the answer has a figure like "1,600" and its own
    decimal convention is unclear: in a European context that is one point six.
    """
    if not any(c.isdigit() for c in answer) and not _maybe_spelled(answer):
        return []
    cleaned = _ANSWER_NOISE.sub(" ", answer)
    locale = locale_of(cleaned)
    if locale is None and context_locale is not None and _AMBIGUOUS.search(cleaned):
        locale = context_locale()
    return [m for m in _scan(cleaned, locale) if m.raw not in _IDIOMS]


_SPELLED_ANY = re.compile(r"\b(?:" + "|".join(_SPELLED) + r")\b", re.IGNORECASE)


def _maybe_spelled(text: str) -> bool:
    return _SPELLED_ANY.search(text) is not None


@dataclass(slots=True)
class NumberIndex:
    """Every value a text (context or query) states, for support look-ups."""

    exact: set[float]
    fine: list[Reading]  # readings with a fractional part or long digits, for rounding
    dates: list[tuple[int | None, int, int | None]]
    raws: set[str]

    @classmethod
    def of(cls, text: str, spelled: bool = True) -> NumberIndex:
        locale = locale_of(text)
        exact: set[float] = set()
        fine: list[Reading] = []
        dates: list[tuple[int | None, int, int | None]] = []
        raws: set[str] = set()
        for m in _scan(text, locale):
            raws.add(m.raw)
            for r in m.readings:
                exact.add(_key(r.value))
                fine.append(r)
            dates.extend(m.dates)
            exact.update(_key(p) for p in m.parts)
        if spelled:
            for w in _SPELLED_ANY.findall(text):
                exact.add(float(_SPELLED[w.lower()]))
        return cls(exact, fine, dates, raws)

    def supports(self, mention: Mention) -> bool:
        if mention.raw in self.raws:
            return True
        if mention.kind == "date":
            return any(self._supports_date(d) for d in mention.dates)
        return any(self._supports_reading(r) for r in mention.readings)

    def _supports_date(self, d: tuple[int | None, int, int | None]) -> bool:
        year, month, day = d
        for cy, cm, cd in self.dates:
            if cm != month or (day is not None and day != cd):
                continue
            # "March 15, 2024" is backed by "March 15" when 2024 is stated elsewhere.
            if year is None or year == cy or (cy is None and _key(year) in self.exact):
                return True
        return False

    def _supports_reading(self, r: Reading) -> bool:
        if _key(r.value) in self.exact:
            return True
        # A rounded figure: "$181 million" from "181,674,817", "12%" from "12.4%". The context
        # figure must be finer than the answer's and round or truncate to it.
        p = r.precision
        if p <= 0:
            return False
        for c in self.fine:
            if c.precision < p and c.value:
                if math.isclose(math.floor(c.value / p + 0.5) * p, r.value, rel_tol=1e-9):
                    return True
                if math.isclose(math.floor(c.value / p) * p, r.value, rel_tol=1e-9):
                    return True
        return False


def _key(value: float) -> float:
    return round(abs(value), 6)
