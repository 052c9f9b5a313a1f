"""The risk on real checks' results: each piece of evidence raises it, a refusal is measured
as a possible false refusal, never by its words."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks import CheckSuite, kernels
from monitor.checks.memo import lowered
from monitor.checks.risk import REFUSAL_CHANCE, _name_parts, phrasing_scale, risk
from monitor.core.model import RagTrace

CONTEXT = "The Pro plan costs $20 a month and includes five seats and email support."


def risk_of(answer: str, context: str = CONTEXT, query: str = "How much is the Pro plan?") -> float:
    trace = RagTrace.from_data({"trace_id": "c" * 32, "query": query,
                                     "answer": answer, "context": [{"text": context}]})  # fmt: skip
    suite = CheckSuite()
    view = suite.view(trace)
    return risk(suite(trace, view), view)


def test_a_grounded_answer_is_low_and_an_invented_one_high() -> None:
    grounded = risk_of("The Pro plan costs $20 a month and includes five seats.")
    invented = risk_of("The Pro plan includes unlimited storage, phone support and a free laptop.")
    assert grounded <= 0.2 < 0.45 < invented


def test_an_unsupported_figure_raises_it() -> None:
    right = risk_of("The Pro plan costs $20 a month.")
    wrong = risk_of("The Pro plan costs $25 a month.")
    assert wrong >= right + 0.5


def test_a_refusal_is_a_possible_false_refusal_not_its_words() -> None:
    assert risk_of("I don't know, the documents do not say.") == REFUSAL_CHANCE
    # every sentence of it refuses: none is measured by its words
    assert risk_of("I don't know. The context doesn't mention this.") == REFUSAL_CHANCE
    assert risk_of("I'm sorry. The documents do not contain that information.") == REFUSAL_CHANCE


def test_what_a_refusal_goes_on_to_say_is_measured() -> None:
    """risk/7: "The context does not mention X. However, ..." answers all the same; its
    sentences that do not refuse, of ``REST_WORDS`` content words or more, are measured as
    any answer's words are (risk/6 scored it 0.3 whatever followed). What the context holds
    keeps it at the refusal's chance."""
    hedge = "The context does not mention a yearly price. "
    invented = risk_of(
        hedge + "However, most vendors discount annual billing, typically saving customers "
        "roughly two months of fees compared with paying monthly."
    )
    grounded = risk_of(
        hedge + "However, the Pro plan costs $20 a month and includes five seats and email support."
    )
    figure = risk_of(
        hedge + "However, the Pro plan costs $25 a month and includes five seats and email support."
    )
    assert grounded < 0.4
    assert invented >= max(0.5, grounded + 0.2) and figure >= grounded + 0.3
    # a refusal's courtesies are too few words to be measured: "Please contact support."
    assert risk_of("The documents do not say. Please contact our support team.") == REFUSAL_CHANCE


def test_an_answer_over_an_empty_context_is_risky() -> None:
    assert risk_of("The Pro plan costs $20 a month.", context="") >= 0.5


def test_bounded() -> None:
    for answer in ("", "ok", "The Pro plan costs $99, $98 and $97 [9] [8].", "x " * 500):
        assert 0.0 <= risk_of(answer) <= 1.0


def test_a_short_answer_is_measured_by_the_words_it_has() -> None:
    """One or two content words are too few for the grounding check to score, but a short
    answer the context holds is still right far more often than one it does not (HaluEval's
    answers: risk/1 left every short answer at 0)."""
    held = risk_of("Five seats.")
    invented = risk_of("Ten seats.")
    absent = risk_of("Unlimited storage.")
    uncited = risk_of("The Pro plan costs $20 a month.")  # grounded: only the citation's 0.15
    assert held == uncited
    assert invented >= held + 0.3  # 'ten' missing: half the words
    assert absent >= held + 0.6  # neither word in the context
    assert risk_of("") <= uncited  # no word, nothing measured


ARTICLE = (
    "The minister resigned on Monday after the report was published. "
    "Her deputy was appointed to lead the inquiry into the contract."
)
UNCITED = 0.15  # an answer without citations: the citation check's chance alone


