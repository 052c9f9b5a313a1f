"""A figure the answer works out in its own sentence from two figures it writes beside it,
each of which the context states: the answer shows its working, so no cue word is needed
("dropped from £80.00 to £60.00, that's £20 off"; "£73.50 for 300 kWh, which is 24.5p per
kWh"; "€812m from €701m, an increase of roughly 16%").

The last of the derivation steps (``derived._WAYS``): the cued steps before it say which
operation the answer means; this one tries each that the figures' kinds allow, to the
answer's last digit (its hedge's rounding, for "about 24%"). The operands are the other
figures of the sentence that the context states; with more than five of them the sentence
is not searched (their pairs would back almost any figure). The operations are those a
reader does at once: a sum or a difference of two amounts in one currency, an amount times
or over a count, a percentage of an amount or the amount less or plus it ("15% off £240.00
... £204.00, a saving of £36"), a count over a count (exactly), and a percentage that is
the relative change between two figures or a share of one in the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from monitor.checks.numbers.computed import Figure
from monitor.checks.numbers.forms import rounding_step
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import is_percent
from monitor.checks.numbers.quantities import Around, Derivation

MAX_FIGURES = 6  # the figure and the other figures of its sentence the context states
# A sentence that tells of a fall or a saving, lower-cased: its change is over the dearer
# figure (not a "Saver" account's name)
FALLING = re.compile(
    r"\b(?:cheaper|less|lower|fell|falls?|falling|down|decrease\w*|drop\w*|declin\w*|off"
    r"|sav(?:e|es|ed|ing|ings)|discount\w*|cut|reduc\w*|smaller|fewer|shrank|shrunk)\b"
)
_MONEY = "$€£¥₹"
_TAX = re.compile(r"\b(?:vat|tax\w*|gst|hst)\b")
# A rounding hedge right before a figure ("about 24%", "~16%")
HEDGED = re.compile(
    r"\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|circa|c\.)"
    r"[\s*_]*[$€£¥₹]?$|~\s*$"
)


def written_step(value: float, precision: float, before: str) -> float:
    """The step an answer's figure is written to: its last digit, or its hedge's rounding
    when a hedge stands right before it (``before``: the answer's words before it)."""
    return rounding_step(value, precision) if HEDGED.search(before.rstrip()) else precision


def _unit(raw: str) -> tuple[str, float] | None:
    """The currency of an amount written as ``raw`` and how many of its units the figure's
    value counts per unit (1 for "£5", 0.01 for "24.5p" or "25¢"); None for no amount."""
    if raw[:1] in _MONEY:
        return raw[0], 1.0
    if raw[-1:] in ("p", "¢") and raw[:-1].replace(".", "").replace(",", "").isdigit():
        return ("£" if raw[-1] == "p" else "$"), 0.01
    return None


def _results(
    a: Figure, b: Figure, pct: bool, money: tuple[str, float] | None, falling: bool, taxed: bool
) -> Iterator[tuple[float, str, bool]]:
    """(value, how, exact) of each operation on ``a`` and ``b`` whose result is of the
    answer's kind: a percentage (``pct``; a change is over the dearer figure when the
    sentence says it ``falling``, over the cheaper one else), an amount in ``money``'s
    currency and units, or a count (a quotient of counts, ``exact``: one rounded to a whole
    number would back most small counts)."""
    (ra, x), (rb, y) = a, b
    ua, ub = _unit(ra), _unit(rb)
    pa, pb = is_percent(ra), is_percent(rb)
    if pct:
        if x > 0 and y > 0 and x != y and pa == pb and ua == ub:
            if (x > y) != falling:  # a change over b, the base the sentence's word says
                yield 100 * abs(x - y) / y, f"({ra} - {rb}) / {rb}", False
            if x < y and not pa:
                yield 100 * x / y, f"{ra} / {rb}", False  # a share
        return
    if pa or pb:
        if money is not None and pa != pb and not taxed:  # a percentage of an amount, or
            (rx, amount), p = (a, y) if pb else (b, x)  # the amount less or plus it ("15%
            # off £240.00"; not a tax, which a total may already hold: "£24 is VAT at 20%" of
            # a £120 total including it is wrong)
            unit = _unit(rx)
            if unit is not None and unit[0] == money[0] and 0 < p < 100:
                base = amount * unit[1] / money[1]
                yield base * p / 100, f"{p:g}% of {rx}", False
                yield base * (1 - p / 100), f"{rx} less {p:g}%", False
                yield base * (1 + p / 100), f"{rx} plus {p:g}%", False
        return
    if money is not None:
        sign, per = money
        if ua is not None and ub is not None and ua[0] == ub[0] == sign:
            xa, yb = x * ua[1], y * ub[1]
            yield (xa + yb) / per, f"{ra} + {rb}", False
            yield abs(xa - yb) / per, f"{ra} - {rb}", False
        elif ua is not None and ub is None and ua[0] == sign and y:
            yield x * ua[1] * y / per, f"{ra} x {rb}", False
            yield x * ua[1] / y / per, f"{ra} / {rb}", False
        return
    # counts: a quotient only ("9 kWh a day" of 812 kWh over 90 days); a sum or a difference
    # of two counts of a sentence needs the word that says so (``derived``'s cued steps):
    # "aged 13 to 19 with Grade 6" is no 13 + 6
    if ua is None and ub is None and y:
        yield x / y, f"{ra} / {rb}", True


def shown_work(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """``value`` (the figure ``mention`` of the answer's sentence) as one operation on two
    other figures of that sentence, each stated by the context (see the module)."""
    before, sentence, _ = around
    others = d.answer_figures(mention, sentence, "number")
    if len(others) < 2 or len(others) >= MAX_FIGURES or value <= 0:
        return None
    precision = mention.readings[0].precision or 1.0
    hedged = HEDGED.search(before.rstrip()) is not None
    tolerance = written_step(value, precision, before) / 2 + 1e-9
    pct = is_percent(mention.raw)
    money = _unit(mention.raw)
    falling = FALLING.search(sentence) is not None  # (the sentence lower-cased: Around)
    taxed = _TAX.search(sentence) is not None
    for i, a in enumerate(others):
        for j, b in enumerate(others):
            if i == j or value in (a[1], b[1]):
                continue
            for result, how, exact in _results(a, b, pct, money, falling, taxed):
                if abs(result - value) <= (tolerance if hedged or not exact else 1e-9):
                    return how
    return None
