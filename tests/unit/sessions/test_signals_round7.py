"""The follow-up signals' seventh round (issue 74): escalation and negative feedback as
mechanisms that compose, each class written here in other words (not taken from a labelled
set), beside the hard negatives that keep it from reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

NEGATIVE = "negative_feedback"
_ASKED = "how do I change my delivery address"


@pytest.mark.parametrize(
    "b",
    [
        "that's not what I asked. can I send parcels to a locker?",
        "nee, dat vroeg ik niet. Kan ik ook met iDEAL betalen?",
        "isso não responde à minha pergunta. Quanto custa o frete?",
        "no es lo que pregunté, ¿cuándo abre la tienda?",
        "das war nicht meine Frage. Wo sehe ich meine Rechnungen?",
        "这不是我问的。运费多少钱？",
    ],
)
def test_a_verdict_on_the_answer_before_a_new_question(b: str) -> None:
    """A verdict that names nothing but the answer ('not what I asked') is negative feedback
    whatever question follows it, in other words than the earlier one."""
    assert NEGATIVE in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        # a problem of the user's own named before a question about it
        "the card payment did not work, what other payment methods are there?",
        "mi pago con tarjeta no funcionó, ¿qué otros métodos hay?",
        "die Überweisung hat nicht geklappt, wie kann ich sonst zahlen?",
        "is it wrong to share my password with my wife?",
    ],
)
def test_a_problem_named_before_a_question_is_no_verdict(b: str) -> None:
    assert NEGATIVE not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "the voucher code that you sent me by mail does not work",
        "le code que vous m'avez envoyé ne fonctionne pas",
        "el enlace que me enviaste ayer no funciona",
        "de link uit jullie nieuwsbrief werkt niet",
    ],
)
def test_what_the_answer_gave_does_not_work_in_more_words(b: str) -> None:
    """A negation of worth (does not work) may stand after six words that name what the
    answer gave, not four."""
    assert read(_ASKED, b) == [NEGATIVE]


@pytest.mark.parametrize(
    "b",
    [
        "my new phone that I bought last week does not work, what can I do?",
        "el código que me dio el banco no funciona, ¿qué hago?",
        "j'ai un message mot de passe incorrect",
    ],
)
def test_more_words_before_a_verdict_keep_the_hard_negatives(b: str) -> None:
    assert NEGATIVE not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "did that, the app still crashes",
        "ich habe es gemacht, die App stürzt immer noch ab",
        "hice eso y todavía me cobran dos veces",
        "fiz isso e continua cobrando duas vezes",
        "dat heb ik gedaan, de melding blijft komen",
        "gjorde det, appen kraschar fortfarande",
        "zrobiłem to, aplikacja nadal się zawiesza",
        "yaptım, uygulama hâlâ çöküyor",
        "やりましたが、まだアプリが落ちます",
        "해봤는데 여전히 앱이 꺼져요",
        "试过了，应用仍然闪退",
    ],
)
def test_the_problem_still_there_is_negative(b: str) -> None:
    """The problem the answer was to end goes on ('still'), negated or not."""
    assert NEGATIVE in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "is the old address still saved?",
        "I still can't find the settings, where are they?",
        "tack ändå",
        "감사합니다만 그래도 상담원과 통화하고 싶어요",
        "注销后地址还在吗",
        "¿todavía puedo cambiar la dirección?",
    ],
)
def test_still_in_a_question_or_thanks_is_no_verdict(b: str) -> None:
    assert NEGATIVE not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        # a verdict that names nothing before a question that names nothing: what now?
        "didn't work, what should I do now?",
        "geht nicht, was jetzt?",
        "不行，怎么办",
        "ingenting händer, vad gör jag nu?",
        # the verdict's own clause names the user's thing
        "重置了密码还是提示错误，怎么办",
    ],
)
def test_a_verdict_before_a_question_that_names_nothing_is_no_verdict(b: str) -> None:
    assert NEGATIVE not in read(_ASKED, b)


ESCALATION = "escalation"


@pytest.mark.parametrize(
    "b",
    [
        "I'd like to speak with the warehouse manager",
        "vorrei parlare con l'ufficio reclami",
        "quiero hablar con el encargado de la tienda",
        "queria falar com o pessoal do financeiro",
        "połączcie mnie z księgowością",
        "verbind me even door met de klantenservice van de winkel",
        "kan jag få prata med butikschefen?",
        "Kann ich mit der Buchhaltung sprechen?",
        "muhasebe departmanı ile görüşmek istiyorum",
    ],
)
def test_whoever_follows_talk_to_is_a_person(b: str) -> None:
    """A verb of talking or putting through with its preposition names a person in the
    words after it, whatever they are ('the warehouse manager', 'l'ufficio reclami')."""
    assert ESCALATION in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "how do I talk to the warehouse team in the app?",
        "can I talk to the bot in Spanish?",
        "I need to talk to my accountant first",
        "on peut parler avec la reconnaissance vocale",
        "connect my account with Stripe",
        "transfer my domain to another registrar",
        "Kann ich mit dem Bot auf Englisch sprechen?",
    ],
)
def test_talk_to_a_thing_the_bot_or_mine_is_no_escalation(b: str) -> None:
    assert ESCALATION not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "상담사랑 채팅하고 싶어요",
        "전화 상담 요청합니다",
        "スタッフを呼んでください",
        "オペレーターとチャットしたい",
        "请让客服跟我沟通一下",
        "mag ik een medewerker?",
        "birisi arasın lütfen",
        "yetkilinin beni aramasını istiyorum",
        "est-ce que je peux avoir un appel d'un technicien ?",
    ],
)
def test_a_channel_with_a_person_is_escalation(b: str) -> None:
    """Chat, call, communicate with a person, in the languages that lacked those verbs; 'may
    I have' a person; someone to call."""
    assert ESCALATION in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "전화 상담도 있나요?",
        "チャットの履歴はどこで見られますか",
        "mag ik een factuur?",
    ],
)
def test_a_channel_without_a_request_is_no_escalation(b: str) -> None:
    assert ESCALATION not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        # a form of a verdict word, a pair of a verdict's characters, before a new question
        "u beantwoordt mijn vraag niet. Hoe laat sluit de winkel?",
        "答错了。运费多少钱？",
        # "not that" with the negation's te-form, "not this meaning"
        "そうじゃなくて、配送料はいくらですか",
        "そうじゃなくて",
        "不是这个意思",
        # what the answer said differs from another source
        "回答の内容が公式サイトの説明と違います",
        "알려주신 내용이 공지사항과 다릅니다",
        "你说的跟官网上写的不一样",
        # there is no such thing, 'nicht' or 'kein' anywhere in the clause
        "Einen Export-Knopf gibt es bei mir in der App nicht",
        "gibts in meiner Version nicht",
        # solved, negated
        "isso não resolve meu problema",
        # the answer corrected: it is X, not Y
        "that's the price for the pro plan, not the basic one",
        "het is 12 euro, niet 10",
        "c'est le tarif du samedi, pas du dimanche",
    ],
)
def test_more_verdicts_in_other_words(b: str) -> None:
    assert NEGATIVE in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "프로와 베이직 요금제가 다른가요?",
        "プロとベーシックは違いますか",
        "プロとベーシックの違いを教えて",
        "gibt es die App nicht auch für Android?",
        "is it the pro plan, not the basic one?",
        "I want a human, not a bot",
        "chciałbym to zmienić, nie wiem jak",
        "quiero saber si es posible, no sé",
        "that's great, thanks",
        "この問題は解決しましたか",
    ],
)
def test_more_verdicts_keep_their_hard_negatives(b: str) -> None:
    assert NEGATIVE not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "is live chat in the basic plan",
        "zit telefonische support in het basisabonnement",
        "chat dal vivo compreso?",
        "czat na żywo w pakiecie?",
        "Live-Chat im Basistarif?",
        "el chat en vivo está en el plan básico",
    ],
)
def test_a_channel_in_a_plan_is_a_feature(b: str) -> None:
    """A channel named in a clause that puts it in a plan (or says it is included) asks
    about the plan, not for a person."""
    assert ESCALATION not in read(_ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "I'm on the premium plan. Get me an agent",
        "quiero hablar con un agente sobre mi plan",
        "Kann ich mit jemandem über meinen Tarif sprechen?",
        "transfer me to an agent in the billing team",
    ],
)
def test_a_plan_beside_a_request_keeps_it(b: str) -> None:
    assert ESCALATION in read(_ASKED, b)
