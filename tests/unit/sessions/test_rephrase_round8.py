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


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("배송 알림 끄는 법은요?", "배송 알림 끄기"),  # endings: 끄는 / 끄기
        ("포인트가 적립이 안 되는데 왜 그런가요?", "포인트 적립 안 돼요 왜??"),  # 되 / 돼
        ("미리 감사드려요! 상품 후기는 어디서 쓰나요?", "상품 후기 어디서 써요"),  # 쓰 / 써
        ("헬스장 회원권 기간 연장할 수 있나요?", "회원권기간 연장 가능한가요"),  # typed together
        ("체크아웃 시간 전에 자전거 맡길 수 있나요?", "자전거 맡기기 가능??"),  # 맡길 / 맡기기
        ('"결제가 실패했습니다"라고 뜨는데 어떻게 해요?', "결제 실패했다고 떠요 어떻게 해요"),
    ],
)
def test_korean_asked_again_in_other_endings_is_a_rephrase(a: str, b: str) -> None:
    """The same stems, their particles and endings changed or contracted."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("배송 알림 끄는 법은요?", "배송 알림 켜기"),  # the opposite
        ("배송 주소 변경하는 법 알려주세요", "배송 시간 변경하기"),  # another thing
        ("환불 받는 법 알려주세요", "교환 받는 법"),  # another thing
        ("무제한 요금제는 한 달에 얼마예요?", "20GB 요금제는 얼마예요?"),  # another plan
        ("쿠폰이 적용이 안 되는데 왜 그런가요?", "감사합니다! 그럼 쿠폰은 어디서 받아요?"),
    ],
)
def test_korean_stems_with_another_thing_or_the_opposite_are_none(a: str, b: str) -> None:
    """The opposite, another thing in A's place, thanks and a new question."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ホテルの部屋を和室に変えられますか？", "部屋 和室 変更？？"),  # 変える / 変更
        ("アプリで支払いカードを変えるには？", "支払いカードの変更どこ？"),
        ("定期便を一時的に止められますか？", "定期便 停止できる？"),  # 止める / 停止
    ],
)
def test_japanese_verb_asked_as_its_compound_is_a_rephrase(a: str, b: str) -> None:
    """A verb written with its kana ending asked again as a compound of its kanji."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("配送先の住所を変えるには？", "電話番号 変更"),  # another thing changed
        ("自動更新を止めるには？", "自動更新 開始"),  # the opposite
        ("会員プランを変えられますか？", "会員プラン 料金？？"),  # the price instead
    ],
)
def test_japanese_compound_of_another_verb_or_thing_is_none(a: str, b: str) -> None:
    """Another thing, the opposite, the price: a compound that makes no verb of A's."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("você entrega em Niterói?", "vc entrega niterói??"),
        ("por qué me cobraron dos veces?", "xq me cobraron dos veces"),
        ("pourquoi mon colis est bloqué ?", "pk colis bloqué"),
    ],
)
def test_words_that_ask_typed_short_in_chat_are_a_rephrase(a: str, b: str) -> None:
    """'vc', 'xq', 'pk': a word that asks, typed short, is no word of B's own."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("siparişim ne zaman gelir", "iadem ne zaman gelir"),  # "ne" no German chat word
        ("cmt je change mon adresse mail ?", "comment changer mon numéro de téléphone"),
    ],
)
def test_chat_spellings_leave_another_thing_another_question(a: str, b: str) -> None:
    """Another thing asked about in the same words: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Jak zsynchronizować kalendarz z telefonem?", "synchronizacja kalendarza telefon"),
        ("co oznacza kod błędu x17", "kod błędu x17 znaczenie??"),
        (
            "Zarezerwowałem stolik na piątek, jak to przenieść na sobotę?",
            "przenieść rezerwację stolika na sobotę",
        ),
    ],
)
def test_a_word_with_a_short_prefix_is_the_same_stem(a: str, b: str) -> None:
    """A verb's prefix ('z-', 'o-', 'za-') before the stem the other word begins with."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("jak podłączyć drukarkę do wifi?", "jak odłączyć drukarkę od wifi?"),
        (
            "how do I subscribe to the weekly newsletter",
            "how do I unsubscribe from the weekly newsletter",
        ),
        ("how do I activate two factor login", "how do I deactivate two factor login"),
        ("Jak zsynchronizować kalendarz z telefonem?", "synchronizacja kontaktów telefon"),
    ],
)
def test_a_prefix_that_makes_the_opposite_or_another_thing_is_none(a: str, b: str) -> None:
    """The opposite by its prefix ('od-', 'un-', 'de-'), another thing: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a slip the stemmer cuts apart ("canb" / "camb")
        (
            "come posso cambiare il metodo di pagamento?",
            "come posso canbiare il metodo di pagamento",
        ),
        # a verb's particle typed on it ("meld … af" / "afmelden")
        ("Hoe meld ik mijn zoon af voor de training?", "zoon afmelden training"),
        # a word the stemmer cuts too short ("rzym": "rz", "rzymu": "rzym")
        (
            "Czy autobus do Rzymu ma jeszcze wolne miejsca w maju?",
            "wolne miejsca autobus rzym maj?",
        ),
        # the same word without its accent is no opposite ("désactiver" / "desactiver")
        ("comment désactiver les alertes de livraison ?", "desactiver alertes livraison ??"),
    ],
)
def test_words_as_typed_where_their_stems_part_are_a_rephrase(a: str, b: str) -> None:
    """The words read as typed, not stemmed, where the stems part them."""
    assert "rephrase" in read(a, b)


def test_the_opposite_in_a_language_read_as_another_is_none() -> None:
    """Portuguese read as Spanish by its stop words: its opposite still one."""
    assert "rephrase" not in read(
        "como ativo o modo escuro no app?", "como desativo o modo escuro no app?"
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("comment modifier mon mot de passe wifi ?", "modifier mdp wifi ?"),
        ("Wie aktiviere ich die Zwei-Faktor-Authentifizierung in der App?", "2fa aktivieren app?"),
        ("comment déplacer un rendez-vous chez le dentiste ?", "déplacer rdv dentiste"),
    ],
)
def test_initials_of_words_the_earlier_turn_spelled_are_those_words(a: str, b: str) -> None:
    """'mdp', '2fa' (a number word by its digit), 'rdv' (more letters of a word)."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("how do I turn on two factor authentication for my account", "2fa off?"),
        ("how do I reset my password for the app", "how do I reset my pin"),
        ("comment modifier mon mot de passe wifi ?", "modifier mdp compte ?"),
    ],
)
def test_initials_with_the_opposite_or_another_thing_are_none(a: str, b: str) -> None:
    """The opposite, another short word, another thing beside the initials: none."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("comment ajouter un deuxième compte à mon abonnement ?", "ajouter 2e compte ??"),
        ("Wat zijn de openingstijden op tweede pinksterdag?", "openingstijden 2e pinksterdag"),
        ("how do I add a second driver to my rental", "add 2nd driver rental?"),
    ],
)
def test_an_ordinal_typed_with_its_digits_is_the_ordinal(a: str, b: str) -> None:
    """'2e', '2nd' and 'deuxième', 'tweede', 'second' are one word."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("comment ajouter un deuxième compte à mon abonnement ?", "ajouter 3e compte ??"),
        ("wie buche ich die zweite Nacht dazu?", "wie buche ich die dritte Nacht dazu?"),
    ],
)
def test_another_ordinal_is_another_question(a: str, b: str) -> None:
    """The third where A asked for the second: another thing."""
    assert "rephrase" not in read(a, b)
