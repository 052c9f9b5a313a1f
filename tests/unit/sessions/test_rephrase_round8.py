"""Rephrase, round 8 of issue 74: exact and partial repeats read by mechanism, each class
beside the hard negatives that keep it from reading too much (another thing, the opposite,
a statement instead of a question, thanks and a new question). Each case written here, not
taken from a labelled set."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A says much around its question; B keeps a few of its words and asks
        (
            "hej, wczoraj wypożyczyłem rower i pękł łańcuch w połowie drogi, co mam zrobić?",
            "rower pękł łańcuch co robić??",
        ),
        (
            "Good morning. I bought an annual gym membership in March and would like to know "
            "whether it can be frozen while I am abroad for two months.",
            "Sorry to ask again, but can the annual membership be frozen while I am abroad?",
        ),
        (
            "Guten Tag, ich habe gestern eine Jacke bestellt und möchte wissen, ob ich die "
            "Lieferadresse noch ändern kann.",
            "Lieferadresse Jacke noch ändern?",
        ),
    ],
)
def test_a_question_cut_to_a_few_of_its_words_and_asked_is_a_rephrase(a: str, b: str) -> None:
    """Every word of B's A's, two at least and a third of A's, B asking."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a statement naming A's thing asks nothing
        (
            "Hello, I moved house last month and my parcel from the Lisbon shop still goes to "
            "the old address, how do I change it?",
            "the parcel still goes to the old address",
        ),
        # a next question: the same words, the change the other way round
        (
            "Buongiorno, vorrei sapere come faccio a trasferire la mia scrivania da Milano a "
            "Torino il mese prossimo?",
            "e da Torino a Milano?",
        ),
        # thanks and a new question about one of A's things
        (
            "Good morning. I bought an annual gym membership in March and would like to know "
            "whether it can be frozen while I am abroad for two months.",
            "thanks! how much is the annual membership for students?",
        ),
    ],
)
def test_a_few_of_its_words_in_another_question_is_none(a: str, b: str) -> None:
    """A statement, a next question, the opposite, a price: not A asked again."""
    assert "rephrase" not in read(a, b)