def test_words_of_the_context_put_together_anew_raise_it() -> None:
    """risk/4: two answers of the same words, all of them in the context, one in the
    context's own phrasing and one stating what it does not say: the recombined one is
    riskier (the grounding gap alone cannot tell them apart)."""
    faithful = risk_of("The minister resigned on Monday after the report was published.", ARTICLE)
    recombined = risk_of("The report resigned on Monday after the minister was published.", ARTICLE)
    assert faithful == UNCITED  # every trigram is the context's
    assert recombined >= faithful + 0.1


CLUB = "Swansea said manager Curtis praised the squad after the win."


def test_a_missing_word_before_a_name_of_the_context_counts_twice() -> None:
    """risk/5: of two answers with one missing word each and as many new trigrams, the one
    whose missing word is part of a name the context has ("Alan" before "Curtis": a first
    name the context never gives) is riskier than the one missing a plain word; so with an
    answer of two words, which the grounding check does not score."""
    named = risk_of("Swansea said manager Alan Curtis praised the squad.", CLUB)
    plain = risk_of("Swansea said manager Curtis warmly praised the squad.", CLUB)
    assert named > plain + 0.1
    assert risk_of("Alan Curtis.", CLUB) > risk_of("Curtis, Alan.", CLUB) + 0.05


def name_parts(answer: str, context: str, missing: tuple[str, ...]) -> int:
    trace = RagTrace.from_data({"trace_id": "c" * 32, "query": "Who?", "answer": answer,
                                     "context": [{"text": context}]})  # fmt: skip
    return _name_parts(missing, CheckSuite().view(trace))


def test_what_a_name_of_the_context_is() -> None:
    """A name is a word the context writes capitalised not only at a sentence's start; the
    answer's case is not read; the missing word must be right before it (spaces only)."""
    assert name_parts("manager alan curtis said", CLUB, ("alan",)) == 1  # lower-cased answer
    assert name_parts("Manager Alan Curtis said", CLUB, ("alan",)) == 1
    assert name_parts("Manager Alan, Curtis said", CLUB, ("alan",)) == 0  # not right before
    assert name_parts("Manager Alan praised it", CLUB, ("alan",)) == 0  # 'praised': no name
    assert name_parts("Manager Alana Curtis", CLUB, ("alan",)) == 0  # not the word itself
    opening = "Curtis praised the squad. The club said so. Curtis left."
    assert name_parts("Manager Alan Curtis said", opening, ("alan",)) == 0  # sentence starts
    assert name_parts("Alan Curtis and Alan Curtis", CLUB, ("alan", "gone")) == 1  # once a word
    assert name_parts("Alan Curtis", CLUB, ()) == 0


def test_a_name_is_asked_of_the_context_once_however_often_the_answer_repeats_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer that says a missing word before the same word thousands of times (no input
    may stall a check) asks the context about that word once, not once a repeat: each
    question scans the whole context, so asking per repeat grows with answer × context."""
    from monitor.checks import risk as risk_module

    asked: list[str] = []
    named = risk_module._named

    def counting(context: str, word: str) -> bool:
        asked.append(word)
        return named(context, word)

    monkeypatch.setattr(risk_module, "_named", counting)
    context = "He said it. Blah went home. " * 200  # 'Blah' only at a sentence's start
    assert name_parts("zork blah " * 2000, context, ("zork",)) == 0
    assert asked == ["blah"]


def test_phrasing_ignores_case_punctuation_and_the_question_restated() -> None:
    """Case, commas, dashes and curly quotes do not make a trigram new, nor does repeating
    the question's own words."""
    context = "The Pro plan – our “team” offer – costs $20 a month, billed yearly."
    assert risk_of("the pro plan, our team offer, costs $20 a month billed yearly", context) == (
        UNCITED
    )
    assert risk_of("The Pro plan – our “team” offer – costs $20 a month.", context) == UNCITED
    assert risk_of("How much is the Pro plan", context) == UNCITED
    assert risk_of("How much is the Pro plan", context, query="Tell me the price.") > UNCITED


