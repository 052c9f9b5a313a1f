"""The forms a derivable figure takes (see ``monitor.checks.numbers.derived``): ordinal
words, quantity words, convertible units, how a figure may be written before a unit, the
rounding step of a hedged figure, and the lists a sentence enumerates."""

from __future__ import annotations

import re
from collections.abc import Iterator

from monitor.checks.numbers.patterns import SCALES, SPELLED

ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
TENS = {v: k for k, v in SPELLED.items() if v in (20, 30, 40, 50, 60, 70, 80, 90)}
ONES_ORDINAL = {v: k for k, v in ORDINAL_WORDS.items() if v < 10}
QUANTITY = {**{k: v for k, v in SPELLED.items() if v <= 20}, "a": 1, "an": 1}
SCALE_WORDS = {w: SCALES[w] for w in ("thousand", "million", "billion")}  # "a thousand"

# Units a figure can be converted between: (dimension, size in the dimension's base unit).
UNITS: dict[str, tuple[str, float]] = {
    "millisecond": ("time", 0.001), "ms": ("time", 0.001),
    "second": ("time", 1), "sec": ("time", 1), "s": ("time", 1), "minute": ("time", 60),
    "min": ("time", 60),
    "hour": ("time", 3600), "hr": ("time", 3600), "h": ("time", 3600), "day": ("time", 86400),
    "week": ("time", 604800), "fortnight": ("time", 1209600),
    "month": ("month", 1), "year": ("month", 12), "decade": ("month", 120),
    "metre": ("length", 1), "meter": ("length", 1), "m": ("length", 1),
    "kilometre": ("length", 1000), "kilometer": ("length", 1000), "km": ("length", 1000),
    "millimetre": ("length", 0.001), "millimeter": ("length", 0.001), "mm": ("length", 0.001),
    "centimetre": ("length", 0.01), "centimeter": ("length", 0.01), "cm": ("length", 0.01),
    "milligram": ("mass", 0.001), "mg": ("mass", 0.001),
    "microgram": ("mass", 1e-6), "mcg": ("mass", 1e-6), "µg": ("mass", 1e-6),
    "μg": ("mass", 1e-6),
    "gram": ("mass", 1), "gramme": ("mass", 1), "g": ("mass", 1), "kilogram": ("mass", 1000),
    "kg": ("mass", 1000), "kilo": ("mass", 1000), "tonne": ("mass", 1e6), "t": ("mass", 1e6),
    "millilitre": ("volume", 0.001), "milliliter": ("volume", 0.001), "ml": ("volume", 0.001),
    "centilitre": ("volume", 0.01), "centiliter": ("volume", 0.01), "cl": ("volume", 0.01),
    "decilitre": ("volume", 0.1), "deciliter": ("volume", 0.1), "dl": ("volume", 0.1),
    "litre": ("volume", 1), "liter": ("volume", 1), "l": ("volume", 1),
    # imperial units: a figure converted to or from them is rounded (62 miles for 100 km)
    "mile": ("length", 1609.344), "mi": ("length", 1609.344), "yard": ("length", 0.9144),
    "yd": ("length", 0.9144), "foot": ("length", 0.3048), "feet": ("length", 0.3048),
    "ft": ("length", 0.3048), "lb": ("mass", 453.59237), "lbs": ("mass", 453.59237),
    "ounce": ("mass", 28.349523125), "oz": ("mass", 28.349523125),
    "inch": ("length", 0.0254), "inches": ("length", 0.0254),
    # the US liquid gallon and quart; the imperial gallon, 4.546 litres, only where the
    # answer says so ("11 UK gallons", "11 imperial gallons")
    "gallon": ("volume", 3.785411784), "gal": ("volume", 3.785411784),
    "ukgallon": ("volume", 4.54609),
    "quart": ("volume", 0.946352946), "qt": ("volume", 0.946352946),
    "fl": ("volume", 0.0295735295625),  # "16 fl oz": the US fluid ounce
    # kitchen measures as US nutrition labels count them (a cup 240 ml, a tablespoon 15 ml,
    # a teaspoon 5 ml): a metric cup's 250 ml is one cup, rounded
    "cup": ("volume", 0.24), "tablespoon": ("volume", 0.015), "tbsp": ("volume", 0.015),
    "teaspoon": ("volume", 0.005), "tsp": ("volume", 0.005),
    # (a "pound" of money is never converted: only a figure with a mass unit backs it)
    "pound": ("mass", 453.59237),
    # speed in metres a second; area in square metres (full words only: "ha" is a word)
    "km/h": ("speed", 1 / 3.6), "kph": ("speed", 1 / 3.6), "kmh": ("speed", 1 / 3.6),
    "mph": ("speed", 0.44704), "m/s": ("speed", 1.0),
    "hectare": ("area", 1e4), "acre": ("area", 4046.8564224),
    "stone": ("mass", 6350.29318), "knot": ("speed", 0.514444),
    # pressure in pascals ("33 psi" for 2.3 bar)
    "bar": ("pressure", 1e5), "mbar": ("pressure", 100), "hpa": ("pressure", 100),
    "kpa": ("pressure", 1e3), "psi": ("pressure", 6894.757293168),
    # energy in watt-hours, power in watts ("2,400 Wh" for 2.4 kWh; "MW" is read as mega)
    "wh": ("energy", 1), "kwh": ("energy", 1e3), "mwh": ("energy", 1e6), "gwh": ("energy", 1e9),
    "twh": ("energy", 1e12), "w": ("power", 1), "watt": ("power", 1), "kw": ("power", 1e3),
    "kilowatt": ("power", 1e3), "mw": ("power", 1e6), "megawatt": ("power", 1e6),
    "gw": ("power", 1e9), "gigawatt": ("power", 1e9),
}  # fmt: skip
IMPERIAL = frozenset({"mile", "mi", "yard", "yd", "foot", "feet", "ft", "lb", "lbs", "ounce", "oz",
                      "inch", "inches", "pound", "mph", "acre", "gallon", "gal", "quart",
                      "ukgallon", "qt", "fl", "cup", "tablespoon", "tbsp", "teaspoon",
                      "tsp", "stone", "knot", "psi"})  # fmt: skip
