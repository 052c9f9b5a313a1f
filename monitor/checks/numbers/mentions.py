"""The figure tokenizer: a text's numbers, amounts, percentages, times and dates as
``Mention``s whose readings are comparable across spellings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from monitor.checks.numbers.patterns import (
    FRACTION_PARTS,
    GLUED_UNITS,
    MEASURES,
    MONTH_FIRST,
    MONTHS,
    NOT_COUNTS,
    NUMERIC,
    SCALES,
    SPELLED,
    SPELLED_CLAIM_RE,
    SPELLED_SCALES,
    TRIGGER,
    strip_noise,
    unemphasised,
    untokenise,
)

_IDIOMS = frozenset({"24/7", "365"})
_DEFINITE = (" the", " these", " those", "the", "these", "those")
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
    noun: str = ""  # a spelled count of things: the plural noun it counts ("films")


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


class Lazy:
    """A value computed on first use: the decimal convention of a text is only needed for
    figures like "1,600", and finding it costs two scans of the text."""

    __slots__ = ("_done", "_fn", "_value")

    def __init__(self, fn: Callable[[], str | None]) -> None:
        self._fn = fn
        self._done = False
        self._value: str | None = None

    def __call__(self) -> str | None:
        """The value, computed on the first call."""
        if not self._done:
            self._value = self._fn()
            self._done = True
        return self._value


Locale = Callable[[], str | None]


def _body_readings(body: str, locale: Locale) -> list[tuple[float, int]]:
    """(value, decimals) readings of a digit body with separators."""
    if body.isdigit():
        return [(float(body), 0)]
    for space in ("\u00a0", "\u202f", "\u2009", "'", " "):
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
        # "1,600,000" / "1.600.000": only a thousands reading is possible; so for the
        # Indian grouping "1,00,000" and "2,50,00,000" (lakh and crore).
        indian = sep == "," and len(groups[0]) <= 2 and len(groups[-1]) == 3
        indian = indian and all(len(g) == 2 for g in groups[1:-1])
        return [(float("".join(groups)), 0)] if grouped or indian else []
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
    return MONTHS[name[:3].lower()]


_FULL_SHORT = frozenset({"may", "june", "july"})  # month names of four letters or fewer


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
        # a date backs its day and year, in this layout as in the others: the day of each
        # reading ("14/03/2025" backs 14; "03/04/2024" 3 and 4)
        days = tuple(dict.fromkeys(float(c[2]) for c in cands))
        return Mention(raw, "date", dates=cands, parts=(*days, y)) if cands else None
    if kind in ("mdy", "dmy2"):
        p = "mdy" if kind == "mdy" else "dm"
        year = int(g(f"{p}_y")) if g(f"{p}_y") else None
        day = int(g(f"{p}_d"))
        if not 1 <= day <= 31:
            return None
        parts = (float(day),) + ((float(year),) if year else ())
        if raw.endswith(".") and (len(g(f"{p}_m")) > 4 or g(f"{p}_m").lower() in _FULL_SHORT):
            raw = raw[:-1]  # "16 January.", "3 May." end a sentence; "16 Jan." keeps its dot
        return Mention(raw, "date", dates=((year, _month(g(f"{p}_m")), day),), parts=parts)
    y = int(g("my_y"))
    return Mention(raw, "date", dates=((y, _month(g("my_m")), None),), parts=(y,))


def _time(m: re.Match[str]) -> Mention:
    g = m.group
    h = int(g("th") if g("th") is not None else g("th2"))
    mi = int(g("tm") or g("tm2") or 0)
    seconds = int(g("ts") or 0)  # "2:14:08", "10:32:15": to the second, one figure
    ap = (g("tap") or g("tap2") or "").lower()
    if ap == "p" and h < 12:
        h += 12
    elif ap == "a" and h == 12:
        h = 0
    raw = m.group(0)
    if raw.endswith(".") and not raw.lower().endswith(("a.m.", "p.m.")):
        raw = raw[:-1]  # "5 pm." ends a sentence; "5 p.m." keeps its dots
    # A time compares as minutes since midnight; "14:30" and "2:30 pm" are one reading.
    return Mention(raw, "time", readings=(Reading(h * 60 + mi + seconds / 60, 1.0),))


_LONGEST = 250  # digits and separators of the longest figure read (a float holds 1e308)


def _number(m: re.Match[str], locale: Locale) -> Mention | None:
    g = m.group
    unit = g("unit")
    if unit is not None and unit.lower() not in GLUED_UNITS:
        return None  # "4abc", "2FA": part of a word, not a figure
    body = g("body")
    if len(body) > _LONGEST:
        return None  # no figure: past a float's range, or its precision would underflow to 0
    readings = _body_readings(body, locale)
    if not readings:
        return None
    scale_word = g("scale") or g("scale2")
    scale = SCALES[scale_word] if scale_word else 1.0
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
    if not (3 <= len(word) <= 9 and word[:3].lower() in MONTHS):
        return -1
    if word == "may" and not (
        _word_before(text, i) in _DATE_PREPOSITIONS or _DAY_ALONE.match(text, h) is not None
    ):
        return -1  # "you may 2x your storage": the verb, not the month
    return i


# A day that ends its word after a lower-case "may" makes it the month, whatever comes before
# ("the lido reopens may 30 after the retiling"): the verb is followed by a verb, and a figure
# after it is a quantity ("may 2x", "may 10% more", "may 3.5 times"), not a day alone.
_DAY_ALONE = re.compile(
    r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
    r"(?![\w%/:-]|[.,]\d|\s*(?:%|(?:percent|per\s?cent|times)\b))"
)


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
        t = TRIGGER.search(text, pos)
        if t is None:
            return
        h = t.start()
        m: re.Match[str] | None = None
        if h > pos and text[h].isdigit():
            start = _month_before(text, h, pos)
            if start >= 0:
                m = MONTH_FIRST.match(text, start)
        if m is None:
            m = NUMERIC.match(text, h)
        if m is None or m.lastgroup is None:
            pos = h + 1
            continue
        yield m.lastgroup, m
        pos = max(m.end(), h + 1)


def scan(text: str, locale: Locale) -> list[Mention]:
    """Every figure ``text`` states, in order, read with the decimal convention ``locale``."""
    out: list[Mention] = []
    for kind, m in _matches(text):
        mention = _mention(kind, m, locale)
        if mention is None:
            continue
        if kind == "num" and len(mention.raw) == 2 and mention.raw.isdigit() and out:
            # "2007-11" and "( 2001 -- 07 )": the second year of an abbreviated range.
            year = _range_end(text, m.start(), out[-1])
            if year is not None:
                mention = mention._replace(readings=(*mention.readings, Reading(year, 1.0)))
        out.append(mention)
    return out


_YEAR_TO = r"\s*(?:-{1,2}|–|—|/|to)\s*"  # what joins the two years of a range
_RANGE_SEP = re.compile(rf"{_YEAR_TO}$")
ABBREVIATED_RANGE = re.compile(rf"(?<![\d.,])((?:1[5-9]|20)\d\d){_YEAR_TO}(\d\d)(?![\d.,]?\d)")


def expand_year(first: int, two_digits: int) -> float | None:
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
    return expand_year(first, int(text[start : start + 2]))


def inside_ident(text: str, i: int, j: int, idents: Callable[[], frozenset[str]]) -> bool:
    """``text[i:j]`` is a group of a phone or reference number the text writes ("7946" of
    "020 7946 0958"; ``idents``: the identifiers its scan reads): identifiers are whole
    tokens, never the numbers inside them. Looked at only where a digit group stands one
    separator away."""
    n = len(text)
    if not (
        (i >= 2 and text[i - 1] in " -" and text[i - 2].isdecimal())
        or (j + 1 < n and text[j] in " -" and text[j + 1].isdecimal())
    ):
        return False
    for raw in idents():
        k = text.find(raw, max(0, j - len(raw)), i + len(raw))
        if 0 <= k <= i and k + len(raw) >= j:
            return True
    return False


# A code's letters and digits ("BA2490", "BA 2490", "BA-2490")
_CODE = re.compile(r"([A-Z]{2,5})[- ]?(\d{3,})")


def code_spellings(raw: str) -> tuple[str, ...]:
    """A code's other spellings: "BA2490" is "BA 2490" and "BA-2490", and the other way."""
    m = _CODE.fullmatch(raw)
    if m is None:
        return ()
    letters, digits = m.groups()
    return tuple(
        f"{letters}{sep}{digits}" for sep in ("", " ", "-") if f"{letters}{sep}{digits}" != raw
    )


