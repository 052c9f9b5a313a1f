"""Figures the context implies without writing them, each by one checkable step.

An answer's figure that the context does not state may still be backed by it: the ordinal
of a word ("4th" for "fourth"), dozens ("24" for "two dozen"), a count of what the context
enumerates ("four children" beside "Anna, Ben, Carl and Dora"), a sum or difference of two
figures of one context sentence when the answer says it is one ("in total 45" beside "20
adults and 25 children"), a unit conversion ("2 hours" for "120 minutes"), an age two
years give ("aged 45" beside "(1970-2015)"), a decade or century that holds a year ("the
1990s" for 1994), a multiple said in words ("3x" for "tripled"), or a hedged rounding
("nearly 78,000" for "77,812"). ``Derivation.explain`` returns how the figure follows, or
None; a figure that needs two steps, or whose arithmetic is wrong, is not derived. Looked
for only after the plain look-up failed, so the hot path never pays. The steps that read a
figure as a quantity (another unit, a period, a duration, a hedge) are in ``quantities``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from monitor.checks.memo import lowered
from monitor.checks.numbers.across import same_unit
from monitor.checks.numbers.computed import (
    CHEAPER_AFTER,
    DEARER_AFTER,
    MORE_AFTER,
    NAMED_TIME,
    OPERANDS,
    PEOPLE,
    POINTS_AFTER,
    RISING,
    Figure,
    beside,
    change_bases,
    figures_of,
    named_operation,
    named_time,
    naming,
    operands,
    persons,
    relative,
    share_noun,
    written_share,
    written_sum,
)
from monitor.checks.numbers.forms import (
    SCALE_WORDS,
    counted,
    enumerations,
    num,
    ordinal_words,
)
from monitor.checks.numbers.hedges import hedged
from monitor.checks.numbers.measures import area, compound, data_size, fuel_economy, pence
from monitor.checks.numbers.mentions import Lazy, Locale, Mention, locale_of, scan
from monitor.checks.numbers.patterns import (
    SENTENCE,
    SPELLED,
    WORD_AFTER,
    fraction_shares,
    is_percent,
    place,
    sentence_end,
    sentence_start,
    unemphasised,
)
from monitor.checks.numbers.quantities import (
    Around,
    across_systems,
    converted,
    elapsed,
    per_head,
    per_period,
    temperature,
    worked_out,
)
from monitor.checks.numbers.rates import rate_gap
from monitor.checks.numbers.shown import shown_work
from monitor.checks.numbers.years import age, century, date_span, decade

_US_UNIT = re.compile(r"(?:US|U\.S\.)[ \t]+([A-Za-z]+)")

# Cues right before ("a total of 45", "rose by 5") or after ("45 in total", "9 more games
# than") the figure that say the answer states a sum or a difference.
# A percentage's cues: "percent" written out after the figure, "of" after it (a share), and
# a change before it ("grew", "a rise of", "fell by").
_PERCENT_WORD = re.compile(r"\s*(?:percent|per cent)\b")
_SHARE_OF = re.compile(r"\s*of\b")
_CHANGE_BEFORE = re.compile(
    r"\b(grew|grown|rose|risen|increased|fell|fallen|dropped|declined|decreased|jumped"
    r"|climbed|up|down|growth|increase|decrease|rise|drop|fall|decline|gain|loss)"
    r"(?:\s+(?:of|by))?(?:\s+(?:about|around|nearly|almost|some))?$"
)
# A clock time could be in the text ("09:12", "6 pm", "6.30am", "23.15")
_CLOCK = re.compile(r"\d[:.]\d\d|\d\s?[aApP]\.?[mM]\b")  # (or a time named: NAMED_TIME)
# "save 20%", "savings of 20%", "a discount of 20%": cheaper, before the figure
_SAVE_BEFORE = re.compile(r"\b(?:save|saves|saving|savings\s+of|discount\s+of|reduction\s+of)\s*$")
_MERIDIEM = re.compile(r"\b([aApP])\.[mM]\.")
# (not "double", "triple": adjectives too, "a double room"; not a bare "half": "the first
# half of the year")
_MULTIPLE_WORDS = {
    2.0: re.compile(r"\b(?:doubled|doubling|twice|two times|twofold|2-fold)\b"),
    3.0: re.compile(r"\b(?:tripled|tripling|three times|threefold|3-fold)\b"),
    4.0: re.compile(r"\b(?:quadrupled|quadrupling|four times|fourfold|4-fold)\b"),
}
_HALF_WORDS = re.compile(
    r"\b(?:halved|halving|by half|half[- ]price|half off"
    r"|(?<!first )(?<!second )(?<!last )(?<!other )half of (?:all|the|its|their|our|your))\b"
)
# A share the context says as a fraction in words ("three quarters of the staff" for 75%)
_FRACTION_WORDS = {**fraction_shares(), 50.0: _HALF_WORDS}
# ("3 times as many", "3 times the", "3 times last year's level", "3 times that of": a
# multiple; not "3 times a week" nor "3 times last year", how often)
_TIMES_AFTER = re.compile(
    r"\s+times\s+(?:as|more|larger|higher|bigger|greater|the|that|those|what\b"
    r"|(?:[a-z]+\s+)?[a-z]+['’]s\b)\b",
    re.IGNORECASE,
)
_VERSION_BEFORE = re.compile(r"\b(?:version|release|v)\s*$")
# An age: "45 years old", "45-year-old", "aged 45", "at the age of 45".
_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset("that this with from were have there their they them than then what when".split())


class Derivation:
    """Ways a context implies a figure it does not write (see the module docstring)."""

    def __init__(
        self,
        context: str,
        answer: str,
        lower: Callable[[], bytes] | None = None,
        locale: Locale | None = None,
        mentions: Callable[[], list[Mention]] | None = None,
    ) -> None:
        self.context = context
        self.answer = unemphasised(answer)  # ("grew **20%**": the cue read through it)
        self._make_lower = lower
        # the context's decimal convention: the caller's, when it keeps one for this text
        self._locale = locale or Lazy(lambda: locale_of(context))
        # every figure of the context (``scan``), the caller's when it keeps them
        self._mentions = mentions or functools.partial(scan, context, self._locale)
        self._lower: str | None = None
        self._sentences: list[str] | None = None
        self._figures: list[list[tuple[str, float]]] | None = None
        self._years: list[tuple[float, str]] | None = None
        self._times: list[list[Figure]] | None = None
        self._values: frozenset[float] | None = None
        self._context_figures: list[tuple[Mention, float, str]] | None = None
        self._places: dict[str, int] = {}  # where each figure stands in the answer

    @property
    def lower(self) -> str:
        """The context with ASCII letters lower-cased (from ``lower``, the view's lower-cased
        bytes, when given: the words looked for here are ASCII, and it is shared)."""
        if self._lower is None:
            made = (self._make_lower or functools.partial(lowered, self.context))()
            self._lower = made.decode("utf-8", "surrogatepass")
        return self._lower

    @property
    def open_decimals(self) -> bool:
        """Whether the context's figures show neither decimal convention ("42,195" may be
        42.195 or 42195)."""
        return self._locale() is None

    @property
    def sentences(self) -> list[str]:
        """The context's sentences."""
        if self._sentences is None:
            self._sentences = [s for s in SENTENCE.findall(self.context) if s.strip()]
        return self._sentences

    @property
    def sentence_figures(self) -> list[list[tuple[str, float]]]:
        """Each context sentence's plain numbers as (as written, value), in order: read once
        for the sums, differences and percentages."""
        if self._figures is None:
            self._figures = [
                [(f.raw, f.readings[0].value)
                 for f in scan(s, Lazy(functools.partial(locale_of, s)))
                 if f.kind == "number" and f.readings]
                for s in self.sentences
            ]  # fmt: skip
        return self._figures

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
            i = low.find(word, max(end, i + 1))  # (always onward: "" or "." is found anywhere)
        return out

    def explain(self, mention: Mention) -> str | None:
        """How the context implies ``mention``'s figure, or None."""
        if mention.kind != "number" or not mention.readings:
            return None
        value = mention.readings[0].value
        around = self._around(mention)
        for way in _WAYS:
            found = way(self, mention, value, around)
            if found is not None:
                return f"{mention.raw} = {found}"
        return None

    # --- the answer around the figure ----------------------------------------------------

    def _around(self, mention: Mention) -> Around:
        """(words before, the sentence, the word after) of the figure in the answer."""
        i = place(self.answer, mention.raw, self._places)
        if i < 0:
            return "", "", ""
        past = i + len(mention.raw)
        start, end = sentence_start(self.answer, i), sentence_end(self.answer, past)
        after = WORD_AFTER.match(self.answer, past)
        return (
            self.answer[start:i].lower(),
            self.answer[start:end].lower(),
            (after.group(1) if after else ""),
        )

    def rest(self, mention: Mention) -> str:
        """The answer after the figure, lower-cased, to the end of its sentence."""
        i = place(self.answer, mention.raw, self._places)
        if i < 0:
            return ""
        past = i + len(mention.raw)
        return self.answer[past : sentence_end(self.answer, past)].lower()

    # --- one step each ----------------------------------------------------------------------

    def _word_form(self, mention: Mention, value: float, around: Around) -> str | None:
        """An ordinal word, dozens, "a thousand" or "half a million"."""
        raw = mention.raw.lower()
        ordinal = raw.endswith(("st", "nd", "rd", "th")) and value.is_integer()
        if not (ordinal or value in (6, 1e3, 5e5, 1e6, 5e8, 1e9)
                or (value % 12 == 0 and value <= 144)):  # fmt: skip
            return None  # nothing to look for: leave the context alone
        low = self.lower
        if ordinal:
            for word in ordinal_words(int(value)):
                if word in low and re.search(rf"\b{word}\b", low):
                    return f'"{word}"'
        if "dozen" not in low and value < 1e3:
            return None
        if value.is_integer() and value % 12 == 0 and 12 <= value <= 144:
            k = int(value // 12)
            names = [w for w, v in SPELLED.items() if v == k] + (["a", "one"] if k == 1 else [])
            for name in names:
                if re.search(rf"(?<!half )\b{name} dozen\b", low):  # (half a dozen: 6)
                    return f'"{name} dozen"'
        if value == 6 and "half a dozen" in low:
            return '"half a dozen"'
        for word, scale in SCALE_WORDS.items():
            if value == scale and word in low and re.search(rf"\b(?:a|one) {word}\b", low):
                return f'"a {word}"'
            if value == scale / 2 and word in low and re.search(rf"\bhalf an? {word}\b", low):
                return f'"half a {word}"'
        return None

    def _count(self, mention: Mention, value: float, around: Around) -> str | None:
        """The number of things a context sentence about the same matter enumerates."""
        if not value.is_integer() or not 3 <= value <= 20:
            return None  # "A and B": on news articles two-item "lists" were mostly not lists
        _, _, noun = around
        if not noun.isalpha() or noun.lower() in _STOP or self.rest(mention).startswith("-"):
            return None  # "2-1", "a two-shot lead", "two of": no things named to count
        noun = noun.lower().rstrip("s")
        if noun in PEOPLE:
            return persons(value, around[1], self.sentences)
        for s in self._sentences_with(noun):
            if " and " not in s:
                continue
            # the sentence must name what is counted ("Her children are Anna, ... and Dora"):
            # on news articles, any list in a sentence on the same matter was a false match
            if noun not in {w.rstrip("s") for w in _WORD.findall(s.lower())}:
                continue
            for items in enumerations(s):  # (items with a quantity add up)
                total = counted(items)
                if total == value:
                    return ("count of " if total == len(items) else "sum of ") + ", ".join(items)
        return None

    def _arithmetic(self, mention: Mention, value: float, around: Around) -> str | None:
        """A sum or difference of two figures of one context sentence, when the answer's
        sentence says it states one ("in total", "combined", "rose by", "a margin of")."""
        before, sentence, _ = around
        rest = self.rest(mention)
        add, sub = named_operation(before, rest, mention.raw)
        stated = OPERANDS.search(sentence) is not None  # "(50 vs 10)": the answer's operands
        # a percentage is a sum or difference of percentages only, never of prices or counts,
        # and so are percentage points
        pct = is_percent(mention.raw) or POINTS_AFTER.match(rest) is not None
        if not sub and stated:
            sub = MORE_AFTER.match(rest) is not None  # "40 more users (50 vs 10)"
        if not (add or sub):
            return None
        if add and (found := written_sum(mention.raw, sentence, value, self.stated)):
            return found  # "Your total comes to £107.44: £89.99, £12.50 and £4.95"
        # the operands the answer writes beside the figure, each a figure of the context,
        # when it names them as operands ("(50 vs 10)"; not "3-1 ... by 5 points with 6")
        if stated:
            ours = [f for f in self.answer_figures(mention, sentence, "number")
                    if not pct or is_percent(f[0])]  # fmt: skip
            found = operands(ours, value, add, sub)
            if found is not None:
                return found
        for figures in self.sentence_figures:
            values = [f for f in figures[:12] if not pct or is_percent(f[0])]
            for i, (ra, a) in enumerate(values):
                for rb, b in values[i + 1 :]:
                    if add and abs(a + b - value) < 1e-9:
                        return f"{ra} + {rb}"
                    if sub and abs(abs(a - b) - value) < 1e-9 and a != b:
                        return f"{max(ra, rb, key=num)} - {min(ra, rb, key=num)}"
        return None

    def _multiple(self, mention: Mention, value: float, around: Around) -> str | None:
        """A multiple or a half the context says in words: "3x" for "tripled" or "three
        times", "2x" for "doubled" or "twice", "50%" for "half" or "halved", "75%" for "three
        quarters of"."""
        raw = mention.raw.lower()
        times = _TIMES_AFTER.match(self.rest(mention)) is not None  # "3 times as many"
        if (raw.endswith("x") or times) and value in _MULTIPLE_WORDS:
            words = _MULTIPLE_WORDS[value]
        elif is_percent(raw) and value in _FRACTION_WORDS:  # ("three quarters" claims 75%)
            words = _FRACTION_WORDS[value]
        else:
            return None
        found = words.search(self.lower)
        return f'"{found.group(0)}"' if found is not None else None

    @property
    def years(self) -> list[tuple[float, str]]:
        """Every year the context states, alone or in a date, with how it is written."""
        if self._years is None:
            self._years = []
            for m in self._mentions():
                if m.kind == "number" and m.raw.isdigit() and len(m.raw) == 4:
                    self._years.append((m.readings[0].value, m.raw))
                elif m.kind == "date":
                    self._years += [(float(y), m.raw) for y, _, _ in m.dates if y is not None]
        return self._years

    def _percentage(self, mention: Mention, value: float, around: Around) -> str | None:
        """A percentage computed from two figures of one context sentence, when the answer's
        sentence says which: a share ("25% of the seats" beside "10 of the 40 seats") or a
        change ("grew 20%" beside "from $50 million to $60 million", or from 40% to 30%;
        the operands may be written in the answer's sentence, each stated by the context),
        to the answer's last digit. A sentence with more than eight figures is not searched
        (its pairs would back almost any percentage)."""
        rest = self.rest(mention)
        worded = _PERCENT_WORD.match(rest)
        raw = mention.raw.lower()
        if not (is_percent(raw) or worded) or value <= 0:
            return None
        before, sentence, _ = around
        share = _SHARE_OF.match(rest[worded.end() :] if worded else rest) is not None
        way = _CHANGE_BEFORE.search(before.rstrip())
        change = way is not None
        rising = way is not None and way.group(1).lower() in RISING
        precision = mention.readings[0].precision or 1.0
        if found := written_share(sentence, value, precision / 2 + 1e-9, self.stated):
            return found  # "175 of the 1,250 patients (14%)"
        if not (share or change):
            return self._cheaper(mention, value, precision, rest, before, sentence)
        tolerance = precision / 2 + 1e-9
        # the operands of a change may be the answer's own, each a figure of the context
        # ("up 20% from 50 to 60" beside "50 in May" and "60 in June")
        ours = self.answer_figures(mention, sentence, "number") if change else []
        # a share's operands are counts of what the answer's share is of: their sentence
        # names it ("two thirds of the members" from "60 members, and 30 of them", never
        # from "adults £180, juniors £120")
        noun = share_noun(rest[worded.end() :] if worded else rest) if share else None
        named = naming(noun) if noun is not None else None
        texts = ([sentence] if ours else []) + self.sentences
        for values, text in zip((ours, *self.sentence_figures) if ours else self.sentence_figures,
                                texts, strict=True):  # fmt: skip
            if len(values) > 8:
                continue
            bases = change_bases(text, values) if change else []
            for i, (ra, a) in enumerate(values):
                for j, (rb, b) in enumerate(values):
                    if a <= 0 or b <= 0 or a == b:
                        continue
                    # (a change between two percentages is relative: "fell 25%" for 40% to
                    # 30%; a share is never of a percentage)
                    pct_a, pct_b = ra.endswith("%"), rb.endswith("%")
                    if (
                        share
                        and not (pct_a or pct_b)
                        and a < b
                        and abs(100 * a / b - value) <= tolerance
                        and (named is None or named.search(text) is not None)
                    ):
                        return f"{ra} / {rb}"
                    # a change is from the figure written first ("from 8,000 to 7,000"),
                    # or from the one written after "from" ("60, down from 75"), in the
                    # direction the answer says ("grew 20%" is no fall from 75 to 60)
                    if (
                        change
                        and (bases[i] if bases[i] != bases[j] else i < j)
                        and pct_a == pct_b
                        and (b > a) == rising
                        and abs(100 * abs(b - a) / a - value) <= tolerance
                    ):
                        return f"({rb} - {ra}) / {ra}"
        return None

    def _cheaper(self, mention: Mention, value: float, precision: float, rest: str, before: str,
                 sentence: str) -> str | None:  # fmt: skip
        """A percentage one of two prices of one context sentence (or of the answer's own
        sentence, each a figure of the context) is cheaper ("20% cheaper", "a 20% discount",
        "save 20%": over the dearer) or dearer ("25% more expensive": over the cheaper)
        than the other, to the answer's last digit."""
        cheaper = CHEAPER_AFTER.match(rest) is not None or _SAVE_BEFORE.search(before) is not None
        if not cheaper and DEARER_AFTER.match(rest) is None:
            return None
        ours = self.answer_figures(mention, sentence, "number")
        for values in (ours, *self.sentence_figures):
            if len(values) <= 8:
                found = relative(value, precision, values, cheaper)
                if found is not None:
                    return found
        return None

    @property
    def sentence_times(self) -> list[list[Figure]]:
        """Each context sentence's clock times as (as written, minutes since midnight)."""
        if self._times is None:
            # (most contexts have no clock time; a named one, noon, is a word first)
            named, self._times = named_time(self.lower), []
            if named or _CLOCK.search(self.context):
                # (the points of "7 p.m." end no sentence: "from 7 p.m. to 10 p.m." is one)
                text = _MERIDIEM.sub(r"\1m", self.context) if ".m." in self.lower else ""
                cut = [s for s in SENTENCE.findall(text) if s.strip()] if text else self.sentences
                timed = (s for s in cut if _CLOCK.search(s) or (named and NAMED_TIME.search(s)))
                self._times = [figures_of(s, "time") for s in timed]
        return self._times

    def answer_figures(self, mention: Mention, sentence: str, kind: str) -> list[Figure]:
        """The figures of kind ``kind`` of the answer's ``sentence`` besides ``mention``,
        those the context states (its values, exactly)."""
        figures = figures_of(sentence, kind)
        if len(figures) < 3 - (kind == "time"):  # the figure and two operands; two times
            return []
        return beside(mention.raw, figures, self.stated())

    def stated(self) -> frozenset[float]:
        """Every value a figure of the context states (one scan of it, when first asked)."""
        if self._values is None:
            self._values = frozenset(r.value for m in self._mentions()
                                     for r in m.readings)  # fmt: skip
        return self._values

    def _version(self, mention: Mention, value: float, around: Around) -> str | None:
        """A version written without its trailing zeros ("2.4" for 2.4.0, "version 3" for
        3.0.0); 2.4 is not 2.4.1, nor version 3 3.1.0."""
        raw = mention.raw
        cued = raw.isdigit() and _VERSION_BEFORE.search(around[0]) is not None
        dotted = raw.count(".") == 1 and raw.replace(".", "").isdigit()
        if not (cued or dotted) or raw + ".0" not in self.context:  # (searched, then matched)
            return None
        found = re.search(rf"(?<![\d.]){re.escape(raw)}(?:\.0)+(?!\d|\.\d)", self.context)
        return found.group(0) if found is not None else None

    def context_figures(self) -> Iterator[tuple[Mention, float, str]]:
        """(figure, value, the word after it) of every plain number of the context: read
        once a trace (each figure's steps ask in turn: the scan was a derivation's main
        cost)."""
        if self._context_figures is None:
            self._context_figures = list(self._read_context_figures())
        return iter(self._context_figures)

    def _read_context_figures(self) -> Iterator[tuple[Mention, float, str]]:
        at = 0  # (each figure is found after the one before: "2 kg" is not the 2 of "£2.20")
        for m in self._mentions():
            found = self.context.find(m.raw, at)
            at = found + len(m.raw) if found >= 0 else at
            if m.kind != "number":
                continue
            glued = "".join(c for c in m.raw if c.isalpha() or c == "/").lstrip("/")
            i = found
            after = WORD_AFTER.match(self.context, i + len(m.raw)) if i >= 0 and not glued else None
            word = after.group(1) if after else ""
            if word in ("US", "U") and after is not None:  # "10 US gallons", "10 U.S. gallons"
                us = _US_UNIT.match(self.context, after.start(1))
                word = us.group(1) if us is not None else word
            if (word == "km" or word == "m") and after is not None:
                end = after.end()
                if self.context[end : end + 1] == "/":
                    word += self.context[end : end + 2]  # "100 km/h", "3 m/s"
            for r in m.readings:
                yield m, r.value, glued or word


# The steps, in the order they are tried (the first that explains the figure wins).
_WAYS: tuple[Callable[[Derivation, Mention, float, Around], str | None], ...] = (
    Derivation._word_form, Derivation._count, Derivation._arithmetic, Derivation._percentage,
    converted, elapsed, across_systems, temperature, per_period, per_head, compound,
    data_size, area, pence, fuel_economy, Derivation._version, worked_out,
    decade, century, age, date_span, Derivation._multiple, hedged, rate_gap, same_unit,
    shown_work,
)  # fmt: skip
