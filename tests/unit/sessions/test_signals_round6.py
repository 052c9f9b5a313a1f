"""The follow-up signals' sixth round (issue 74): classes that compose in the weak languages
(formal thanks, ...); each case a class written here in other words (not taken from a
labelled set), beside the hard negative that keeps the rule from reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

_ASKED = "kunt u mij laten terugbellen door een medewerker"


@pytest.mark.parametrize(
    "b",
    [
        "Heel hartelijk dank voor de snelle reactie.",
        "Ganz herzlichen Dank für Ihre Geduld.",
        "Nous vous remercions pour votre réponse.",
        "Vi ringrazio tanto per l'aiuto.",
        "Se lo agradezco mucho.",
        "Agradeço muito pela ajuda.",
        "Serdecznie dziękuję za odpowiedź.",
        "친절한 설명 감사드립니다",
        "상세한 안내 감사드려요",
    ],
)
def test_formal_thanks_are_positive(b: str) -> None:
    """A thanks word behind the words that make it formal (a pronoun and a verb, 'hartelijk',
    'herzlichen'), what it is for behind a word that says how much; in Korean, what is
    thanked for stands before the thanks."""
    assert read(_ASKED, b) == ["positive_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        # thanks for an answer not given yet, and a question
        "미리 감사합니다. 환불은 어떻게 받나요",
        "Le agradezco de antemano, ¿cómo cambio mi dirección?",
        # a question that ends with thanks words of its own
        "환불 방법 알려주시면 감사하겠습니다?",
        # the formal verb on a request of its own, many words
        "Je vous remercie de bien vouloir m'envoyer la facture du mois de mars par courrier",
    ],
)
def test_formal_thanks_that_ask_are_not_positive(b: str) -> None:
    assert "positive_feedback" not in read(_ASKED, b)


_REFUSED = "la risposta non c'entra nulla"


@pytest.mark.parametrize(
    "b",
    [
        "Gradirei essere richiamato da un vostro tecnico.",
        "Agradecería que alguien me llamara esta tarde.",
        "Gostaria de ser contatado por um consultor.",
        "Ich bitte darum, von einem Mitarbeiter zurückgerufen zu werden.",
        "Ik zou graag teruggebeld worden door een medewerker.",
        "J'aimerais être recontactée par un conseiller demain.",
        "Jag vill gärna bli kontaktad av en handläggare.",
        "I would like to be called back by your team tomorrow.",
    ],
)
def test_a_formal_request_to_be_called_is_escalation(b: str) -> None:
    """To be contacted or called back, passive or in a subjunctive ('que alguien me
    llamara'), in every language's forms."""
    assert "escalation" in read(_REFUSED, b)


@pytest.mark.parametrize(
    "b",
    [
        # the call refused, not asked for
        "Non voglio essere contattato telefonicamente, scrivetemi una email.",
        "Ich möchte nicht angerufen werden.",
        "I do not want to be contacted by phone.",
        "不要给我打电话",
        # asked how one is reached, a question
        "wie kann ich kontaktiert werden wenn das paket da ist",
    ],
)
def test_a_call_refused_or_asked_about_is_no_escalation(b: str) -> None:
    assert "escalation" not in read(_REFUSED, b)


def test_a_negation_that_asks_or_not_still_asks_for_a_call() -> None:
    """'能不能' (can or can't) asks; its 不 refuses nothing."""
    assert "escalation" in read(_REFUSED, "能不能给我回个电话？")


_ASKED_PLAN = "how do I change my plan"


@pytest.mark.parametrize(
    "b",
    [
        "Je antwoord gaat over iets anders.",
        "La réponse parle d'autre chose, je voulais changer d'offre.",
        "Twoja odpowiedź nie dotyczy mojego pytania.",
        "Die Antwort geht an meiner Frage vorbei.",
        "La tua risposta non riguarda la mia domanda.",
        "Su respuesta trata de otra cosa.",
        "答非所问",
        "それは質問と全然関係ないです",
        # the answer as the subject, eight words before the verdict
        "Ditt svar handlar om fakturor och hjälper inte alls",
        "Your reply talks about invoices and annual billing and does not help",
        # the user's question is the answer's, not a thing of the user's
        "私の質問に答えてない",
    ],
)
def test_the_answer_about_something_else_is_negative(b: str) -> None:
    assert "negative_feedback" in read(_ASKED_PLAN, b)


@pytest.mark.parametrize(
    "b",
    [
        # a thing of the user's that does not match, not the answer
        "le montant ne correspond pas à ma commande",
        "my card does not work at the terminal",
        # the user's own thing after many words, no answer as the subject
        "we moved offices last week and our printer does not work",
        # a question about the question
        "my question: why does my card not work",
    ],
)
def test_a_problem_of_the_users_own_is_not_negative(b: str) -> None:
    assert "negative_feedback" not in read(_ASKED_PLAN, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "how do I turn off read receipts",
            "you told me how to turn them on again. how do I turn off read receipts",
        ),
        (
            "wie deaktiviere ich die lesebestätigung",
            "du hast mir erklärt, wie man sie aktiviert. wie deaktiviere ich die lesebestätigung",
        ),
        (
            "come disattivo le conferme di lettura",
            "mi hai spiegato come attivarle, io chiedo come disattivo le conferme di lettura",
        ),
        (
            "comment déconnecter ma montre",
            "encore la procédure pour connecter… comment déconnecter ma montre ?",
        ),
        ("既読通知を無効にしたい", "有効にする方法じゃなくて、既読通知を無効にしたい"),
        ("关闭已读回执", "你说的是怎么开启，我要关闭已读回执"),
    ],
)
def test_the_question_again_beside_its_opposite_is_negative(a: str, b: str) -> None:
    """B asks A again and names the opposite of what A asked: the answer explained that."""
    assert {"rephrase", "negative_feedback"} <= set(read(a, b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same side typed without its accent is no opposite ('desactiver', 'désactiver')
        ("comment désactiver les notifications de livraison ?", "desactiver notifs livraison ??"),
        # the question again, no opposite named
        ("how do I turn off read receipts", "read receipts off how??"),
        # both sides in A and B: no side the answer took
        ("can I turn reminders on and off", "turn reminders on and off?"),
    ],
)
def test_the_question_again_without_its_opposite_is_not_negative(a: str, b: str) -> None:
    assert "negative_feedback" not in read(a, b)


