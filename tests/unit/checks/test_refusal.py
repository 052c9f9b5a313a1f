"""refusal: many real phrasings of declining are caught; answers that state a limit are not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks import Refusal
from monitor.checks.refusal import find_refusal
from tests.conftest import view

check = Refusal()

REFUSALS = [
    "I don't know.",
    "I do not know the answer to that.",
    "I'm not sure about that.",
    "I am not certain, sorry.",
    "I don't have information about student discounts.",
    "I do not have enough information to answer this question.",
    "I don't have any details on cryptocurrency payments.",
    "I have no information about that.",
    "We don't have any data on that topic.",
    "I couldn't find anything about shipping to Antarctica.",
    "I could not find the answer in the documents.",
    "I was unable to find any relevant information.",
    "I'm unable to locate that in our documentation.",
    "I can't find that in the knowledge base.",
    "I can't answer that question.",
    "I cannot help with that request.",
    "I'm not able to provide that information.",
    "I am unable to assist with this.",
    "I won't be able to answer that.",
    "I must decline to answer.",
    "I'm afraid I can't help with that.",
    "I'm sorry, but I cannot provide medical advice.",
    "Sorry, I don't have that information.",
    "Unfortunately, I couldn't find any information about that in the available sources.",
    "The provided context does not contain information about student discounts.",
    "The context doesn't mention cryptocurrency.",
    "The documents do not specify a shipping policy for Antarctica.",
    "These passages don't say anything about medical certification.",
    "The available information does not include pricing for that region.",
    "The retrieved documents do not address this question.",
    "The sources provided make no mention of a student discount.",
    "There is no information about this in the documentation I have access to.",
    "There's no mention of student pricing in the context.",
    "There is not enough information in the context to answer.",
    "Student discounts are not mentioned in the provided documents.",
    "That isn't covered in the documentation.",
    "This is not specified in the context.",
    "Not enough information is available to answer this.",
    "No relevant information was found.",
    "The answer is not available in the provided context.",
    "The answer cannot be determined from the given context.",
    "It cannot be determined from the provided documents.",
    "Based on the provided context, I cannot determine whether that is possible.",
    "According to the documents, I can't say.",
    "Empty Response",
    "No answer found.",
    "N/A",
    "That question is outside the scope of the provided documentation.",
    "This falls outside of my knowledge.",
    "I’m sorry, but I can’t help with that.",  # typographic apostrophes
    "I'm not aware of any student discount.",
]

NOT_REFUSALS = [
    "You cannot return sale items.",
    "We can't ship to P.O. boxes, but we ship to all street addresses.",
    "Gift cards cannot be refunded.",
    "You don't need a receipt for returns under $20.",
    "The Pro plan costs $49 per user per month [1].",
    "If you don't know your order number, check the confirmation e-mail.",
    "Customers cannot change the billing date after the first invoice.",
    "Refunds are not available for annual plans after 30 days.",
    "No, there is no fee for standard delivery above €60.",
    "The warranty does not cover water damage.",
    "We do not store card numbers; payments are processed by Stripe.",
    "It is not possible to merge two workspaces, but you can export one and import it.",
    "You are unable to log in while your account is suspended.",
    "The information you provide is encrypted at rest.",
    "Support is not available on weekends.",
    "The documents you upload are scanned for viruses.",
    "There is no limit on the number of projects.",
    "Backups are kept for 35 days and are not shared with third parties.",
    "The context menu has an Export option.",
    "No one else can see your private notes.",
]


@pytest.mark.parametrize("answer", REFUSALS)
def test_refusal_phrasings_are_flagged(answer: str) -> None:
    """Declining or abstaining, however phrased, is a refusal with the phrase as evidence."""
    result = check(view(answer, ["Some passage."]))
    assert result.flagged, answer
    assert result.evidence.to_line()["phrase"]
    assert result.evidence.to_line()["kind"] in {"no_knowledge", "context_lacks", "cannot_help"}


@pytest.mark.parametrize("answer", NOT_REFUSALS)
def test_stating_a_limit_is_not_a_refusal(answer: str) -> None:
    """Answers that mention a limit or a negative fact are answers, not refusals."""
    result = check(view(answer, ["Some passage."]))
    assert not result.flagged, (answer, result.evidence.to_line())


def test_evidence_is_the_matched_phrase() -> None:
    """The evidence quotes the phrase that made the answer a refusal."""
    result = check(view("Thanks for asking. The context does not mention refunds for gifts."))
    assert result.evidence.to_line()["phrase"] == "The context does not mention"
    assert result.evidence.to_line()["kind"] == "context_lacks"


def test_empty_answer_is_not_applicable() -> None:
    """An empty answer is neither a refusal nor an answer."""
    result = check(view(""))
    assert not result.applicable
    assert result.outcome == "not_applicable"


@pytest.mark.parametrize("answer", REFUSALS + NOT_REFUSALS)
def test_cue_gate_changes_nothing_on_the_corpus(answer: str) -> None:
    """Skipping patterns whose cue words are absent gives the same result as running all."""
    assert find_refusal(answer) == find_refusal(answer, gated=False)


WORDS = st.sampled_from(
    "I we the context documents don't do not know sure have no information find can't "
    "cannot help answer provided is not mentioned in there sorry unable to empty response "
    "N/A outside scope beyond my knowledge not enough based on , . ' recommend decline".split()
)


@settings(max_examples=500, deadline=None)
@given(words=st.lists(WORDS, max_size=25))
def test_cue_gate_changes_nothing_on_generated_text(words: list[str]) -> None:
    """On random sentences built from refusal vocabulary, gated and full search agree."""
    text = " ".join(words)
    assert find_refusal(text) == find_refusal(text, gated=False)
