"""Rephrase, round 9 of issue 74: exact and partial repeats read by mechanism, each class
beside the hard negatives that keep it from reading too much (another thing, the opposite,
another question about the thing, thanks and a new question). Each case written here, not
taken from a labelled set."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("那怎么关闭自动续费？", "关闭自动续费会员"),  # an opener before it
        ("周日呢？", "周日 门诊 挂号"),  # "呢" after it
        ("강아지는요?", "펜션 강아지 동반"),  # "…는요?"
        ("じゃあ延長するには？", "レンタル 延長する"),  # "じゃあ …には？"
    ],
)
def test_a_next_question_without_spaces_spelled_out_as_keywords_is_a_rephrase(
    a: str, b: str
) -> None:
    """A cut to what it moves to (an opener before it, "呢", "는요", "は" after it); B, short,
    every character of A's and a few of its own, the earlier question's."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("寄到广州呢？", "寄广州运费多少？"),  # another question about the thing: its price
        ("周日呢？", "周日 门诊 停诊吗 为什么"),  # too long, asks why
        ("那怎么关闭自动续费？", "那怎么开启自动续费"),  # the opposite, a next question itself
        ("강아지는요?", "감사합니다 그럼 강아지 요금은 얼마예요?"),  # thanks and a new one
    ],
)
def test_a_next_question_without_spaces_and_another_question_is_none(a: str, b: str) -> None:
    """B that asks with a question word A has none of, B too long, B a next question of its
    own or the opposite: not A spelled out."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("헬스 회원권 결제가 두 번 됐어요", "회원권 두 번 결제됨"),  # "됐어요" / "됨"
        ("헬스장 예약했는데 락커 이용 가능한가요?", "락커 이용 돼요? 헬스장"),  # "가능" / "돼요"
        ("미리 감사해요~ 택배 알림은 어떻게 받아요?", "택배 알림 받는 법??"),  # endings swapped
    ],
)
def test_korean_asked_again_with_the_passive_ending_is_a_rephrase(a: str, b: str) -> None:
    """A Sino-Korean noun with "되다" run on ("자동이체됨", "됐어요", "돼요") is the noun;
    endings that change the character pairs change no thing (read by the stems)."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("헬스 회원권 결제가 두 번 됐어요", "회원권 두 번 환불됨"),  # another thing done
        ("헬스장 예약했는데 락커 이용 가능한가요?", "샤워실 이용 돼요? 헬스장"),  # another thing
        ("택배 알림은 어떻게 받아요?", "택배 알림 끄는 법"),  # the opposite (off)
    ],
)
def test_korean_with_another_thing_is_none(a: str, b: str) -> None:
    """Another thing named in the place of one, or turned off instead of received: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Und wie schalte ich es wieder ein?", "ruhemodus einschalten"),
        ("en hoe zet ik ze weer aan?", "geluid meldingen aanzetten"),
    ],
)
def test_a_next_question_cut_to_its_verb_spelled_out_with_the_particle_on_it(
    a: str, b: str
) -> None:
    """A next question whose verb stands apart from its particle ("schalte … ein"), asked
    again with the verb whole ("einschalten"): no word of the two begins alike, yet B spells
    A out."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Und wie schalte ich es wieder ein?", "ruhemodus ausschalten"),  # the opposite
        ("en hoe zet ik ze weer aan?", "geluid meldingen uitzetten"),  # the opposite
        ("Und wie schalte ich es wieder ein?", "danke, hat geklappt"),  # thanks
        ("Und wie schalte ich es wieder ein?", "was kostet der ruhemodus"),  # the price
    ],
)
def test_a_next_question_cut_to_its_verb_and_the_opposite_is_none(a: str, b: str) -> None:
    """The verb's opposite particle, thanks or another question: not A spelled out."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "wie verlängere ich mein Abo?",
            "Ich frage nochmal: wie verlängere ich mein Abo bei Lesezeit?",
        ),
        (
            "hoe wijzig ik mijn wachtwoord?",
            "Ik vraag het opnieuw: hoe wijzig ik het wachtwoord van mijn account bij Fietsdeel?",
        ),
        (
            "hur byter jag bankkonto för autogirot?",
            "Jag frågar igen: hur byter jag bankkonto för autogirot hos Elbolaget i Umeå?",
        ),
    ],
)
def test_a_question_asked_again_after_a_lead_in_and_a_colon_is_a_rephrase(a: str, b: str) -> None:
    """A few words and a colon, then a question holding every content word of A's, whatever
    it names around them (the company, the account)."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # thanks and a narrower question (no colon: no lead-in)
        (
            "how do I renew my subscription?",
            "thanks! how do I renew my subscription for the team plan?",
        ),
        # a next question announced as one
        (
            "how do I renew my subscription?",
            "another question: how do I renew my subscription for the team plan?",
        ),
        # the opposite after the colon
        (
            "how do I renew my subscription?",
            "update: I renewed my subscription, how do I cancel it?",
        ),
        # another plan after the colon
        (
            "como cancelo o plano anual?",
            "Repito: como cancelo o plano mensal da minha conta Vivamais?",
        ),
        # a time of day is no lead-in: a narrower question with A's words
        (
            "how do I book the sauna for two people?",
            "at 10:30 how do I book the sauna for two people and a massage for the kids?",
        ),
    ],
)
def test_a_lead_in_before_another_question_is_none(a: str, b: str) -> None:
    """Thanks before a narrower question, a next question announced, the opposite or another
    plan after a colon, a time of day's colon: not A asked again."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Wie kann ich den Kontoauszug der Kreditkarte als PDF herunterladen?",
            "download kontoauszug kreditkarte pdf",
        ),
        (
            "posso levar meu gato no hotel fazenda Vale Verde?",
            "aceita gato hotel fazenda vale verde",
        ),
        (
            "when does the bulky waste truck come on my street (Oak Lane)?",
            "bulky waste pickup oak lane",
        ),
    ],
)
def test_a_question_asked_again_as_keywords_with_a_word_of_its_own_is_a_rephrase(
    a: str, b: str
) -> None:
    """Three of A's words at least and a third of them, one word of B's own (a synonym, a
    name of the thing), no question word, A's words not kept in their places."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another thing put in the place of one, A's words kept where they stood
        (
            "does the Pro plan include phone support and live chat?",
            "does the Team plan include phone support and live chat?",
        ),
        (
            "posso levar meu gato no hotel fazenda Vale Verde?",
            "posso levar meu cachorro no hotel fazenda Vale Verde?",
        ),
        # the keywords and another action, the opposite, the price
        (
            "Kann ich den Kontoauszug der Kreditkarte als PDF herunterladen?",
            "kontoauszug kreditkarte pdf löschen",
        ),
        (
            "how do I turn on the heating schedule in the Thermly app?",
            "heating schedule thermly app off",
        ),
        (
            "posso levar meu gato no hotel fazenda Vale Verde?",
            "gato hotel fazenda vale verde preço",
        ),
        # a statement that names A's things, no question mark, a sentence around them
        (
            "Hi, my order from the Porto shop was sent to my old flat last week, how do I "
            "redirect it?",
            "the order from the porto shop went to my old flat",
        ),
        # thanks and a new question
        (
            "when does the bulky waste truck come on my street (Oak Lane)?",
            "thanks! bulky waste oak lane price",
        ),
    ],
)
def test_keywords_with_another_thing_in_place_or_the_opposite_are_none(a: str, b: str) -> None:
    """A word put in the place of one of A's, in A's order; another action or the opposite
    among the keywords; the price; a statement; thanks and a new question: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # "another" typed without its accent: the same word as A's ("inną" / "inna")
        (
            "czy mogę przenieść rezerwację stolika na inną godzinę",
            "przenieść rezerwacja stolik inna godzina",
        ),
        # A asks a price; B, cut to A's words, asks nothing of its own: the price A asked
        (
            "qual o valor da mensalidade do plano família de 4 pessoas?",
            "mensalidade plano familia 4 pessoas",
        ),
    ],
)
def test_the_guards_read_a_word_typed_without_accents_and_a_question_cut_short(
    a: str, b: str
) -> None:
    """The "another one" guard finds A's word without its accents; the price guard leaves
    B cut to A's words, asking nothing of its own, to A's question."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another one where A named none, and another thing in its place
        (
            "czy mogę przenieść rezerwację stolika na godzinę 18?",
            "przenieść rezerwacja stolik inna godzina",
        ),
        (
            "czy mogę przenieść rezerwację stolika na inną godzinę",
            "czy mogę przenieść rezerwację stolika na inny dzień",
        ),
        # B cut to A's words asks something of its own; B asks the price A did not
        (
            "qual o valor da mensalidade do plano família de 4 pessoas?",
            "mensalidade plano familia 4 pessoas desconto?",
        ),
        ("o plano família inclui 4 pessoas?", "qual o valor do plano família de 4 pessoas?"),
    ],
)
def test_another_one_and_a_price_asked_of_its_own_are_none(a: str, b: str) -> None:
    """ "Another" where A named a time; another day; B asking of its own; B asking the price
    where A asked what is included: none."""
    assert "rephrase" not in read(a, b)


