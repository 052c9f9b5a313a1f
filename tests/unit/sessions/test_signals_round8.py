"""The follow-up signals' eighth round (issue 74): what a turn reports rather than asks or
judges, and the verdicts and requests that compose per language, each class written here in
other words (not taken from a labelled set), beside the hard negatives that keep it from
reading too much."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read

ESCALATION, NEGATIVE, POSITIVE = "escalation", "negative_feedback", "positive_feedback"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # what the thanks are for holds the hand-off
        ("can I talk to someone from billing", "thanks for the callback"),
        ("verbind me door met een medewerker", "bedankt voor het doorverbinden"),
        ("ich möchte einen Rückruf", "danke für den Rückruf"),
        ("상담원 연결해 주세요", "상담원이랑 통화했어요 고마워요"),
        # thanks alone after a request for a person: the hand-off done
        ("je veux parler à un conseiller", "merci, le conseiller passe jeudi"),
        ("połącz mnie z konsultantem", "dzięki, konsultant przełożył termin"),
    ],
)
def test_a_hand_off_thanked_for_is_thanks(a: str, b: str) -> None:
    got = read(a, b)
    assert POSITIVE in got
    assert ESCALATION not in got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # thanks that ask for the person again
        ("human please", "thanks, now get me a human"),
        (
            "ich will mit einem Mitarbeiter sprechen",
            "danke, aber verbinden Sie mich bitte mit einem Mitarbeiter",
        ),
        # a request for a person after thanks, with no request before it
        ("how do I export my invoices", "thanks. can someone call me back?"),
    ],
)
def test_thanks_beside_a_request_for_a_person_stay_a_request(a: str, b: str) -> None:
    assert ESCALATION in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "my invoice download doesn't work in the app, what can I do?",
            "invoice download not working app",
        ),
        ("de sync werkt niet op mijn tablet", "sync werkt niet tablet"),
        ("płatność kartą nie działa w aplikacji", "nie działa płatność kartą aplikacja"),
        ("uygulamada faturam görünmüyor", "fatura görünmüyor uygulama"),
    ],
)
def test_the_users_problem_asked_again_is_no_complaint(a: str, b: str) -> None:
    """B restates the problem A named, in A's words: the question again, not a verdict."""
    assert NEGATIVE not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the complaint is B's own, in a clause of its own
        (
            "my invoice download doesn't work, what can I do?",
            "that didn't work. invoice download not working",
        ),
        # the complaint's words are not A's: a verdict on what the answer gave
        ("how do I download my invoice", "the download link doesn't work"),
        ("hoe download ik mijn factuur", "de link werkt niet"),
    ],
)
def test_a_complaint_not_in_the_question_stays_one(a: str, b: str) -> None:
    assert NEGATIVE in read(a, b)


_WHERE = "how do I export my data"


@pytest.mark.parametrize(
    "b",
    [
        "the export button you mentioned is simply not there",
        "der Export-Knopf ist bei mir wirklich nicht vorhanden",
        "de knop 'exporteren' bestaat gewoon niet",
        "knappen för export finns faktiskt inte",
        "el botón de exportar no me aparece",
        "設定にエクスポートの項目ないです",
        "내보내기 버튼이 화면에 없어요",
        "导出按钮根本找不到",
    ],
)
def test_a_part_of_the_product_not_there_with_words_between(b: str) -> None:
    """The part the answer named (button, menu, item) and its absence, words between them."""
    assert NEGATIVE in read(_WHERE, b)


@pytest.mark.parametrize(
    "b",
    [
        "is the export button not there in the free plan?",
        "der Export-Knopf ist nicht vorhanden, wie exportiere ich dann?",
        "エクスポートの項目がないのはなぜですか",
        "내보내기 버튼이 왜 없나요?",
        "导出按钮没有的话怎么办",
    ],
)
def test_a_part_not_there_in_a_question_is_the_question(b: str) -> None:
    assert NEGATIVE not in read(_WHERE, b)


_HOW = "how do I cancel my booking"


@pytest.mark.parametrize(
    "b",
    [
        # a word of worth in a form the list lacks, after a negation
        "los pasos no funcionan",
        "i passaggi non funzionano",
        "os passos não funcionam",
        # a verdict word with a person's ending (Turkish)
        "hiç işe yaramıyorsun",
        # a word of worth negated in one word
        "niepomocne.",
        "das war unhilfreich",
        "dat antwoord is onnuttig",
    ],
)
def test_a_verdict_in_its_forms(b: str) -> None:
    assert NEGATIVE in read(_HOW, b)


@pytest.mark.parametrize(
    "b",
    [
        "me sale contraseña incorrecta",  # a thing's adjective, in another language's form
        "no funcionan las tarjetas de mi banco, ¿qué hago?",  # the user's problem, asked
        "funzionano le carte prepagate?",
        "nieprzydatne konto, jak je usunąć?",
    ],
)
def test_a_verdicts_form_on_a_thing_or_in_a_question_is_none(b: str) -> None:
    assert NEGATIVE not in read(_HOW, b)


_BROKEN = "the upload keeps failing"


