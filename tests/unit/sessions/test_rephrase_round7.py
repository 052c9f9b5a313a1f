"""Rephrase, round 7 (issue 74): classes of the question asked again that the code before
missed, each beside the hard negatives that keep its rule from reading too much. Each case
written here (not taken from a labelled set)."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a next question cut to a thing, asked again with the earlier question's words
        ("and for Lisbon?", "shipping to lisbon??"),
        ("¿y a Canarias?", "envío a canarias??"),
        ("och kanoten?", "hyra kanoten utan bokning"),
        # cut to a verb whose object the turn before named
        ("and how do I switch it off?", "switch off sleep timer"),
        ("et pour la supprimer ?", "supprimer carte bancaire"),
        ("e per annullarla?", "annullare prenotazione tavolo"),
        # the earlier question was a price: B asks it, A named only the thing
        ("och en kanot?", "pris kanot"),
        ("en een pakket van 10 ritten?", "prijs pakket 10 ritten"),
    ],
)
def test_a_next_question_cut_short_and_spelled_out_is_a_rephrase(a: str, b: str) -> None:
    """A opens as a next question naming a thing or a verb; B, a few keywords, names it
    with the earlier question's words."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a full question of its own about the thing A named: a new question
        ("and the Basic plan?", "does the basic plan include recurring invoices for freelancers?"),
        ("¿y el plan Básico?", "¿el plan básico incluye facturas recurrentes para autónomos?"),
        # the opposite of what A asked
        ("and how do I switch it on?", "switch off sleep timer"),
        # B opens as a next question itself
        ("and for Lisbon?", "and for lisbon express?"),
        # B names another thing
        ("och kanoten?", "hyra cykel utan bokning"),
    ],
)
def test_a_next_question_cut_short_then_another_question_is_none(a: str, b: str) -> None:
    """Not a rephrase: a new question about the thing, the opposite, a next question, another
    thing."""
    assert "rephrase" not in read(a, b)