def test_a_stem_with_its_vowel_opened_into_a_diphthong_is_the_same_word() -> None:
    """Spanish "renuevo" / "renovar" (Snowball: "renuev", "renov"): the stressed vowel read
    closed; another verb or another thing in place stays apart."""
    assert "rephrase" in read(
        "¿cómo renuevo mi carnet de biblioteca?", "renovar carnet biblioteca!!!"
    )
    assert "rephrase" not in read(
        "¿cómo renuevo mi carnet de biblioteca?", "cancelar carnet biblioteca"
    )
    assert "rephrase" not in read(
        "¿cómo renuevo mi carnet de biblioteca?", "¿cómo renuevo mi carnet de gimnasio?"
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("hoe kan ik mijn lidmaatschap verlengen dan", "lidmaatschap sportschool verlengen"),
        (
            "hallo ik heb 2x betaald voor mijn tandartsbezoek bij Praktijk Noord",
            "dubbel betaald tandartsbezoek",
        ),
        ("Hur byter jag elavtal från rörligt till fast pris?", "byta till fast elpris"),
    ],
)
def test_a_bare_query_of_two_of_its_keywords_and_one_of_its_own_is_a_rephrase(
    a: str, b: str
) -> None:
    """One clause, no question mark, typed as keywords, two of A's words and a third of
    them, one word of its own."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("şifremi unuttum ne yapmalıyım", "şifremi unuttum linki yok"),  # a negation: not there
        ("hoe kan ik mijn lidmaatschap verlengen dan", "lidmaatschap verlengen knop"),  # a part
        ("Welke betaalmethodes accepteren jullie?", "accepteren jullie iDEAL?"),  # it asks
        ("dubbel betaald voor huisartsbezoek", "dubbel betaald tandartsbezoek"),  # in place
        ("hoe kan ik mijn lidmaatschap verlengen dan", "lidmaatschap opzeggen sportschool"),
    ],
)
def test_a_bare_query_that_negates_names_a_part_asks_or_swaps_is_none(a: str, b: str) -> None:
    """Two of A's words with a negation, a part of the product, a question mark, another
    thing in place, or the opposite and another word: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b", "again"),
    [
        ("how do I reset my streaming password", "reset streaming pw", True),
        ("Come cambio la password del router?", "cambio pw router", True),
        ("how do I reset my streaming password", "reset streaming pin", False),  # a word
        ("how do I reset my streaming password", "reset streaming tv", False),  # not its letters
    ],
)
def test_a_word_cut_to_its_consonants_is_that_word(a: str, b: str, again: bool) -> None:
    """A short form of one of A's words, three times as long at least: its first letter and
    later consonants ("pw" for "password"); a word with a vowel, or letters the word lacks in
    that order, is another thing."""
    assert ("rephrase" in read(a, b)) is again