@pytest.mark.parametrize(
    "b",
    [
        # a channel before a person and polite words alone
        "Live-Chat mit einem Berater bitte",
        "chat met een medewerker aub",
        "czat z konsultantem proszę",
        # the person after a verb that comes last, or after the pronoun before the verb
        "Könnt ihr mich mit der Kundenbetreuung verbinden?",
        "ik wil dit met een adviseur bespreken",
        "Możesz mnie połączyć z działem reklamacji?",
        # may I have a person
        "puis-je avoir un conseiller ?",
        # by phone or chat, a talk asked for
        "チャットで相談させてもらえますか",
        "전화로 안내 받고 싶어요",
    ],
)
def test_a_request_for_a_person_in_other_words(b: str) -> None:
    assert ESCALATION in read(_BROKEN, b)


@pytest.mark.parametrize(
    "b",
    [
        "Chat mit einem Mitarbeiter kostet extra?",
        "Ich will mein Konto mit der Bank verbinden",
        "ik wil dit met mijn partner bespreken",
        "chcę przełączyć się do planu premium",
        "je peux avoir une facture ?",
        "電話で予約できますか",
        "전화로 예약하고 싶어요",
        "please, can you resend the invoice",  # please and a request that is not a hand-off
        "thanks in advance! how do I add a second user?",  # thanks in advance, a new question
    ],
)
def test_a_request_that_is_no_hand_off_is_none(b: str) -> None:
    got = read(_BROKEN, b)
    assert ESCALATION not in got
    assert POSITIVE not in got


@pytest.mark.parametrize(
    "b",
    [
        "the export button doesn't work either, how do I send you the file?",
        "Der Drucker druckt nicht, wie bekomme ich einen neuen Toner?",
    ],
)
def test_a_complaint_about_something_else_inside_a_new_question_is_none(b: str) -> None:
    assert NEGATIVE not in read("how do I change my password", b)


@pytest.mark.parametrize(
    "b",
    [
        "再起動してもエラーが消えない",
        "設定を変えても通知が止まりません",
        "다시 설치해도 안 열려요",
        "로그아웃했는데도 알림이 안꺼짐",
    ],
)
def test_done_as_told_it_still_fails(b: str) -> None:
    """A concession ("even after I …") and a negation after it: the answer's steps failed."""
    assert NEGATIVE in read("how do I stop the notifications", b)


@pytest.mark.parametrize(
    "b",
    [
        "とても助かりました",
        "キャンセルしても返金されませんか",
        "지금 취소해도 괜찮아요",
        "취소해도 환불 안 되나요?",
    ],
)
def test_a_concession_asked_about_or_without_a_negation_is_none(b: str) -> None:
    assert NEGATIVE not in read("how do I stop the notifications", b)


@pytest.mark.parametrize(
    "b",
    [
        "the link you sent is dead",
        "der Link aus der Mail ist leider tot",
        "このリンク切れてます",
        "그 링크 깨졌어요",
        "那个链接已经失效了",
        "その番号つながりません",
        "이 번호 없는 번호예요",
    ],
)
def test_what_the_answer_gave_is_dead_or_not_there(b: str) -> None:
    assert NEGATIVE in read("where can I download the form", b)


@pytest.mark.parametrize(
    "b",
    [
        "is the link dead or is it my browser?",
        "그 번호 없나요?",
        "このリンク切れてますか",
    ],
)
def test_a_dead_link_asked_about_is_none(b: str) -> None:
    assert NEGATIVE not in read("where can I download the form", b)


def test_a_rhetorical_tag_is_no_question() -> None:
    """Japanese じゃないですか without a question mark asserts ("isn't it!"), it does not ask."""
    assert NEGATIVE in read("予約を変更したい", "ログインできないじゃないですか")
    assert NEGATIVE not in read("予約を変更したい", "違うんじゃないですか？")
    assert NEGATIVE not in read("予約を変更したい", "これで合ってますか")


@pytest.mark.parametrize(
    "b",
    [
        "你说的是周末，不是工作日",
        "你回答的是退款，不是换货。换货怎么办理",
        "你的答案有误",
        "说了等于没说",
    ],
)
def test_the_answer_corrected_or_faulted_in_chinese(b: str) -> None:
    assert NEGATIVE in read("换货怎么办理", b)


@pytest.mark.parametrize(
    "b",
    ["你说的是周末，不是工作日吗？", "我的账户有问题", "登录有问题，怎么办"],
)
def test_a_chinese_question_or_problem_of_ones_own_is_none(b: str) -> None:
    assert NEGATIVE not in read("换货怎么办理", b)


@pytest.mark.parametrize("b", ["ㄱㅅㄱㅅ", "thxthx", "네 해결됐어요 ㄳ", "확인했어요 ㄱㅅ"])
def test_thanks_said_twice_or_after_what_was_done(b: str) -> None:
    assert POSITIVE in read("환불은 어떻게 받나요", b)


@pytest.mark.parametrize("b", ["ㄱㅅㄱㅅ 근데 환불은 어떻게 해요?", "thxthx, and how do I export?"])
def test_such_thanks_before_a_new_question_are_none(b: str) -> None:
    assert POSITIVE not in read("환불은 어떻게 받나요", b)
