"""Korean words by their stems, for ``rephrase``: a Korean word (an eojeol) is a stem with
its particles and endings run on ("쿠폰이", "끄는", "끄기", "맡길", "신청할", "틀렸습니다"),
so the same question asked in other forms ("알림 문자 끄는 법은요?" / "알림 문자 끄기",
"쿠폰이 적용이 안 되는데" / "쿠폰 적용 안 돼요") shares few character pairs but the
same stems.

``stem`` cuts a word's particles and endings off its end, the longest first, twice at
most, keeping one syllable at least; ``same`` also reads two stems alike whose last
syllables differ only in their final consonant (a modifier's or a noun form's "ㄹ", "ㄴ",
"ㅁ": "맡길" / "맡기", "나감" / "나가"). The lists are Korean's grammar (its case particles
and verb endings), not words of any question.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

HANGUL = re.compile(r"[\uac00-\ud7a3]")
_SYLLABLES = 0xAC00  # the first hangul syllable; each is (initial * 21 + medial) * 28 + final
_FINALS = 28

# case and other particles, then verb endings (polite, questions, nominal, linking,
# modifiers), written as they run on a stem
_PARTICLES = (
    "이 가 은 는 을 를 에 에서 에게 한테 께 께서 의 도 로 으로 와 과 랑 이랑 하고 만 까지 부터 "
    "보다 처럼 이나 나 라고 이라고 이요"
)
_ENDINGS = (
    "기 음 임 함 요 고 게 지 죠 지요 다 다고 라고 냐 냐고 냐구요 다구요 는데 은데 던데 는지 은지 "
    "는지요 은지요 나요 가요 까요 을까요 세요 으세요 어요 아요 여요 해요 해 했 했어요 했는데 "
    "하다 하는 하는데 하나요 하면 하려면 려면 으려면 면 으면 할 한 합니다 습니다 ㅂ니다 니다 "
    "어서 아서 해서 서 다가 네요 군요 거든요 건요 "
    "됨 되 돼 됐 돼요 됐어요 되나요 됐나요 되는데 됐는데 되면 되려면"
)
# nouns a question asks how or whether with ("끄는 법", "방법", "하는 건요"): they name no thing
_HOW = frozenset({"법", "방법", "건", "것", "거"})
_SUFFIXES = tuple(sorted({*_PARTICLES.split(), *_ENDINGS.split()}, key=len, reverse=True))
_WHOLE = frozenset(_SUFFIXES)
_ROUNDS = 2  # endings cut off a word at most ("법은요": one; "되는데요": two)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """``word`` less the particles and endings run on its end (one syllable kept)."""
    cut = ""
    for _ in range(_ROUNDS):
        for suffix in _SUFFIXES:
            if len(word) > len(suffix) and word.endswith(suffix) and suffix != cut:
                word, cut = word[: -len(suffix)], suffix  # not twice: "맡기기" is "맡기"
                break
        else:
            break
    return word


# a stem's last vowel and the vowel it makes with an ending's "어"/"아" run on it ("되" +
# "어요": "돼요", "쓰" / "써", "주" / "줘"), by the medials' places in the syllable table
_CONTRACTED = frozenset({(11, 10), (18, 4), (20, 6), (8, 9), (13, 14), (0, 0), (4, 4)})
_MEDIALS = 21


def _open(syllable: str) -> int:
    """A hangul syllable without its final consonant (its initial and medial), or -1."""
    code = ord(syllable) - _SYLLABLES
    return code // _FINALS if 0 <= code < 11172 else -1


def same(x: str, y: str) -> bool:
    """Whether two stems are one: equal, or the same but for the last syllable's final
    consonant ("맡길" / "맡기", "나감" / "나가") or for its vowel contracted with an
    ending ("되" / "돼", "쓰" / "써")."""
    if x == y:
        return True
    if len(x) != len(y) or x[:-1] != y[:-1]:
        return False
    p, q = _open(x[-1]), _open(y[-1])
    if p == -1 or q == -1:
        return False
    if p == q:
        return True
    # a vowel contracted with an ending, the syllables without a final consonant
    closed = (ord(x[-1]) - _SYLLABLES) % _FINALS or (ord(y[-1]) - _SYLLABLES) % _FINALS
    if closed or p // _MEDIALS != q // _MEDIALS:
        return False
    pair = (p % _MEDIALS, q % _MEDIALS)
    return pair in _CONTRACTED or pair[::-1] in _CONTRACTED


def stems(words: list[str], stop: frozenset[str]) -> list[str]:
    """The stems of a turn's words that say what it asks about (a word or its stem among
    ``stop``, a language's words that only say how it is asked, left out; a word in another
    script kept whole: "20gb", "esim")."""
    out = []
    for word in words:
        if word in stop or word in _WHOLE:
            continue  # a particle typed apart ("…"라고): no word
        s = stem(word) if HANGUL.search(word) else word
        if s not in stop and s not in _HOW:
            out.append(s)
    return out


def shared(earlier: list[str], later: list[str]) -> tuple[int, int]:
    """How many of ``later``'s stems are ``earlier``'s (``same``), and how many of
    ``earlier``'s they keep, each counted once; a stem that is two of ``earlier``'s in a row
    typed together ("수강기간" for "수강 기간") keeps both (a stem typed twice is one stem,
    left once: "esim esim" is no two to keep in "esimesim")."""
    left = list(dict.fromkeys(earlier))
    joined = {x + y: (x, y) for x, y in pairwise(earlier) if x != y}
    found = kept = 0
    for word in dict.fromkeys(later):
        match = next((w for w in left if same(word, w)), None)
        if match is not None:
            left.remove(match)
            found, kept = found + 1, kept + 1
        elif (parts := joined.get(word)) is not None and all(w in left for w in parts):
            for w in parts:
                left.remove(w)
            found, kept = found + 1, kept + 2
    return found, kept
