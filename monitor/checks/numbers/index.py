"""The context index: every value a context states, and the look-ups that decide whether an
answer's figure is supported by it (any reading, rounding, spacing, spelled-out forms)."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from monitor.checks.memo import lowered
from monitor.checks.numbers.mentions import (
    ABBREVIATED_RANGE,
    EXPIRY,
    Lazy,
    Locale,
    Mention,
    Reading,
    code_spellings,
    day_month,
    expand_year,
    expiry_spellings,
    inside_ident,
    locale_of,
    scan,
    scan_at,
)
from monitor.checks.numbers.patterns import (
    DIGITS,
    DIGITS_ONLY,
    SCALED,
    is_percent,
    national,
    percent_spans,
    spaced_pattern,
    untokenise,
    whole_token,
)
from monitor.checks.numbers.spelled import has_word, spelled_in_text, spelled_scaled

# The layout a text declares for its numeric dates: "All dates are in MM/DD/YYYY",
# "01/07/2025 (DD/MM/YYYY)"
_DECLARED = re.compile(r"\b(DD|MM)[/.-](MM|DD)[/.-](?:YYYY|YY)\b")
_NUMERIC_DATE = re.compile(r"(\d{1,2})[/.](\d{1,2})[/.]\d{2,4}")


def declared_order(text: str) -> str | None:
    """ "DD" or "MM", the part a text declares its numeric dates start with, when it declares
    one layout; None when it declares none, or both."""
    if "DD" not in text:
        return None
    found = {m.group(1) for m in _DECLARED.finditer(text) if m.group(1) != m.group(2)}
    return found.pop() if len(found) == 1 else None


def _declared(mention: Mention, order: str) -> tuple[tuple[int | None, int, int | None], ...]:
    """The reading of an ambiguous numeric date ("01/07/2025") in the layout its text
    declares."""
    m = _NUMERIC_DATE.fullmatch(mention.raw)
    if m is None:
        return mention.dates
    day, month = (int(m.group(1)), int(m.group(2)))[:: 1 if order == "DD" else -1]
    return tuple(d for d in mention.dates if d[1:] == (month, day)) or mention.dates


@dataclass(slots=True)
class NumberIndex:
    """Every value a text (context or query) states, for support look-ups."""

    exact: set[float]  # every value, clock times too (compared whole by context_conflict)
    fine: list[Reading]  # readings with a fractional part or long digits, for rounding
    dates: list[tuple[int | None, int, int | None]]
    raws: set[str]
    plain: set[float]  # the values that are not clock times
    times: set[float]  # clock times, as minutes since midnight
    idents: frozenset[str]  # phone and reference numbers, codes, versions, as written

    @classmethod
    def of(
        cls, text: str, locale: Locale | None = None, mentions: list[Mention] | None = None
    ) -> NumberIndex:
        """The index of every value ``text`` states (``locale``: its decimal convention, when
        the caller keeps it; ``mentions``: its scan, when the caller has it)."""
        locale = locale or Lazy(lambda: locale_of(text))
        exact: set[float] = set()
        fine: list[Reading] = []
        dates: list[tuple[int | None, int, int | None]] = []
        raws: set[str] = set()
        plain: set[float] = set()
        times: set[float] = set()
        idents: set[str] = set()
        order = declared_order(text)
        for m in mentions if mentions is not None else scan(text, locale):
            raws.add(m.raw)
            if m.kind == "ident":
                idents.add(m.raw)
            # a clock time backs a clock time only: 01:30 is 90 minutes past midnight, not
            # the 90 of "lasts 90 minutes" (nor that 90 the time)
            keys = times if m.kind == "time" else plain
            for r in m.readings:
                keys.add(_key(r.value))
                if m.kind != "time":
                    fine.append(r)
            dates.extend(m.dates if len(m.dates) < 2 or order is None else _declared(m, order))
            if m.kind == "fraction":  # "12/31": a day and a month without a year, too
                dates.extend(day_month(m.raw).dates)
            plain.update(_key(p) for p in m.parts)
        exact.update(plain, times)
        return cls(exact, fine, dates, raws, plain, times, frozenset(idents))

    def supports(self, mention: Mention) -> bool:
        """Whether a reading of ``mention`` is among the indexed values (exactly, rounded or as a
        date)."""
        if mention.raw in self.raws:
            return True
        if mention.kind == "date":
            return any(self._supports_date(d) for d in mention.dates)
        if mention.kind == "time":
            return any(_key(r.value) in self.times for r in mention.readings)
        if mention.noun:  # a count of things: a whole figure, never one rounded
            return any(_key(r.value) in self.plain for r in mention.readings)
        return any(self._supports_reading(r) for r in mention.readings)

    def backing(self, r: Reading) -> list[float]:
        """The values that back ``r``: its own, when stated, and every finer value that
        rounds or truncates to it ("over 90%" asks which side of 90 they lie)."""
        found = [r.value] if _key(r.value) in self.plain else []
        return found + [c.value for c in self.fine if _rounds_to(c, r)]

    def _supports_date(self, d: tuple[int | None, int, int | None]) -> bool:
        year, month, day = d
        for cy, cm, cd in self.dates:
            if cm != month or (day is not None and day != cd):
                continue
            # "March 15, 2024" is backed by "March 15" when 2024 is stated elsewhere.
            if year is None or year == cy or (cy is None and _key(year) in self.plain):
                return True
        return False

    def _supports_reading(self, r: Reading) -> bool:
        if _key(r.value) in self.plain:
            return True
        return any(_rounds_to(c, r) for c in self.fine)


def _month_year(raw: str) -> Mention:
    """A card's expiry ("09/27") read as a month and a year ("September 2027"); a date with
    none when it is no month."""
    found = EXPIRY.fullmatch(raw)
    if found is None or not 1 <= int(found.group(1)) <= 12:
        return Mention(raw, "date")
    return Mention(raw, "date", dates=((2000 + int(found.group(2)), int(found.group(1)), None),))


def _rounds_to(c: Reading, r: Reading) -> bool:
    """A rounded figure: "$181 million" from "181,674,817", "12%" from "12.4%". The context
    figure ``c`` must be finer than the answer's ``r`` and round or truncate to it."""
    p = r.precision
    if p <= 0 or c.precision >= p or not c.value:
        return False
    return math.isclose(math.floor(c.value / p + 0.5) * p, r.value, rel_tol=1e-9) or math.isclose(
        math.floor(c.value / p) * p, r.value, rel_tol=1e-9
    )