@pytest.mark.parametrize(
    "b",
    [
        "ik zou liever een medewerker hebben dan die bot",
        "jag föredrar en handläggare",
        "ich hätte lieber einen Berater am Telefon",
        "wolałbym konsultanta, nie bota",
        "preferirei un operatore",
        "je préfère un conseiller",
    ],
)
def test_a_person_preferred_is_escalation(b: str) -> None:
    """Rather, prefer: a wish for a person as 'I want' is."""
    assert "escalation" in read(_REFUSED, b)


@pytest.mark.parametrize(
    "b",
    [
        "I'd rather pay by card",
        "ik betaal liever met ideal",
        "ich hätte lieber die Rechnung per Post",
        "je préfère le forfait annuel",
    ],
)
def test_a_thing_preferred_is_no_escalation(b: str) -> None:
    assert "escalation" not in read(_REFUSED, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("kan ni skicka fakturan för mars igen", "fakturan för mars igen tack"),
        ("kannst du mir die Märzrechnung nochmal schicken", "Märzrechnung nochmal schicken danke"),
        ("can you resend the march invoice", "resend march invoice thanks"),
    ],
)
def test_thanks_that_close_the_question_asked_again_are_its_please(a: str, b: str) -> None:
    """Every word before the thanks asks A again, in the thanks' clause: a plea."""
    assert read(a, b) == ["rephrase"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # what was done, a clause of its own, then thanks
        ("how do I merge two accounts", "merged them, thanks"),
        ("hur slår jag ihop två konton", "ihopslaget, tack!"),
        # it worked, then thanks
        ("how do I reset my password", "password reset worked thanks"),
    ],
)
def test_thanks_after_what_was_done_stay_thanks(a: str, b: str) -> None:
    assert "positive_feedback" in read(a, b)


@pytest.mark.parametrize(
    "b",
    [
        "de code die u me gaf werkt niet",
        "gönderdiğiniz bağlantı hata veriyor",
        "Der Code, den Sie mir genannt haben, geht nicht",
        "przycisk, który mi podałeś, nie działa",
        "koden ni skickade fungerar inte",
        "送ってもらったURLが開けません",
        "你发的按钮用不了",
        "보내주신 링크 열리지 않아요",
    ],
)
def test_what_the_answer_gave_not_working_is_negative(b: str) -> None:
    """The link, button or code the answer gave does not work, in the languages that lacked
    the class."""
    assert "negative_feedback" in read(_ASKED_PLAN, b)


@pytest.mark.parametrize(
    "b",
    [
        "de link die je stuurde werkt nu wel, dank je",
        "gönderdiğiniz link açıldı, teşekkürler",
        "送ってもらったリンクで開けました",
    ],
)
def test_what_the_answer_gave_working_is_not_negative(b: str) -> None:
    assert "negative_feedback" not in read(_ASKED_PLAN, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("come cambio il pin", "non serve a niente. come cambio il pin"),
        ("비밀번호 어떻게 바꿔요", "전혀 도움이 안 돼요. 비밀번호 어떻게 바꿔요"),
        ("¿cómo cambio el pin?", "no sirve de nada. ¿cómo cambio el pin?"),
    ],
)
def test_a_verdict_before_the_question_asked_again_is_negative(a: str, b: str) -> None:
    """The words around the verdict are the verdict's own (a negation, 'a niente', '도움이'),
    no thing of the user's."""
    assert {"rephrase", "negative_feedback"} <= set(read(a, b))


def test_a_thing_of_the_users_own_before_the_question_is_not_negative() -> None:
    b = "il bancomat non serve a niente, come cambio il pin"
    assert "negative_feedback" not in read("come cambio il pin", b)


@pytest.mark.parametrize(
    "b",
    [
        "I've restarted the app and it still crashes",
        "重启了还是打不开",
        "再起動したけどまだ動かない",
        "재부팅 했는데 여전히 안 돼요",
        "ya reinicié el router y sigue sin funcionar",
        "Ich habe das Passwort zurückgesetzt, aber es kommt immer noch die Fehlermeldung",
    ],
)
def test_done_as_told_and_still_broken_is_negative(b: str) -> None:
    """What the answer said was done, and the problem is still there."""
    assert read(_ASKED_PLAN, b) == ["negative_feedback"]


@pytest.mark.parametrize(
    "b",
    [
        # still broken, then a question: a problem of the user's own
        "I reset my password, still can't log in, what should I do?",
        "重置了密码还是提示错误，怎么办",
        "I changed my plan and it still shows the old price?",
    ],
)
def test_done_and_still_broken_then_a_question_is_not_negative(b: str) -> None:
    assert "negative_feedback" not in read(_ASKED_PLAN, b)
