"""Hedged figures: "nearly 78,000", "over 90%", "around 25 minutes", "up to 40%". A hedge
widens what backs a figure (a step of ``Derivation``: the context figures it may round or
bound) and also narrows it: a figure the context backs only by rounding a value on the
hedge's wrong side is not backed ("over 90%" for 89.5%, "nearly 2 million" for 2.1 million).
"""

from __future__ import annotations

import re

from monitor.checks.numbers.forms import round_half_up, rounding_step
from monitor.checks.numbers.index import NumberLookup
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import is_percent, place
from monitor.checks.numbers.quantities import Around, Derivation
from monitor.checks.numbers.rates import rounded_gap

# Hedges and what they let a context figure ``c`` be for an answer's ``v``: "round" (``v`` is
# ``c`` rounded at ``v``'s own step, "about 78,000" for 77,812; or, when ``v`` ends in a 5,
# one step off: "around 25" for 24), "round_below" (so, and ``c <= v``: "nearly"), or a
# range of rounding steps of ``v`` beside it, a quarter off at most ("more than 24" for 25,
# "over 100" for 101 to 125; "up to", which states the maximum, less than a quarter: "up to
# 50%" for a maximum of 40% is wrong): further off, humans call the hedged figure wrong.
_HEDGES: tuple[tuple[str, str, float, float], ...] = (
    ("more than", "range", 0, 1), ("over", "range", 0, 1), ("above", "range", 0, 1),
    ("at least", "range", 0, 1), ("fewer than", "range", -1, 0), ("less than", "range", -1, 0),
    ("under", "range", -1, 0), ("below", "range", -1, 0), ("at most", "range", -1, 0),
    ("up to", "range", -1, 0),
    ("nearly", "round_below", 0, 0), ("almost", "round_below", 0, 0),
    ("close to", "round", 0, 0), ("about", "round", 0, 0), ("around", "round", 0, 0),
    ("roughly", "round", 0, 0), ("approximately", "round", 0, 0), ("some", "round", 0, 0),
)  # fmt: skip

# Nouns of persons (their "s" dropped): "people" counts respondents, members, ...
_PERSONS = frozenset(
    "people person respondent participant customer patient student employee member user "
    "visitor attendee resident passenger worker staff voter fan spectator subscriber "
    "applicant volunteer children child adult men women".split()
)

_STRICT = frozenset({"more than", "over", "above", "fewer than", "less than", "under", "below"})


