"""The follow-up signals' fifth round (issue 74): partial repeats (a fragment asked again as
a full question, questions written without spaces cut to their words with kana grammar
around them), the opposite asked with a prefix or a particle, a price asked where the other
turn asked something else; each case a class written here in other words (not taken from
a labelled set), beside the hard negative that keeps the rule from reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ladezeit anzeige?", "wo finde ich die ladezeit anzeige"),
        ("route history?", "where can i find route history"),
        ("historique trajets ?", "où je trouve l'historique des trajets"),
        ("historial rutas?", "dónde encuentro el historial de rutas"),
        ("historia przejazdów?", "gdzie znajdę historię przejazdów"),
        ("ritgeschiedenis overzicht?", "waar vind ik het ritgeschiedenis overzicht"),
    ],
)
def test_a_fragment_asked_again_as_a_full_question_is_a_rephrase(a: str, b: str) -> None:
    """A of a few words and no question word; B keeps all its words, opens with a question
    word and adds one word (the verb it asks with)."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the fragment followed by a question about another thing of its own
        ("route history?", "where can i export route history to excel"),
        # a fragment of one word: too little to tell
        ("history?", "where do i delete history"),
        # a next question that names a thing of its own, no question word
        ("route history?", "route history for the kids account"),
    ],
)
def test_a_fragment_then_another_question_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # kana grammar changed around the same kanji: a wish for the thing asked how to do
        ("アプリで通知音を変更するには", "通知音 変更したい"),
        ("ポイントの有効期限を延長するにはどうすればいいですか", "ポイント有効期限 延長したい"),
        # chat words in front, then the question cut to its words
        ("アプリで自動更新を停止するには", "すみません？？自動更新 停止"),
        # 'I ask again' as a meta word
        ("アプリで自動更新を停止したい、どうすればいい", "もう一度聞きます、自動更新の停止方法"),
        # 咋 is a colloquial 'how'
        ("会员卡怎么办理挂失", "会员卡咋办理挂失"),
    ],
)
def test_a_question_without_spaces_cut_to_its_words_is_a_rephrase(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same question about another thing (a kanji pair changed)
        ("通知音を変更するには", "着信音 変更したい"),
        # the opposite with a particle: connect / release the connection
        ("プリンターを接続するには", "プリンターの接続を解除するには"),
        ("프린터 연결은 어떻게 하나요", "프린터 연결을 해제하려면 어떻게 하나요"),
    ],
)
def test_another_thing_or_the_opposite_without_spaces_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("come collego la stampante", "come scollego la stampante"),  # every person's form
        ("jak podłączyć drukarkę", "jak odłączyć drukarkę"),  # 'od' inside 'podłącz'
        ("jak podlaczyc drukarke", "jak odlaczyc drukarke"),  # typed without accents
        ("hur bokar jag om min tvättid", "hur avbokar jag min tvättid"),  # rebook / cancel
    ],
)
def test_the_opposite_with_a_prefix_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("gibt es einen Parkplatz am Hotel", "was kostet der Parkplatz am Hotel"),
        ("do you deliver to Norway?", "how much is delivery to Norway?"),
        ("how do I get delivery to Norway?", "how much is delivery to Norway?"),
        ("c'è il parcheggio in hotel", "quanto costa il parcheggio in hotel"),
        ("kan jag frysa mitt medlemskap", "kostar frysningen av medlemskap något"),
    ],
)
def test_a_price_asked_where_the_other_asked_something_else_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # 'how much' with no price word is a price asked the other way
        ("premium üyelik ne kadar", "premium üyelik fiyatı?"),
        ("quanto custa a entrega expressa", "entrega expressa quanto"),
        # how much of another thing, neither a price: still the question asked again
        ("cuánto tarda en llegar el pedido", "tarda mucho en llegar el pedido?"),
        # a price in both
        ("what does the family plan cost", "family plan price??"),
        # the price's word typed with a slip
        ("wat zijn de kosten van een tweede pas", "wat zijn de kostn van een tweede pas"),
    ],
)
def test_a_price_asked_again_in_other_words_is_still_a_rephrase(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


ASKED = "how do I change my delivery address"


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # Spanish plural familiar imperatives with the enclitic 'me' (vosotros)
        ("es", "ponedme con alguien de soporte"),
        ("es", "pasadme con un operador ya"),
        ("es", "conectadme con una persona"),
        ("es", "llamadme a este número: 611 222 333"),
        ("es", "¿me pasáis con un agente?"),
        # Polish: a request for a person as a noun ('connection with an employee')
        ("pl", "poproszę o połączenie z konsultantem"),
        ("pl", "prosze o przełączenie do człowieka"),
    ],
)
def test_these_request_forms_are_escalation(lang: str, b: str) -> None:
    assert "escalation" in read(ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "pasadme el enlace de la factura",  # a thing passed on, no person
        "połączenie z internetem nie działa, co mam zrobić?",  # the internet connection
    ],
)
def test_the_same_forms_without_a_person_are_no_escalation(b: str) -> None:
    assert "escalation" not in read(ASKED, b)


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # negated with a pronoun and 'to be' in a compound tense: 'it was of no use to me'
        ("it", "non mi è stata di aiuto"),
        ("it", "purtroppo non mi è stato utile"),
        ("es", "no me ha sido de ayuda"),
        ("nl", "dat was echt geen hulp"),
        # the verdict before the answer's noun
        ("fr", "mauvaise info"),
        ("es", "mala respuesta"),
        ("pt", "resposta ruim"),
        ("de", "schlechte antwort"),
        ("tr", "kötü cevap"),
        # 'nothing' as Swedish negation after the verb, and nothing happened
        ("sv", "det hjälpte ingenting"),
        ("sv", "ingenting händer när jag trycker"),
    ],
)
def test_these_verdicts_are_negative_feedback(lang: str, b: str) -> None:
    assert "negative_feedback" in read(ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "no está mal, gracias",  # not bad
        "a resposta não é ruim",
        "mauvaise adresse de livraison, comment la changer",  # a thing, not the answer
        "schlechte verbindung heute",
        "ingenting hände, vad gör jag nu?",  # a question after it
        "mi è stato d'aiuto, grazie",  # thanks
    ],
)
def test_these_are_no_negative_feedback(b: str) -> None:
    assert "negative_feedback" not in read(ASKED, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A asked with words of its own around its question: its part that asks is read
        (
            "Thanks in advance! Where do I find the VAT number in the Ledgerbook app?",
            "vat number where in app",
        ),
        (
            "Vielen Dank vorab! Wo sehe ich meine Vertragsnummer in der App?",
            "vertragsnummer wo in der app",
        ),
        ("bedankt alvast! waar zie ik mijn klantnummer in de app?", "klantnummer waar in de app"),
        # chat words say nothing about the topic ("yo", "lol"), nor a Dutch modal
        (
            "yo how do i move my tunnel to another region",
            "how do i move my tunnel to another region lol",
        ),
        ("hond meenemen?", "ik vroeg of ik mijn hond mag meenemen!!"),
    ],
)
def test_a_question_asked_with_words_of_its_own_around_it_is_asked_again(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A's part that asks, then another question about another thing
        (
            "Thanks in advance! Where do I find the VAT number in the app?",
            "where do I find the invoice number in the app",
        ),
        (
            "danke vorab! wie aktiviere ich die zwei-faktor-anmeldung?",
            "wie deaktiviere ich die zwei-faktor-anmeldung",
        ),
    ],
)
def test_a_part_of_a_asked_about_another_thing_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # a department that sells or bills is a person to be put through to
        ("en", "fine, connect me to sales please"),
        ("it", "mi passi l'ufficio commerciale"),
        ("pt", "me transfere pro setor comercial"),
        ("pl", "proszę połączyć mnie z działem sprzedaży"),
        ("sv", "koppla mig till säljavdelningen"),
        ("tr", "beni satış ekibine aktarın"),
        ("ja", "営業の方につないでください"),
        ("zh", "帮我转销售吧"),
        ("ko", "영업팀이랑 연결해 주세요"),
    ],
)
def test_a_department_asked_for_is_escalation(lang: str, b: str) -> None:
    assert "escalation" in read(ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "switch the chart to sales",  # the figure, not the people
        "can I connect the app to my sales reports?",
        "営業時間を教えてください",  # opening hours
        "连接销售数据怎么弄",  # sales data
    ],
)
def test_sales_as_a_thing_is_no_escalation(b: str) -> None:
    assert "escalation" not in read(ASKED, b)


