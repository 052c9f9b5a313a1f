"""The review of round sixteen's changes (the risk guarded as a check, mixed lists of passages,
contractions of stop words, durations of one kind, the noun of a share, a period said before
an amount): the faults found, each with the look-alikes that must keep their reading. Each
rule is written in docs/checks.md."""

from __future__ import annotations

import time

import pytest

from monitor.checks.citation import Citation
from monitor.checks.context import content_words
from monitor.checks.view import TraceView
from monitor.core.model import RagTrace
from tests.unit.checks.numbers_support import unsupported
from tests.unit.checks.test_citation_brackets import cited

SEVEN = [f"p{i}" for i in range(1, 8)]
WIRE = ["The wire fee is 30 euros."]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a span written with "to" inside a list, as "-" is ("sources 2 to 4" alone was read)
        ("Passages 1, 3 to 5 agree.", (["1", "3", "4", "5"], [])),
        ("Passages 1-3 and 5 to 7 agree.", (["1", "2", "3", "5", "6", "7"], [])),
        ("Passages 1-3, 5 and 6 to 9 agree.", (["1", "2", "3", "5", "6", "7", "8", "9"], ["8", "9"])),
        # a span second in a list, before a verb, as its single number is ("passages 1 and 3 agree")
        ("See passages 1 and 3-5 say so.", (["1", "3", "4", "5"], [])),
        ("Passages 1, 3-5 agree.", (["1", "3", "4", "5"], [])),
        ("Passages 1 & 3–5 agree.", (["1", "3", "4", "5"], [])),
        # hard negatives: as before
        ("Passages 1, 3-5.", (["1", "3", "4", "5"], [])),
        ("Passages 1-3, 5 and 7 agree.", (["1", "2", "3", "5", "7"], [])),
        ("Sources 2 to 4 agree.", (["2", "3", "4"], [])),
        ("Passages 1 and 3 to verify.", (["1", "3"], [])),
        ("Passages 1, 2 to 3 weeks apart.", (["1", "2"], [])),
        ("Sources 1 and 2-3 km away.", (["1", "2"], [])),
        ("Keep passages 1 and 3-5 days apart.", (["1", "3"], [])),
    ],
)  # fmt: skip
def test_every_span_of_a_list_is_cited(answer: str, expected: tuple[list[str], list[str]]) -> None:
    """ "passages 1, 3 to 5", "passages 1 and 3-5 agree": spans and single passages in one
    list, every passage named (the end of the span was left uncited)."""
    assert cited(answer, SEVEN) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Passages 1-3 and 5 to 7 agree: the wire fee is 30 euros.", []),
        ("Passages 1, 3 to 5 agree: the wire fee is 30 euros.", []),
        ("See passages 1 and 3-5 say so: the wire fee is 30 euros.", []),
        ("Passages 1, 3-5 agree: the wire fee is 30 euros.", []),
        # hard negatives: a quantity after the list is a claim
        ("Passages 1, 2 to 3 weeks apart.", ["3"]),
        ("Sources 1 and 2-3 km away.", ["3"]),
        ("Keep passages 1 and 3-5 days apart.", ["5"]),
        ("Keep passages 1-3, 5 and 7 to 9 days apart.", ["9"]),
        ("Passages 1, 3 to 5 km away.", ["5"]),
    ],
)
def test_no_number_of_a_span_in_a_list_is_a_figure(answer: str, expected: list[str]) -> None:
    assert unsupported(answer, WIRE) == expected


def test_spans_with_their_word_are_read_in_linear_time() -> None:
    """ "docs 49-99" beside ids doc-1 .. doc-20: each number beyond the passages is resolved
    with its word once, not by a scan of every id for each of a span's numbers (3.8 s for a
    100 KB answer)."""
    answer = ("See docs 49-99. " * 6_300)[:100_000]
    ids = [f"doc-{i}" for i in range(1, 21)]
    trace = RagTrace.from_data(
        {"trace_id": "0" * 31 + "1", "answer": answer,
         "context": [{"doc_id": d, "text": f"Text of {d}."} for d in ids]}
    )  # fmt: skip
    start = time.perf_counter()
    line = Citation()(TraceView(trace)).evidence.to_line()
    assert time.perf_counter() - start < 1.0
    assert line["cited"][:3] == ["49", "50", "51"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a contraction with a typographic apostrophe is the same contraction
        ("It doesn’t renew automatically.", {"renew", "automatically"}),
        ("They couldn’t, wouldn’t and haven’t renewed.", {"renewed"}),
        ("Refunds weren’t, aren’t and hadn’t been issued.", {"refunds", "issued"}),
        # a modal's contraction with "have": both stop words
        ("You would've renewed; they could've, should've, must've, might've.", {"renewed"}),
        # hard negatives: a possessive keeps its word, a word is not a contraction's stem
        ("The company’s safe haven.", {"company", "safe", "haven"}),
        ("The company's plans.", {"company's", "plans"}),
        ("It doesn't renew.", {"renew"}),
        ("Their doesn'tx plan.", {"doesn'tx", "plan"}),
    ],
)
def test_a_contraction_of_stop_words_is_a_stop_word(answer: str, expected: set[str]) -> None:
    assert content_words(answer) == expected


