"""Follow-up signals read together and in their word forms (issue 74, round 2): a complaint
before a request for a person or before the question asked again, a problem of the user's
own before a question that resembles the earlier one, elided pronouns, an emoji beside
words, a number word that is an article, punctuation in text written without spaces. The
sentences are written for this test, not taken from a labelled set."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

PRO = "How much is the Pro plan?"
PAYMENT = "Which payment methods do you take?"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PRO, "ça ne m'aide pas, y a-t-il quelqu'un à qui parler ?"),
        (PRO, "no me sirve de nada, hay alguien con quien pueda hablar?"),
        (PRO, "役に立たない。担当者と話させてください"),
    ],
)
def test_a_complaint_before_a_request_for_a_person_reads_both(a: str, b: str) -> None:
    assert read(a, b) == ["escalation", "negative_feedback"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PRO, "nope, not what i asked. how much is the pro plan?"),
        ("Was kostet der Pro-Tarif?", "nein, das war nicht meine frage. was kostet der pro-tarif?"),
        ("Ile kosztuje plan Pro?", "nie o to pytałem. ile kosztuje plan pro?"),
        ("Hoeveel kost het Pro-abonnement?", "nee. nog een keer: hoeveel kost het pro-abonnement?"),
    ],
)
def test_a_complaint_before_the_question_asked_again_reads_both(a: str, b: str) -> None:
    assert read(a, b) == ["rephrase", "negative_feedback"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PAYMENT, "my card payment didn't work, what other payment methods do you take?"),
        (
            "¿Qué métodos de pago aceptan?",
            "mi transferencia no funcionó, ¿qué otros métodos de pago hay?",
        ),
        (
            "Quali metodi di pagamento accettate?",
            "la carta non funziona, quali altri metodi di pagamento ci sono?",
        ),
        ("Wie setze ich mein Passwort zurück?", "ist es falsch, das Passwort aufzuschreiben?"),
    ],
)
def test_a_problem_of_ones_own_before_a_question_is_no_complaint(a: str, b: str) -> None:
    assert "negative_feedback" not in read(a, b)


@pytest.mark.parametrize("b", ["vous ne m'aidez pas du tout", "non m'aiuta per niente"])
def test_an_elided_pronoun_on_the_verb_keeps_the_negation(b: str) -> None:
    assert read(PRO, b) == ["negative_feedback"]


def test_an_emoji_thanks_alone_or_beside_thanks_in_words_but_not_beside_a_request() -> None:
    assert read(PRO, "dziękuję 🙏") == ["positive_feedback"]
    assert read(PRO, "gelöst, danke 👍") == ["positive_feedback"]
    assert "positive_feedback" not in read(
        "Wie exportiere ich Rechnungen?", "rechnungen export bitte 🙏"
    )


def test_a_number_word_is_a_digit_unless_it_is_an_article() -> None:
    assert read(
        "Comment fusionner trois comptes ?", "comment je fais pour fusionner 3 comptes"
    ) == ["rephrase"]
    assert read(
        "comment ajouter mon numéro de TVA sur mes factures",
        "non. encore une fois : numéro de tva sur les factures, comment ?",
    ) == ["rephrase", "negative_feedback"]


def test_a_full_width_comma_ends_a_clause_in_chinese() -> None:
    got = read("怎么导出发票？", "给我转人工，不要机器人")
    assert "escalation" in got
    assert "negative_feedback" not in got


@pytest.mark.parametrize(
    ("b", "want"),
    [
        ("det hjälpte inte alls", ["negative_feedback"]),
        ("kan ni koppla mig till en handläggare", ["escalation"]),
        ("tack, nu funkar det", ["positive_feedback"]),
        ("hur kontaktar jag kundtjänst?", []),
        ("이 답변은 도움이 안 돼요", ["negative_feedback"]),
        ("상담원이랑 통화하고 싶어요", ["escalation"]),
        ("해결됐어요 감사합니다", ["positive_feedback"]),
        ("고객센터 전화번호가 뭐예요?", []),
    ],
)
def test_swedish_and_korean_compose_from_their_word_roles(b: str, want: list[str]) -> None:
    assert read("Hur avslutar jag mitt konto?", b) == want


@pytest.mark.parametrize(
    "b",
    [
        "thanks, and where do i change my avatar",
        "merci ! et comment je change mon avatar",
        "danke, wo ändere ich mein profilbild",
        "谢谢，那怎么改头像",
    ],
)
def test_thanks_then_a_next_question_without_its_mark_is_no_feedback(b: str) -> None:
    assert read(PRO, b) == []


@pytest.mark.parametrize(
    "b", ["thanks for nothing", "merci pour rien", "grazie per nulla", "bedankt voor niets"]
)
def test_thanks_for_nothing_is_a_complaint(b: str) -> None:
    assert read(PRO, b) == ["negative_feedback"]


@pytest.mark.parametrize(
    ("b", "want"),
    [
        ("me aparece usuario incorrecto al entrar", []),
        ("me mandaron la talla equivocada, cómo la cambio", []),
        ("la respuesta es incorrecta", ["negative_feedback"]),
        ("resposta errada", ["negative_feedback"]),
        ("perché l'app non funziona sul mio tablet", []),
    ],
)
def test_a_verdict_after_its_noun_is_one_on_the_answer_only(b: str, want: list[str]) -> None:
    assert read(PRO, b) == want


@pytest.mark.parametrize(
    ("b", "want"),
    [
        ("does the export work or not", []),
        ("geht der export jetzt oder nicht", []),
        ("a human please, not a bot", ["escalation"]),
        ("no, that's not it", ["negative_feedback"]),
    ],
)
def test_or_not_is_a_question_and_a_bare_no_stands_alone(b: str, want: list[str]) -> None:
    assert read(PRO, b) == want


@pytest.mark.parametrize(
    ("b", "want"),
    [
        ("谢谢谢谢", ["positive_feedback"]),  # a word said twice is no letter held down
        ("ㄱㅅ", ["positive_feedback"]),  # compatibility jamo, as NFKC makes them
        ("你的回答什么也没解决", ["negative_feedback"]),  # 什么也: nothing, no question
        ("비밀번호 공유하는 거 잘못인가요", []),  # a question's ending on the verdict's word
    ],
)
def test_chinese_and_korean_forms(b: str, want: list[str]) -> None:
    assert read(PRO, b) == want


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Kan ik het bezorgmoment wijzigen?", "kan ik het bezorgadres wijzigen?"),
        ("怎么修改绑定的手机号", "怎么修改绑定的邮箱"),
    ],
)
def test_another_thing_in_the_place_of_one_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


def test_the_opposite_of_what_the_answer_said_is_a_complaint() -> None:
    assert read(PRO, "das ist genau andersrum") == ["negative_feedback"]
    assert read(PRO, "è esattamente il contrario") == ["negative_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        "hello?? how much is the pro plan",
        "how much is the pro plan. asked this ten minutes ago",
        "wrong, there is no price page. how much is the pro plan?",
    ],
)
def test_the_question_asked_again_in_a_part_of_the_turn(b: str) -> None:
    assert "rephrase" in read(PRO, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PAYMENT, "my card was declined, which other payment methods do you take?"),
        ("Welche Zahlungsarten gibt es?", "welche anderen Zahlungsarten gibt es?"),
        (PRO, "and the team one, how much is the pro plan compared to it?"),
        ("Is there a student discount?", "what do I send, that I am a student?"),
    ],
)
def test_another_one_or_a_narrower_part_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


def test_an_opener_that_names_nothing_new_asks_again() -> None:
    a = "¿Puedo pagar con tarjeta de crédito?"
    assert read(a, "entonces puedo pagar con tarjeta de crédito o no") == ["rephrase"]
    assert read(a, "entonces y con tarjeta de débito?") == []
    assert read("Wie kündige ich mein Abo?", "wie kündige ich mein abbo") == ["rephrase"]


def test_a_shortened_question_without_spaces_is_no_swap() -> None:
    assert read("怎么往购物车里加商品", "购物车加商品") == ["rephrase"]
    assert read("周六营业时间是几点？", "周日营业时间是几点？") == []