@pytest.mark.parametrize(
    ("lang", "b"),
    [
        # what the answer gave does not work
        ("es", "el enlace que me mandaste no funciona"),
        ("fr", "le bouton que vous m'avez indiqué ne fonctionne pas"),
        ("pt", "o link que você me passou não abre"),
        ("it", "il link che mi avete mandato non funziona"),
        # the answer does not match what was asked
        ("es", "eso no corresponde a lo que pregunté"),
        ("pt", "isso não corresponde ao que eu perguntei"),
        ("ko", "답변이 제 질문이랑 전혀 상관없어요"),
        ("de", "das hat gar nichts mit meinem Problem zu tun"),
        # the thing the answer named is not there
        ("en", "no export button on the invoices page"),
        ("de", "im Menü gibt es keinen Eintrag dafür"),
        ("ko", "그 메뉴 앱 어디에도 없네요"),
        ("ko", "설정에 해당 항목 자체가 없어요"),
        ("ko", "화면에 그 버튼이 안 나오는데요"),
    ],
)
def test_these_contradictions_are_negative_feedback(lang: str, b: str) -> None:
    assert "negative_feedback" in read(ASKED, b)


@pytest.mark.parametrize(
    "b",
    [
        "el importe no corresponde con mi factura",  # a problem of the user's own
        "is there no export button?",  # asked
        "o link que você me passou abre normal, obrigado",
    ],
)
def test_these_are_no_contradiction(b: str) -> None:
    assert "negative_feedback" not in read(ASKED, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Swedish ä is a letter: "ändra" (change) is no "andra" (others), a stop word
        ("ändra lösenord", "hur ändrar jag lösenord???"),
        # Korean endings that quote or ask ('if one wants to', 'I asked whether', 'tell me')
        ("링크몰 교환하려면 어떻게 해요?", "교환 방법"),
        ("교환 방법", "교환 방법 알려달라고요!! 듣고 있어요?"),
        ("가족결합 할인", "가족 결합 할인되냐고 물어봤잖아요"),
    ],
)
def test_words_that_only_say_how_it_is_asked_leave_the_question(a: str, b: str) -> None:
    assert "rephrase" in read(a, b)


def test_a_swedish_question_about_others_is_still_no_rephrase() -> None:
    assert "rephrase" not in read("hur ändrar jag lösenordet", "vilka andra inställningar finns")


def test_cade_is_a_question_word_in_portuguese() -> None:
    """'cadê' (where is) says how it is asked, as 'onde fica' does."""
    a = 'obrigado. onde fica o botão "fale conosco" no app?'
    assert "rephrase" in read(a, "cadê o botão fale conosco???")
