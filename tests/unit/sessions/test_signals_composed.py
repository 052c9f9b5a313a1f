"""The follow-up signals composed from word roles (monitor/sessions/grammar.py) and read as
users type, in several languages, beside their hard negatives; how rephrase matches words
(monitor/sessions/matching.py). The sentences here are written for this test, not taken
from a labelled set."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.sessions import grammar, matching
from monitor.sessions.signals import SIGNALS, languages, read

PRO = "How much is the Pro plan?"
CANCEL = "How do I cancel my subscription?"


@pytest.mark.parametrize(
    "b",
    [
        "doesn't help me",
        "not useful at all",
        "your steps don't work",
        "that link is not correct",
        "hilft mir leider nicht",
        "funktioniert immer noch nicht",
        "ça m'aide pas",
        "no me sirve",
        "non funziona ancora",
        "não ajudou",
        "werkt nog steeds niet",
        "nie pomogło",
        "hiç yardımcı olmadı",
        "役に立ちません",
        "还是不行",
    ],
)
def test_a_negation_next_to_a_word_of_worth_is_negative(b: str) -> None:
    assert read(CANCEL, b) == ["negative_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        "there is no cancel button in my account",
        "es gibt bei mir keinen solchen Knopf",
        "il n'y a pas d'onglet abonnement",
        "設定にそのボタンがありません",
    ],
)
def test_the_answer_contradicted_is_negative(b: str) -> None:
    assert read(CANCEL, b) == ["negative_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        "my login doesn't work on mobile, what should I do?",
        "mi tarjeta no funciona, qué hago?",
        "is it wrong to share my password?",
        "it says wrong password when I log in",
        "what's wrong with my invoice",
        "does clearing the cache help?",
    ],
)
def test_a_question_about_the_users_own_problem_is_no_complaint(b: str) -> None:
    assert read(CANCEL, b) == []


@pytest.mark.parametrize(
    "b",
    [
        "forward me to customer service",
        "put me in touch with an operator please",
        "can someone call me? 555-0100",
        "I'd like a contact person, not a bot",
        "leiten Sie mich an den Kundenservice weiter",
        "passez-moi un conseiller svp",
        "quiero hablar con un asesor",
        "mi passi un operatore",
        "ik wil een medewerker spreken",
        "proszę połączyć mnie z konsultantem",
        "beni bir temsilciye bağlayın",
        "オペレーターに繋いでください",
        "转人工",
    ],
)
def test_a_request_verb_with_a_person_is_an_escalation(b: str) -> None:
    assert read(CANCEL, b) == ["escalation"]


@pytest.mark.parametrize(
    "b",
    [
        "how do I contact support?",
        "what is the support phone number",
        "how do I transfer my domain to you?",
        "can the agent role edit invoices?",
        "how do I add a callback button to my site?",
        "how do I add a human review step to my workflow?",
    ],
)
def test_asking_how_to_reach_support_or_about_a_feature_is_no_escalation(b: str) -> None:
    assert read(CANCEL, b) == []


def test_a_polite_request_for_a_person_is_no_thanks() -> None:
    assert read(CANCEL, "please, a human adviser 🙏") == ["escalation"]
    assert read(CANCEL, "thank you 🙏") == ["positive_feedback"]


@pytest.mark.parametrize("b", ["daaanke 🙂", "thx", "grx!", "obg", "mci", "tşk", "3q", "thnx"])
def test_thanks_as_users_type_it(b: str) -> None:
    assert read(CANCEL, b) == ["positive_feedback"]


@pytest.mark.parametrize(
    "b",
    ["works perfectly", "worked like a charm", "ok understood thanks", "top, klappt jetzt"],
)
def test_a_short_verdict_that_it_worked_is_positive(b: str) -> None:
    assert read(CANCEL, b) == ["positive_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        "thanks in advance, where do I find my customer number",
        "danke im voraus, wo finde ich meine Kundennummer",
        "merci d'avance, où est ma facture",
        "works the app offline",
    ],
)
def test_thanks_in_advance_or_a_verb_opening_a_question_is_no_feedback(b: str) -> None:
    assert "positive_feedback" not in read(CANCEL, b)


def test_a_turn_carrying_two_signals_reads_both() -> None:
    assert read(CANCEL, "useless bot, get me an agent") == ["escalation", "negative_feedback"]
    both = read(PRO, "no, that's not what I asked. how much is the pro plan")
    assert both == ["rephrase", "negative_feedback"]
    assert read(PRO, "how much is the pro plan? or get me a human") == ["rephrase", "escalation"]


@pytest.mark.parametrize(
    "b",
    [
        "again, how much is the pro plan? it's urgent",
        "I asked: how much is the pro plan",
        "how much is the pro plna",  # a slip
        "HOW MUCH IS THE PRO PLAN ???",
        "pro plan price?",
    ],
)
def test_the_question_asked_again_whatever_is_around_it(b: str) -> None:
    assert read(PRO, b) == ["rephrase"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "how do I turn on two factor authentication",
            "how do I turn off two factor authentication",
        ),
        ("How do I cancel my subscription?", "How do I renew my subscription?"),
        ("Can I get a refund for my annual plan?", "can I get a refund for my monthly plan?"),
        ("怎么把发票导出成CSV？", "怎么把发票导出成PDF？"),
        ("年度会员可以退款吗？", "月度会员可以退款吗？"),
    ],
)
def test_the_opposite_or_the_same_about_something_else_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


def test_numbers_read_as_digits_and_words_without_their_accents() -> None:
    assert read("How do I merge two accounts?", "how can i merge 2 accounts") == ["rephrase"]
    assert read("¿Cómo cancelo mi suscripción?", "como cancelo mi suscripcion") == ["rephrase"]


def test_shared_words_through_slips_cuts_and_particles() -> None:
    assert matching.shared(frozenset({"export", "invoic"}), frozenset({"exprot", "invoic"})) == 2
    assert matching.shared(frozenset({"authentication"}), frozenset({"auth"})) == 1
    assert matching.shared(frozenset({"zet"}), frozenset({"aanzetten"})) == 1
    assert matching.shared(frozenset({"pdf"}), frozenset({"pfd"})) == 1
    assert matching.shared(frozenset({"plan"}), frozenset({"team"})) == 0


def test_every_language_with_word_roles_composes_each_signal() -> None:
    """A language's grammar table makes patterns of every kind, each matched at a clause's
    start, and each found by the gate machinery."""
    composed = [lang for lang in languages() if any(g.clause for g in lang.escalation)]
    assert {lang.code for lang in composed} >= {"en", "de", "fr", "es", "it", "pt", "nl", "pl",
                                                 "tr", "ja", "zh"}  # fmt: skip
    for lang in composed:
        for kind in (lang.escalation, lang.negative, lang.positive):
            assert any(g.clause and g.cues for g in kind), lang.code


def test_a_clause_starts_after_each_run_of_punctuation() -> None:
    assert grammar.clauses("wrong. just give me a person!! now") == (0, 7, 31)
    assert grammar.clauses("谢谢，解决了") == (0, 3)


def test_opposites_are_found_behind_their_literals() -> None:
    pairs = matching.antonyms([[r"\bon\b", r"\boff\b"], ["(?<!dis)connect", "disconnect"]])
    assert matching.opposed("on", "off", [pairs])
    assert matching.opposed("connect", "disconnect", [pairs])
    assert not matching.opposed("connect", "connecting", [pairs])
    assert not matching.opposed("on", "on", [pairs])
    assert re.compile(r"\boff\b") in pairs.sides


def test_a_turn_of_many_clauses_is_read_in_its_first_ones() -> None:
    """Each clause read costs a pass over the rest of the turn: a pasted text of hundreds
    of clauses is read in its first ``MAX_CLAUSES``."""
    starts = grammar.clauses("a," * 500)
    assert len(starts) == grammar.MAX_CLAUSES
    assert starts[:3] == (0, 2, 4)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.text(max_size=200))
def test_any_pair_of_turns_reads_without_error(a: str, b: str) -> None:
    got = read(a, b)
    assert got == [s for s in SIGNALS if s in got]
