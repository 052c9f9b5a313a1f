"""``unsupported_numbers``: figures the answer states that neither the context nor the query
contains. See ``monitor.checks.numbers`` for what counts as the same figure.

A figure from the query is the user's premise ("I bought it 45 days ago" -> "at 45 days you
are outside the 30-day window") and is not flagged, except when the query *asks* whether the
figure holds (a yes/no question: "Is the limit 500 a minute?") and the answer affirms it in a
sentence that neither negates nor states any figure the context backs ("Yes, the limit is 500
a minute" while the context says 100): that is an accepted false premise.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import ClassVar

from monitor.checks.evidence import NumbersEvidence
from monitor.checks.numbers import Mention, NumberLookup
from monitor.checks.numbers.counts import (
    CountClaim,
    Sentences,
    answer_list,
    judge,
    read_sentences,
)
from monitor.checks.numbers.derived import Derivation
from monitor.checks.numbers.grouped import Grouped, Run, key, versioned
from monitor.checks.numbers.hedges import narrowed
from monitor.checks.numbers.measures import (
    as_written,
    durations,
    in_big_change,
    in_duration,
    in_other_currency,
    in_other_dollar,
    in_other_layout,
    in_other_unit,
    in_small_change,
)
from monitor.checks.numbers.ordinals import ordinals
from monitor.checks.numbers.patterns import place
from monitor.checks.numbers.premise import contradicted
from monitor.checks.numbers.quantities import in_other_period, one_unit, one_unit_claims
from monitor.checks.numbers.weekdays import WEEKDAY, weekdays
from monitor.checks.numbers.years import date_after, month_of_expiry, time_after
from monitor.checks.numbers.zones import time_in_zone
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.model import CheckResult

# (a decimal point is inside a sentence: "Is the fee 1.5%?" is one question)
_SENTENCE = re.compile(r"[^.?!\n]*(?:[.?!](?=\d)[^.?!\n]*)*(?:[.?!](?!\d)|\n|$)")
_YES_NO = re.compile(
    r"\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|must|"
    r"shall|isn't|aren't|doesn't|don't|can't|won't)\b",
    re.IGNORECASE,
)
_CONTRAST = re.compile(
    r"\b(?:no|not|never|nor|outside|beyond|exceeds?|exceeding|over|above|below|under|only|but|"
    r"however|instead|rather|although|though|whereas|while)\b|n't\b",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=64)
def _all_supported(checked: int) -> CheckResult:
    """The (immutable, shared) result when all ``checked`` figures are backed."""
    return CheckResult(
        name=UnsupportedNumbers.name, flagged=False, evidence=NumbersEvidence((), checked)
    )


_DIGIT = re.compile(r"\d")
_ORDINAL_HINT = re.compile(r"(?:ird|th)\b")  # "third", "fourth": ordinals in words
_SPACED_CODE = re.compile(r"(?<![\w-])[A-Z]{2,5} (\d{3,})(?![\w-]|[.,]\d)")


class _SpacedCodes:
    """The answer's codes written with a space ("LH 4521": two to five capitals, three or more
    digits), by their digits, the first of each: found on first use, one scan of the answer
    for all its figures."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self._by_digits: dict[str, str] | None = None

    def of(self, mention: Mention) -> Mention | None:
        """The code whose digits are ``mention``, as one identifier, or None."""
        raw = mention.raw
        if mention.kind != "number" or not raw.isdigit() or len(raw) < 3:
            return None
        if not raw.isdecimal():  # (superscript digits: written only as they are)
            found = re.search(rf"(?<![\w-])[A-Z]{{2,5}} {raw}(?![\w-]|[.,]\d)", self.answer)
            return Mention(found.group(0), "ident") if found is not None else None
        if self._by_digits is None:
            self._by_digits = {}
            for code in _SPACED_CODE.finditer(self.answer):
                self._by_digits.setdefault(code.group(1), code.group(0))
        written = self._by_digits.get(raw)
        return Mention(written, "ident") if written is not None else None


def _whole_durations(unsupported: list[str], answer: str) -> list[str]:
    """``unsupported`` with the figures of a duration in hours and minutes ("1 hour 50
    minutes") reported once, as the whole duration: it is one figure."""
    found = durations(answer)
    if not found:
        return unsupported
    out: list[str] = []
    for raw in unsupported:
        whole = next((d[0] for d in found if in_duration(raw, answer, d)), None)
        if whole is None:
            out.append(raw)
        elif whole not in out:
            out.append(whole)
    return out