def _key(value: float) -> float:
    return round(abs(value), 6)


def _probes(r: Reading, seps: str = ".  \u202f") -> tuple[str, ...]:
    """Spellings of a reading to look for literally ("1600", "1,600", "1.600", "3,5");
    thousands written with each of ``seps`` (the separators the text uses)."""
    if not 0 < r.precision <= 1 or not 0 <= abs(r.value) < 1e15:
        return ()
    v = abs(r.value)
    if r.precision == 1:
        s = f"{v:.0f}"
        if v < 1000:
            return (s,)
        us = f"{v:,.0f}"
        out = (s, us, *(us.replace(",", sep) for sep in seps))
        if v >= 100_000:  # Indian grouping: "1,00,000", "25,00,000"
            head = s[:-3]
            pairs = [head[max(0, i - 2) : i] for i in range(len(head), 0, -2)][::-1]
            out += (",".join(pairs) + "," + s[-3:],)
        return out
    decimals = max(0, round(-math.log10(r.precision)))
    s = f"{v:.{decimals}f}"
    us = f"{v:,.{decimals}f}"
    eu = us.translate(_SWAP)
    return (s, s.replace(".", ","), us, eu)


# The figures read where a probe is written: the keys of their values and parts, their
# values in order and their readings in that order.
_Found = tuple[frozenset[float], list[float], list[Reading]]


