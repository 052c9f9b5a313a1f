"""The steps of ``Derivation`` that read a figure as a quantity: the same quantity in another
unit ("2 hours" for "120 minutes"), between metric and imperial ("62 miles" for 100 km),
Celsius and Fahrenheit, per another period ("$300 a year" for $25 a month), a duration
between two clock times. Each takes
the derivation (the context read once) and returns how the figure follows, or None.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Protocol

from monitor.checks.numbers.computed import Figure, duration, written_product
from monitor.checks.numbers.forms import (
    SIZES_OF,
    imperial,
    num,
    rounding_step,
    spellings,
    unit_of,
    written_at,
)
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import DIMENSIONS, is_percent

Around = tuple[str, str, str]  # the answer's words before the figure, its sentence, the word after


class Derivation(Protocol):
    """What these steps read of ``derived.Derivation``: the context, read once."""

    context: str

    @property
    def lower(self) -> str:
        """The context with ASCII letters lower-cased."""
        ...

    @property
    def sentence_times(self) -> list[list[Figure]]:
        """Each context sentence's clock times."""
        ...

    @property
    def open_decimals(self) -> bool:
        """Whether the context's figures show neither decimal convention."""
        ...

    def rest(self, mention: Mention) -> str:
        """The answer after the figure, lower-cased, to the end of its sentence."""
        ...

    def answer_figures(self, mention: Mention, sentence: str, kind: str) -> list[Figure]:
        """The figures of kind ``kind`` of the answer's ``sentence`` besides ``mention``."""
        ...

    def context_figures(self) -> Iterator[tuple[Mention, float, str]]:
        """(figure, value, the word after it) of every plain number of the context."""
        ...

    def stated(self) -> frozenset[float]:
        """Every value a figure of the context states (one scan of it, when first asked)."""
        ...

    @property
    def sentence_figures(self) -> list[list[tuple[str, float]]]:
        """Each context sentence's plain numbers as (as written, value), in order."""
        ...


_UNIT_AFTER = re.compile(rf"{DIMENSIONS}[ \t-]?([a-zµμ]+)\b")  # (past a dimension list)
_US_AFTER = re.compile(r"\s(?:us|u\.s\.)[ \t]+([a-z]+)")  # "10 us gallons" (lower-cased)
_UK_GALLONS = re.compile(r"\s(?:uk|imperial)[ \t]+gallons?\b")

# A temperature's scale right after its figure ("°F", " ° c", " degrees Celsius"), in the
# answer (lower-cased) and with its figure in the context.
_TEMPERATURE_AFTER = re.compile(
    r"\s?(?:[°º]\s?|degrees?\s+)(c|f|celsius|fahrenheit|centigrade)\b|\s(celsius|fahrenheit)\b"
)

_TEMPERATURE = re.compile(
    r"(?<![\d.,])(\d+(?:[.,]\d+)?)(?:\s?(?:[°º]\s?|degrees?\s+)(C|F|Celsius|Fahrenheit|centigrade)"
    r"|(?-i:([CFcf])))\b",  # (or glued, as news writes degrees: "19C", "66F")
    re.IGNORECASE,
)
# A range's first end takes its second end's scale: "2–8°C", "36 to 46 °F"
_TEMPERATURE_RANGE = re.compile(
    r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*(?:[-–]|to)\s*\d+(?:[.,]\d+)?"
    r"\s?(?:[°º]\s?|degrees?\s+)(C|F|Celsius|Fahrenheit|centigrade)\b",
    re.IGNORECASE,
)

# An amount's period right after it ("a month", "per year", "/mo", "annually"); weeks as 52 a
# year.
_PERIOD_WORDS = r"(week|wk|month|mo|year|yr|annum)"

# (a price per head between them: "$49 per user per month", "$5 a seat a month")
_PER_HEAD = r"(?:(?:per|a|an|each)\s+(?:user|seat|person|head|member|licen[cs]e)\s+|/\s?user\s?)?"
_PERIOD_AFTER = re.compile(
    rf"\s*{_PER_HEAD}(?:(?:per|a|an|each|every)\s+|/\s?){_PERIOD_WORDS}\b"
    rf"|\s*{_PER_HEAD}(weekly|monthly|yearly|annually)\b"
)

