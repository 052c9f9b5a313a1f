"""The follow-up signals' fourth round (issue 74), from the third blind set's open part: each
case is a class of miss written here in other words (not taken from a labelled set), beside
the hard negative that keeps the rule from reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

ASKED = {
    "en": "how do I reset my thermostat schedule",
    "es": "¿cómo cambio la dirección de entrega?",
    "pt": "qual é o prazo de entrega para o Porto",
    "it": "come cambio l'indirizzo di consegna",
    "fr": "comment changer mon adresse de livraison",
    "de": "wie ändere ich meine Lieferadresse",
    "nl": "hoe wijzig ik mijn bezorgadres",
    "pl": "jak zmienić adres dostawy",
    "sv": "hur ändrar jag leveransadressen",
    "tr": "teslimat adresimi nasıl değiştiririm",
    "ja": "配送先の住所を変更するには",
    "zh": "怎么修改收货地址",
    "ko": "배송지 주소를 어떻게 바꾸나요",
}


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # a person named by what they do, said to be real
        ("es", "¿me pones en contacto con un veterinario de verdad?"),
        ("pl", "połączcie mnie z prawdziwym lekarzem"),
        ("sv", "låt mig prata med en riktig läkare"),
        ("tr", "beni gerçek bir doktorla görüştürün"),
        ("ko", "진짜 의사님이랑 통화하게 해주세요"),
        ("en", "I need to talk to a real electrician"),
        # request and call-back forms
        ("nl", "zet me even door naar de klantenservice"),
        ("it", "mi potete richiamare stasera?"),
        ("sv", "jag vill att ni ringer upp mig ikväll"),
        ("en", "could someone give me a ring later"),
    ],
)
def test_a_request_for_a_person_in_these_forms_is_escalation(lang: str, b: str) -> None:
    assert "escalation" in read(ASKED[lang], b)


def test_a_turn_one_stop_word_short_of_another_language_is_read_in_both() -> None:
    """Portuguese with one Spanish stop word more ('me', 'por', 'que' are both's) is read
    by Portuguese's patterns too ('atendimento' is Portuguese's)."""
    a = "por que a internet cai toda noite"
    assert read(a, "me transfere pro atendimento por favor") == ["escalation"]


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        ("en", "can we talk about the real price of the pro plan"),
        ("en", "send me the actual invoice"),
        ("es", "quiero hablar del precio real"),
        ("sv", "jag vill prata om det riktiga priset"),
        ("pl", "chcę porozmawiać o prawdziwym koszcie"),
    ],
)
def test_a_real_thing_talked_about_is_no_person(lang: str, b: str) -> None:
    assert "escalation" not in read(ASKED[lang], b)


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # the answer changed nothing
        ("es", "todo sigue igual"),
        ("pl", "nadal to samo, nic się nie zmieniło"),
        ("zh", "还是一样"),
        ("ko", "여전히 똑같아요"),
        ("it", "niente da fare, tutto uguale"),
        ("sv", "ingen skillnad tyvärr"),
        # you are of no use
        ("fr", "vous ne me servez à rien"),
        ("es", "no sirves de nada"),
        # what the answer gave does not work, or is nowhere
        ("en", "the steps you sent me don't work"),
        ("de", "den Knopf gibt es dort nicht"),
        ("ko", "버튼이 안 눌려요"),
        ("ja", "その設定はどこにもない"),
        ("ko", "안 됐네요"),
        ("ko", "아닙니다."),
    ],
)
def test_these_are_negative_feedback(lang: str, b: str) -> None:
    got = read(ASKED[lang], b)
    assert "negative_feedback" in got
    assert "positive_feedback" not in got


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        ("zh", "健身房周六几点关门"),  # when do you close: a question, not "you are closed"
        ("es", "¿el precio es igual para todos los planes?"),
        ("it", "il costo è uguale per tutti i piani?"),
        ("ko", "잘 됐어요 감사합니다"),
    ],
)
def test_these_are_no_negative_feedback(lang: str, b: str) -> None:
    assert "negative_feedback" not in read(ASKED[lang], b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the question asked again with the names A typed left out
        ("how do I pause deliveries in the Crumbly Bakes app", "how do I pause deliveries"),
        (
            "wie stelle ich beim Wärmewerk Thermostat die Nachtabsenkung ein",
            "nein, das meinte ich nicht. wie stelle ich die Nachtabsenkung ein",
        ),
        (
            "hur sänker jag månadsavgiften för gymmet hos Friskis Norr",
            "hur sänker jag månadsavgiften",
        ),
        (
            "come sposto la prenotazione della sala Aurora da CoSpazio",
            "come sposto la prenotazione",
        ),
    ],
)
def test_a_question_asked_again_without_its_names_is_a_rephrase(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a word of B's own: another question
        ("how do I pause deliveries in the Crumbly Bakes app", "how do I pause payments"),
    ],
)
def test_names_left_out_need_the_rest_asked_again(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("lang", "b", "expected"),
    [
        ("it", "mi è stato davvero utile", ["positive_feedback"]),
        ("nl", "dat heeft me heel erg geholpen", ["positive_feedback"]),
        # Korean: 'if it does not work' asks, 'it did not work, and …' goes on to a question
        (
            "ko",
            "배송지 주소를 어떻게 바꾸나요?? 안 되면 상담원 연결해 주세요",
            ["rephrase", "escalation"],
        ),
        ("ko", "카드 결제가 안 됐는데 다른 결제 방법은 뭐가 있어요", []),
    ],
)
def test_these_turns_read_so(lang: str, b: str, expected: list[str]) -> None:
    assert read(ASKED[lang], b) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the change asked for the other way round: where it goes is where it came from
        (
            "how do I switch from the monthly plan to annual",
            "how do I switch from annual to monthly",
        ),
        ("cómo paso mi cuenta de personal a empresa", "cómo paso mi cuenta de empresa a personal"),
        (
            "come sposto l'appuntamento da lunedì a venerdì",
            "come sposto l'appuntamento da venerdì a lunedì",
        ),
        (
            "hur flyttar jag bokningen från fredag till måndag",
            "hur flyttar jag bokningen från måndag till fredag",
        ),
        ("como mudo meu plano anual para mensal", "como mudo meu plano mensal para anual"),
        ("怎么把年付改成月付", "怎么把月付改成年付"),
        # opposite verbs
        (
            "comment synchroniser ma montre avec l'appli",
            "comment désynchroniser ma montre de l'appli",
        ),
    ],
)
def test_the_change_the_other_way_round_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("how do I switch to the annual plan", "how to switch to annual"),
        ("how do I move my photos to the archive", "how to move photos to archive??"),
        ("como mudo meu plano anual para mensal", "como mudo meu plano anual para mensal??"),
    ],
)
def test_the_same_change_asked_again_is_a_rephrase(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    "b", ["gebt mir endlich mal einen Menschen", "ich brauche jetzt sofort einen Menschen"]
)
def test_a_wish_for_a_person_takes_three_filler_words(b: str) -> None:
    assert read(ASKED["de"], b) == ["escalation"]
