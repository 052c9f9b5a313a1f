"""Rephrase in Chinese, Japanese and Korean by characters (issue 74): a question cut to a
few characters, asked again in full with words of its own around every one of them (a
name, "I ask again", a narrower word before the thing), is the same question; beside it
the hard negatives that keep the rule from reading too much: the same thing with another
question about it named after it, a thing swapped, the opposite asked, a verdict that
names the thing. Each case written here (not taken from a labelled set)."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Chinese: a name and "I ask again" before the fragment's characters
        ("退款怎么申请", "我再问一次，星河商城的退款到底怎么申请？"),
        ("会员怎么续费", "星河视频的年度会员在哪里续费？？"),
        # Japanese: a name and a narrower word before, the question asked around it
        ("請求書どこ", "ミドリ電気の今月の請求書はどこで見られますか？"),
        # Korean: "두달" typed "두 달", endings and a name around the words
        ("멤버십 두달 일시정지", "다시 여쭤볼게요. 멤버십 두 달 일시정지하려면 어떻게 하나요?"),
        ("환불 어디서", "별빛쇼핑 환불은 어디서 하냐구요"),
    ],
)
def test_a_fragment_asked_in_full_around_its_characters_is_a_rephrase(a: str, b: str) -> None:
    """A short, every character of A in B, B asks, nothing new named after A's last."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same thing, another question about it named after it (how much space)
        ("怎么备份照片", "备份的照片占多少存储空间？"),
        ("請求書どこ", "請求書の金額が違うのはなぜですか"),
        # one thing swapped for another in the same place (pick up / return)
        ("怎么异地还车", "怎么异地取车？"),
        # the opposite asked
        ("怎么开启通知", "怎么开启后再关闭通知？"),
        ("連携方法", "連携を解除する方法はどこですか？"),
        # a verdict that names the thing and asks nothing
        ("学生割引ありますか", "違います、サイトには学生割引があると書いてあります"),
        ("요금제 변경", "틀렸어요, 요금제 변경 메뉴가 앱에 없어요"),
    ],
)
def test_a_fragment_followed_by_another_question_is_no_rephrase(a: str, b: str) -> None:
    """Hard negatives: B holds A's characters but asks something else, or nothing."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a name in katakana is one word, not one character each, against the cut turn
        (
            "ヒマワリオンラインストアの注文を取り消したいのですが、どうすればいいですか？",
            "取消方法",
        ),
        # long with its polite end, short without it
        (
            "안녕하세요. 하나로카드에서 이용대금명세서를 재발급받으려면 "
            "어떤 절차가 필요한지 여쭙고 싶습니다.",
            "이용대금명세서 재발급 절차 알려주세요",
        ),
    ],
)
def test_a_question_cut_to_its_characters_is_a_rephrase(a: str, b: str) -> None:
    """Every character of B is A's, and enough of A's, a katakana word counted once and B
    measured without its stop and meta words."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # cut to the thing, with a question word of its own: how long, until when
        ("年間プランの解約はできますか？", "解約までどのくらいかかりますか？"),
        ("ヒマワリオンラインストアで返品できますか？", "返品はいつまでですか"),
        ("サクラモバイルで端末の下取りはできますか？", "下取りはいつまでですか"),
    ],
)
def test_a_cut_question_with_a_question_word_of_its_own_is_no_rephrase(a: str, b: str) -> None:
    """Hard negatives: B keeps A's thing but asks another question about it."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b", "again"),
    [
        # "어디서" (where) is a question word whole, not "어디" and a "서" of B's own
        ("멤버십 등급 변경하고 싶어요!!", "등급 변경 어디서", True),
        ("체크카드 비밀번호 변경하고 싶어요", "비밀번호 변경 어디서", True),
        # the same question word, another thing done (cancel, not change)
        ("멤버십 등급 변경하고 싶어요", "등급 해지 어디서", False),
    ],
)
def test_a_question_word_written_without_spaces_asks_about_nothing(
    a: str, b: str, again: bool
) -> None:
    """A question word in a script without spaces is left out whole."""
    assert ("rephrase" in read(a, b)) is again