# A card expiry, a month and a year written with two digits or four ("09/27", "09/2027")
EXPIRY = re.compile(r"(?<![\d/])(0[1-9]|1[0-2])/(?:20)?(\d\d)(?![\d/])")


def expiry_spellings(raw: str) -> tuple[str, ...]:
    """A month and year written with the year's two digits or four ("09/27", "09/2027")."""
    m = EXPIRY.fullmatch(raw)
    if m is None:
        return ()
    month, year = m.groups()
    return tuple(v for v in (f"{month}/{year}", f"{month}/20{year}") if v != raw)


def day_month(raw: str) -> Mention:
    """ "31/12" or "12/31" read as a day and a month without a year (both orders kept, as for
    a full date): a date that no reading makes has none, and backs nothing."""
    a, _, b = raw.partition("/")
    if not (a.isdigit() and b.isdigit() and len(a) <= 2 and len(b) <= 2):
        return Mention(raw, "date")
    x, y = int(a), int(b)
    dates = tuple((None, mo, d) for d, mo in ((x, y), (y, x)) if 1 <= mo <= 12 and 1 <= d <= 31)
    return Mention(raw, "date", dates=dates)


def scan_at(text: str, i: int, locale: Locale | None = None) -> list[Mention]:
    """The figure that starts at ``i`` (read with the text's decimal convention, ``locale``
    when the caller keeps it for the text), if any."""
    m = NUMERIC.match(text, i)
    if m is None or m.lastgroup is None:
        return []
    mention = _mention(m.lastgroup, m, locale or Lazy(lambda: locale_of(text)))
    return [mention] if mention is not None else []