# Words, separators and characters that fold or do not: dashes, curly quotes and the
# ellipsis separate words (General Punctuation), the euro sign, accents and a no-break space
# are word bytes, and a word may be the start of a longer one ("refund", "refunds").
_TOKEN = st.sampled_from([
    "refund", "refunds", "the", "plan", "pro", "30", "days", "€5", "café", "a", "RÉSUMÉ",
    " ", " ", ", ", ". ", "\n\n", "\t", "–", "—", "“", "”", "’", "…", "\u00a0", "$", "'s", "-",
])  # fmt: skip
_TEXT = st.lists(_TOKEN, max_size=40).map("".join)


def spec_new_trigrams(answer: str, context: str, question: str, most: int) -> tuple[int, int]:
    """The definition, on word lists: a trigram is known where the context's words followed
    by the question's hold its first two words in a row and then a word its third starts."""

    def words(text: str) -> list[bytes]:
        spaced = re.sub(rb"\xe2[\x80\x81][\x80-\xbf]", b" ", lowered(text))
        return re.findall(rb"[a-z0-9\x80-\xff]+", spaced)

    said, known = words(answer), words(context) + words(question)
    if len(said) < 3:
        return 0, 0
    count = len(said) - 2
    step = -(-count // most)
    looked = range(0, count, step)
    novel = sum(
        not any(
            known[j] == said[i] and known[j + 1] == said[i + 1]
            and known[j + 2].startswith(said[i + 2])
            for j in range(len(known) - 2)
        )
        for i in looked
    )  # fmt: skip
    return novel, len(looked)


@settings(max_examples=600, deadline=None)
@given(_TEXT, _TEXT, _TEXT, st.integers(1, 6))
def test_new_trigrams_are_counted_as_defined(
    answer: str, context: str, question: str, most: int
) -> None:
    """``kernels.phrasing`` (the build's: C when compiled, else the Python reference) counts
    what the word-list definition counts, and so does the Python reference in either build."""
    expected = spec_new_trigrams(answer, context, question, most)
    args = (lowered(answer), lowered(context), lowered(question), most)
    assert kernels.phrasing(*args) == expected
    assert kernels._phrasing(*args) == expected


def test_a_long_answer_is_read_in_at_most_so_many_trigrams() -> None:
    answer = lowered(" ".join(f"w{i}" for i in range(202)))  # 200 trigrams
    assert kernels.phrasing(answer, b"", b"", 64) == (50, 50)  # every fourth: 0, 4, ... 196
    assert kernels.phrasing(answer, answer, b"", 64) == (0, 50)
    with pytest.raises(ValueError, match="at least 1"):
        kernels.phrasing(answer, b"", b"", 0)


def test_the_phrasing_weighs_more_the_longer_the_answer() -> None:
    """risk/6: the new phrasing's weight rises from 0.25 at ten words to 1.0 at ninety,
    linearly, counted in whitespace words; past ninety it stays (bounded reading)."""
    assert phrasing_scale("") == phrasing_scale("one two three") == 0.25
    assert phrasing_scale(" ".join(["w"] * 10)) == 0.25
    assert phrasing_scale(" ".join(["w"] * 50)) == pytest.approx(0.625)
    assert phrasing_scale(" ".join(["w"] * 90)) == 1.0
    assert phrasing_scale(" ".join(["w"] * 100_000)) == 1.0


def test_of_two_answers_recombined_alike_the_longer_is_riskier() -> None:
    """Two answers whose every word is in the context and about half of whose trigrams are
    new: the long one's share is read on many trigrams and counts nearly in full, the short
    one's on few and counts a quarter (one short sentence often rephrases faithfully)."""
    context = " ".join(f"alpha{i} beta{i} gamma{i} delta{i}." for i in range(60))
    short = "alpha1 beta1 gamma1 delta1 alpha2 beta2 delta2 gamma2"  # 8 words
    long = " ".join(
        f"alpha{i} beta{i} gamma{i} delta{i}" if i % 2 else f"alpha{i} gamma{i} beta{i} delta{i}"
        for i in range(40)
    )  # 160 words, a swapped pair in every other group
    short_risk, long_risk = risk_of(short, context), risk_of(long, context)
    assert risk_of(context, context) == UNCITED  # the context itself: nothing new
    assert long_risk >= short_risk + 0.2