# Or said before it in the answer's sentence: "Over a year, Pro costs $1,188", "the annual
# fee is $1,188", "per month that is $99".
_PERIOD_BEFORE = re.compile(
    rf"\b(?:(?:over|for|in|across|per|each|every)\s+(?:a|an|one|the|a\s+full|a\s+whole"
    rf"|the\s+whole|the\s+full)?\s*{_PERIOD_WORDS}|(annual|weekly|monthly|yearly|annually))\b"
    # (no other figure between, but a label's or another amount: "Over a year, the 30-day
    # plan costs £144 and the 24-month plan £120")
    r"(?!\s*(?:of|on|after|before|later|ago|from)\b)"
    r"(?:[^.;:!?\d$€£¥₹]|\d+-(?=[a-z])|[$€£¥₹]\d[\d,]*(?:\.\d+)?)*$"
)

_PERIOD = re.compile(
    rf"([$€£¥₹]?\s?\d[\d,]*(?:\.\d+)?)\s*{_PER_HEAD}(?:(?:per|a|an|each|every)\s+|/\s?)"
    rf"{_PERIOD_WORDS}\b|([$€£¥₹]?\s?\d[\d,]*(?:\.\d+)?)\s*{_PER_HEAD}(weekly|monthly|yearly"
    r"|annually)\b"
    # or the period said before the thing and its amount, a sum of money (a currency's sign
    # or name): "a monthly stipend of ₹9,000", "the annual fee is 600 euros" (not "a monthly
    # meeting of 40 members", "weekly classes at 6 pm"; nor a "semi-annual" or "bi-weekly" one)
    r"|(?<![-\w])(weekly|monthly|yearly|annual)\s+(?:[a-z]+\s+){0,2}?(?:of|is|was|at|:)\s*"
    r"(?=[$€£¥₹]|\d[\d,]*(?:\.\d+)?\s?(?:dollars?|euros?|pounds?|rupees?|yen|usd|eur|gbp|inr)\b)"
    # (the amount read once, atomic: "$999…9 a" fails at once, not once for each digit)
    r"([$€£¥₹]?\s?(?>\d(?:[\d,]*\d)?(?:\.\d+)?))(?![\d.,]*\s*(?:%|(?:per|a|an|each|every)\b))",
    re.IGNORECASE,
)

_CURRENCY = frozenset("$€£¥₹")
_PER_YEAR = {"we": 52.0, "wk": 52.0, "mo": 12.0, "ye": 1.0, "yr": 1.0, "an": 1.0}


def answer_unit(mention: Mention, around: Around) -> str:
    """The unit the answer writes after its figure, or glued to it ("1.5kg", "100km/h")."""
    figure = mention.raw.lstrip("$€£¥₹ ")
    glued = figure.lstrip("0123456789.,")
    if figure[:1].isdigit() and glued.replace("/", "").isalpha():
        return glued
    word = around[2]
    if word.lower() in ("us", "u"):  # "10 US gallons": the unit after it
        us = _US_AFTER.search(around[1], around[1].find(mention.raw.lower()) + 1)
        return us.group(1) if us is not None else word
    if word.lower() in ("uk", "imperial"):  # "11 UK gallons": the imperial gallon
        uk = _UK_GALLONS.search(around[1], around[1].find(mention.raw.lower()) + 1)
        return "ukgallon" if uk is not None else word
    if word.lower() in ("km", "m"):  # "100 km/h", "3 m/s": the word and its "/h"
        spaced = f"{mention.raw.lower()} {word.lower()}/"
        i = around[1].find(spaced)
        if i >= 0:
            return word + around[1][i + len(spaced) - 1 : i + len(spaced) + 1]
    return word


