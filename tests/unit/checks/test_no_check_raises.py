"""No check raises, on any trace: every check of the component table (a new check's row
brings it here with no other line) is run on realistic traces mutated the way real answers
and passages differ from the labelled ones — a figure rewritten in another form (scale
words, separators, units, dates, clock times, phone numbers, card expiries, fractions,
exponents, other scripts' digits), a fragment inserted (units, periods, hedges, citation
markers, combining marks, right-to-left text, control characters), a piece cut, the text
repeated to a long page, the answer and a passage swapped — and on arbitrary text. A check
that raises is a bug (the suite would count it: ``ragmon_check_errors_total``); the same
traces give the risk a finite value in [0, 1].

Run time is bounded by the examples per test (``RAGMON_FUZZ_EXAMPLES``, 150 by default: a
few seconds); set it higher for a deeper search outside the unit tier.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.checks import Check, CheckSuite
from monitor.checks.risk import risk
from monitor.components import CHECKS
from monitor.core.model import RagTrace
from tests import checks as check_fixtures
from tests.quality import load_cases

EXAMPLES = int(os.environ.get("RAGMON_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def table_checks() -> list[Check]:
    """Every check of the component table, built with its default options (whether or not
    the default settings turn it on)."""
    return [row.load()(row.config(), None) for row in CHECKS]


CHECKED = table_checks()


def _seeds() -> list[tuple[str, list[tuple[str, str]], str]]:
    """(answer, passages as (doc id, text), query) of the labelled cases and the fixtures."""
    out = []
    for kind in ("numbers", "citation", "refusal", "conflict"):
        for case in load_cases(kind):
            out.append((case.answer, case.passages(), case.query))
    for name in check_fixtures.names():
        for raw in check_fixtures.records(name):
            record = json.loads(raw)
            passages = [(p.get("doc_id", "d"), p.get("text") or "") for p in record["context"]]
            out.append((record.get("answer") or "", passages, record.get("query") or ""))
    return out


SEEDS = _seeds()

# Figures in the forms the number check reads (and some it must not trip on).
FIGURES = st.sampled_from([
    "0", "7", "1,600", "1.600", "1 600", "1\u202f600", "3,5", "3.50", "0.000001", "-40",
    "+1 (800) 555-0199", "1-800-555-0199", "555-0199", "09/27", "12/31/2024", "31/02/2024",
    "2024-03-15", "2024-13-45", "0000-00-00", "15th", "21st", "1990s", "'90s", "9:30",
    "09:12", "10:47", "12:30 pm", "24:61", "½", "3 ½", "1/3", "0/0", "7/0", "1e5", "1e400",
    "2.5e-3", "٣", "३", "１２", "¹²", "²0", "3–5", "3 to 5", "5-to-3", "$49", "€12,50",
    "£1.2bn", "$5 million", "5 million", "five million", "twenty-five thousand", "a dozen",
    "two dozen", "half a dozen", "3x", "10×", "50%", "50 per cent", "99.9 %", "v2.4.0",
    "2.4", "1." + "1" * 400, "9" * 400, "0." + "0" * 320 + "1", "1" + "0" * 330,
    "−5", "- 5", "5-", ".5", "5.", ",5", "5,,000", "1,2,3", "4111 1111 1111 1111",
    "No. 5", "#12", "A4", "GPT-4", "COVID-19", "seven", "four", "zero", "none",
])  # fmt: skip
# Fragments inserted anywhere: units and periods after a figure, hedges and cues before one,
# citation markers, and text that is hard on tokenisers.
FRAGMENTS = st.sampled_from([
    " km", " miles", "kg", " lb", " °F", " ° c", " degrees Celsius", " minutes", " hours",
    " days", " weeks", " a month", " per year", "/mo", " monthly", " annually", " weekly",
    " million", " billion", " thousand", " hundred", " dozen", " times", " percent",
    " of the ", " in total", " combined", " more than ", " fewer than ", " up to ",
    " nearly ", " about ", " rose by ", " from ", " to ", " between ", " and ", " vs ",
    " cheaper than ", " years old", " aged ", " century", " version ", " v",
    "[1]", "[2]", "[12]", "[1, 2]", "[1-3]", "[^4]", "[doc-3]", "【3†source】", "(1)", "†",
    "[" + "9" * 30 + "]", "[]", "[[", "]]", "^", "¹", "\u200b", "\u200f", "\u202e", "\ufeff",
    "\u0301", "e\u0301", "\x00", "\r\n", "\n\n", "\t", "…", "’", "“", "„", "»", "–", "—",
    "İ", "ß", "ǅ", "ﬁ", "𝟓", "😀", "你好", "مرحبا", "שלום", "I'm sorry, I can't help. ",
    "Laut Quelle ", " i.e. ", " e.g. ", "Dr. ", "U.S. ", "...", "?!", "1.", "2)", "- ",
])  # fmt: skip


@st.composite
def mutated(draw: Any, text: str) -> str:
    """``text`` after a few mutations."""
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["figure", "insert", "cut", "repeat", "raw"]))
        n = len(text)
        at = draw(st.integers(0, n))
        if op == "figure":
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:  # a figure of the text rewritten
                i = draw(st.sampled_from(digits))
                j = i
                while j < n and (text[j].isdigit() or text[j] in ",."):
                    j += 1
                text = text[:i] + draw(FIGURES) + text[j:]
            else:
                text = text[:at] + draw(FIGURES) + text[at:]
        elif op == "insert":
            text = text[:at] + draw(FRAGMENTS) + text[at:]
        elif op == "cut":
            text = text[:at] + text[draw(st.integers(at, n)) :]
        elif op == "repeat":  # a long page (bounded: a few seconds for the whole test)
            text = (text + " ") * draw(st.integers(2, max(2, 8_000 // max(n, 1))))
        else:
            text = text[:at] + draw(st.text(max_size=20)) + text[at:]
    return text


@st.composite
def traces(draw: Any) -> RagTrace:
    """A labelled case or fixture trace, mutated."""
    answer, passages, query = draw(st.sampled_from(SEEDS))
    answer = draw(mutated(answer))
    texts = [draw(mutated(t)) for _, t in passages]
    if texts and draw(st.booleans()):
        k = draw(st.integers(0, len(texts) - 1))
        answer, texts[k] = texts[k], answer  # the answer and a passage swapped
    if draw(st.integers(0, 9)) == 0:
        texts.append(draw(st.text(max_size=200)))
    context = [{"doc_id": d, "text": t} for (d, _), t in zip(passages, texts, strict=False)]
    context += [{"doc_id": f"x{i}", "text": t} for i, t in enumerate(texts[len(passages) :])]
    return RagTrace.from_data({
        "trace_id": "0" * 31 + "1", "query": draw(mutated(query)), "answer": answer,
        "context": context,
    })  # fmt: skip


def test_the_table_lists_every_check() -> None:
    """The checks fuzzed here are the table's (so a new check is fuzzed with no other line)."""
    assert [c.name for c in CHECKED] == [row.name for row in CHECKS]
    assert len(CHECKED) >= 6