def _mention(kind: str, m: re.Match[str], locale: Locale) -> Mention | None:
    if kind in ("iso", "dmy", "mdy", "dmy2", "my"):
        return _date(m, kind)
    if kind == "time":
        return _time(m)
    if kind == "num":
        return _number(m, locale)
    raw = m.group(0)
    if kind == "phone" and raw[0] != "+" and ")" in raw:  # "(555) 012-3456": its bracket too
        return Mention(f"({raw}", "ident")
    if kind in ("ident", "phone"):
        return Mention(raw, "ident")
    if kind == "code":  # "AB-1234", "INC-20391", "BA2490": the whole code, as one token
        i = m.start() - (m.string[m.start() - 1] == "-")
        j = i
        while j > 0 and m.string[j - 1].isupper():
            j -= 1
        if not 2 <= i - j <= 5 or (j and (m.string[j - 1].isalnum() or m.string[j - 1] in "-_")):
            return None
        return Mention(m.string[j : m.end()], "ident")
    if raw in _IDIOMS:
        return None
    num, _, den = raw.partition("/")
    value = float(num) / float(den) if float(den) else float(num)
    return Mention(raw, "fraction", readings=(Reading(value, 0.0),))


_HUNDRED_AND = re.compile(
    r"(?<![a-z])(a|one|two|three|four|five|six|seven|eight|nine)\s+hundred\s+and\s+$"
)


# A fraction of a whole in words ("three quarters of the members", "two thirds of"): a share,
# the percentage it equals, not a count; "three quarters of an hour" is a span, not judged
_FRACTION_NOUNS = {f"{part}s": 100.0 / whole for part, whole in FRACTION_PARTS.items()}
# one part, "a quarter of", "one third of the members" (the plural is a spelled claim's noun)
_ONE_PART = re.compile(r"(?<![a-z])(?:a|one)[- ](?P<part>quarter|third|fifth)(?=[ \t]+of\b)")
_FRACTION_OF = re.compile(
    r"[ \t]+of\b(?![ \t]+(?:\d|(?:an?|one|the)[ \t]+(?:hour|minute|day|week|month|year|mile"
    r"|century|second|dozen|hundred|thousand|million|billion|pound|kilo|lit|met|inch|foot)))"
)


# what multiplies a dozen ("two dozen", "3 dozen", "half a dozen"; not "a dozen": 12)
_MULTIPLIED = re.compile(
    r"(?:\bhalf[ \t]+an?|(?<![a-z])(?:two|three|four|five|six|seven|eight|nine|ten|\d+))[ \t-]+$"
)