def _by_value(r: Reading) -> float:
    return r.value


_SWAP = str.maketrans(",.", ".,")
_NEAR = frozenset(".,-/:'")


def _glued(c: str) -> bool:
    """A character that makes an adjacent figure part of a word ("GPT4", "A4") or a longer
    figure; the same boundary the scanner's look-arounds use."""
    return c.isdecimal() or (c.isascii() and (c.isalpha() or c == "_"))


_POINTED = re.compile(r"([01]?\d|2[0-3])\.([0-5]\d)")  # "21.00": a time, maybe
_CLOCK_MINUTES = re.compile(r"[0-5]\d(?!\d|[.,:]\d)")


def _starts_figure(text: str, i: int) -> bool:
    """A figure may start at ``i``: the scanner's look-behinds, in Python."""
    if i == 0:
        return True
    prev = text[i - 1]
    if _glued(prev):
        return False
    if i > 1 and prev in ".," and text[i - 2].isdecimal():
        return False  # the "5" of "3.5"
    if prev == ":" and i > 1 and text[i - 2].isdecimal() and _CLOCK_MINUTES.match(text, i):
        return False  # the minutes of a clock time ("50" of "07:50")
    return not (i > 1 and prev == "-" and text[i - 2].isascii() and text[i - 2].isalpha())


def _bounded(text: str, probe: str, idents: Callable[[], frozenset[str]] | None = None) -> bool:
    """True when ``probe`` occurs in ``text`` as a whole figure (not inside a longer one; with
    ``idents``, the text's identifiers, not a group of one of them either)."""
    n = len(text)
    i = text.find(probe)
    while i >= 0:
        j = i + len(probe)
        before_ok = _starts_figure(text, i)
        after_ok = j == n or not (
            _glued(text[j]) or (text[j] in _NEAR and j + 1 < n and text[j + 1].isdecimal())
        )
        if before_ok and after_ok and not (idents and inside_ident(text, i, j, idents)):
            return True
        i = text.find(probe, i + 1)
    return False


_IDENT_DIGITS = 7  # fewer digits than a phone or reference number: compared as written
# A phone or reference number written in groups: digits separated by single spaces, dashes,
# dots, slashes or parentheses, "+" or "(" before it.
# A run of digit groups ("+1 (800) 555-0199", "0044 20 7946 0321"). Each group after the first
# starts with a separator, a "(" or follows a ")": never bare digits after digits, which made
# the run's split ambiguous and its matching exponential in the digits (30 digits and a letter
# took a minute). The same matches as the ambiguous form it replaced
# (tests/unit/checks/test_ident_run.py compares the two).
_IDENT_GROUP = r"(?:[ .\-/]\(?|\(|(?<=\)))\d+\)?"
_IDENT_RUN = re.compile(
    rf"(?<![\w.,])[+(]?\d(?:\d+\)?(?:{_IDENT_GROUP})*|(?:{_IDENT_GROUP})+)(?![\w]|[.,]\d)"
)


# A clock time is no group of a phone number: "+44 20 7946 0958 (10:00-18:00)" ends at 0958;
# nor is a bracket its digits do not close: "1-800-555-0199 (24 hours)" or "(24/7)" ends at
# 0199, where "(0)" and "(800)" are groups
_NOT_A_GROUP = re.compile(r"\(?\d{1,2}:\d\d|\((?=\d+[^\d)])")


