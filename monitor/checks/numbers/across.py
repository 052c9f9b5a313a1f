"""A sum or a difference of two figures of the context in one unit, stated in any of its
sentences, that the answer names as one ("0.5 kg lighter than the Novabook 16" beside
"weight 1.29 kg" and "1.79 kg"; "gone up by £94.42" beside "Band C £1,982.84" and "2024/25
— Band C £1,888.42"; "1,600 miles short of the limit"). A step of ``Derivation``
(``derived._WAYS``), after the cued steps that read one context sentence: only the words that
name a sum or a difference let it look, only among the context's figures in the answer's
figure's unit (its currency, or the word after it), and only when there are at most
``MAX_FIGURES`` of them (their pairs would back almost any figure). A figure with decimals is
backed to its last digit; a whole one exactly.
"""

from __future__ import annotations

from monitor.checks.numbers.computed import named_operation
from monitor.checks.numbers.mentions import Mention
from monitor.checks.numbers.patterns import WORD_AFTER, is_percent
from monitor.checks.numbers.quantities import Around, Derivation

MAX_FIGURES = 6
_MONEY = "$€£¥₹"


def _singular(word: str) -> str:
    low = word.lower()
    return low[:-1] if low.endswith("s") and len(low) > 2 else low


def same_unit(d: Derivation, mention: Mention, value: float, around: Around) -> str | None:
    """``value`` as a sum or a difference of two context figures in ``mention``'s unit, when
    the answer's sentence names one (see the module)."""
    rest = d.rest(mention)
    add, sub = named_operation(around[0], rest, mention.raw)
    money = mention.raw[:1] if mention.raw[:1] in _MONEY else ""
    if not (add or sub) or is_percent(mention.raw) or not mention.readings:
        return None
    unit = money
    if not unit:
        after = WORD_AFTER.match(rest)
        unit = _singular(after.group(1)) if after is not None else ""
        if not unit or unit in ("more", "less", "fewer", "extra", "than", "a", "the", "of"):
            return None
    figures: dict[float, str] = {}
    for m, v, word in d.context_figures():
        if (m.raw[:1] == unit) if money else (m.raw[:1] not in _MONEY and _singular(word) == unit):
            figures.setdefault(v, m.raw)
            if len(figures) > MAX_FIGURES:
                return None
    precision = mention.readings[0].precision or 1.0
    tolerance = precision / 2 if precision < 1 else 1e-9
    found = sorted(figures.items())
    for i, (a, ra) in enumerate(found):
        for b, rb in found[i + 1 :]:
            if sub and abs(b - a - value) <= tolerance:
                return f"{rb} - {ra}"
            if add and abs(a + b - value) <= tolerance:
                return f"{ra} + {rb}"
    return None
