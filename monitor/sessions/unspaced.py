"""How a question written without spaces (Chinese, Japanese, Korean) is read by its
characters, for ``rephrase``: which characters of the earlier question a later turn keeps
(``held``), a verb asked again as a compound of its kanji (``verbal``), and the guards that
tell another thing named in the place of one (``replaced``, ``swapped_between``)."""

from __future__ import annotations

import re
from functools import lru_cache

from monitor.sessions.words import _KANA, _PAIRED, _first_language, _next_question, _Turn

_SHORT = 16  # characters of a turn written without spaces that may be a question cut short
_CUT = 0.35  # of A's characters a short turn written without spaces keeps, at least

_KANJI = "\u3400-\u9fff\uf900-\ufaff"
# a kanji written as a verb, its ending in hiragana after it ("変える", "止められ"); not a
# particle after a noun ("自宅に", "方法を")
_VERB = re.compile(f"([{_KANJI}])(?![はがをにでとのもへやかよね])[\u3041-\u3093]")
_COMPOUND = re.compile(f"[{_KANJI}]{{2,}}")


def verbal(a: str, b: str, chars_a: frozenset[str], chars_b: frozenset[str]) -> frozenset[str]:
    """B's characters less those that, in Japanese, make a verb A wrote with its kana ending
    a compound of two kanji ("変えられますか" -> "変更", "止められますか" -> "停止": the
    same verb read the Chinese way, its other kanji no thing of B's own); ``chars_b``
    itself when there are none."""
    own = chars_b - chars_a
    if not own:
        return chars_b
    verbs = set(_VERB.findall(a))
    if not verbs:
        return chars_b
    made = {
        c
        for m in _COMPOUND.finditer(b)
        for i, c in enumerate(m[0])
        if c in own and {m[0][i - 1 : i], m[0][i + 1 : i + 2]} & verbs
    }
    return chars_b - made if made else chars_b


def held(a: _Turn, b: _Turn, chars_a: frozenset[str], chars_b: frozenset[str]) -> bool:
    """Whether, written without spaces, B keeps what A asked by its characters (``rephrase``
    reads the pairs first): all of B's are A's, and three in five of A's, or, a short turn,
    cut to some of them ("サブスク 解約", "androidアプリどこ"); or A is a question cut to
    its words and B asks it in full around every character of it (``_asked_around``)."""
    if chars_b <= chars_a and (len(chars_b) >= 0.6 * len(chars_a) or _cut(a, b, chars_a, chars_b)):
        return True
    return _asked_around(a, b, chars_a, chars_b)


# a word of katakana (a loanword or a name: "ハコブネ"), read as one of A's characters when
# a turn cut short is measured against A
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")


def _cut(a: _Turn, b: _Turn, chars_a: frozenset[str], chars_b: frozenset[str]) -> bool:
    """Whether B, every character of it A's, is A cut to some of them: short (``_SHORT``
    characters) and keeping ``_CUT`` of A's characters at least ("サブスク 解約",
    "androidアプリどこ"). Or so measured without B's stop and meta words ("잔액증명서 발급
    절차 알려주세요") and with a word of katakana, a loanword or a name, as one of A's
    characters ("ハコブネの荷物を返品したい…" -> "返品方法"), when B asks with no question
    word A had none of: another question about the same thing ("年間プランの返金はできますか"
    -> "返金までどのくらいかかりますか")."""
    if len(b.text) <= _SHORT and len(chars_b) >= max(2, _CUT * len(chars_a)):
        return True
    if len(b.text) > _SHORT:
        lang = _first_language(a, b)
        if lang.unspaced is None or len(lang.unspaced.sub("", b.text)) > _SHORT:
            return False
    in_a = len(chars_a) - sum(len(set(w)) - 1 for w in _KATAKANA.findall(a.text))
    if len(chars_b) < max(2, _CUT * in_a):
        return False
    asks = _next_question()[1]
    return asks.search(b.text) is None or asks.search(a.text) is not None


# two characters in a row of Chinese script or katakana: a thing named (hangul, which also
# writes Korean's endings, and hiragana, Japanese grammar, aside)
_NAMED = re.compile(r"[\u30a1-\u30fa\u3400-\u9fff\uf900-\ufaff]{2}")
_SWAP = re.compile(r"(?=([\u30a1-\u30fa\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]{3}))")


