"""Steps of ``Derivation`` for measures written in two parts or with two-word units: a
duration in hours and minutes ("2 hours 15 minutes" for 135 minutes, either way round), a
data size in another unit (1.5 GB for 1,500 MB: a kilobyte is 1,000 bytes or 1,024, and a
figure right under either reading is backed), and an area between square metres and square
feet (215 square feet for 20 square metres, rounded to the answer's precision and within
5 %, as other metric and imperial conversions), and pence written as pounds (£1.35 for
135p). Each returns how the figure follows, or None; they take the derivation as
``quantities`` does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from monitor.checks.numbers.computed import duration
from monitor.checks.numbers.forms import (
    SIZES_OF,
    alone,
    num,
    rounding_step,
    spellings,
    unit_of,
    written_at,
)
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import SPELLED, place
from monitor.checks.numbers.quantities import (
    Around,
    Derivation,
    answer_unit,
    figure_with_unit,
)
from monitor.checks.numbers.shown import written_step

# "2 hours 15 minutes", "2 hours and 15 minutes", "2h 15m", "an hour and 35 minutes" (in
# lower-cased text): found from the hours word on (a pattern led by the figure, tried at
# every letter "a" of a 5 KB context, cost ~100 us), the hours figure right before it
_COMPOUND_TAIL = re.compile(
    r"(?:hours?|hrs?|h)\s*,?\s*(?:and\s+)?(\d{1,2})\s?(?:minutes?|mins?|m)(?![a-z])"
)
_COMPOUND_HEAD = re.compile(r"(?<![\d.,\w])(\d{1,3}|an?|one)\s?$")
# Data units and their power of a thousand (or of 1,024)
_DATA = {
    "kb": 1, "mb": 2, "gb": 3, "tb": 4,
    "kilobyte": 1, "megabyte": 2, "gigabyte": 3, "terabyte": 4,
}  # fmt: skip
# An area: a figure before "square metres" / "sq ft", or glued to "m²", "ft²", "sqm", "sqft"
_AREA_UNIT = (
    r"(?:(?:square|sq\.?)\s?(feet|foot|ft|metres?|meters?|m)\b|(m²|m2|ft²|sqm|sqft)(?![\w]))"
)
_AREA = re.compile(rf"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s?{_AREA_UNIT}", re.IGNORECASE)
_AREA_AFTER = re.compile(rf"\s?{_AREA_UNIT}", re.IGNORECASE)
SQUARE_FEET_PER_SQUARE_METRE = 1 / 0.3048**2


def _compounds(low: str) -> list[tuple[int, int, str]]:
    """(hours, minutes, as written) of each duration in hours and minutes of ``low``."""
    out: list[tuple[int, int, str]] = []
    for m in _COMPOUND_TAIL.finditer(low):
        head = _COMPOUND_HEAD.search(low, max(0, m.start() - 5), m.start())
        if head is not None:
            hours = int(head.group(1)) if head.group(1).isdigit() else 1
            out.append((hours, int(m.group(1)), low[head.start() : m.end()]))
    return out


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def durations(text: str) -> list[tuple[str, int, int]]:
    """(as written, where its hours figure starts, where its minutes figure starts) of each
    duration in hours and minutes of ``text`` ("1 hour 50 minutes", "1h 50m", "an hour and
    50 minutes"): one figure, which the check reports whole."""
    low = text.translate(_ASCII_LOWER)  # (the offsets of ``text``)
    out: list[tuple[str, int, int]] = []
    for m in _COMPOUND_TAIL.finditer(low):
        head = _COMPOUND_HEAD.search(low, max(0, m.start() - 5), m.start())
        if head is not None:
            out.append((text[head.start() : m.end()], head.start(), m.start(1)))
    return out


_ANSWER_UNIT = re.compile(r"[ \t-]?([A-Za-zµμ]+(?:/h)?)")
# The unit of a range's first end is its second end's ("2-3 weeks", "2 to 3 months")
_RANGE_UNIT = re.compile(r"[ \t]*+(?:[-–]|to\b)[ \t]*+\d[\d.,]*+[ \t-]?([A-Za-zµμ]+(?:/h)?)")


def _unit_after(text: str, j: int) -> str | None:
    """The unit written after the figure that ends at ``text[j]``, or after the range it
    begins; None when a word that is none follows, or nothing."""
    m = _RANGE_UNIT.match(text, j) or _ANSWER_UNIT.match(text, j)
    return m.group(1) if m is not None else None


_FIGURE_DIGITS = re.compile(r"[$€£¥₹]?\s?(\d[\d,]*(?:\.\d+)?)([A-Za-zµμ]*(?:/h)?)$")


def in_other_unit(raw: str, answer: str, context: str) -> bool:
    """Whether the figure ``raw`` of ``answer``, written with a unit ("100 km", "six weeks"),
    is written in the ``context`` only with another unit of the same kind ("100 miles", "6
    months"): each time the context writes its digits (or, for a number in words, the same
    word), another unit follows. A figure the context writes anywhere else (with the same
    unit, with no unit, or before any other word) is not. (The context as written:
    lower-casing a whole context for this cost more than the rest of it.)"""
    figure = _FIGURE_DIGITS.match(raw)
    if figure is not None:
        digits, glued = figure.groups()
        needles: tuple[str, ...] = (digits,)
    else:  # a number in words: its digits or the same word ("six weeks" for "6 months")
        value = SPELLED.get(raw.lower())
        if value is None:
            return False
        digits, glued = str(value), ""
        needles = (digits, raw.lower(), raw.lower().capitalize(), raw.upper())
    if not glued:  # the unit after the figure where it stands ("six" of "sixteen" is none)
        i = answer.find(raw)
        while i >= 0 and not alone(answer, i, i + len(raw)):
            i = answer.find(raw, i + 1)
        glued = (_unit_after(answer, i + len(raw)) if i >= 0 else None) or ""
    mine = unit_of(glued)
    if mine is None:
        return False  # (most figures: no unit, or one that does not convert)
    seen = False
    for needle in needles:
        found = _units_after(needle, context, mine)
        if found is None:
            return False  # written elsewhere, or with this unit
        seen = seen or found
    return seen


def _kind(dimension: str) -> str:
    """The kind of unit a dimension is: months and years are durations, as days and weeks
    are, though they do not convert into them exactly."""
    return "time" if dimension == "month" else dimension


def _units_after(needle: str, context: str, mine: tuple[str, float]) -> bool | None:
    """Where the ``context`` writes ``needle`` as a figure of its own: None when once with
    the unit ``mine``, with none or with a word that is no unit of its kind; else whether
    it writes it at all (each time with another unit of that kind)."""
    seen = False
    for _, j in written_at(needle, context):
        word = _unit_after(context, j)
        theirs = unit_of(word) if word is not None else None
        if theirs is None or _kind(theirs[0]) != _kind(mine[0]) or theirs == mine:
            return None
        seen = True
    return seen


def in_duration(raw: str, text: str, found: tuple[str, int, int]) -> bool:
    """Whether the figure ``raw`` is the hours or the minutes figure of the duration
    ``found`` (of ``durations(text)``)."""
    raw = raw.lower()
    for start in found[1:]:
        end = start + len(raw)
        if text[start:end].lower() == raw and not text[end : end + 1].isdigit():
            return True
    return False


@functools.lru_cache(maxsize=16)
def _context_compounds(low: str) -> tuple[tuple[int, str], ...]:
    """(minutes, as written) of every duration in hours and minutes of a context (ASCII
    lower-cased): read once a context."""
    return tuple((h * 60 + mi, written) for h, mi, written in _compounds(low))


def compound(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A duration in hours and minutes against the same span written in one unit, either
    way round ("2 hours 15 minutes" for 135 minutes, "135 minutes" for "2 hours 15
    minutes"), or in hours and minutes on both sides."""
    mine: list[float] = [h * 60.0 + mi for h, mi, _ in _compounds(around[1]) if value in (h, mi)]
    single = not mine
    if single:  # one figure of time against a compound of the context
        unit = unit_of(answer_unit(mention, around))
        if unit is None or unit[0] != "time" or value <= 0:
            return None  # (the common case: neither, and the context is not read)
        mine = [value * unit[1] / 60]
    theirs = _context_compounds(d.lower)
    for total in mine:
        for minutes, written in theirs:
            if minutes == total:
                return written
        if single:
            continue
        # "1 hour 35 minutes" for "from 09:12 to 10:47": two clock times of a context
        # sentence, or of the answer's own that the context states (read only when the
        # context has a clock time)
        ours = d.answer_figures(mention, around[1], "time") if d.sentence_times else []
        for times in (ours, *d.sentence_times):
            found = duration(total, times)
            if found is not None:
                return found
        for size, words in SIZES_OF["time"]:
            for spelled in spellings(total * 60 / size):
                found = figure_with_unit(d, spelled, words)
                if found is not None:
                    return found
    return None


def _data_power(word: str) -> int | None:
    word = word.lower()
    return _DATA.get(word) or _DATA.get(word[:-1]) if word else None


def data_size(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A data size in another unit, under either reading of a kilobyte (1,000 or 1,024
    bytes), to the answer's last digit and within 1 %: "1,500 MB" or "1,536 MB" for 1.5 GB;
    "300 MB" for 3 GB is neither, nor "2 GB" for 2,300 MB."""
    mine = _data_power(answer_unit(mention, around))
    if mine is None:
        return None
    tolerance = (mention.readings[0].precision or 1.0) / 2 + 1e-9
    for m, c, word in d.context_figures():
        theirs = _data_power(word)
        if theirs is None or theirs == mine:
            continue
        for base in (1000.0, 1024.0):
            gap = abs(c * base ** (theirs - mine) - value)
            if gap <= tolerance and gap <= 0.01 * value:  # (not "2 GB" for 2,300 MB)
                return f"{m.raw} {word}"
    return None


def _feet(unit: str) -> bool:
    return unit.lower().startswith(("f", "sqf"))


def area(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """An area between square metres and square feet, rounded to the answer's precision
    and within 5 % ("215 square feet" for 20 square metres; not "200 square feet")."""
    after = _AREA_AFTER.match(d.rest(mention))
    if after is None or value <= 0:
        return None
    feet = _feet(after.group(1) or after.group(2))
    step = rounding_step(value, mention.readings[0].precision)
    for m in _AREA.finditer(d.context):
        if _feet(m.group(2) or m.group(3)) == feet:
            continue
        c = num(m.group(1))
        converted = c * SQUARE_FEET_PER_SQUARE_METRE if feet else c / SQUARE_FEET_PER_SQUARE_METRE
        gap = abs(converted - value)
        if gap <= step / 2 + 1e-9 and gap <= 0.05 * value:
            return m.group(0)
    return None


_PENCE = re.compile(r"(?<![\d.,])(\d{1,4}(?:\.\d{1,2})?)p(?![\w])")
_POUNDS = re.compile(r"£\s?(\d+\.\d{2,4})(?![\d])")
_CENTS = re.compile(r"(?<![\d.,$€])(\d{1,4}(?:\.\d{1,2})?)\s?(?:¢|c(?![\w$€£])|cents?\b)")
_DOLLARS = re.compile(
    r"[$€]\s?(\d+\.\d{2,4})(?![\d])|(?<![\d.,])(\d+\.\d{2,4})\s?(?:USD|EUR|CAD|AUD)\b"
)
_SMALL_WORD = re.compile(r"¢|\s(cents?|pence)\b")  # after an answer's figure, lower-cased
_SMALL = re.compile(r"(\d{1,4}(?:\.\d{1,2})?)(p|c|¢)")  # an answer's "12.5c", "24.5p"


def pence(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """An amount in pence written in pounds, or the other way ("£1.35" for 135p, "85p"
    for £0.85, "£0.245" for 24.5p); in cents written in dollars or euros, or the other way
    ("$0.25" for 25¢ or "25 cents", "25¢" or "25c" for $0.25, "$0.125" for 12.5c)."""
    raw = mention.raw
    small = _SMALL.fullmatch(raw)
    if small is None and raw.isdigit() and (word := _SMALL_WORD.match(d.rest(mention))):
        # ("99¢": the sign is not read with the figure; "99 cents", "40 pence": a word)
        small = _SMALL.fullmatch(raw + ("p" if word.group(1) == "pence" else "¢"))
    if small is not None:
        big = _POUNDS if small.group(2) == "p" else _DOLLARS
        for m in big.finditer(d.context):
            if abs(num(m.group(1) or m.group(2)) * 100 - value) < 1e-6:
                return m.group(0)
        return None
    for sign, pattern in (("£", _PENCE), ("$€", _CENTS)):
        if raw[:1] in sign and "." in raw and not raw[-1].isalpha():
            units = value * 100
            if abs(units - round(units, 2)) > 1e-6:
                return None  # "£1.3555" is no whole hundredth of a penny
            for m in pattern.finditer(d.context):
                if abs(num(m.group(1)) - units) < 1e-6:
                    return m.group(0)
    return None


def _only_as(digits: str, context: str, other: Callable[[int, int], bool]) -> bool:
    """Whether the ``context`` writes ``digits`` (as a figure of its own) at least once, and
    each time as ``other`` says of that place (start, end): another unit's, another
    currency's."""
    seen = False
    for start, end in written_at(digits, context):
        if not other(start, end):
            return False
        seen = True
    return seen


def in_small_change(raw: str, context: str) -> bool:
    """Whether the amount ``raw`` ("£53.35", "£45", "$0.25") is written in the ``context``
    only as pence or cents with the same digits ("53.35p", "45p"): a hundred times what it
    says."""
    if raw[:1] not in "£$€":
        return False
    return _only_as(
        raw[1:].strip(), context, lambda _, end: _SMALL_AFTER.match(context, end) is not None
    )


def in_big_change(raw: str, context: str) -> bool:
    """Whether the amount in pence or cents ``raw`` ("45p", "99c") is written in the
    ``context`` only as pounds, dollars or euros with the same digits ("£45"): a hundredth
    of what it says."""
    small = _SMALL.fullmatch(raw)
    if small is None:
        return False
    return _only_as(
        small.group(1),
        context,
        lambda start, _: context[max(0, start - 2) : start].strip()[-1:] in ("£", "$", "€"),
    )


_SMALL_AFTER = re.compile(r"\s?(?:p|¢|c|cents?)(?![a-z])", re.IGNORECASE)

# The currency of an amount: its sign, or a code or name after it
_CURRENCIES = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr"}
_CURRENCY_AFTER = re.compile(
    r"\s?(usd|dollars?|eur|euros?|gbp|pounds? sterling|jpy|yen|inr|rupees?)\b", re.IGNORECASE
)
_CURRENCY_WORDS = {"usd": "usd", "dol": "usd", "eur": "eur", "gbp": "gbp", "pou": "gbp",
                   "jpy": "jpy", "yen": "jpy", "inr": "inr", "rup": "inr"}  # fmt: skip
_AMOUNT = re.compile(r"([$€£¥₹])\s?(\d[\d,]*(?:\.\d+)?)(?!\d)")


def in_other_currency(raw: str, context: str) -> bool:
    """Whether the amount ``raw`` ("£25") is written in the ``context`` only as an amount in
    another currency with the same digits ("$25 fee", "25 USD"): each time the context
    writes its digits, another currency's sign is before them or its code or name after."""
    amount = _AMOUNT.match(raw)
    if amount is None:
        return False
    mine = _CURRENCIES[amount.group(1)]

    def another(start: int, end: int) -> bool:
        sign = context[max(0, start - 2) : start].strip()[-1:]
        word = _CURRENCY_AFTER.match(context, end)
        theirs = _CURRENCIES.get(sign) or (
            _CURRENCY_WORDS[word.group(1).lower()[:3]] if word is not None else None
        )
        return theirs is not None and theirs != mine

    return _only_as(amount.group(2), context, another)


# A dollar's country written before its sign ("A$79", "NZ$40", "US$1.2bn"): the scan reads
# the figure after the sign, and the country is read here
_DOLLAR_OF = re.compile(r"(?<![A-Za-z])(A|AU|AUD|NZ|NZD|C|CA|CAD|US|USD|HK|S|SG)\s?\$\s?$")
_DOLLARS_NAMED = {"au": "aud", "a": "aud", "nz": "nzd", "c": "cad", "ca": "cad", "us": "usd",
                  "hk": "hkd", "s": "sgd", "sg": "sgd"}  # fmt: skip


def _dollar(text: str, start: int) -> str | None:
    """The country of the dollar whose figure starts at ``start`` of ``text`` ("A$79":
    "aud"), or None for a plain "$" or no dollar."""
    found = _DOLLAR_OF.search(text, max(0, start - 6), start)
    if found is None:
        return None
    code = found.group(1).lower()
    return _DOLLARS_NAMED.get(code, code if len(code) == 3 else None)


def in_other_dollar(raw: str, answer: str, context: str) -> bool:
    """Whether the answer's figure ``raw`` is a dollar amount of one country ("A$79") that
    the context writes, each time, as another country's ("NZ$79"); a plain "$" on either
    side is any dollar."""
    mine = _dollar(answer, place(answer, raw))
    if mine is None:
        return False
    digits = re.sub(r"^[^\d]+", "", raw)
    return _only_as(digits, context, lambda start, _: _dollar(context, start) not in (None, mine))


def as_written(raw: str, answer: str) -> str:
    """``raw`` as the answer writes it with its sign where the scan left it out: a dollar's
    country before it ("A$280 million"), a cent sign after it ("50¢")."""
    i = place(answer, raw)
    if i < 0:
        return raw
    found = _DOLLAR_OF.search(answer, max(0, i - 6), i)
    if found is not None:
        raw = answer[found.start() : i] + raw
    elif answer[i + len(raw) : i + len(raw) + 1] == "¢":
        raw += "¢"
    return raw


def in_other_layout(raw: str, context: str) -> str | None:
    """A run of six or more digits of the answer ("204577") that the context writes with
    separators between its digits ("20-45-77", "20 45 77"), as written there: a sort code,
    an account or reference number in another layout."""
    if not (raw.isdigit() and len(raw) >= 6):
        return None
    spaced = "[-. ]?".join(raw)
    found = re.search(rf"(?<![\d.,-]){spaced}(?![\d]|[-.,]\d)", context)
    return found.group(0) if found is not None and found.group(0) != raw else None


# Fuel economy both ways: miles per gallon is 282.481 (imperial gallons) or 235.215 (US
# gallons) over litres per 100 km, the gallon the one the answer names after it, else either
_MPG_AFTER = re.compile(r"[\s*_]*(?:mpg|miles per gallon)\b(?P<rest>.{0,24})")
_L100_AFTER = re.compile(r"[\s*_]*(?:l|litres?|liters?)\s?(?:/|per)\s?100\s?km\b")
_L100 = re.compile(r"(\d+(?:\.\d+)?)\s?(?:l|litres?|liters?)\s?(?:/|per)\s?100\s?km\b", re.I)
_MPG = re.compile(r"(\d+(?:\.\d+)?)\s?(?:mpg|miles per gallon)\b(?P<rest>.{0,24})", re.I)
_GALLONS = {"uk": 282.481, "us": 235.215}


def _gallons(after: str) -> tuple[float, ...]:
    """The factors of the gallon named in ``after`` (lower-cased), or both."""
    if "uk" in after or "imperial" in after:
        return (_GALLONS["uk"],)
    return (_GALLONS["us"],) if "us" in after.split() else tuple(_GALLONS.values())


def fuel_economy(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """Miles per gallon for a context's litres per 100 km, or the other way ("around 56 mpg
    in UK gallons" for "5.0 L/100 km"), to the answer's last digit or its hedge's rounding."""
    rest = d.rest(mention)
    mpg = _MPG_AFTER.match(rest)
    if (mpg is None and _L100_AFTER.match(rest) is None) or value <= 0:
        return None
    step = written_step(value, mention.readings[0].precision or 1.0, around[0])
    pattern = _L100 if mpg is not None else _MPG
    for m in pattern.finditer(d.context):
        given = num(m.group(1))
        gallon = mpg.group("rest") if mpg is not None else m.group("rest").lower()
        for k in _gallons(gallon) if given > 0 else ():
            if abs(k / given - value) <= step / 2 + 1e-9:
                return f"{k:g} / {m.group(0).strip()}"
    return None
