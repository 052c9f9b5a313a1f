"""Figures the context implies without writing them, each by one checkable step.

An answer's figure that the context does not state may still be backed by it: the ordinal
of a word ("4th" for "fourth"), dozens ("24" for "two dozen"), a count of what the context
enumerates ("four children" beside "Anna, Ben, Carl and Dora"), a sum or difference of two
figures of one context sentence when the answer says it is one ("in total 45" beside "20
adults and 25 children"), a unit conversion ("2 hours" for "120 minutes"), or a hedged
rounding ("nearly 78,000" for "77,812"). ``Derivation.explain`` returns how the figure
follows, or None; a figure that needs two steps, or whose arithmetic is wrong, is not
derived. Looked for only after the plain look-up failed, so the hot path never pays.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from monitor.checks.lazy import lazy
from monitor.checks.numbers.mentions import Lazy, Mention, locale_of, scan
from monitor.checks.numbers.patterns import SPELLED

_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
_TENS = {v: k for k, v in SPELLED.items() if v in (20, 30, 40, 50, 60, 70, 80, 90)}
_ONES_ORDINAL = {v: k for k, v in _ORDINAL_WORDS.items() if v < 10}
_QUANTITY = {**{k: v for k, v in SPELLED.items() if v <= 20}, "a": 1, "an": 1}
_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9}

# Units a figure can be converted between: (dimension, size in the dimension's base unit).
_UNITS: dict[str, tuple[str, float]] = {
    "second": ("time", 1), "sec": ("time", 1), "minute": ("time", 60), "min": ("time", 60),
    "hour": ("time", 3600), "hr": ("time", 3600), "day": ("time", 86400),
    "week": ("time", 604800), "fortnight": ("time", 1209600),
    "month": ("month", 1), "year": ("month", 12), "decade": ("month", 120),
    "metre": ("length", 1), "meter": ("length", 1), "m": ("length", 1),
    "kilometre": ("length", 1000), "kilometer": ("length", 1000), "km": ("length", 1000),
    "gram": ("mass", 1), "g": ("mass", 1), "kilogram": ("mass", 1000), "kg": ("mass", 1000),
}  # fmt: skip
_WORDS_FOR: dict[int, tuple[str, ...]] = {}
for _name, _v in SPELLED.items():
    _WORDS_FOR[_v] = (*_WORDS_FOR.get(_v, ()), _name)
_SIZES: dict[str, dict[float, set[str]]] = {}
for _word, (_dim, _size) in _UNITS.items():
    _SIZES.setdefault(_dim, {}).setdefault(_size, set()).add(_word)
# Per dimension: (size, the unit words of that size).
_SIZES_OF = {d: [(k, frozenset(v)) for k, v in sizes.items()] for d, sizes in _SIZES.items()}


_AFTER = re.compile(r"[ \t-]?([A-Za-z]+)")
_UNIT_AFTER = re.compile(r"[ \t-]?([a-z]+?)s?\b")

# Cues right before ("a total of 45", "rose by 5") or after ("45 in total", "9 more games
# than") the figure that say the answer states a sum or a difference.
_SUM_BEFORE = re.compile(
    r"(?:total of|in total|combined|altogether|in all|sum of|totalling"
    r"|(?:total|combined|sum)\b[^.,;]{0,40}\b(?:is|was|are|were|came to|reached)"
    r"|\b(?:together|between them)\b[^.,;]{0,60})\s*$"
)
_SUM_AFTER = re.compile(r"^\s*(?:\w+\s+)?(?:in total|combined|altogether|in all)\b")
_DIFF_BEFORE = re.compile(
    r"(?:\bby|(?:difference|gap|margin|increase|decrease|rise|drop|fall) of"
    r"|(?:difference|gap|margin)\b[^.,;]{0,40}\b(?:is|was))\s*$"
)
_DIFF_AFTER = re.compile(r"^\s*(?:\w+\s+)?(?:more|fewer|less)\s+(?:\w+\s+)?than\b")
# Hedges and what they let a context figure ``c`` be for an answer's ``v``: "round" (``v`` is
# ``c`` rounded at ``v``'s own precision, "about 78,000" for 77,812), "round_below" (so, and
# ``c <= v``: "nearly"), or a range of rounding steps of ``v`` beside it ("more than 24" for
# 25, "over 100" for 101 to 200): further off, humans call the hedged figure wrong.
_HEDGES: tuple[tuple[str, str, float, float], ...] = (
    ("more than", "range", 0, 1), ("over", "range", 0, 1), ("above", "range", 0, 1),
    ("at least", "range", 0, 1), ("fewer than", "range", -1, 0), ("less than", "range", -1, 0),
    ("under", "range", -1, 0), ("below", "range", -1, 0), ("up to", "range", -1, 0),
    ("nearly", "round_below", 0, 0), ("almost", "round_below", 0, 0),
    ("close to", "round", 0, 0), ("about", "round", 0, 0), ("around", "round", 0, 0),
    ("roughly", "round", 0, 0), ("approximately", "round", 0, 0), ("some", "round", 0, 0),
    ("an estimated", "round", 0, 0),
)  # fmt: skip
_STRICT = frozenset({"more than", "over", "above", "fewer than", "less than", "under", "below"})
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?!\d)|\n|$)")
_WORD = re.compile(r"[a-z]{4,}")
_Around = tuple[str, str, str]  # the answer's words before the figure, its sentence, the word after
_STOP = frozenset("that this with from were have there their they them than then what when".split())


def _ordinal_words(n: int) -> tuple[str, ...]:
    """The spellings of the ordinal ``n`` ("fourth", "twenty-first", "twenty first")."""
    words = [w for w, v in _ORDINAL_WORDS.items() if v == n]
    if 20 < n < 100 and n % 10:
        tens, ones = _TENS[n // 10 * 10], _ONES_ORDINAL[n % 10]
        words += [f"{tens}-{ones}", f"{tens} {ones}"]
    return tuple(words)


def _unit(word: str) -> tuple[str, float] | None:
    word = word.lower()
    return _UNITS.get(word) or _UNITS.get(word[:-1] if word.endswith("s") else word)


class Derivation:
    """Ways a context implies a figure it does not write (see the module docstring)."""

    def __init__(self, context: str, answer: str, lower: Callable[[], bytes] | None = None) -> None:
        self.context = context
        self.answer = answer
        self._lower = lower

    @lazy
    def lower(self) -> str:
        """The context with ASCII letters lower-cased (from ``lower``, the view's lower-cased
        bytes, when given: the words looked for here are ASCII, and it is shared)."""
        if self._lower is not None:
            return self._lower().decode("utf-8")
        return self.context.encode("utf-8").lower().decode("utf-8")

    @lazy
    def sentences(self) -> list[str]:
        """The context's sentences."""
        return [s for s in _SENTENCE.findall(self.context) if s.strip()]

    def _sentences_with(self, word: str) -> list[str]:
        """The sentences of the context that contain ``word`` (lower-cased), found from its
        occurrences rather than by splitting the whole context."""
        low = self.lower
        out: list[str] = []
        i = low.find(word)
        while i >= 0:
            start = max(low.rfind(c, 0, i) for c in ".!?\n") + 1
            ends = [j for j in (low.find(c, i) for c in ".!?\n") if j >= 0]
            end = min(ends) if ends else len(low)
            if not out or out[-1] != self.context[start:end]:
                out.append(self.context[start:end])
            i = low.find(word, end)
        return out

    def explain(self, mention: Mention) -> str | None:
        """How the context implies ``mention``'s figure, or None."""
        if mention.kind != "number" or not mention.readings:
            return None
        value = mention.readings[0].value
        around = self._around(mention)
        for way in (self._word_form, self._count, self._arithmetic, self._converted,
                    self._hedged):  # fmt: skip
            found = way(mention, value, around)
            if found is not None:
                return f"{mention.raw} = {found}"
        return None

    # --- the answer around the figure ----------------------------------------------------

    def _around(self, mention: Mention) -> _Around:
        """(words before, the sentence, the word after) of the figure in the answer."""
        i = self.answer.find(mention.raw)
        if i < 0:
            i = self.answer.lower().find(mention.raw.lower())
        if i < 0:
            return "", "", ""
        start = max(self.answer.rfind(c, 0, i) for c in ".!?\n") + 1
        end = min((j for j in (self.answer.find(c, i + len(mention.raw)) for c in ".!?\n")
                   if j >= 0), default=len(self.answer))  # fmt: skip
        after = _AFTER.match(self.answer, i + len(mention.raw))
        return (
            self.answer[start:i].lower(),
            self.answer[start:end].lower(),
            (after.group(1) if after else ""),
        )

    def _rest(self, mention: Mention) -> str:
        """The answer after the figure, lower-cased, to the end of its sentence."""
        i = self.answer.lower().find(mention.raw.lower())
        if i < 0:
            return ""
        tail = self.answer[i + len(mention.raw) :].lower()
        end = min((j for j in (tail.find(c) for c in ".!?\n") if j >= 0), default=len(tail))
        return tail[:end]

    # --- one step each ----------------------------------------------------------------------

    def _word_form(self, mention: Mention, value: float, around: _Around) -> str | None:
        """An ordinal word, dozens, or "a thousand"."""
        raw = mention.raw.lower()
        ordinal = raw.endswith(("st", "nd", "rd", "th")) and value.is_integer()
        if not (ordinal or value in (6, 1e3, 1e6, 1e9) or (value % 12 == 0 and value <= 144)):
            return None  # nothing to look for: leave the context alone
        low = self.lower
        if ordinal:
            for word in _ordinal_words(int(value)):
                if word in low and re.search(rf"\b{word}\b", low):
                    return f'"{word}"'
        if "dozen" not in low and value < 1e3:
            return None
        if value.is_integer() and value % 12 == 0 and 12 <= value <= 144:
            k = int(value // 12)
            names = [w for w, v in SPELLED.items() if v == k] + (["a", "one"] if k == 1 else [])
            for name in names:
                if re.search(rf"\b{name} dozen\b", low):
                    return f'"{name} dozen"'
        if value == 6 and "half a dozen" in low:
            return '"half a dozen"'
        for word, scale in _SCALE_WORDS.items():
            if value == scale and word in low and re.search(rf"\b(?:a|one) {word}\b", low):
                return f'"a {word}"'
        return None

    def _count(self, mention: Mention, value: float, around: _Around) -> str | None:
        """The number of things a context sentence about the same matter enumerates."""
        if not value.is_integer() or not 3 <= value <= 20:
            return None  # "A and B": on news articles two-item "lists" were mostly not lists
        _, _, noun = around
        if not noun.isalpha() or noun.lower() in _STOP or self._rest(mention).startswith("-"):
            return None  # "2-1", "a two-shot lead", "two of": no things named to count
        noun = noun.lower().rstrip("s")
        for s in self._sentences_with(noun):
            if " and " not in s:
                continue
            # the sentence must name what is counted ("Her children are Anna, ... and Dora"):
            # on news articles, any list in a sentence on the same matter was a false match
            if noun not in {w.rstrip("s") for w in _WORD.findall(s.lower())}:
                continue
            for items in _enumerations(s):
                if len(items) == value:
                    return "count of " + ", ".join(items)
                if sum(_quantity(i) for i in items) == value:
                    return "sum of " + ", ".join(items)
        return None

    def _arithmetic(self, mention: Mention, value: float, around: _Around) -> str | None:
        """A sum or difference of two figures of one context sentence, when the answer's
        sentence says it states one ("in total", "combined", "rose by", "a margin of")."""
        before, _, _ = around
        rest = self._rest(mention)
        add = _SUM_BEFORE.search(before.rstrip(" $€£")) or _SUM_AFTER.match(rest)
        sub = _DIFF_BEFORE.search(before.rstrip(" $€£")) or _DIFF_AFTER.match(rest)
        if add is None and sub is None:
            return None
        for s in self.sentences:
            figures = [
                m for m in scan(s, Lazy(functools.partial(locale_of, s))) if m.kind == "number"
            ]
            values = [(f.raw, f.readings[0].value) for f in figures if f.readings][:12]
            for i, (ra, a) in enumerate(values):
                for rb, b in values[i + 1 :]:
                    if add is not None and abs(a + b - value) < 1e-9:
                        return f"{ra} + {rb}"
                    if sub is not None and abs(abs(a - b) - value) < 1e-9 and a != b:
                        return f"{max(ra, rb, key=_num)} - {min(ra, rb, key=_num)}"
        return None

    def _converted(self, mention: Mention, value: float, around: _Around) -> str | None:
        """The same quantity in another unit ("2 hours" and "120 minutes"): each other unit's
        figure is looked for as written, followed by that unit."""
        _, _, after = around
        unit = _unit(after)
        if unit is None or value <= 0:
            return None
        dim, size = unit
        for other, words in _SIZES_OF[dim]:
            if other == size:
                continue
            for spelled in _spellings(value * size / other):
                found = self._figure_with_unit(spelled, words)
                if found is not None:
                    return found
        return None

    def _figure_with_unit(self, figure: str, units: frozenset[str]) -> str | None:
        """``figure`` written in the context right before one of ``units`` (or its plural),
        as written there ("120 minutes", "two days", "2.5 km")."""
        if figure[0].isdigit() and figure not in self.context:
            return None  # the common case, decided without lower-casing the context
        low = self.lower
        i = low.find(figure)
        while i >= 0:
            j = i + len(figure)
            if i == 0 or not (low[i - 1].isalnum() or low[i - 1] in ".,"):
                m = _UNIT_AFTER.match(low, j)
                if m is not None and m.group(1) in units:
                    return self.context[i : m.end()]
            i = low.find(figure, j)
        return None

    def _hedged(self, mention: Mention, value: float, around: _Around) -> str | None:
        """A hedge's tolerance around a context figure ("nearly 78,000" for 77,812)."""
        before, _, unit = around
        before = before.rstrip(" $€£")
        for cue, rule, low, high in _HEDGES:
            if not before.endswith(cue):
                continue
            step = _rounding_step(value, mention.readings[0].precision)
            unit = unit.lower().rstrip("s")
            for m, c, other in self._context_figures():
                other = other.lower().rstrip("s")
                if unit and other != unit and (rule == "range" or other):
                    continue  # "at least 7 people" is not backed by "9.6 magnitude"
                if rule == "range":
                    lo, hi = value + low * step, value + high * step
                    ok = lo <= c <= hi and abs(c - value) <= 0.25 * abs(value)
                    ok = ok and not (cue in _STRICT and c == value)
                else:
                    ok = abs(_round_half_up(c / step) * step - value) < step * 1e-9
                    ok = ok and (rule == "round" or c <= value)
                if ok:
                    return f"{cue} {m.raw}"
            return None
        return None

    def _context_figures(self) -> Iterator[tuple[Mention, float, str]]:
        """(figure, value, the word after it) of every plain number of the context."""
        for m in scan(self.context, Lazy(lambda: locale_of(self.context))):
            if m.kind != "number":
                continue
            glued = "".join(c for c in m.raw if c.isalpha())
            i = self.context.find(m.raw)
            after = _AFTER.match(self.context, i + len(m.raw)) if i >= 0 and not glued else None
            for r in m.readings:
                yield m, r.value, glued or (after.group(1) if after else "")


def _spellings(e: float) -> tuple[str, ...]:
    """How a context may write the figure ``e`` before a unit: its digits ("120", "1,200",
    "2.5"), and small whole numbers and halves spelled out ("two", "half a")."""
    if e <= 0 or e >= 1e12:
        return ()
    out = [f"{e:g}"] if e < 1e6 else []
    if e.is_integer():
        out = [f"{e:.0f}"]
        if e >= 1000:
            out.append(f"{e:,.0f}")
        out += _WORDS_FOR.get(int(e), ()) if e <= 100 else ()
    elif e == 0.5:
        out += ["half a", "half an"]
    return tuple(out)


def _rounding_step(value: float, precision: float) -> float:
    """The step a hedged figure is rounded to: its last digit, or coarser for each trailing
    zero ("78,000" is rounded to thousands, "180 million" to tens of millions)."""
    step = precision if precision > 0 else 1.0
    while value and step < abs(value):
        coarser = value / (step * 10)
        if abs(coarser - round(coarser)) >= 1e-9:
            break
        step *= 10
    return step


def _round_half_up(x: float) -> float:
    return float(int(x + 0.5)) if x >= 0 else -float(int(-x + 0.5))


def _num(raw: str) -> float:
    digits = "".join(c for c in raw if c.isdigit() or c == ".")
    try:
        return float(digits)
    except ValueError:
        return 0.0


_ITEM_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def _enumerations(sentence: str) -> Iterator[list[str]]:
    """The lists a sentence enumerates ("A, B, C and D"; "A and B"), each as its items; the
    first item is cut to its last one to three words ("Her children are Anna" -> "Anna")."""
    for m in re.finditer(r"((?:[^,;:]+,\s*)*[^,;:]+?)\s+and\s+([^,;:.]+)", sentence):
        parts = [p.strip() for p in _ITEM_SPLIT.split(m.group(0)) if p.strip()]
        if len(parts) < 2:
            continue
        first, last = parts[0].split(), parts[-1].split()
        if not first or not last:
            continue
        if first[-1][0].isupper():  # a name: its capitalised words ("Tom Hale")
            k = len(first) - 1
            while k > 0 and first[k - 1][0].isupper():
                k -= 1
            head = first[k:]
        else:  # a thing, from its quantity word if it has one ("a 19-year-old man")
            head = first[-1:]
            for k in range(len(first) - 1, max(len(first) - 4, -1), -1):
                if first[k].lower() in _QUANTITY:
                    head = first[k:]
                    break
        if last[0][0].isupper():
            k = 1
            while k < len(last) and last[k][0].isupper():
                k += 1
            tail = last[:k]
        else:
            tail = last[:3]
        items = [" ".join(head), *parts[1:-1], " ".join(tail)]
        if all(len(i.split()) <= 3 for i in items) and _alike(items):
            yield items


def _alike(items: list[str]) -> bool:
    """Items of one list: all names (capitalised), all years or figures, or all short
    lower-case phrases with at most one of them led by a quantity word."""
    bare = [re.sub(r"^(?:the|a|an)\s+", "", i) for i in items]
    if all(i[:1].isupper() for i in bare):
        return True
    if all(i[:1].isdigit() for i in items):
        return True
    return all(i[:1].islower() or i.split()[0].lower() in _QUANTITY for i in items)


def _quantity(item: str) -> int:
    """How many things an enumerated item stands for ("two women" 2, "a boy" 1)."""
    first = item.split()[0].lower() if item.split() else ""
    if first.isdigit() and int(first) <= 20:
        return int(first)
    return int(_QUANTITY.get(first, 1))