def _asked_around(a: _Turn, b: _Turn, chars_a: frozenset[str], chars_b: frozenset[str]) -> bool:
    """Whether B asks in full, with words of its own around them, what A asked cut to a few
    characters ("发票怎么开" -> "行程发票在哪里开？？", "해지 어디서" -> "하늘모바일 해지는
    어디서 하냐구요", "회원권 두달 정지 방법" -> "다시 물어볼게요. 회원권 두 달 정지하려면
    어떻게 해야 하나요?"): A is short (``_SHORT``) with two characters at least, every one
    of them in B, B asks (a question mark or a question word) and names nothing new after
    the last of A's characters: a question about the same thing that moves on names what
    it moves to there ("怎么下载课程" -> "下载的课程占多少空间"), as does one that swaps a
    thing ("还车" -> "取车"); a verdict that names A's thing asks nothing ("学割はありますか"
    -> "違いますよ、FAQには学割があると書いてあります")."""
    if len(a.text) > _SHORT or len(chars_a) < 2 or not chars_a <= chars_b:
        return False
    if "?" not in b.text and "？" not in b.text and _next_question()[1].search(b.text) is None:
        return False
    after = b.text[max(b.text.rfind(c) for c in chars_a) + 1 :]
    if any(m[0][0] not in chars_a and m[0][1] not in chars_a for m in _NAMED.finditer(after)):
        return False
    return not swapped_between(a.text, b.text)


def swapped_between(a: str, b: str) -> bool:
    """Whether B has a character of its own (Chinese script, katakana, hangul) where A has
    another between the same two (异地还车 -> 异地取车; a stop word to the content words,
    such as 还, is still a character in its place)."""
    for m in _SWAP.finditer(b):
        left, own, right = m[1][0], m[1][1], m[1][2]
        if own in a:
            continue
        i = a.find(left)
        while 0 <= i < len(a) - 2:  # (A's character between is not B's: B's is none of A's)
            if a[i + 2] == right:
                return True
            i = a.find(left, i + 1)
    return False


def replaced(ca: frozenset[str], cb: frozenset[str]) -> bool:
    """Whether a question written without spaces names another thing in the place of one
    (手机号 -> 邮箱, 포인트 -> 쿠폰): a character pair of each that shares no character
    with the other question (hiragana, grammar, aside)."""
    in_a, in_b = characters(ca), characters(cb)

    def foreign(pairs: frozenset[str], other: frozenset[str]) -> bool:
        return any(
            not p.isascii() and not _KANA.fullmatch(p) and other.isdisjoint(p) for p in pairs
        )

    return foreign(cb - ca, in_a) and foreign(ca - cb, in_b)


@lru_cache(maxsize=1024)
def characters(pairs: frozenset[str]) -> frozenset[str]:
    """The characters of a question's character pairs, hiragana aside (Japanese grammar:
    particles, verb endings), and its words in other scripts whole ("csv")."""
    out: set[str] = set()
    for pair in pairs:
        if pair.isascii() or not _PAIRED.fullmatch(pair):
            out.add(pair)
        else:
            out.update(c for c in pair if not _KANA.fullmatch(c))
    return frozenset(out)


# a next question written without spaces cut to what it moves to, by its end: Korean "…는요?"
# / "…은요?" / "… 건요?" (and …?), Chinese "…呢？" (and …?), Japanese "…は？" (as for …?)
_WHAT_ABOUT = re.compile(r"(?:[는은]요|건요|呢|は)\W*$")
_OWN = 6  # characters of its own at most that B spells such a question out with


def spelled_out(a: _Turn, b: _Turn, chars_a: frozenset[str], chars_b: frozenset[str]) -> bool:
    """Whether A, written without spaces, is a next question cut to what it moves to
    ("자동이체 해지는요?", "周六呢？", "じゃあ下げるには？": an opener before it or such an
    end after it), its question the turn's before it, and B asks it again spelled out as
    keywords: short (``_SHORT`` characters), every character of A's, and ``_OWN`` of its
    own at most, the earlier question's ("도시가스 자동이체 해지", "周六 疫苗 预约",
    "限度額 下げる"); B itself no next question, nor one that asks with a question word A
    has none of: another question about the thing ("寄到澳门呢？" -> "寄澳门运费多少？")."""
    if len(b.text) > _SHORT or len(a.text) > _SHORT or not chars_a <= chars_b:
        return False
    openers, asks = _next_question()
    if openers.match(b.text) or not (openers.match(a.text) or _WHAT_ABOUT.search(a.text)):
        return False
    if asks.search(b.text) is not None and asks.search(a.text) is None:
        return False
    return len(chars_b - chars_a) <= _OWN