WORDS_FOR: dict[int, tuple[str, ...]] = {}
for _name, _v in SPELLED.items():
    WORDS_FOR[_v] = (*WORDS_FOR.get(_v, ()), _name)
SIZES: dict[str, dict[float, set[str]]] = {}
for _word, (_dim, _size) in UNITS.items():
    SIZES.setdefault(_dim, {}).setdefault(_size, set()).add(_word)
# Per dimension: (size, the unit words of that size).
SIZES_OF = {d: [(k, frozenset(v)) for k, v in sizes.items()] for d, sizes in SIZES.items()}


def ordinal_words(n: int) -> tuple[str, ...]:
    """The spellings of the ordinal ``n`` ("fourth", "twenty-first", "twenty first")."""
    words = [w for w, v in ORDINAL_WORDS.items() if v == n]
    if 20 < n < 100 and n % 10:
        tens, ones = TENS[n // 10 * 10], ONES_ORDINAL[n % 10]
        words += [f"{tens}-{ones}", f"{tens} {ones}"]
    return tuple(words)


def _unit_word(word: str) -> str | None:
    """The ``UNITS`` key a unit word is, as written or without a plural "s" ("Minutes" ->
    "minute"), or None."""
    word = word.lower()
    if word in UNITS:
        return word
    # a plural "s", not the last letter of an abbreviation ("ms" is not metres)
    singular = word[:-1] if word.endswith("s") and len(word) > 2 else word
    return singular if singular in UNITS else None


def unit_of(word: str) -> tuple[str, float] | None:
    """The dimension and size of a unit word ("minutes" -> ("time", 60)), if convertible."""
    key = _unit_word(word)
    return UNITS[key] if key is not None else None


def imperial(word: str) -> bool:
    """Whether a unit word is an imperial one ("miles", "lbs")."""
    return _unit_word(word) in IMPERIAL


def spellings(e: float) -> tuple[str, ...]:
    """How a context may write the figure ``e`` before a unit: its digits ("120", "1,200",
    "2.5"), and small whole numbers and halves spelled out ("two", "half a")."""
    e = round(e, 9)  # (2 ft in inches is 24.000000000000004)
    if e <= 0 or e >= 1e12 or not (e * 100).is_integer():
        return ()  # a conversion a text would not write ("12.857 weeks")
    out = [f"{e:g}"] if e < 1e6 else []
    if e.is_integer():
        out = [f"{e:.0f}"]
        if e >= 1000:
            out.append(f"{e:,.0f}")
        out += WORDS_FOR.get(int(e), ()) if e <= 100 else ()
    elif e == 0.5:
        out += ["half a", "half an"]
    elif e % 1 == 0.5 and e < 20:  # "one and a half hours"
        out += [f"{w} and a half" for w in WORDS_FOR.get(int(e), ())]
    return tuple(out)


def rounding_step(value: float, precision: float) -> float:
    """The step a hedged figure is rounded to: its last digit, or coarser for each trailing
    zero ("78,000" is rounded to thousands, "180 million" to tens of millions)."""
    step = precision if precision > 0 else 1.0
    while value and step < abs(value):
        coarser = value / (step * 10)
        if abs(coarser - round(coarser)) >= 1e-9:
            break
        step *= 10
    return step


def round_half_up(x: float) -> float:
    """``x`` rounded to the nearest whole number, halves away from zero."""
    return float(int(x + 0.5)) if x >= 0 else -float(int(-x + 0.5))


_NEXT_WORD = re.compile(r"-([a-z]+)", re.IGNORECASE)


def alone(text: str, i: int, j: int) -> bool:
    """Whether ``text[i:j]``, a figure's digits or a number in words, is a figure of its own
    there: not part of a longer number ("16", "2026", "6.5", "forty-six", "twenty-one") or
    word ("sixteen", "written"); a word joined to its unit is one ("six-month", as "6-month")."""
    before, after = text[i - 1 : i] if i else "", text[j : j + 2]
    if not text[i].isalpha():
        return not (before.isdigit() or before in (".", ",")) and not (
            after[:1].isdigit() or (after[:1] in (".", ",") and after[1:].isdigit())
        )
    if before.isalnum() or before == "-" or after[:1].isalnum():
        return False
    joined = _NEXT_WORD.match(text, j)
    return joined is None or joined.group(1).lower() not in SPELLED


def written_at(figure: str, text: str) -> Iterator[tuple[int, int]]:
    """Where ``text`` writes ``figure`` ("29", "1,250", "six") as a figure of its own
    (``alone``): (start, end) of each, in order."""
    i = text.find(figure)
    while i >= 0:
        j = i + len(figure)
        if alone(text, i, j):
            yield i, j
        i = text.find(figure, j)


def num(raw: str) -> float:
    """The value of a figure's digits ("$120,000" -> 120000), for ordering operands."""
    digits = "".join(c for c in raw if c.isdigit() or c == ".")
    try:
        return float(digits)
    except ValueError:
        return 0.0


ITEM_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


LONGEST_SENTENCE = 2_000  # characters of the longest sentence read for a list
_AND = re.compile(r"\sand\s")


def enumerations(sentence: str) -> Iterator[list[str]]:
    """The lists a sentence enumerates ("A, B, C and D"; "A and B"), each as its items; the
    first item is cut to its last one to three words ("Her children are Anna" -> "Anna").
    A "sentence" longer than ``LONGEST_SENTENCE`` (a page without full stops) has none: the
    pattern's cost grows with the square of its length (40 KB took ~10 s)."""
    if len(sentence) > LONGEST_SENTENCE or _AND.search(sentence) is None:
        return
    for m in re.finditer(r"((?:[^,;:]+,\s*)*[^,;:]+?)\s+and\s+([^,;:.]+)", sentence):
        parts = [p.strip() for p in ITEM_SPLIT.split(m.group(0)) if p.strip()]
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
                if first[k].lower() in QUANTITY:
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
        if all(len(i.split()) <= 3 for i in items) and alike(items):
            yield items


def alike(items: list[str]) -> bool:
    """Items of one list: all names (capitalised), all years or figures, or all short
    lower-case phrases with at most one of them led by a quantity word."""
    bare = [re.sub(r"^(?:the|a|an)\s+", "", i) for i in items]
    if all(i[:1].isupper() for i in bare):
        return True
    if all(i[:1].isdigit() for i in items):
        return True
    return all(i[:1].islower() or i.split()[0].lower() in QUANTITY for i in items)


def quantity(item: str) -> int:
    """How many things an enumerated item stands for ("two women" 2, "a boy" 1)."""
    first = item.split()[0].lower() if item.split() else ""
    if first.isdecimal() and int(first) <= 20:  # (not "¹²": a digit, no decimal)
        return int(first)
    return int(QUANTITY.get(first, 1))


def counted(items: list[str]) -> int:
    """How many things a list's items stand for together ("a skipper, two deckhands and a
    cook" is four): each item's ``quantity``, added up."""
    return sum(quantity(i) for i in items)