def _reraise(check: str, exc: Exception) -> None:
    raise exc  # the check's own traceback, in the test's failure


SUITE = CheckSuite(CHECKED, on_error=_reraise)


def _no_check_raises(trace: RagTrace) -> None:
    view = SUITE.view(trace)
    results = SUITE(trace, view)
    assert list(results) == [c.name for c in CHECKED]
    value = risk(results, view)
    assert math.isfinite(value) and 0.0 <= value <= 1.0, value


@FUZZ
@given(trace=traces())
def test_no_check_raises_on_mutated_traces(trace: RagTrace) -> None:
    """Every check returns a result on realistic traces mutated (see the module)."""
    _no_check_raises(trace)


TEXT = st.text(max_size=300)


@FUZZ
@given(answer=TEXT, passages=st.lists(TEXT, max_size=4), query=TEXT)
def test_no_check_raises_on_arbitrary_text(answer: str, passages: list[str], query: str) -> None:
    """Every check returns a result on any text."""
    context = [{"doc_id": f"d{i}", "text": t} for i, t in enumerate(passages)]
    _no_check_raises(RagTrace.from_data({
        "trace_id": "0" * 31 + "2", "query": query, "answer": answer, "context": context,
    }))  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # found by the fuzzing above: a figure with more decimals than a float can scale
        ("It is 0." + "1" * 400 + ".", ["It is 0.1."]),
        # and a figure past a float's range (an infinite value rounded to the answer's)
        ("The bridge cost £2.5m.", ["The bridge cost £" + "9" * 400 + "m."]),
        # the sentence: "500,000 monthly" read the amount as the period
        (
            "Starter supports up to 5 million monthly active users.",
            ["Starter supports up to 500,000 monthly active users."],
        ),
    ],
    ids=["many decimals", "past a float", "figure before monthly"],
)
def test_found_cases(answer: str, context: list[str]) -> None:
    """Traces a check raised on, kept as cases."""
    _no_check_raises(RagTrace.from_data({
        "trace_id": "0" * 31 + "3", "query": "", "answer": answer,
        "context": [{"doc_id": "d", "text": t} for t in context],
    }))  # fmt: skip
