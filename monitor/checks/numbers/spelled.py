"""Figures a text spells out in words, as the look-up reads them (``index.NumberLookup``):
"forty-five", "a dozen", "two million", "one and a half thousand"; each over the text
lower-cased, as bytes."""

from __future__ import annotations

import re

from monitor.checks.numbers.patterns import SPELLED, SPELLED_SCALES, TENS_ALONE, UNITS

# "one week"; "one in 12", "one in every 12" (a rate: "1 in 12"; not a year: "one in 2020")
_SPELLED_CLAIM_ONE = re.compile(
    rf"\bone\s+(?:{UNITS}|in\s+(?:every\s+)?(?!(?:19|20)\d\d(?![\d,.]\d))\d)".encode()
)
_A_DOZEN = re.compile(rb"(?<!half )\b(?:a|one)\s+dozen\b|(?:^|[.!?:(]\s*)dozen\b")
# the largest first: 2,000,000 is "two million", not "two thousand thousand"
_SCALED_WORDS = tuple(sorted(((v, k.encode()) for k, v in SPELLED_SCALES.items()), reverse=True))
_WORDS_OF: dict[float, tuple[bytes, ...]] = {}
for _word, _value in SPELLED.items():
    _WORDS_OF[float(_value)] = (*_WORDS_OF.get(float(_value), ()), _word.encode())


def has_word(lower: bytes, word: bytes) -> bool:
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


def spelled_scaled(lower: bytes, value: float) -> bool:
    """The figure spelled with its scale word ("two million" for 2 million, "twenty-five
    thousand" for 25,000; "a million" and "one million" for 1,000,000; "two hundred
    thousand" for 200,000)."""
    for scale, word in _SCALED_WORDS:
        n = value / scale
        if n.is_integer() and 1 <= n < 100:
            if n == 1:
                return b"a " + word in lower or b"one " + word in lower
            return any(has_word(lower, w + b" " + word) for w in _spelled(n))
        # "two hundred thousand" for 200,000, "a hundred million"
        hundreds = n.is_integer() and 100 <= n < 1000 and not n % 100 and word != b"hundred"
        if hundreds and b" hundred " + word in lower:
            k = n // 100
            heads = _spelled(k) + ((b"a", b"one") if k == 1 else ())
            if any(has_word(lower, w + b" hundred " + word) for w in heads):
                return True
        if n % 1 == 0.5 and 1 < n < 100 and b" and a half " + word in lower:
            # "one and a half million" for 1.5 million, "two and a half thousand"
            whole = _spelled(n - 0.5) + ((b"a",) if n == 1.5 else ())
            return any(has_word(lower, w + b" and a half " + word) for w in whole)
    return False


def spelled_in_text(lower: bytes, value: float) -> bool:
    """The whole figure ``value`` spelled out in the text ("five", "forty-five", "a dozen")."""
    if value == 1:
        # "one" is mostly a pronoun ("no one", "one of them"): it backs 1 only before a
        # unit ("one week") or in a rate ("one in 12"); otherwise nearly every text would
        # support the figure 1.
        return _SPELLED_CLAIM_ONE.search(lower) is not None
    if value == 12 and b"dozen" in lower:
        # "a dozen" is 12; "half a dozen" 6 and "two dozen" 24 (the derivations' look)
        return has_word(lower, b"twelve") or _A_DOZEN.search(lower) is not None
    if 21 <= value < 100 and value % 10:  # a compound: no other word ends in "-five"
        return any(w in lower for w in _spelled(value))
    if value in TENS_ALONE:  # "twenty", not the head of "twenty-five" or "twenty-first"
        return TENS_ALONE[value].search(lower) is not None
    return any(has_word(lower, w) for w in _spelled(value))


def _spelled(n: float) -> tuple[bytes, ...]:
    """How a whole number up to a hundred is spelled ("forty-five" and "forty five" for 45;
    the words ``SPELLED`` has for it otherwise; none when it has none)."""
    if 21 <= n < 100 and n % 10:
        tens, ones = _WORDS_OF[float(n // 10 * 10)][0], _WORDS_OF[float(n % 10)][0]
        return tens + b"-" + ones, tens + b" " + ones
    return _WORDS_OF.get(n, ())
