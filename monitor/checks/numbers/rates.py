"""Two rates of the context compared, wherever the context states them: a gap in percentage
points or basis points ("15 percentage points below the standard rate" beside "VAT on
energy: 5%. Standard rate: 20%."; "cut by 25 basis points" beside 5.25% and 5.00%), and a
relative change between them said as such ("75% lower", "a 20% relative drop", "about 17%
more in relative terms"). A step of ``Derivation`` (``derived._WAYS``), after the cued steps
that read one context sentence: here the rates may stand in any sentences, so only the
words that name the comparison let it look, and only among the context's percentages (at
most ``MAX_RATES`` of them: their pairs would back almost any figure).

A gap in points that the context backs only by rounding one rate ("4 percentage points" for
a rate of 4.6%) is no gap: ``rounded_gap`` says so, and the figure is judged as a gap.
"""

from __future__ import annotations

import re

from monitor.checks.numbers.index import NumberLookup
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import is_percent
from monitor.checks.numbers.quantities import Around, Derivation
from monitor.checks.numbers.shown import FALLING, written_step

MAX_RATES = 12
# A gap said in points after the figure, lower-cased: "percentage points", "pp", "basis points"
_POINTS = re.compile(r"[\s*_]*(?:(percentage|basis)[ -]points?|(pp|bps?)|points?)\b")
# A relative change said beside a percentage: "75% lower", "a 20% relative drop", "12% more
# in relative terms"
_RELATIVE_AFTER = re.compile(
    r"[\s*_]*(?:relative\b|(?:lower|higher|more|less|cheaper|dearer|smaller|larger|bigger)\b"
    r"|(?:drop|fall|rise|increase|decrease|reduction|cut|jump)\b.{0,24}\brelative)"
)
_RELATIVE_NEAR = re.compile(r"\bin relative terms\b|\brelative (?:drop|fall|rise|increase|"
                            r"decrease|reduction|change|terms)\b")  # fmt: skip
_RISE = re.compile(r"\b(?:higher|more|dearer|larger|bigger|rose|rises?|increase\w*|grow\w*"
                   r"|gain\w*|jump\w*|up)\b")  # fmt: skip


def _rates(d: Derivation) -> list[tuple[str, float]]:
    """The context's percentages, as written and valued, each once, at most ``MAX_RATES``."""
    out: dict[str, float] = {}
    for m, value, _ in d.context_figures():
        if is_percent(m.raw) and m.raw not in out:
            out[m.raw] = value
    return list(out.items()) if len(out) <= MAX_RATES else []


def rate_gap(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """``value`` as the gap between two rates of the context, in the points the answer says,
    or as the relative change between them, when the answer says it is one."""
    before, sentence, _ = around
    rest = d.rest(mention)
    points = _POINTS.match(rest)
    if points is not None and not is_percent(mention.raw):
        basis = points.group(1) == "basis" or points.group(2) in ("bp", "bps")
        scale = 0.01 if basis else 1.0  # (basis points: hundredths of a point)
        gap, tolerance = value * scale, (mention.readings[0].precision / 2 + 1e-9) * scale
        rates = _rates(d)
        for i, (ra, a) in enumerate(rates):
            for rb, b in rates[i + 1 :]:
                if a != b and abs(abs(a - b) - gap) <= tolerance:
                    return f"{ra} - {rb}" if a > b else f"{rb} - {ra}"
        return None
    if not is_percent(mention.raw):
        return None
    if _RELATIVE_AFTER.match(rest) is None and _RELATIVE_NEAR.search(sentence) is None:
        return None
    # the base: the lower rate for a rise, the higher for a fall ("fell from 5.0% to 4.0%, a
    # 20% relative reduction"; 25% is over the wrong base); neither or both said: unknown
    falling = FALLING.search(sentence) is not None  # (the sentence lower-cased: Around)
    if falling == (_RISE.search(sentence) is not None):
        return None
    step = written_step(value, mention.readings[0].precision or 1.0, before)
    rates = _rates(d)
    for ra, a in rates:
        for rb, b in rates:  # b, the base
            change = 100 * abs(a - b) / b if b > 0 else -1.0
            if (b > a) == falling and a != b and abs(change - value) <= step / 2 + 1e-9:
                return f"({ra} - {rb}) / {rb}"
    return None


def rounded_gap(mention: Mention, after: str, lookup: NumberLookup) -> bool:
    """Whether ``mention``, with ``after`` the answer's text right after it, is a gap in
    points ("4 percentage points") that the context backs only by rounding a value ("4.6%"):
    a gap is a difference, never a rate rounded."""
    if is_percent(mention.raw) or _POINTS.match(after.lower()) is None:
        return False
    backing = [c for r in mention.readings for c in lookup.index.backing(r)]
    return bool(backing) and all(c != r.value for c in backing for r in mention.readings)