class NumberLookup:
    """Answers "does this text state that figure?" cheaply.

    The common case — the figure is written the same way, or with other separators — is a
    substring search. Then spelled-out forms ("six" for 6) are looked up as words. Only when
    both fail is the text parsed into a ``NumberIndex`` (dates, rounding, scale words), once.
    """

    def __init__(self, text: str, spelled: bool = True, percents: bool = False) -> None:
        self.text = text
        self._spelled = spelled
        self._of_percents = percents  # the text is a text's percentages (see percentages)
        self._percents: NumberLookup | None = None
        self._lower: bytes | None = None
        self._scaled: bool | None = None
        self._ranges: frozenset[float] | None = None
        self._joined: NumberLookup | None = None  # the untokenised text, when it differs
        self._joined_done = False
        self._index: NumberIndex | None = None
        self._mentions: list[Mention] | None = None
        self._seps: str | None = None
        self._idents: frozenset[str] | None = None  # digit keys of its phone-like runs
        # per probe (the digits of a figure as it may be written), what the text writes there:
        # looked for once, however many of the answer's figures share the probe
        self._written: dict[str, bool] = {}
        self._at: dict[str, _Found] = {}
        # the text's decimal convention, found once (a scan of the whole text) for every
        # figure read from it
        self.locale = Lazy(lambda: locale_of(text))

    @property
    def _separators(self) -> str:
        """The thousands separators besides the comma that the text uses (a point and a
        space always; a thin or no-break space and an apostrophe when present)."""
        if self._seps is None:
            self._seps = ". " + "".join(c for c in "\u202f\u2009\u00a0'" if c in self.text)
        return self._seps

    def _ident_raws(self) -> frozenset[str]:
        """The identifiers the text's scan reads, as written."""
        return self.index.idents

    @property
    def index(self) -> NumberIndex:
        """The text's ``NumberIndex``, built on first use."""
        if self._index is None:
            self._index = NumberIndex.of(self.text, self.locale, self.mentions())
        return self._index

    def mentions(self) -> list[Mention]:
        """Every figure the text states (``scan``), read once for the index and for the
        derivations asking after the text's figures."""
        if self._mentions is None:
            self._mentions = scan(self.text, self.locale)
        return self._mentions

    @property
    def percentages(self) -> NumberLookup:
        """A look-up of the figures the text writes as percentages, built on first use."""
        if self._percents is None:
            self._percents = NumberLookup(percent_spans(self.text), self._spelled, percents=True)
            self._percents.locale = self.locale  # (read with the whole text's decimals)
        return self._percents

    def supports(self, mention: Mention) -> bool:
        """Whether the text states ``mention``'s figure; tokenised text ("5 , 000") is read
        as the figures it spells, but only after the plain reading failed (joining costs a
        scan of the whole text). A percentage needs a percentage."""
        if not self._of_percents and mention.kind == "number" and is_percent(mention.raw):
            return self.percentages.supports(mention)
        if self._supports(mention):
            return True
        if mention.kind == "number" and all(r.precision <= 1 for r in mention.readings):
            return self._spaced(mention)
        if not self._joined_done:
            joined = untokenise(self.text)
            self._joined = NumberLookup(joined, self._spelled) if joined != self.text else None
            self._joined_done = True
        return self._joined is not None and self._joined._supports(mention)

    def _supports(self, mention: Mention) -> bool:
        if not self.text:
            return False
        if mention.kind == "time" and (self._dotted_time(mention) or self._named_time(mention)):
            return True
        if mention.kind == "number":
            if self._bounded(mention.raw):
                return True  # written the same way ("$49", "07")
            if self._pointed_time(mention.raw):
                return True  # "21.00" for "9 pm", a time on the 24-hour clock
            for r in mention.readings:
                if any(self._bounded(p) for p in _probes(r, self._separators)):
                    return True
                if self._spelled and r.precision == 1 and spelled_in_text(self.lower, r.value):
                    return True
                if self._spelled and spelled_scaled(self.lower, r.value):
                    return True
            if all(r.precision <= 1 for r in mention.readings) and not self._scaled_figures():
                # Without scale words every figure that equals or rounds to 45 writes "45"
                # or "44" (with or without separators): parse only those places.
                # (a count of things is a whole figure: "£3.40" rounds to no "three stops")
                exact = bool(mention.noun)
                near = any(self._near(r, exact) for r in mention.readings)
                # (last, the text's own reading of the same figure: "0" of "0-00-0A", which no
                # search finds whole; found by the property test that a text backs itself)
                return near or self._range_end(mention) or self._scanned(mention)
        elif mention.kind == "fraction" and (
            any(whole_token(self.text, v) for v in expiry_spellings(mention.raw))
            or self.index.supports(day_month(mention.raw))
            or self.index.supports(_month_year(mention.raw))
        ):
            return True  # "09/2027" or "September 2027" for a card's "09/27"; "December 31"
            # for "31/12"
        elif mention.kind == "ident" and (
            # phone and order numbers: the same digits and groups
            whole_token(self.text, mention.raw)
            or self.same_digits(mention.raw)  # or the same digits written otherwise
            or any(whole_token(self.text, v) for v in code_spellings(mention.raw))
        ):
            return True
        return self.index.supports(mention) or self._range_end(mention)

    def _named_time(self, mention: Mention) -> bool:
        """Noon (12:00) or midnight (00:00) the text names in words."""
        minutes = mention.readings[0].value if mention.readings else -1
        if minutes == 720:
            return has_word(self.lower, b"noon") or has_word(self.lower, b"midday")
        return minutes in (0, 1440) and has_word(self.lower, b"midnight")

    def _pointed_time(self, raw: str) -> bool:
        """An answer's 24-hour time written with a point ("21.00", "07.45"), which reads as
        a decimal number, backed by the same clock time in the text ("9 pm", "21:00")."""
        m = _POINTED.fullmatch(raw)
        if m is None:
            return False
        h, mi = int(m.group(1)), int(m.group(2))
        if h > 23 or mi > 59:
            return False
        time = Mention(f"{h:02d}:{mi:02d}", "time", readings=(Reading(float(h * 60 + mi), 1.0),))
        return self.index.supports(time) or self._named_time(time)

    def _dotted_time(self, mention: Mention) -> bool:
        """A time the text writes on the 24-hour clock with a point ("23.15" for 11:15 pm,
        "18.00" for 6 pm), which reads as a decimal number there."""
        minutes = int(mention.readings[0].value) if mention.readings else -1
        if not 0 <= minutes < 24 * 60:
            return False
        h, mi = divmod(minutes, 60)
        return any(_bounded(self.text, f"{hh}.{mi:02d}") for hh in {f"{h}", f"{h:02d}"})

    def same_digits(self, raw: str) -> bool:
        """A phone or reference number the text writes with other separators ("1 800 555
        0199" for 1-800-555-0199), or with the country code where the other writes the
        trunk zero ("+44 20 7946 0958" for 020 7946 0958): the same digits, seven or more,
        once "+" or "00" and a country code of one to three digits, or a leading zero, are
        set aside. One digit off is another number."""
        key = DIGITS_ONLY.sub("", raw)
        if len(key) < _IDENT_DIGITS:
            return False
        if self._idents is None:
            self._idents = frozenset(
                variant
                for run in _IDENT_RUN.findall(_NOT_A_GROUP.sub(" ", self.text))
                for variant in national(run)
                if len(variant) >= _IDENT_DIGITS - 1
            )
        return any(v in self._idents for v in national(raw))

    def _spaced(self, mention: Mention) -> bool:
        """The figure written with tokeniser spaces around its separators ("5 , 000" for
        5,000, "3 . 5" for 3.5): searched for directly, not by joining the whole text."""
        groups = DIGITS.findall(mention.raw)
        if len(groups) == 1 and len(groups[0]) > 3 and groups[0][0] != "0":
            head = len(groups[0]) % 3 or 3  # "5000" may be written "5 , 000"
            g = groups[0]
            groups = [g[:head], *(g[i : i + 3] for i in range(head, len(g), 3))]
        if len(groups) < 2 or not all(g in self.text for g in groups):  # (searched first)
            return False
        return spaced_pattern(tuple(groups)).search(self.text) is not None

    def _range_end(self, mention: Mention) -> bool:
        """A year the text states only as the end of an abbreviated range ("2007 -- 11");
        looked for last, since it costs a scan of the text."""
        return mention.kind == "number" and any(
            1500 <= r.value <= 2199 and r.value in self._range_years() for r in mention.readings
        )

    def _range_years(self) -> frozenset[float]:
        """Years that end an abbreviated range ("2007 -- 11" states 2011)."""
        if self._ranges is None:
            years = (
                expand_year(int(m[1]), int(m[2])) for m in ABBREVIATED_RANGE.finditer(self.text)
            )
            self._ranges = frozenset(y for y in years if y is not None)
        return self._ranges

    def _scaled_figures(self) -> bool:
        if self._scaled is None:
            self._scaled = SCALED.search(self.text) is not None
        return self._scaled

    def _scanned(self, mention: Mention) -> bool:
        """Whether the text's own scan reads a figure written as ``mention`` is, of its kind."""
        return any(m.raw == mention.raw and m.kind == mention.kind for m in self.mentions())

    def _bounded(self, probe: str) -> bool:
        """``probe`` is written in the text as a whole figure (``_bounded``, once a probe)."""
        found = self._written.get(probe)
        if found is None:
            found = self._written[probe] = _bounded(self.text, probe, self._ident_raws)
        return found

    def _near(self, r: Reading, exact: bool = False) -> bool:
        """Parse the figures that start with the whole part of ``r`` (or one less) and test
        them for an exact or (unless ``exact``) rounded match; dates contribute their day and
        year."""
        if abs(r.value) >= 1e15:
            return False
        whole = float(int(abs(r.value)))
        key = _key(r.value)
        margin = 2 * r.precision + 1e-8 * abs(r.value)  # (wider than any rounding to r)
        for lead in (whole, whole - 1):
            if lead < 0:
                continue
            for probe in _probes(Reading(lead, 1.0), self._separators):
                keys, values, readings = self._figures_at(probe)
                if key in keys:
                    return True
                if exact:
                    continue
                k = bisect.bisect_left(values, r.value - margin)
                while k < len(values) and values[k] <= r.value + margin:
                    if _rounds_to(readings[k], r):
                        return True
                    k += 1
        return False

    def _figures_at(self, probe: str) -> _Found:
        """The figures read where ``probe`` is written, outside identifiers (found once a
        probe): the keys of their values and parts, their values in order, their readings."""
        found = self._at.get(probe)
        if found is None:
            text = self.text
            keys: set[float] = set()
            readings: set[Reading] = set()
            i = text.find(probe)
            while i >= 0:
                k = i  # (from the group's leading zeros: the "0496" of 555-0496)
                while k > 0 and text[k - 1] == "0":
                    k -= 1
                if not inside_ident(text, k, i + len(probe), self._ident_raws):
                    for c in _figures_at(text, i, self.locale):
                        readings.update(c.readings)
                        keys.update(
                            [_key(v.value) for v in c.readings] + [_key(v) for v in c.parts]
                        )
                i = text.find(probe, i + 1)
            ordered = sorted(readings, key=_by_value)
            found = self._at[probe] = (frozenset(keys), [v.value for v in ordered], ordered)
        return found

    @property
    def lower(self) -> bytes:
        """The text lower-cased, as bytes (made on first use)."""
        if self._lower is None:
            self._lower = lowered(self.text)
        return self._lower


def _figures_at(text: str, i: int, locale: Locale) -> Iterator[Mention]:
    """Figures that may cover the digits at ``i``: read from there, from leading zeros
    ("07"), and from a currency symbol just before, a space between too ("$0-1-1" reads "$0"
    as the scanner does)."""
    k = i
    while k > 0 and text[k - 1] == "0":
        k -= 1
    c = k - 1 - (k > 1 and text[k - 1].isspace())  # "$ 5": the scanner's space after a sign
    starts = (c, k) if k and text[c] in "$€£¥₹" else (k,)
    for start in starts:
        if _starts_figure(text, start):
            yield from scan_at(text, start, locale)