CLUB = [
    "The fencing club has 60 members, and 30 of them compete in regional events.",
    "Annual fees: adults £180, juniors £120, payable in instalments.",
]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # the share's noun is a word of the sentence (or its first five letters), never
        # letters inside another word
        ("Two thirds of the men compete.", CLUB, ["Two thirds"]),
        ("25% of the men are coaches.", "10 of the 40 women are coaches.", ["25%"]),
        ("25% of the cars are red.", "We took 10 cards out of 40.", ["25%"]),
        ("25% of the cats are black.", "At location 10 of 40, nothing grew.", ["25%"]),
        # hard negatives: the word, its plural or its first five letters
        ("Half of the members compete.", CLUB, []),
        ("25% of the men are coaches.", "10 of the 40 men are coaches.", []),
        ("25% of the cars are red.", "Of 40 cars, 10 are red.", []),
        ("92% of starters finished.", "Of the 250 runners who started, 230 finished.", []),
        ("50% of the staff left.", "10 of the 20 staffers left.", []),
        ("A quarter of the children", "10 of the 40 children.", []),
        ("Half of the boxes were lost.", "10 of the 20 boxes were lost.", []),
        ("25% of the Members compete.", "10 of the 40 MEMBERS compete.", []),
    ],
)  # fmt: skip
def test_a_share_names_its_noun_as_a_word(
    answer: str, context: str | list[str], expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # the answer's figure is the one standing alone, not letters or digits of another
        ("The sixteen interns spend six weeks there.", "The sixteen interns spend 6 months there.", ["six"]),
        ("Written notice takes ten days.", "Written notice takes ten weeks.", ["ten"]),
        ("The seventh cohort lasts seven weeks.", "The seventh cohort lasts seven months.", ["seven"]),
        ("In 2026 the course lasts 6 weeks.", "In 2026 the course lasts 6 months.", ["6"]),
        # a number in words joined to its unit, as its digits are ("6-week")
        ("It takes six weeks.", "The six-month course.", ["six"]),
        ("A 6-week course.", "A 6-month course.", ["6"]),
        ("It lasts two years.", "It lasts two-year terms, 2 months each.", []),
        # hard negatives: the same unit, another word, a longer number
        ("It takes six weeks.", "The six-week course.", []),
        ("It takes six weeks.", "The six-month course, six weeks of it online.", []),
        ("It takes six weeks.", "Six members meet. It takes 6 months.", []),
        ("It takes six weeks.", "A six-figure sum; it takes 6 months.", []),
        ("The course takes twenty weeks.", "20 months, or twenty-one weeks.", ["twenty"]),
        ("The sixteen interns spend six weeks there.", "The sixteen interns spend 6 weeks there.", []),
    ],
)  # fmt: skip
def test_a_number_in_words_is_read_where_it_stands(
    answer: str, context: str, expected: list[str]
) -> None:
    assert unsupported(answer, context) == expected


STIPEND = "Each apprentice receives a monthly stipend of ₹9,000, of which the state pays ₹1,800."


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a count of other things, a clock time, a percentage: no amount per period
        ("That is 480 a year.", "The club holds a monthly meeting of 40 members.", ["480"]),
        ("The classes cost $26 a month.", "Weekly classes at 6 pm are free.", ["$26"]),
        ("That is 84 a year.", "The monthly meeting is at 7:30 in the hall.", ["84"]),
        ("That is 0.5% a month.", "The annual interest rate is 6%.", ["0.5%"]),
        ("That is 0.5% a month.", "The annual interest rate is 6 percent.", ["0.5%"]),
        # a half-year or a fortnight is no year or week
        ("The fee is $50 a month.", "The semi-annual fee is $600.", ["$50"]),
        ("That is $108.33 a month.", "The bi-weekly fee is $25.", ["$108.33"]),
        # the amount read whole, however far after its period
        ("The fee is $12 a year.", "The monthly fee is" + " " * 36 + "$1,250.", ["$12"]),
        ("The fee is $15,000 a year.", "The monthly fee is" + " " * 36 + "$1,250.", []),
        # hard negatives: a sum of money, its currency written before or after it
        ("The fee is $50 a month.", "The annual fee is $600.", []),
        ("The fee is €50 a month.", "The annual fee is 600 euros.", []),
        ("Over a year, the stipend comes to ₹1,08,000.", STIPEND, []),
        ("That is £75 a week.", "A weekly rent: £75. The yearly rent of £3,900 is due.", []),
        ("The fee is $60 a month.", "The annual fee is $600.", ["$60"]),
        ("The fee is $50 a month.", "Our annual report: $600 was raised.", ["$50"]),
    ],
)  # fmt: skip
def test_a_period_before_a_sum_of_money(answer: str, context: str, expected: list[str]) -> None:
    """ "a monthly stipend of ₹9,000", "the annual fee is $600": a sum of money per month or
    year; "a monthly meeting of 40 members" or "weekly classes at 6 pm" state none."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    "context",
    [
        "The annual fee of $" + "9" * 100_000 + " a year.",
        ("The monthly fee is $" + "9" * 200 + " a user. ") * 400,
        "The monthly fee is" + " " * 100_000 + "$1,250.",
    ],
)
def test_a_period_before_an_amount_is_read_in_linear_time(context: str) -> None:
    """An amount read whole past its window is read once, and its digits once."""
    start = time.perf_counter()
    unsupported("The fee is $50 a month.", context)
    assert time.perf_counter() - start < 1.0