@pytest.mark.parametrize(
    ("a", "b", "again"),
    [
        # A typed again and cut short, its words in a row as A typed them, B asking
        ("why was I charged twice for my Bookly order #5521", "WHY WAS I CHARGED TWICE", True),
        # thanks before them: not a run of A's words; the opposite typed in the run
        ("why was I charged twice for my Bookly order #5521", "thanks! why was I charged", False),
        ("how do I turn on dark mode in the Bookly app", "how do I turn off dark mode", False),
    ],
)
def test_a_question_typed_again_and_cut_short_is_a_rephrase(a: str, b: str, again: bool) -> None:
    """Three words at least of A's in a row, B asking: A cut short; not with thanks before
    them, nor with the opposite among them."""
    assert ("rephrase" in read(a, b)) is again


@pytest.mark.parametrize(
    ("a", "b", "again"),
    [
        # A asked one thing with thanks in advance after it; B asks that one thing again
        (
            "Kann ich auch die Lieferadresse ändern? Vielen Dank im Voraus für Ihre Hilfe!",
            "Hallo?? kann ich die Lieferadresse ändern?",
            True,
        ),
        (
            "Puedo pagar con tarjeta? Gracias de antemano por la ayuda",
            "hola?? ¿puedo pagar con tarjeta?",
            True,
        ),
        # the opposite (its words stop words: the guards read it), another thing
        (
            "can I turn notifications on? thanks in advance for your help!",
            "can I turn notifications off?",
            False,
        ),
        (
            "Puedo pagar con tarjeta? Gracias de antemano por la ayuda",
            "¿puedo pagar con paypal?",
            False,
        ),
    ],
)
def test_a_question_of_one_word_with_words_around_it_asked_again(
    a: str, b: str, again: bool
) -> None:
    """A's part that asks names one thing, B asks with that one and no other: A asked again,
    the opposite and another thing aside."""
    assert ("rephrase" in read(a, b)) is again
