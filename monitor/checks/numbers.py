"""Finding and normalising the numbers, amounts, percentages and dates a text states.

The naive approach (pull every digit run out of answer and context, diff the sets) is noisy on
real answers: list markers, citation markers, thousands separators, decimal commas, currency,
percent spelled out, dates written three ways, rounded figures. This module turns a text into
``Mention``s whose ``values`` are comparable across all of those spellings.

A mention can have several readings (``1.600`` is 1.6 in English and 1600 in German); it is
supported when any reading is.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from monitor.checks.text import NUMBER_SKIP_MAX, SUPERSCRIPTS

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
# After a day ("30 may"), a lower-case "may" is the verb ("returns over 30 may be refused");
# lower-cased text (common in scraped news) writes every other month in lower case too.
_MONTH_AFTER_DAY = rf"(?:May|(?!may\b){_MONTH})"
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
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
    "hundred": 100, "dozen": 12,
}  # fmt: skip
_SPELLED_CLAIM = "|".join(k for k in _SPELLED if k not in ("one", "hundred"))
_UNITS = (
    r"(?:(?:business|calendar|working|full|more|additional|consecutive|separate)\s+)?"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|times|percent|per\s?cent"
    r"|dollars|euros|pounds|items|users|seats|devices|licen[cs]es|installments|payments"
    r"|attempts|steps|people|employees|members|accounts|copies|tickets|nights|sessions"
    r"|respondents|participants|customers|patients|students|children|adults|votes|games|goals"
    r"|points|miles|kilometres|kilometers|metres|meters|feet|tonnes|tons|countries|cities"
    r"|stores|branches|offices|rounds|matches|seasons|terms|decades|centuries|quarters|runs"
    r"|wickets|laps|floors|rooms|beds|vehicles|flights|passengers|workers|staff|jobs|deaths"
    r"|victims|soldiers|troops|officers|arrests|pages|languages"
    r"|years'|days'|weeks'|months')(?![a-z])"
)

# Units written glued to a figure ("20kg", "9km", "£15m"; a lower-case "m" is metres or
# million, and the figure keeps both readings). The regex takes any 1-4 letters glued to a
# figure; ``_number`` keeps the figure only when they are one of these (a 40-way alternation
# tried after every figure of a 5 KB context cost more than the rest of the scan).
_GLUED_UNITS = frozenset(
    "kg km kms lb lbs mg ml cm mm mph kph km/h ft mi oz gb mb tb kb kw kwh mw hr hrs min mins "
    "sec secs yr yrs ms m g h s x st nd rd th".split()
)

# Figures that start at a digit or a currency symbol, in priority order: dates and times
# first so their parts are not read as loose numbers, then identifiers, fractions, amounts.
# Applied with .match() at positions found by _TRIGGER, so the heavy pattern runs only where a
# figure can start (a scan of every position of a 5 KB context was 100x slower).
_NUMERIC = re.compile(
    rf"""
    (?P<iso>(?<!\d)(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d))
  | (?P<dmy>(?<![\d.,/])(?P<a>\d{{1,2}})(?P<sep>[/.])(?P<b>\d{{1,2}})(?P=sep)(?P<y>\d{{4}}|\d{{2}})(?![\d/]|[.,]\d))
  | (?P<dmy2>(?<!\d)(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_m>{_MONTH_AFTER_DAY})\.?(?:,?\s+(?P<dm_y>\d{{4}})(?!\d))?)
  | (?P<time>(?<![\d.])(?P<th>\d{{1,2}}):(?P<tm>\d{{2}})(?!\d)(?:\s?(?P<tap>[ap])\.?m\.?(?![a-z]))?
      |(?<![\d.,])(?P<th2>\d{{1,2}})(?:\.(?P<tm2>\d{{2}}))?\s?(?P<tap2>[ap])\.?m\.?(?![a-z]))
  | (?P<ident>(?<![\w-])\d+(?:-\d+){{2,}}(?![\w-]))
  | (?P<frac>(?<![\w/.])(?!(?:1[5-9]|20)\d\d/\d)\d+/\d+(?![\w/]))
  | (?P<num>
        (?<![A-Za-z_\d])(?<![A-Za-z]-)(?<!\d[.,])
        (?P<cur>[$€£¥]\s?)?
        (?P<body>\d{{1,3}}(?:(?P<tsep>[,.\u00a0\u202f'])\d{{3}})(?:(?P=tsep)\d{{3}})*(?:[.,]\d+)?(?!\d)
                 |\d+(?:[.,]\d+)?)
        (?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|mio)(?![a-z])
          |(?P<scale2>[kKMB])(?![A-Za-z\d])
          |(?P<unit>[A-Za-z]{{1,4}}(?:/h)?)(?![A-Za-z\d]))?
        (?P<ord>st|nd|rd|th)?
        (?:\s?(?P<pct>%|percent(?![a-z])|per\s?cent(?![a-z])))?
        (?:\s?(?P<cur2>USD|EUR|GBP|€|dollars?(?![a-z])|euros?(?![a-z])))?
        (?![A-Za-z\d])
    )
    """,
    re.VERBOSE,
)
# Dates that start with the month name; tried where a digit follows a month name.
_MONTH_FIRST = re.compile(
    rf"""
    (?P<mdy>(?P<mdy_m>{_MONTH})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<mdy_y>\d{{4}})(?!\d))?)
  | (?P<my>(?P<my_m>{_MONTH})\.?,?\s+(?P<my_y>\d{{4}})(?!\d))
    """,
    re.VERBOSE,
)
_TRIGGER = re.compile(r"[0-9$€£¥]")
_SCALED = re.compile(
    r"\d\s?(?:thousand|million|billion|trillion|mn|bn|tn|mio)(?![a-z])|\d[kKMB](?![A-Za-z\d])"
)
# Spelled-out quantities, matched in lower-cased answers (a literal-led pattern is fast):
# "six weeks", "forty-eight people".
_ONES = "one|two|three|four|five|six|seven|eight|nine"
_SPELLED_CLAIM_RE = re.compile(rf"(?P<word>{_SPELLED_CLAIM})(?:[- ](?P<ones>{_ONES}))?\s+{_UNITS}")

# What is not a claim in an answer: list markers, citation markers, footnotes, URLs, e-mail
# addresses, version strings. Each pattern runs only when a cheap substring test says it can
# match: one combined pattern tried at every position of the answer cost 13 µs a trace.
_NOISE: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    (None, re.compile(r"(?m)^[ \t]*(?:[-*•][ \t]*)?\(?\d{1,2}[.)](?=\s)")),  # "1." "2)" markers
    ("#", re.compile(r"(?m)^[ \t]*\#{1,6}[ \t]*\d{1,2}[.)]?")),  # "## 2." headings
    ("[", re.compile(rf"\[\^?[^\[\]\n]{{1,{NUMBER_SKIP_MAX}}}\]")),  # [1] [1, 2] [doc-3] [^2]
    ("【", re.compile(rf"【[^】\n]{{1,{NUMBER_SKIP_MAX}}}】")),  # 【1†source】
    (None, SUPERSCRIPTS),  # superscript footnotes
    ("http", re.compile(r"https?://\S+")),
    ("www.", re.compile(r"www\.\S+")),
    ("@", re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")),  # e-mail addresses
    ("ersion", re.compile(r"[Vv]ersion\s\d+(?:\.\d+)+")),  # "version 2.3.1" ("v2.3" never parses)
)


def strip_noise(answer: str) -> str:
    """The answer with markers, URLs and addresses blanked out (figures in them are not claims)."""
    for guard, pattern in _NOISE:
        if guard is None or guard in answer:
            # A visible separator, so "15 [2] March" does not become the date "15 March".
            answer = pattern.sub(" | ", answer)
    return answer


# Tokenised text (common in scraped corpora and NLP datasets) puts spaces around separators:
# "5 , 000", "3 . 5", "1, 000", "£1. 8m". Joined back before figures are read, only where the
# pieces can only be one figure: 1-3 digits before a comma and exactly three after it.
_SPACED_FIGURE = re.compile(
    r"(?<![\d.])(\d{1,3})(?: , |, (?=000)| \. (?=\d{1,3}(?![\d,-]|[A-Za-z]{2}))|\. (?=\d[mkb]))(\d+)"
)


def _tokenised(text: str) -> bool:
    """A digit, an optional space, a comma or point, a space and a digit ("5 , 000", "1. 8"):
    found with ``str.find`` on the separators (a regex scan of a 5 KB text cost ~90 µs)."""
    n = len(text)
    for sep in (", ", ". "):
        i = text.find(sep)
        while i > 0:
            j = i - 1 if text[i - 1] != " " else i - 2
            if j >= 0 and text[j].isdigit() and i + 2 < n and text[i + 2].isdigit():
                return True
            i = text.find(sep, i + 1)
    return False


_DIGITS = re.compile(r"\d+")


@functools.lru_cache(maxsize=1024)
def _spaced_pattern(groups: tuple[str, ...]) -> re.Pattern[str]:
    """Digit groups joined by a separator with optional spaces around it, as a whole figure."""
    body = r" ?[,.] ?".join(groups)
    return re.compile(rf"(?<![\d.,]){body}(?!\d| ?[,.] ?\d)")


def untokenise(text: str) -> str:
    """``text`` with tokeniser spaces inside figures removed ("5 , 000" -> "5,000")."""
    if not _tokenised(text):
        return text
    for _ in range(4):  # "1 , 600 , 000" joins one group per pass
        joined = _SPACED_FIGURE.sub(_join_figure, text)
        if joined == text:
            break
        text = joined
    return text


def _join_figure(m: re.Match[str]) -> str:
    sep = "," if "," in m.group(0) else "."
    if sep == "," and len(m.group(2)) != 3:
        return m.group(0)
    return f"{m.group(1)}{sep}{m.group(2)}"


_IDIOMS = frozenset({"24/7", "365"})
# Decimal-convention evidence, judged per digit run (a charset-led findall is fast where two
# searches with look-behinds over a 5 KB context took 400 µs).
_DIGIT_RUN = re.compile(r"\d[\d.,]*")
_EU_TOKEN = re.compile(r"\d{1,3}(?:\.\d{3})+,\d+$|\d+,\d{1,2}$")
_US_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+\.\d+$|\d+\.\d{1,2}$")


class Reading(NamedTuple):
    """One interpretation of a numeric mention: its value and the unit of its last digit.

    Named tuples, not dataclasses: a 5 KB context yields dozens per scan.
    """

    value: float
    precision: float  # 1 for "12", 0.1 for "12.5", 1e6 for "181 million"


class Mention(NamedTuple):
    """A number, amount, percentage, time or date as it appears in a text."""

    raw: str
    kind: str  # number | date | time | ident | fraction
    readings: tuple[Reading, ...] = ()
    dates: tuple[tuple[int | None, int, int | None], ...] = ()  # (year, month, day)
    parts: tuple[float, ...] = ()  # plain numbers a date also backs (day, year)


def locale_of(text: str) -> str | None:
    """'eu' if the text writes decimals with a comma, 'us' if with a point, None if unclear."""
    eu = us = False
    for token in _DIGIT_RUN.findall(text):
        token = token.rstrip(".,")
        if "," in token or "." in token:
            eu = eu or _EU_TOKEN.match(token) is not None
            us = us or _US_TOKEN.match(token) is not None
    if eu and not us:
        return "eu"
    if us and not eu:
        return "us"
    return None


class _Lazy:
    """A value computed on first use: the decimal convention of a text is only needed for
    figures like "1,600", and finding it costs two scans of the text."""

    __slots__ = ("_done", "_fn", "_value")

    def __init__(self, fn: Callable[[], str | None]) -> None:
        self._fn = fn
        self._done = False
        self._value: str | None = None

    def __call__(self) -> str | None:
        if not self._done:
            self._value = self._fn()
            self._done = True
        return self._value


Locale = Callable[[], str | None]


def _body_readings(body: str, locale: Locale) -> list[tuple[float, int]]:
    """(value, decimals) readings of a digit body with separators."""
    if body.isdigit():
        return [(float(body), 0)]
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
    # convention decides; English is the default; "either" keeps both readings.
    convention = locale()
    if convention == "either":
        return [thousands, decimal]
    decimal_sep = "," if convention == "eu" else "."
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
        if not 1 <= day <= 31:
            return None
        parts = (float(day),) + ((float(year),) if year else ())
        if raw.endswith(".") and len(g(f"{p}_m")) > 4:
            raw = raw[:-1]  # "16 January." ends a sentence; "16 Jan." keeps its dot
        return Mention(raw, "date", dates=((year, _month(g(f"{p}_m")), day),), parts=parts)
    y = int(g("my_y"))
    return Mention(raw, "date", dates=((y, _month(g("my_m")), None),), parts=(y,))


def _time(m: re.Match[str]) -> Mention:
    g = m.group
    h = int(g("th") if g("th") is not None else g("th2"))
    mi = int(g("tm") or g("tm2") or 0)
    ap = g("tap") or g("tap2")
    if ap == "p" and h < 12:
        h += 12
    elif ap == "a" and h == 12:
        h = 0
    raw = m.group(0)
    if raw.endswith(".") and not raw.endswith(("a.m.", "p.m.")):
        raw = raw[:-1]  # "5 pm." ends a sentence; "5 p.m." keeps its dots
    # A time compares as minutes since midnight; "14:30" and "2:30 pm" are one reading.
    return Mention(raw, "time", readings=(Reading(float(h * 60 + mi), 1.0),))


def _number(m: re.Match[str], locale: Locale) -> Mention | None:
    g = m.group
    unit = g("unit")
    if unit is not None and unit.lower() not in _GLUED_UNITS:
        return None  # "4abc", "2FA": part of a word, not a figure
    readings = _body_readings(g("body"), locale)
    if not readings:
        return None
    scale_word = g("scale") or g("scale2")
    scale = _SCALES[scale_word] if scale_word else 1.0
    out = tuple(Reading(v * scale, 10.0 ** (-dec) * scale) for v, dec in readings)
    if unit == "m":  # "£15m" (million) or "100m" (metres)
        out += tuple(Reading(v * 1e6, 10.0 ** (-dec) * 1e6) for v, dec in readings)
    return Mention(m.group(0).strip(), "number", readings=out)


def _month_before(text: str, h: int, lo: int) -> int:
    """Start of a month name right before position ``h`` ("March 15", "Sept. 3"), or -1."""
    j = h
    while j > lo and text[j - 1] in " \t\n.,\u00a0":
        j -= 1
    if j == h:
        return -1
    i = j
    while i > lo and text[i - 1].isalpha():
        i -= 1
    word = text[i:j]
    if not (3 <= len(word) <= 9 and word[:3].lower() in _MONTHS):
        return -1
    if word == "may" and _word_before(text, i) not in _DATE_PREPOSITIONS:
        return -1  # "you may 2x your storage": the verb, not the month
    return i


# Words after which a lower-case "may" is the month ("on may 30", "since may 2").
_DATE_PREPOSITIONS = frozenset(
    "on in of since until till by from before after to early late mid between and through".split()
)


def _word_before(text: str, i: int) -> str:
    j = i
    while j > 0 and text[j - 1] in " \t\n,(":
        j -= 1
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return text[k:j].lower()


def _matches(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """(kind, match) for every figure in ``text``, left to right, without overlaps."""
    pos = 0
    n = len(text)
    while pos < n:
        t = _TRIGGER.search(text, pos)
        if t is None:
            return
        h = t.start()
        m: re.Match[str] | None = None
        if h > pos and text[h].isdigit():
            start = _month_before(text, h, pos)
            if start >= 0:
                m = _MONTH_FIRST.match(text, start)
        if m is None:
            m = _NUMERIC.match(text, h)
        if m is None or m.lastgroup is None:
            pos = h + 1
            continue
        yield m.lastgroup, m
        pos = max(m.end(), h + 1)


def _scan(text: str, locale: Locale) -> list[Mention]:
    out: list[Mention] = []
    for kind, m in _matches(text):
        mention = _mention(kind, m, locale)
        if mention is None:
            continue
        if kind == "num" and len(mention.raw) == 2 and out:
            # "2007-11" and "( 2001 -- 07 )": the second year of an abbreviated range.
            year = _range_end(text, m.start(), out[-1])
            if year is not None:
                mention = mention._replace(readings=(*mention.readings, Reading(year, 1.0)))
        out.append(mention)
    return out


_YEAR_TO = r"\s*(?:-{1,2}|–|—|/|to)\s*"  # what joins the two years of a range
_RANGE_SEP = re.compile(rf"{_YEAR_TO}$")
_ABBREVIATED_RANGE = re.compile(rf"(?<![\d.,])((?:1[5-9]|20)\d\d){_YEAR_TO}(\d\d)(?![\d.,]?\d)")


def _expand_year(first: int, two_digits: int) -> float | None:
    """The year "11" abbreviates after ``first`` (2007 -> 2011, 1998 -> "02" -> 2002)."""
    year = first // 100 * 100 + two_digits
    if year <= first:
        year += 100
    return float(year) if year - first < 100 else None


def _range_end(text: str, start: int, before: Mention) -> float | None:
    """The expanded year when the two digits at ``start`` end a range opened by a year."""
    if not (before.readings and before.raw.isdigit() and len(before.raw) == 4):
        return None
    first = int(before.raw)
    if not 1500 <= first <= 2099:
        return None
    gap = text[max(0, start - 8) : start]
    j = gap.rfind(before.raw[-2:])
    if j < 0 or _RANGE_SEP.fullmatch(gap[j + 2 :]) is None:
        return None
    return _expand_year(first, int(text[start : start + 2]))


def _scan_at(text: str, i: int) -> list[Mention]:
    """The figure that starts at ``i`` (read with the text's decimal convention), if any."""
    m = _NUMERIC.match(text, i)
    if m is None or m.lastgroup is None:
        return []
    mention = _mention(m.lastgroup, m, _Lazy(lambda: locale_of(text)))
    return [mention] if mention is not None else []


def _mention(kind: str, m: re.Match[str], locale: Locale) -> Mention | None:
    if kind in ("iso", "dmy", "mdy", "dmy2", "my"):
        return _date(m, kind)
    if kind == "time":
        return _time(m)
    if kind == "num":
        return _number(m, locale)
    raw = m.group(0)
    if kind == "ident":
        return Mention(raw, "ident")
    if raw in _IDIOMS:
        return None
    num, _, den = raw.partition("/")
    value = float(num) / float(den) if float(den) else float(num)
    return Mention(raw, "fraction", readings=(Reading(value, 0.0),))


def _spelled_claims(text: str) -> list[Mention]:
    low = text.lower()
    out: list[Mention] = []
    for m in _SPELLED_CLAIM_RE.finditer(low):
        i = m.start()
        if i and low[i - 1].isalpha():
            continue
        word = m.group("word")
        value = _SPELLED[word]
        if m.group("ones") and value in (20, 30, 40, 50, 60, 70, 80, 90):
            value += _SPELLED[m.group("ones")]
            word = f"{word}-{m.group('ones')}"
        out.append(Mention(word, "number", readings=(Reading(float(value), 1.0),)))
    return out


def answer_mentions(
    answer: str, context_locale: Callable[[], str | None] | None = None
) -> list[Mention]:
    """The numeric claims an answer makes, with list/citation markers and URLs removed.

    ``context_locale`` is asked only when the answer has a figure like "1,600" and its own
    decimal convention is unclear: in a European context it may be one point six or sixteen
    hundred, and either reading can be supported.
    """
    if _TRIGGER.search(answer) is None and _SPELLED_CLAIM_RE.search(answer.lower()) is None:
        return []  # no digit and no spelled-out quantity: nothing to parse
    cleaned = strip_noise(untokenise(answer))

    def convention() -> str | None:
        own = locale_of(cleaned)
        if own is None and context_locale is not None:
            return "either" if context_locale() == "eu" else None
        return own

    mentions = [m for m in _scan(cleaned, _Lazy(convention)) if m.raw not in _IDIOMS]
    return mentions + _spelled_claims(cleaned)


_SPELLED_CLAIM_ONE = re.compile(rf"\bone\s+{_UNITS}".encode())
_WORDS_OF: dict[float, tuple[bytes, ...]] = {}
for _word, _value in _SPELLED.items():
    _WORDS_OF[float(_value)] = (*_WORDS_OF.get(float(_value), ()), _word.encode())


def _has_word(lower: bytes, word: bytes) -> bool:
    """``word`` occurs in ``lower`` as a whole word."""
    i = lower.find(word)
    while i >= 0:
        j = i + len(word)
        if (i == 0 or not lower[i - 1 : i].isalpha()) and (
            j == len(lower) or not lower[j : j + 1].isalpha()
        ):
            return True
        i = lower.find(word, i + 1)
    return False


@dataclass(slots=True)
class NumberIndex:
    """Every value a text (context or query) states, for support look-ups."""

    exact: set[float]
    fine: list[Reading]  # readings with a fractional part or long digits, for rounding
    dates: list[tuple[int | None, int, int | None]]
    raws: set[str]

    @classmethod
    def of(cls, text: str) -> NumberIndex:
        locale = _Lazy(lambda: locale_of(text))
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
        return any(_rounds_to(c, r) for c in self.fine)


def _rounds_to(c: Reading, r: Reading) -> bool:
    """A rounded figure: "$181 million" from "181,674,817", "12%" from "12.4%". The context
    figure ``c`` must be finer than the answer's ``r`` and round or truncate to it."""
    p = r.precision
    if p <= 0 or c.precision >= p or not c.value:
        return False
    return math.isclose(math.floor(c.value / p + 0.5) * p, r.value, rel_tol=1e-9) or math.isclose(
        math.floor(c.value / p) * p, r.value, rel_tol=1e-9
    )


def _key(value: float) -> float:
    return round(abs(value), 6)


def _probes(r: Reading) -> tuple[str, ...]:
    """Spellings of a reading to look for literally ("1600", "1,600", "1.600", "3,5")."""
    if r.precision > 1 or not 0 <= abs(r.value) < 1e15:
        return ()
    v = abs(r.value)
    if r.precision == 1:
        s = f"{v:.0f}"
        if v < 1000:
            return (s,)
        us = f"{v:,.0f}"
        return (s, us, us.replace(",", "."), us.replace(",", " "), us.replace(",", "\u202f"))
    decimals = max(0, round(-math.log10(r.precision)))
    s = f"{v:.{decimals}f}"
    us = f"{v:,.{decimals}f}"
    eu = us.translate(_SWAP)
    return (s, s.replace(".", ","), us, eu)


_SWAP = str.maketrans(",.", ".,")
_NEAR = frozenset(".,-/:'")


def _glued(c: str) -> bool:
    """A character that makes an adjacent figure part of a word ("GPT4", "A4") or a longer
    figure; the same boundary the scanner's look-arounds use."""
    return c.isdecimal() or (c.isascii() and (c.isalpha() or c == "_"))


def _starts_figure(text: str, i: int) -> bool:
    """A figure may start at ``i``: the scanner's look-behinds, in Python."""
    if i == 0:
        return True
    prev = text[i - 1]
    if _glued(prev):
        return False
    if i > 1 and prev in ".," and text[i - 2].isdecimal():
        return False  # the "5" of "3.5"
    return not (i > 1 and prev == "-" and text[i - 2].isascii() and text[i - 2].isalpha())


def _bounded(text: str, probe: str) -> bool:
    """True when ``probe`` occurs in ``text`` as a whole figure (not inside a longer one)."""
    n = len(text)
    i = text.find(probe)
    while i >= 0:
        j = i + len(probe)
        before_ok = _starts_figure(text, i)
        after_ok = j == n or not (
            _glued(text[j]) or (text[j] in _NEAR and j + 1 < n and text[j + 1].isdecimal())
        )
        if before_ok and after_ok:
            return True
        i = text.find(probe, i + 1)
    return False


class NumberLookup:
    """Answers "does this text state that figure?" cheaply.

    The common case — the figure is written the same way, or with other separators — is a
    substring search. Then spelled-out forms ("six" for 6) are looked up as words. Only when
    both fail is the text parsed into a ``NumberIndex`` (dates, rounding, scale words), once.
    """

    def __init__(self, text: str, spelled: bool = True) -> None:
        self.text = text
        self._spelled = spelled
        self._lower: bytes | None = None
        self._scaled: bool | None = None
        self._ranges: frozenset[float] | None = None
        self._joined: NumberLookup | None = None  # the untokenised text, when it differs
        self._joined_done = False
        self._index: NumberIndex | None = None

    @property
    def index(self) -> NumberIndex:
        if self._index is None:
            self._index = NumberIndex.of(self.text)
        return self._index

    def supports(self, mention: Mention) -> bool:
        """Whether the text states ``mention``'s figure; tokenised text ("5 , 000") is read
        as the figures it spells, but only after the plain reading failed (joining costs a
        scan of the whole text)."""
        if self._supports(mention):
            return True
        if mention.kind == "number" and all(r.precision <= 1 for r in mention.readings):
            return self._spaced(mention)
        if not self._joined_done:
            joined = untokenise(self.text)
            self._joined = NumberLookup(joined, self._spelled) if joined != self.text else None
            self._joined_done = True
        return self._joined is not None and self._joined._supports(mention)

    def _supports(self, mention: Mention) -> bool:
        if not self.text:
            return False
        if mention.kind == "number":
            if _bounded(self.text, mention.raw):
                return True  # written the same way ("$49", "07")
            for r in mention.readings:
                if any(_bounded(self.text, p) for p in _probes(r)):
                    return True
                if self._spelled and r.precision == 1 and self._spelled_in_text(r.value):
                    return True
            if all(r.precision <= 1 for r in mention.readings) and not self._scaled_figures():
                # Without scale words every figure that equals or rounds to 45 writes "45"
                # or "44" (with or without separators): parse only those places.
                return any(self._near(r) for r in mention.readings) or self._range_end(mention)
        elif mention.kind == "ident" and mention.raw in self.text:
            return True  # phone and order numbers: the same digits in the same groups
        return self.index.supports(mention) or self._range_end(mention)

    def _spaced(self, mention: Mention) -> bool:
        """The figure written with tokeniser spaces around its separators ("5 , 000" for
        5,000, "3 . 5" for 3.5): searched for directly, not by joining the whole text."""
        groups = _DIGITS.findall(mention.raw)
        if len(groups) == 1 and len(groups[0]) > 3 and groups[0][0] != "0":
            head = len(groups[0]) % 3 or 3  # "5000" may be written "5 , 000"
            g = groups[0]
            groups = [g[:head], *(g[i : i + 3] for i in range(head, len(g), 3))]
        if len(groups) < 2:
            return False
        return _spaced_pattern(tuple(groups)).search(self.text) is not None

    def _range_end(self, mention: Mention) -> bool:
        """A year the text states only as the end of an abbreviated range ("2007 -- 11");
        looked for last, since it costs a scan of the text."""
        return mention.kind == "number" and any(
            1500 <= r.value <= 2199 and r.value in self._range_years() for r in mention.readings
        )

    def _range_years(self) -> frozenset[float]:
        """Years that end an abbreviated range ("2007 -- 11" states 2011)."""
        if self._ranges is None:
            years = (
                _expand_year(int(m[1]), int(m[2])) for m in _ABBREVIATED_RANGE.finditer(self.text)
            )
            self._ranges = frozenset(y for y in years if y is not None)
        return self._ranges

    def _scaled_figures(self) -> bool:
        if self._scaled is None:
            self._scaled = _SCALED.search(self.text) is not None
        return self._scaled

    def _near(self, r: Reading) -> bool:
        """Parse the figures that start with the whole part of ``r`` (or one less) and test
        them for an exact or rounded match; dates contribute their day and year."""
        if abs(r.value) >= 1e15:
            return False
        text = self.text
        whole = float(int(abs(r.value)))
        key = _key(r.value)
        for lead in (whole, whole - 1):
            if lead < 0:
                continue
            for probe in _probes(Reading(lead, 1.0)):
                i = text.find(probe)
                while i >= 0:
                    for c in _figures_at(text, i):
                        if any(_key(v.value) == key or _rounds_to(v, r) for v in c.readings):
                            return True
                        if any(_key(v) == key for v in c.parts):
                            return True
                    i = text.find(probe, i + 1)
        return False

    def _spelled_in_text(self, value: float) -> bool:
        if self._lower is None:
            self._lower = self.text.encode("utf-8").lower()
        if value == 1:
            # "one" is mostly a pronoun ("no one", "one of them"): it backs 1 only before a
            # unit ("one week"); otherwise nearly every text would support the figure 1.
            return _SPELLED_CLAIM_ONE.search(self._lower) is not None
        if 21 <= value < 100 and value % 10:
            tens = _WORDS_OF[float(value // 10 * 10)][0]
            ones = _WORDS_OF[float(value % 10)][0]
            return tens + b"-" + ones in self._lower or tens + b" " + ones in self._lower
        words = _WORDS_OF.get(value)
        if not words:
            return False
        return any(_has_word(self._lower, w) for w in words)


def _figures_at(text: str, i: int) -> Iterator[Mention]:
    """Figures that may cover the digits at ``i``: read from there, from leading zeros
    ("07"), and from a currency symbol just before ("$0-1-1" reads "$0" as the scanner does)."""
    k = i
    while k > 0 and text[k - 1] == "0":
        k -= 1
    starts = (k - 1, k) if k and text[k - 1] in "$€£¥" else (k,)
    for start in starts:
        if _starts_figure(text, start):
            yield from _scan_at(text, start)