MAX_QUESTIONS = 32  # the query's yes/no questions read (each figure is asked of every one)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.findall(text) if s.strip()]


class _Asked:
    """The query's yes/no questions, each read as a look-up, and the answer's sentences: read
    once a trace for every figure the query states (each was read again for each)."""

    def __init__(self, view: TraceView) -> None:
        questions = (
            s
            for s in _sentences(view.trace.query)
            if s.rstrip().endswith("?") and _YES_NO.match(s) is not None
        )
        self.questions = [
            NumberLookup(s, spelled=False) for s in itertools.islice(questions, MAX_QUESTIONS)
        ]
        self.sentences = _sentences(view.answer) if self.questions else []


class UnsupportedNumbers:
    """Flags answers stating numbers, amounts, percentages or dates absent from the context.

    Evidence lists the unsupported figures as they appear in the answer.
    """

    name: ClassVar[str] = "unsupported_numbers"
    evidence: ClassVar[type[NumbersEvidence]] = NumbersEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = ()
    options: ClassVar[None] = None  # nothing to configure

    def __init__(self, options: None = None) -> None:
        """Nothing to configure (``options`` is always None)."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        mentions = view.answer_numbers
        if (
            not mentions
            and "one" not in view.answer
            and _DIGIT.search(view.answer) is None
            and _ORDINAL_HINT.search(view.answer) is None
        ):
            return _all_supported(0)  # (a postcode holds digits, an ordinal words: no figure)
        unsupported: list[str] = []
        derived: list[str] = []
        unjudged: list[str] = []  # counts of things the context neither states nor presents
        derivation: Derivation | None = None
        # a figure written again reads as it did the first time (what it added, where): its
        # look-ups scan the context and the answer, so each is made once
        done: dict[Mention, tuple[list[str] | None, str]] = {}
        reported: set[str] = set()
        codes: _SpacedCodes | None = None  # the answer's spaced codes ("LH 4521")
        sentences: Sentences | None = None  # the context's, as counts of things read them
        asked: _Asked | None = None  # the query's yes/no questions
        # identifiers in groups ("DE89 3704 …", "SW1V 1NP"), read whole
        grouped = Grouped(view.answer, view.context_text, view.context_numbers.same_digits)
        read: set[Run] = set()  # the identifiers in groups a figure of the scan stands in
        for m in mentions:
            if m.raw in reported:
                continue
            if m in done:
                into, what = done[m]
                if into is not None:
                    into.append(what)
                continue
            done[m] = (None, "")
            run = grouped.run_at(place(view.answer, m.raw)) if grouped.runs else None
            if run is not None:
                read.add(run)
                if not grouped.backed(run) and run.raw not in reported:
                    unsupported.append(run.raw)
                    reported.add(run.raw)
                continue
            if view.context_numbers.supports(m) and not (
                m.kind == "number"
                and (
                    in_other_unit(m.raw, view.answer, view.context_text)
                    or in_other_period(m.raw, view.answer, view.context_text)
                    or in_small_change(m.raw, view.context_text)
                    or in_big_change(m.raw, view.context_text)
                    or in_other_currency(m.raw, view.context_text)
                    or in_other_dollar(m.raw, view.answer, view.context_text)
                    or narrowed(m, view.answer, view.context_numbers)
                )
            ):
                continue  # ("100 km" for "100 miles", "$29 a month" for "$29 a year")
            if view.query_numbers.supports(m):
                asked = asked or _Asked(view)
                # the user's premise passes unless a yes/no question asks it and the answer
                # simply affirms it, or the query states it and the context denies it
                if not (
                    self._accepted_premise(view, m, asked)
                    if any(question.supports(m) for question in asked.questions)
                    else self._denied_premise(view, m)
                ):
                    continue
            if m.kind == "number" and in_other_layout(m.raw, view.context_text):
                continue  # "204577" for the sort code "20-45-77"
            if m.kind == "ident" and versioned(m.raw, view.context_text):
                continue  # "2.14.1" for "v2.14.1"
            codes = codes or _SpacedCodes(view.answer)
            code = codes.of(m)
            if code is not None and view.context_numbers.supports(code):
                continue  # "LH 4521" for the context's code "LH4521" or "LH-4521"
            if m.kind == "ident" and len(m.raw) >= 8 and grouped.written(key(m.raw)):
                continue  # "DE89370400440532013000" for "DE89 3704 0044 0532 0130 00"
            if view.trace.context:
                derivation = derivation or Derivation(
                    view.context_text, view.answer, lambda: view.context_lower,
                    view.context_numbers.locale, view.context_numbers.mentions,
                )  # fmt: skip
                figures = view.context_numbers.mentions
                how = (
                    derivation.explain(m)
                    or date_after(view.context_text, m, figures)
                    or month_of_expiry(view.context_text, m)
                    or time_after(view.context_text, m, figures)
                    or time_in_zone(view.context_text, view.answer, m)
                )
                if how is not None:
                    derived.append(how)
                    done[m] = (derived, how)
                    continue
                claim = CountClaim.find(view.answer, m.raw, m.noun) if m.noun else None
                counted = None  # the context's count of the claim's things: its verdict
                if claim is not None:
                    if sentences is None:
                        sentences = read_sentences(view.passages)
                    count = judge(claim, view.passages, sentences)
                    counted = count.verdict
                    if counted == "backed":
                        derived.append(f"{m.raw} {m.noun} = {count.why}")
                        done[m] = (derived, derived[-1])
                        continue
                # a count the context neither states nor denies, of the things the answer
                # lists after it ("three days a week: Monday, Wednesday and Friday")
                listed = (
                    answer_list(view.answer, m.raw, view.context_text)
                    if counted != "flagged" and m.raw.isalpha()
                    else None
                )
                if listed is not None:
                    derived.append(f"{m.raw} = the answer's list: {listed}")
                    done[m] = (derived, derived[-1])
                    continue
                if counted == "unjudged":
                    unjudged.append(m.raw)
                    done[m] = (unjudged, m.raw)
                    continue
            unsupported.append(as_written(m.raw, view.answer))  # ("A$79", "50¢")
            reported.add(m.raw)
        checked = len(mentions)
        for word, backed in ordinals(view.answer, view.context_text) if view.trace.context else ():
            checked += 1  # ("the fourth consecutive quarter": no figure the scan reads)
            if not backed and word not in reported:
                unsupported.append(word)
                reported.add(word)
        if view.trace.context and WEEKDAY.search(view.answer) is not None:
            dates = [m for m in mentions if m.kind == "date" and m.raw not in reported]
            figures = view.context_numbers.mentions
            for word, backed in weekdays(view.answer, view.context_text, dates, figures):
                checked += 1  # ("Friday 9 January 2026": the calendar's to judge)
                if not backed and word not in reported:
                    unsupported.append(word)
                    reported.add(word)
        for run in grouped.runs:  # (a postcode holds no figure the scan reads)
            if run not in read and run.raw not in reported and not grouped.backed(run):
                checked += 1
                unsupported.append(run.raw)
                reported.add(run.raw)
        if view.trace.context and "one" in view.answer:
            derivation = derivation or Derivation(
                view.context_text, view.answer, lambda: view.context_lower,
                view.context_numbers.locale, view.context_numbers.mentions,
            )  # fmt: skip
            verdicts: dict[str, str] = {}  # by unit: each a search of the context
            for _, unit in one_unit_claims(view.answer):
                checked += 1
                if unit not in verdicts:
                    verdicts[unit] = one_unit(derivation, unit)
                verdict = verdicts[unit]
                if verdict == "flagged" and "one" not in reported:
                    unsupported.append("one")
                    reported.add("one")
                elif verdict == "unjudged":
                    unjudged.append("one")
        if unsupported:
            unsupported = _whole_durations(unsupported, view.answer)
        if not unsupported and not derived and not unjudged:
            return _all_supported(checked)
        return CheckResult(
            name=self.name,
            flagged=bool(unsupported),
            evidence=NumbersEvidence(
                tuple(unsupported),
                checked,
                tuple(derived) if derived else None,
                tuple(unjudged) if unjudged else None,
            ),
        )

    @staticmethod
    def _denied_premise(view: TraceView, mention: Mention) -> bool:
        """The context gives what the query states as a fact, ``mention``, another value."""
        return contradicted(view.trace.query, view.context_text, mention,
                            view.query_numbers.mentions(), view.context_numbers.mentions(),
                            ) is not None  # fmt: skip

    @staticmethod
    def _accepted_premise(view: TraceView, mention: Mention, asked: _Asked) -> bool:
        """The answer simply affirms ``mention``, which a yes/no question of the query asks
        (the caller has found that question)."""
        for sentence in asked.sentences:
            if mention.raw not in sentence:
                continue
            if _CONTRAST.search(sentence):
                return False
            others = [o for o in view.answer_numbers if o.raw != mention.raw and o.raw in sentence]
            return not any(view.context_numbers.supports(o) for o in others)
        return False