def hedged(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """A hedge's tolerance around a context figure ("nearly 78,000" for 77,812)."""
    before, _, unit = around
    before = before.rstrip(" *_$€£¥₹")
    for cue, rule, low, high in _HEDGES:
        if not before.endswith(cue):
            continue
        step = rounding_step(value, mention.readings[0].precision)
        unit = unit.lower().rstrip("s")
        pct = is_percent(mention.raw)  # a percentage: around a percentage
        for m, c, other in d.context_figures():
            if pct and not is_percent(m.raw):
                continue
            other = other.lower().rstrip("s")
            if (
                unit
                and other != unit
                and (rule == "range" or other)
                and not (
                    unit in _PERSONS and other in _PERSONS  # "more than 1,000 people": respondents
                )
            ):
                continue  # "at least 7 people" is not backed by "9.6 magnitude"
            if rule == "range":
                lo, hi = value + low * step, value + high * step
                # within a quarter of both figures: "up to 20" is a third over a limit of 15
                off = abs(c - value) / min(abs(value), abs(c)) if c and value else 1.0
                ok = lo <= c <= hi and (off < 0.25 if cue == "up to" else off <= 0.25)
                ok = ok and not (cue in _STRICT and c == value)
            else:
                ok = abs(round_half_up(c / step) * step - value) < step * 1e-9
                ok = ok or (_ends_in_five(value, step) and abs(c - value) <= step + 1e-9)
                ok = ok and (rule == "round" or c <= value)
            if ok:
                return f"{cue} {m.raw}"
        return _hedged_span(d, (cue, rule, low, high), value, step, unit)
    return None


# A span in hours and minutes in a context ("2 h 52 min", "1 hour and 55 minutes")
_HOURS_MINUTES = re.compile(
    r"\b(\d{1,3}|an?)\s*(?:h|hrs?|hours?)\.?\s*(?:and\s+)?(\d{1,2})\s*(?:m|mins?|minutes?)\b",
    re.IGNORECASE,
)


def _hedged_span(d: Derivation, hedge: tuple[str, str, float, float], value: float,
                 step: float, unit: str) -> str | None:  # fmt: skip
    """A hedged span in hours or minutes around a span in hours and minutes of the context,
    by the hedge's rule as for any figure ("almost 3 hours" for "2 h 52 min", "under 2
    hours" for 1 h 55 min)."""
    cue, rule, low, high = hedge
    if unit not in ("hour", "minute", "hr", "min"):
        return None
    for m in _HOURS_MINUTES.finditer(d.context):
        hours = 1 if not m.group(1).isdigit() else int(m.group(1))
        minutes = hours * 60 + int(m.group(2))
        c = minutes / 60 if unit in ("hour", "hr") else float(minutes)
        if rule == "range":
            lo, hi = value + low * step, value + high * step
            ok = lo <= c <= hi and abs(c - value) <= 0.25 * min(abs(value), abs(c))
        else:
            ok = abs(round_half_up(c / step) * step - value) < step * 1e-9
            ok = ok and (rule == "round" or c <= value)
        if ok:
            return f"{cue} {m.group(0)}"
    return None


# The hedges that bound a figure from one side: the context's value must lie above it, or
# below it ("just over", "well under" end in these too).
_ABOVE = ("more than", "over", "above", "at least", "in excess of", "upwards of", "exceeding")
_BELOW = ("nearly", "almost", "under", "less than", "fewer than", "below", "up to", "at most")
_SIDED = _ABOVE + _BELOW


def _ends_in_five(value: float, step: float) -> bool:
    """Whether ``value``'s last digit at ``step`` is a 5 that is not its only digit ("25",
    "750"; not "5" or "50"): a figure rounded to fives, one step off its source at most."""
    fives = abs(value) / (step * 5)
    return fives > 1.5 and abs(fives - round(fives)) < 1e-9


def narrowed(mention: Mention, answer: str, lookup: NumberLookup) -> bool:
    """Whether the words beside ``mention`` forbid the rounding that backs it: a hedge with
    a side (``against_hedge``) or a gap in points (``rates.rounded_gap``); the figure is
    then judged by the derivation steps."""
    if mention.kind != "number" or not mention.readings:
        return False
    i = place(answer, mention.raw)
    if i < 0:
        return False
    return against_hedge(mention, answer[max(0, i - 24) : i], lookup) or rounded_gap(
        mention, answer[i + len(mention.raw) : i + len(mention.raw) + 24], lookup
    )


def against_hedge(mention: Mention, before: str, lookup: NumberLookup) -> bool:
    """Whether a directional hedge ending ``before`` (the answer's text right before it)
    bounds ``mention`` ("over 90%", "nearly 2 million") and every value of the context that
    backs it lies on the hedge's wrong side (89.5%, 2.1 million): the figure rounds from it,
    but the hedge says otherwise."""
    before = before.lower().rstrip(" *_$€£¥₹")
    if not before.endswith(_SIDED):  # (one call: most figures have no hedge)
        return False
    cue = next(c for c in _SIDED if before.endswith(c))
    if before[: -len(cue)][-1:].isalpha():
        return False  # "takeover 90", not "over 90"
    above = cue in _ABOVE
    index = (lookup.percentages if is_percent(mention.raw) else lookup).index
    wrong = False
    for r in mention.readings:
        for c in index.backing(r):
            if (c >= r.value) if above else (c <= r.value):
                return False
            wrong = True
    return wrong