def _spelled_claims(text: str) -> list[Mention]:
    low = text.lower()
    # the claim as written ("Five seats"); lower-casing may change a text's length, rarely
    shown = text if len(text) == len(low) else low
    out: list[Mention] = []
    for m in _ONE_PART.finditer(low) if " of" in low else ():
        if _FRACTION_OF.match(low, m.end()) is not None:
            share = float(round(100 / FRACTION_PARTS[m.group("part")]))
            out.append(Mention(shown[m.start() : m.end()], "number", (Reading(share, 1.0),)))
    for m in SPELLED_CLAIM_RE.finditer(low):
        i = m.start()
        if i and low[i - 1].isalpha():
            continue
        word = shown[m.start("word") : m.end("word")]
        key = m.group("word")
        unit = m.group("unit") or m.group("hyphened")
        # (a thing joined by a hyphen is counted: "four-bedroom", four bedrooms)
        thing = m.group("thing")
        last = m.group("hyphened") or (f"{thing}s" if thing else m.group(0).rsplit(None, 1)[-1])
        if last in _FRACTION_NOUNS and not m.group("ones") and not m.group("scale"):
            if _FRACTION_OF.match(low, m.end()) is not None and key in SPELLED:
                share = SPELLED[key] * _FRACTION_NOUNS[last]
                if share < 100:
                    raw = shown[i : m.end()]
                    out.append(
                        Mention(raw, "number", readings=(Reading(float(round(share)), 1.0),))
                    )
            continue  # "three quarters of 2024", "two thirds of an hour": not judged
        if key in NOT_COUNTS and not unit:
            continue
        if key == "dozen" and _MULTIPLIED.search(low, max(0, i - 16), i) is not None:
            continue  # "two dozen eggs", "half a dozen": a multiple, no count claimed
        if not unit and low[max(0, i - 6) : i].rstrip().endswith(_DEFINITE):
            continue  # "the two bids": things already named, not a count claimed
        value = float(SPELLED[key])
        if m.group("ones") and value in (20, 30, 40, 50, 60, 70, 80, 90):
            value += SPELLED[m.group("ones")]
            word = shown[i : m.end("ones")]  # as written: "twenty-five", "twenty five"
        hundreds = _HUNDRED_AND.search(low, max(0, i - 24), i)
        if hundreds is not None and value < 100:  # "a hundred and fifty pieces": 150
            k = hundreds.group(1)
            value += 100.0 * (1 if k in ("a", "one") else SPELLED[k])
            i = hundreds.start()
            word = shown[i : m.end("ones") if m.group("ones") else m.end("word")]
        noun = "" if last in MEASURES else last  # "two days" measures, "two films" counts
        precision, scale = 1.0, m.group("scale")
        if scale:  # "twenty-five thousand copies": an amount, not things to count one by one
            words = scale.split()  # "three hundred thousand": both scales
            factor = SPELLED_SCALES[words[-1]] * (100.0 if len(words) > 1 else 1.0)
            value *= factor
            # read as "25 thousand" is, to the thousand; "five hundred seats" as "500 seats"
            precision = SPELLED_SCALES[words[-1]] if scale != "hundred" else 1.0
            word, noun = f"{word} {' '.join(words)}", ""
        reading = Reading(value, precision)
        out.append(Mention(word, "number", readings=(reading,), noun=noun))
    return out


# Two figures of two digits either side of a point written as a range ("from 18.00 to
# 22.00", "18.00-22.00", "between 18.00 and 22.00"), in emphasis or not, no currency or unit
# with them: clock times, backed by clock times only (one alone may be a decimal)
_POINTED_CLOCK = r"(?:[01]\d|2[0-3])\.[0-5]\d"
_POINTED_RANGE = re.compile(
    rf"(?:\b(between)\s+|(?<![\d.,$€£¥₹])(?<![$€£¥₹] ))[*_]*({_POINTED_CLOCK})[*_]*\s*"
    rf"(?(1)and|(?:-|–|—|to|until|till))\s*[*_]*({_POINTED_CLOCK})(?![\d]|[.,]\d"
    r"|[*_]*\s?(?:%|[€$£¥₹]|(?:[kcm]?[glm]|kg|km|lbs?|oz|EUR|USD|GBP|CHF|euros?|dollars?"
    r"|pounds?|francs?|percent|per\s?cent)\b))"
)


def _pointed_clocks(text: str, mentions: list[Mention]) -> list[Mention]:
    """``mentions`` with the figures of a range of clock times written with a point read as
    clock times ("22.00" of "from 18.00 to 22.00" is no decimal 22, which "£22" backs)."""
    if not any(m.kind == "number" and m.raw[2:3] == "." and len(m.raw) == 5 for m in mentions):
        return mentions
    clocks = {g for r in _POINTED_RANGE.finditer(text) for g in r.groups()[1:]}
    if not clocks:
        return mentions
    return [
        Mention(m.raw, "time", readings=(Reading(int(m.raw[:2]) * 60.0 + int(m.raw[3:]), 1.0),))
        if m.kind == "number" and m.raw in clocks
        else m
        for m in mentions
    ]


def answer_mentions(
    answer: str, context_locale: Callable[[], str | None] | None = None
) -> list[Mention]:
    """The numeric claims an answer makes, with list/citation markers and URLs removed.

    ``context_locale`` is asked only when the answer has a figure like "1,600" and its own
    decimal convention is unclear: in a European context it may be one point six or sixteen
    hundred, and either reading can be supported.
    """
    if TRIGGER.search(answer) is None:
        low = unemphasised(answer.lower())
        if SPELLED_CLAIM_RE.search(low) is None and _ONE_PART.search(low) is None:
            return []  # no digit and no spelled-out quantity or share: nothing to parse
    cleaned = strip_noise(untokenise(answer))

    def convention() -> str | None:
        own = locale_of(cleaned)
        if own is None and context_locale is not None:
            return "either" if context_locale() == "eu" else None
        return own

    mentions = [m for m in scan(cleaned, Lazy(convention)) if m.raw not in _IDIOMS]
    mentions = _pointed_clocks(cleaned, mentions)
    # a spelled claim is read through markdown emphasis ("**Eight** rescue greyhounds")
    return mentions + _spelled_claims(unemphasised(cleaned))