def elapsed(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A duration between two clock times of one context sentence, or of the answer's
    own sentence when the context states both ("95 minutes, from 09:12 to 10:47"), in
    the answer's unit of time."""
    unit = unit_of(answer_unit(mention, around))
    if unit is None or unit[0] != "time" or value <= 0:
        return None
    if not d.sentence_times:
        return None  # no clock time in the context (most of them): nothing to compute
    minutes = value * unit[1] / 60
    for times in (d.answer_figures(mention, around[1], "time"), *d.sentence_times):
        found = duration(minutes, times)
        if found is not None:
            return found
    return None


def converted(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """The same quantity in another unit ("2 hours" and "120 minutes"): each other unit's
    figure is looked for as written, followed by that unit."""
    after = answer_unit(mention, around)
    unit = unit_of(after)
    if unit is None or value <= 0:
        return None
    dim, size = unit
    for other, words in SIZES_OF[dim]:
        if other == size:
            continue
        for spelled in spellings(value * size / other):
            found = figure_with_unit(d, spelled, words)
            if found is not None:
                return found
        times = value * size / other
        if abs(times - 1.5) < 1e-9 and "and a half" in d.lower:
            found = _one_of(d, words, _AND_A_HALF)  # "an hour and a half" for 90 minutes
            if found is not None:
                return found
        if abs(times - 1) < 1e-9:
            found = _one_of(d, words, _A_UNIT)  # "an hour" for 60 minutes
            if found is not None:
                return found
    return None


def _one_of(d: Derivation, units: frozenset[str], pattern: re.Pattern[str]) -> str | None:
    """One (or one and a half) of one of ``units``, written with "a", "an" or "one" ("an
    hour", "a day and a half"); not a rate ("twice a week", "$10 a month", "per a year")."""
    low = d.lower
    for m in pattern.finditer(low):
        if (
            m.group(1) in units
            and _RATE_BEFORE.search(low, max(0, m.start() - 40), m.start()) is None
        ):
            return d.context[m.start() : m.end()]
    return None


_AND_A_HALF = re.compile(r"(?<![\w])an? ([a-z]+) and a half\b")
_A_UNIT = re.compile(r"(?<![\w-])(?:an?|one) ([a-z]+)\b(?!-)")
# A rate, not a span: "twice a week", "$10 a month", "per a year", and a count of things a
# period ("one wash a week", "five days a week", "a lesson a month")
_RATE_BEFORE = re.compile(
    r"(?:\d|\b(?:once|twice|thrice|times|per|every|each))[ \t]*$"
    r"|(?<![\w-])(?:\d[\d,.]*|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"[ \t]+(?!(?:of|or|and|to|the|for|in|on|at|by|with|from|than|more|less|is|was)\b)[a-z]+[ \t]+$"
)


def across_systems(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """The same quantity converted between metric and imperial units and rounded ("62
    miles" for 100 km, "about 60 miles" too): the context's figure in the answer's unit
    rounds to the answer's figure at its own precision, and lies within 5 % of it (a
    wrong conversion, "72 miles", or the same figure in the other unit, is not one)."""
    after = answer_unit(mention, around)
    unit = unit_of(after)
    if unit is None or value <= 0:
        return None
    dim, size = unit
    step = rounding_step(value, mention.readings[0].precision)
    for m, c, word in d.context_figures():
        other = unit_of(word) if word else None
        if other is None or other[0] != dim or imperial(word) == imperial(after):
            continue
        # "42,195 km" where no figure shows the convention: 42.195 too, as the look-up reads it
        either = _COMMA_GROUP.match(m.raw) is not None and d.open_decimals
        for figure in (c, c / 1000) if either else (c,):
            gap = abs(figure * other[1] / size - value)
            if gap <= step / 2 + 1e-9 and gap <= 0.05 * value:
                return f"{m.raw} {word}"
    return None


_COMMA_GROUP = re.compile(r"\d{1,3},\d{3}(?![\d,.])")


def temperature(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A temperature converted between Celsius and Fahrenheit ("68 °F" for 20 °C), to
    the answer's last digit (98.6 °F or 99 °F for 37 °C; 70 °F is not 20 °C), or within
    2 % to a figure ending in 0 or 5 (180 °C for 350 °F; not 200 °C)."""
    raw = mention.raw
    if raw[-1:] in ("c", "C", "f", "F") and raw[-2:-1].isdigit():
        scale = raw[-1].lower()  # glued, as news writes degrees: "19C", "66F"
    else:
        rest = d.rest(mention)
        m = _TEMPERATURE_AFTER.match(rest) or _TEMPERATURE_RANGE.match(mention.raw + rest)
        if m is None:
            return None
        scale = (m.group(2) if m.re is _TEMPERATURE_RANGE else m.group(1) or m.group(2)).lower()
    fahrenheit = scale[0] == "f"
    precision = mention.readings[0].precision or 1.0
    # a figure ending in 0 or 5 may be rounded to it, by up to 2 % (180 °C for 350 °F)
    rounded = value.is_integer() and int(value) % 5 == 0
    tolerance = max(precision / 2, 0.02 * abs(value)) if rounded else precision / 2
    found = (*_TEMPERATURE.finditer(d.context), *_TEMPERATURE_RANGE.finditer(d.context))
    stated = [(c.group(1), c.group(2) or c.group(3), c.group(0)) for c in found]
    for written, their_scale, shown in stated:
        their = their_scale.lower()[0] == "f"
        if their == fahrenheit:
            continue
        figure = float(written.replace(",", "."))
        converted = figure * 9 / 5 + 32 if fahrenheit else (figure - 32) * 5 / 9
        if abs(converted - value) <= tolerance + 1e-9:
            return shown.strip()
    return None


_PERIOD_REACH = 240  # characters of the sentence before an amount read for its period


# A figure before the amount, not a label's ("the 30-day plan": no figure of its own) nor
# another amount the period is said of ("costs £144 and the 24-month plan £120")
_FIGURE_BEFORE = re.compile(r"(?<![\d.,$€£¥₹])\d(?!\d*-[a-z])")


def per_period(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """An amount per week, month or year restated per another ("$300 a year" for $25 a
    month; weeks as 52 a year), to the answer's last digit."""
    m = _PERIOD_AFTER.match(d.rest(mention))
    before = around[0]
    if m is None and mention.raw[:1] in _CURRENCY and _FIGURE_BEFORE.search(before) is None:
        # "Over a year, Pro costs $1,188", "Over a year, a dedicated desk at the Foundry costs
        # £1,440": anywhere in the sentence before the figure (bounded: the pattern is tried
        # at each word of it)
        m = _PERIOD_BEFORE.search(before[-_PERIOD_REACH:])
    if m is None:
        return None
    mine = _PER_YEAR[(m.group(1) or m.group(2))[:2]]
    precision = mention.readings[0].precision or 1.0
    for amount, theirs, written in _amounts_per_period(d.context):
        if theirs == mine:
            continue
        restated = amount * theirs / mine
        if abs(restated - value) <= precision / 2 + 1e-9 and restated > 0:
            return written
    return None


# The words a period is written with in a context ("/mo" and "/yr" after their slash): the
# amount is looked for only in a window before each (the pattern run over a whole 5 KB
# context cost ~370 us, on every figure a period was said of)
_PERIOD_CUES = ("week", "month", "year", "annum", "annual", "/mo", "/ mo", "/wk", "/yr")
# Where a ``_PERIOD`` may start: an amount's sign or first digit (never one inside an amount,
# which read "48 monthly" in "$1,048 monthly"), or a period word; the pattern is tried there
# alone instead of at every character of the window
_PERIOD_START = re.compile(
    r"[$€£¥₹]|(?<![\d.,$€£¥₹])(?<![$€£¥₹]\s)\d|(?<![-\w])(?:weekly|monthly|yearly|annual)",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=16)
def _amounts_per_period(context: str) -> tuple[tuple[float, float, str], ...]:
    """(amount, periods a year, as written) of every amount a context states per week,
    month or year ("$25 a month", "$49 per user per month", "$300 annually")."""
    low = context.lower()
    out: dict[int, tuple[float, float, str]] = {}
    tried: set[int] = set()
    for cue in _PERIOD_CUES:
        i = low.find(cue)
        while i >= 0:
            for found in _PERIOD_START.finditer(context, max(0, i - 64), i + len(cue) + 48):
                # (each place an amount or a period word starts in the window is tried once,
                # and read past the window, which may cut it: "monthly fee is <spaces> $1,250")
                if found.start() in tried:
                    continue
                tried.add(found.start())
                c = _PERIOD.match(context, found.start())
                if c is None:
                    continue
                # (amount, period): groups 1 and 2 of "$25 a month", 3 and 4 of "$25
                # monthly", 6 and 5 of "a monthly fee of $25"
                amount, period = (
                    (c.group(1), c.group(2)) if c.group(1)
                    else (c.group(3), c.group(4)) if c.group(3) else (c.group(6), c.group(5))
                )  # fmt: skip
                out[c.start()] = (num(amount), _PER_YEAR[period.lower()[:2]], c.group(0).strip())
            i = low.find(cue, i + len(cue))
    return tuple(out.values())


_AMOUNT_DIGITS = re.compile(r"[$€£¥₹]\s?(\d[\d,]*(?:\.\d+)?)$")


def in_other_period(raw: str, answer: str, context: str) -> bool:
    """Whether the amount ``raw`` of ``answer``, said per a period ("$29 per month", "$29 a
    month", "$29/mo", "$29 monthly"), is written in the ``context`` only as an amount per
    another period ("$29 per year"): each time the context writes its digits, they are an
    amount per another week, month or year. An amount the context writes anywhere else (per
    the same period, or with none) is not."""
    figure = _AMOUNT_DIGITS.match(raw)
    i = answer.find(raw) if figure is not None else -1
    said = _PERIOD_AFTER.match(answer, i + len(raw)) if i >= 0 else None
    if figure is None or said is None:
        return False
    mine = _PER_YEAR[(said.group(1) or said.group(2)).lower()[:2]]
    low = context.lower()
    if not any(word in low for word in _OTHER_PERIODS[mine]):
        return False  # (no other period is written: the context's amounts are not read)
    value = num(raw)
    theirs = [p for amount, p, _ in _amounts_per_period(context) if amount == value]
    if not theirs or mine in theirs:
        return False
    return sum(1 for _ in written_at(figure.group(1), context)) <= len(theirs)


# The words a period other than one's own is written with (``_PER_YEAR``'s: "monthly" holds
# "mo", "annually" "annu")
_OTHER_PERIODS = {
    52.0: ("mo", "year", "yr", "annu"),
    12.0: ("week", "wk", "year", "yr", "annu"),
    1.0: ("week", "wk", "mo"),
}


def worked_out(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A product or quotient of two figures of the answer's sentence the context states,
    worked out where the sentence says so (``computed.written_product``), to the answer's
    last digit."""
    precision = mention.readings[0].precision or 1.0
    return written_product(mention.raw, around[1], value, precision / 2 + 1e-9, d.stated)


# An amount said of each one of a group, after it: "€90 per person", "£45 each", "a head"
_EACH_AFTER = re.compile(
    r"[\s*_]*(?:(?:per|a|for each|for every)\s+(?:person|head|guest|adult|passenger|member"
    r"|player|student|attendee|participant|traveller|traveler|delegate)\b|each\b|apiece\b)"
)


def per_head(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """An amount per person of a group whose total and size one context sentence states
    ("€90 per person" beside "Group booking for 6 guests: total €540"), to the answer's last
    digit: the total in the answer's currency over a whole count of 2 to 100."""
    sign = mention.raw[:1]
    if sign not in _CURRENCY or _EACH_AFTER.match(d.rest(mention)) is None:
        return None
    tolerance = (mention.readings[0].precision or 1.0) / 2 + 1e-9
    for figures in d.sentence_figures:
        totals = [(r, v) for r, v in figures if r[:1] == sign and v > value]
        sizes = [(r, v) for r, v in figures if r[:1] not in _CURRENCY and v == int(v)
                 and 2 <= v <= 100 and not is_percent(r)]  # fmt: skip
        for rt, t in totals:
            for rn, n in sizes:
                if abs(t / n - value) <= tolerance:
                    return f"{rt} / {rn}"
    return None


def figure_with_unit(d: Derivation, figure: str, units: frozenset[str]) -> str | None:
    """``figure`` written in the context right before one of ``units`` (or its plural),
    as written there ("120 minutes", "two days", "2.5 km")."""
    if figure[0].isdigit() and figure not in d.context:
        return None  # the common case, decided without lower-casing the context
    low = d.lower
    i = low.find(figure)
    while i >= 0:
        j = i + len(figure)
        if i == 0 or not (low[i - 1].isalnum() or low[i - 1] in ".,"):
            m = _UNIT_AFTER.match(low, j)
            word = m.group(1) if m is not None else ""
            if word in units or (len(word) > 2 and word[-1] == "s" and word[:-1] in units):
                end = j + len(m.group(0)) if m else j
                # (the hours of "7 hours 20 minutes" are part of one span, not a figure)
                if _PART_AFTER.match(low, end) is None and (
                    _PART_BEFORE.search(low, max(0, i - 24), i) is None
                ):
                    return d.context[i:end]
        i = low.find(figure, j)
    return None


# The next or the previous part of a span in two units ("7 hours 20 minutes", "2 days and 3
# hours")
_PART_AFTER = re.compile(
    r"[ \t]*(?:,[ \t]*|and[ \t]+)?\d+[ \t]*(?:minutes?|mins?|seconds?|secs?|hours?|hrs?)\b"
)
_PART_BEFORE = re.compile(
    r"\d[ \t]*(?:days?|hours?|hrs?|minutes?|mins?)[ \t]*(?:,[ \t]*|and[ \t]+)?$"
)


# "one hour", "a one-week trial": one unit of time the answer states (never "one of", "no
# one", "one more"); after a hedge ("more than one day", "up to one hour") it bounds, and is
# left alone.
_ONE_UNIT = re.compile(
    r"(?<![\w-])one[ -](second|minute|hour|day|week|fortnight|month|year)(?![\w-])"
)
_ONE_HEDGED = re.compile(
    r"(?:more than|less than|fewer than|over|under|up to|at least|at most|about|around"
    r"|nearly|almost|roughly|approximately|no|any|every|each|per|than|at|the)\s+$"
)
# Words that say one of a unit ("an annual plan" is a one-year plan)
_ONE_UNIT_WORDS = {
    "hour": ("hourly",),
    "day": ("daily", "next[ -]day", "same[ -]day"),
    "week": ("weekly",),
    "month": ("monthly",),
    "year": ("annual", "annually", "yearly", "per annum"),
}
# A duration the context states (a figure or a spelled number before a unit of time).
_SPAN = re.compile(
    r"(?<![\w.,])(?:\d[\d,.]*|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety)[ -]"
    r"(?:(?:business|calendar|working|full)[ -])?"
    r"(second|minute|hour|day|week|fortnight|month|year)s?(?![\w])"
)


def one_unit_claims(answer: str) -> list[tuple[int, str]]:
    """(offset, unit) of each "one <unit of time>" the answer states as a duration (in lower
    case: a sentence's "One day, ..." is mostly the idiom)."""
    out: list[tuple[int, str]] = []
    low = answer.lower()  # (once: each claim lower-casing the answer cost claims x answer)
    for m in _ONE_UNIT.finditer(answer):
        if _ONE_HEDGED.search(low, max(0, m.start() - 20), m.start()) is None:
            out.append((m.start(), m.group(1)))
    return out


def one_unit(d: Derivation, unit: str) -> str:
    """What the context says of one ``unit`` of time: "backed" (it writes one, "a", "an" or
    "1" of it, or the same span in another unit: "60 minutes" for one hour), "flagged" (it
    states another duration of its kind, "30 minutes", and none of those), else "unjudged"
    (no duration to compare with, or one of another kind: "30 days" for one month; and
    "one" is too common a word to be looked up as written)."""
    low = d.lower
    if re.search(rf"(?<![\w.,])(?:one|1|an?)[ -]?{unit}(?![\w])", low):
        return "backed"
    if any(re.search(rf"\b{w}\b", low) for w in _ONE_UNIT_WORDS.get(unit, ())):
        return "backed"  # "a one-year plan" beside "an annual plan"
    dim, size = unit_of(unit) or ("", 0.0)
    for other, words in SIZES_OF.get(dim, ()):
        if other != size:
            for spelled in spellings(size / other):
                if figure_with_unit(d, spelled, words) is not None:
                    return "backed"
    # another duration of the same kind (days and months do not compare exactly)
    spans = (unit_of(m.group(1)) for m in _SPAN.finditer(low))
    return "flagged" if any(u is not None and u[0] == dim for u in spans) else "unjudged"
