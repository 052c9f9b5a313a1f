"""The follow-up signals' rules that compose (issue 74, round four, second part): a request
form, a person and a channel read together whatever the words between them, each case a class
written here in other words (not taken from a labelled set), beside the hard negatives that
keep the rule from reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

ASKED = {
    "en": "how do I reset my thermostat schedule",
    "fr": "comment changer mon adresse de livraison",
    "it": "come cambio l'indirizzo di consegna",
    "es": "¿cómo cambio la dirección de entrega?",
    "sv": "hur ändrar jag leveransadressen",
    "nl": "hoe wijzig ik mijn bezorgadres",
    "pl": "jak zmienić adres dostawy",
    "ja": "配送先の住所を変更するには",
    "zh": "怎么修改收货地址",
    "ko": "배송지 주소를 어떻게 바꾸나요",
    "tr": "teslimat adresimi nasıl değiştiririm",
}


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # a rude word between the wish and the person
        ("en", "just give me a damn person"),
        ("en", "get me a f**king agent already"),
        ("sv", "ge mig en jäkla handläggare"),
        ("es", "quiero un maldito agente"),
        ("nl", "geef me een verdomde medewerker"),
        ("pl", "daj mi cholernego konsultanta"),
        # 'est-ce que' asks for something as 'can you' does, it is no question word
        ("fr", "est-ce que quelqu'un du support peut me rappeler demain ?"),
        # 'qu'on me rappelle': someone unnamed asked to call
        ("fr", "je voudrais qu'on me recontacte par téléphone"),
        # Italian polite and plural imperatives of a hand-off
        ("it", "mi trasferisca a un operatore, grazie"),
        ("it", "mi mettete in contatto con un consulente?"),
        # Japanese: 誰か is someone, not 'who'; 出せ and 話を as request forms
        ("ja", "誰かに代わってもらえますか"),
        ("ja", "オペレーター出せ"),
        ("ja", "本物の医者さんと話をさせて"),
        # Chinese: a real one named by what they do, '跟我说' as the channel
        ("zh", "让真正的律师跟我聊"),
        # Korean: 누군가 (someone), and 누구랑 before 'can I talk'
        ("ko", "누군가랑 통화하고 싶어요"),
        ("ko", "누구랑 대화할 수 있을까요"),
    ],
)
def test_escalation_composed(lang: str, b: str) -> None:
    assert "escalation" in read(ASKED[lang], b)


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        ("fr", "est-ce que le service client est ouvert le dimanche ?"),
        ("ja", "誰が担当ですか"),
        ("ko", "누구한테 물어봐야 하나요"),
        ("zh", "真正的原因是什么"),
        ("en", "damn, the schedule reset itself again"),
        ("it", "come trasferisco il dominio a un altro account"),
    ],
)
def test_escalation_not_read(lang: str, b: str) -> None:
    assert "escalation" not in read(ASKED[lang], b)


@pytest.mark.parametrize(
    ("lang", "a", "b"),
    [
        # the name A typed left out, words of A's in another form, words that say the turn
        # is asked again or urgent, or call out, around them (they ask nothing)
        ("pl", "jak zawiesić subskrypcję w AptekaPlus", "halo?? zawieszenie subskrypcji"),
        ("pl", "jak zawiesić subskrypcję w AptekaPlus", "zawieszenie subskrypcji, pytam drugi raz"),
        ("sv", "hur flyttar jag min bokning hos Frisören Sax", "flytta bokning, bråttom"),
        ("en", "how do I export my invoices from Ledgerly", "export invoices, asking twice"),
        ("tr", "Kargom nereye gitti TezKargo", "kargom nerede, alo"),
    ],
)
def test_rephrase_fragment(lang: str, a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # 'already' and 'yet' say which parcel: another question
        (
            "how do I change the address for a parcel that's already shipped",
            "how do I change the address for a parcel that hasn't shipped yet",
        ),
        ("jak zawiesić subskrypcję w AptekaPlus", "jak wznowić subskrypcję"),
    ],
)
def test_rephrase_not_read(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("lang", "b", "signal"),
    [
        # 'it was of use to me' / 'it helped a great deal' as thanks
        ("tr", "çok işime yaradı", "positive_feedback"),
        ("zh", "帮了我大忙", "positive_feedback"),
        # 'that is not what I asked' and 'still broken' as verdicts on the answer
        ("ko", "물어본 게 아니라고요, 주소 변경 어떻게 해요", "negative_feedback"),
        ("fr", "c'est toujours en panne", "negative_feedback"),
        # the polite and plural thanks, 'again / still does not open' (Turkish)
        ("tr", "yardımcı oldunuz", "positive_feedback"),
        ("tr", "uygulama hala yüklenmiyor", "negative_feedback"),
        # Spanish formal and plural imperatives with the enclitic 'me'
        ("es", "comuníquenme con un asesor", "escalation"),
        ("es", "páseme con soporte, por favor", "escalation"),
        # Japanese: talking on the phone asked for, no person named
        ("ja", "電話で相談したいのですが", "escalation"),
    ],
)
def test_short_verdicts(lang: str, b: str, signal: str) -> None:
    assert signal in read(ASKED[lang], b)
