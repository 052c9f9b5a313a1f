"""The follow-up patterns a language's word lists compose (its TOML file's ``grammar`` table),
beside the phrases it lists whole.

A phrase list fits the phrasings it was written from; users say the same thing in other
words. So each language names its words by role, and the rules below put them together,
the same in every language:

* negative feedback: a negation next to a word of the answer's worth (``negators`` ×
  ``good``: "not helpful", "doesn't help me", "hilft mir nicht", "役に立ちません"), in either
  order within two words (``good_first``: the languages that negate after the verb), a
  verdict word (``bad``: "wrong", "useless") on its own or before a word for the answer
  (``answer``: "useless bot"; where adjectives follow their noun, ``copulas``, only after
  a verb "to be": "la respuesta es incorrecta", not "contraseña incorrecta"; a word of
  worth negated in one word, ``negating_prefix``: "nieprzydatne", "unhilfreich"; where
  ``verdict_forms`` says so, a form of a word of worth or of a verdict word: "no me
  respondes", "yaramıyorsun"), a bare no on
  its own (``no``: "no, …", not "no bot"), thanks for nothing (``worked`` ×
  ``for_nothing``), and the answer contradicted (``missing``: "there is no such button",
  "gibt es nicht", "genau andersrum"; a concession and a negation after it, ``despite``:
  "交換しても赤ランプが消えません"; a part of the product, ``parts``, and its absence,
  ``absent``, words between them: "die knop 'X' is er gewoon niet", "메뉴가 앱에 없어요"); a
  negation in a clause that asks "… or not" (``or_not``, read in ``signals``) is the
  question's;
* escalation: a request verb with a person, team or channel within three words
  (``request`` × ``persons``, in either order with ``person_first``), a wish for a person
  ("I want a live agent": ``want`` and at most two words of ``fillers`` before the person),
  a call asked for (``callback``), or a clause that is a person and polite words alone
  ("agent", "a human adviser please 🙏"), a channel before them (``channels``: "chat met
  een mens graag");
* positive feedback: a clause that opens with a word saying it worked or helped
  (``worked``: "works perfectly", "found it", "top, klappt").

Each rule reads one clause (the text between punctuation) that is not a question: it opens
with none of the language's question words (``questions``) and, for the two feedback
signals, does not end with a question mark; a complaint is also followed by no clause that
opens with a question word, question mark or not (where question words stay in place,
``wh_in_situ``: Chinese, Japanese, Korean, Turkish, one anywhere in it). The group ``v`` of
each complaint pattern is its verdict, without the words before it. A feedback clause may
open with up to four
words of its own before the verdict ("the tracking link doesn't work"), none of them the
user's own (``mine``: "my login doesn't work" is a question about the user's login).
Languages written without spaces (``spaced = false``) count characters instead of words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Final

_END: Final = r".,;:!?。、，！？…"
END: Final = _END  # the characters that end a clause
_START: Final = r"[\s¿¡]*"  # the start of a clause (Spanish opens one with ¿ or ¡): the
# patterns are matched at each (clauses)
_CLAUSE: Final = re.compile(rf"[{_END}]+\s*")
# the clauses of a turn read: a turn of more is a pasted text (and each clause read costs a
# pass over the rest of the turn: "a,a,a,…" took a second before this bound)
MAX_CLAUSES: Final = 8
_FORM: Final = 3  # letters a verdict word's form may add to it (five letters at least)
_GIVEN: Final = 2  # words more before a negation of worth than before other verdicts
_NOT_QUESTION: Final = rf"(?![^{_END}]*[?？])"  # a clause that does not end with "?"


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[int, ...]:
    """Where the first ``MAX_CLAUSES`` clauses of ``text`` start: at 0 and after each run
    of punctuation (kept: the patterns of a turn ask for it in turn)."""
    starts = [0]
    for m in _CLAUSE.finditer(text):
        if m.end() >= len(text) or len(starts) == MAX_CLAUSES:
            break
        starts.append(m.end())
    return tuple(starts)


def _alt(words: Sequence[str]) -> str:
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


class _Words:
    """One language's word roles as regular expressions, and how words are told apart."""

    def __init__(self, table: Mapping[str, object]) -> None:
        self.table = table
        spaced = bool(table.get("spaced", True))
        self.b = r"\b" if spaced else ""
        # a word (its parts joined by an apostrophe or a hyphen: "qu'un", "a-t-il") and the
        # space after it (or a sign that joins two words: "track & trace"); without spaces,
        # a character that is no punctuation (NFKC makes a full-width comma an ASCII one)
        self.word = r"[^\W_]+(?:['’-][^\W_]+)*[\s,&/+]+" if spaced else rf"[^\s{_END}]"
        self.width = 4 if spaced else 8

    def words(self, key: str, but: str | None = None) -> str | None:
        """The role's words as one alternation (less those of the role ``but``)."""
        got = self.table.get(key)
        if not got:
            return None
        assert isinstance(got, list)
        left = set(self.table.get(but) or ()) if but else set()  # type: ignore[call-overload]
        kept = [str(w) for w in got if w not in left]
        return _alt(kept) if kept else None

    def bounded(self, key: str, but: str | None = None) -> str | None:
        words = self.words(key, but)
        return None if words is None else f"{self.b}{words}{self.b}"

    def formed(self, key: str, but: str | None = None) -> str | None:
        """``bounded``, and, where the language's verdict words inflect (``verdict_forms``: the
        role, ``good``, whose words stand after a negation, or ``all``; not English, whose
        patterns read every turn), a word of five letters or more with up to three more
        after it, a form of it ("respondes" of "responde", "yaramıyorsun" of "yaramıyor")."""
        words, forms = self.words(key, but), self.table.get("verdict_forms")
        if words is None or not self.b or forms not in (key, "all"):
            return self.bounded(key, but)
        return rf"\b{words}(?:(?<=[^\W\d_]{{5}})[^\W\d_]{{1,{_FORM}}})?\b"

    def gap(self, n: int) -> str:
        return f"(?:{self.word}){{0,{n}}}?" if self.b else f"{self.word}{{0,{2 * n}}}?"

    def opening(self, but: str | None = None) -> str:
        """The start of a clause that opens with no question word (but those of ``but``)."""
        questions = self.bounded("questions", but)
        return _START + (f"(?!{questions})" if questions else "")

    def own(self, more: int = 0) -> str:
        """Up to four words (``more`` more) before a verdict, none of them the user's own nor a
        question word; the user's question is the answer's ("私の質問の答えになってない", ``asked``:
        my question, not my thing). Up to eight when the clause opens with the answer as
        its subject (``the_answer``: "svaret handlar om X och svarar inte på min fråga")."""
        mine, asked = self.bounded("mine"), self.bounded("asked")
        if mine and asked:
            mine = f"{mine}(?!\\W*{asked})"
        blocked = [w for w in (mine, self.bounded("questions")) if w]
        guard = f"(?!{'|'.join(blocked)})" if blocked else ""
        words = f"(?:{guard}{self.word}){{0,{self.width + more}}}?"
        subject = self.bounded("the_answer")
        if subject is None:
            return words
        longer = f"(?:{guard}{self.word}){{0,{2 * self.width}}}?"
        return f"(?:{subject}[\\s,]+{longer}|{words})"


def _not_question(table: Mapping[str, object], scope: str) -> str:
    """A clause (or, in a language whose ``question_scope`` is the turn, a turn) that does
    not end with a question mark nor with the language's ``question_end``."""
    end = table.get("question_end")
    mark = f"(?:[?？]|{end})" if end else "[?？]"
    if table.get("question_scope") == "turn" or scope == "turn":
        return f"(?!.*{mark})"
    return _NOT_QUESTION if not end else f"(?![^{_END}]*{mark})"


def negative(table: Mapping[str, object]) -> list[str]:
    """Negation × worth, a verdict word, the answer contradicted (see the module); the
    verdict itself, without the words before it, is the group ``v``. What makes the clause
    no complaint (``_no_question``) is looked at after the verdict, where a match is rare,
    not at each clause's start."""
    w = _Words(table)
    start, end = w.opening() + w.own(), _no_question(table)
    if table.get("question_end"):  # a question's ending may be on the verdict's word
        start = w.opening() + _not_question(table, "clause") + w.own()  # (잘못인가요)
    out: list[str] = []
    neg, good = w.bounded("negators"), w.formed("good")
    if neg and good:
        # an elided pronoun may stand on the verb ("vous m'aidez pas", "non m'aiuta")
        clitic = r"(?:[^\W\d_]{1,2}['’])?" if w.b else ""
        # what the answer gave may take more words ("le formulaire que vous m'avez donné
        # ne marche pas", "het retourlabel uit jullie mail werkt niet")
        given = w.opening() + w.own(_GIVEN) if w.b and not table.get("question_end") else start
        out.append(f"{given}(?P<v>{neg}\\s*{w.gap(2)}{clitic}{good}){end}")
        if table.get("good_first"):
            out.append(f"{given}(?P<v>{clitic}{good}\\s*{w.gap(2)}{neg}){end}")
    no = w.bounded("no")
    if no:  # a bare "no" only on its own: "no, …", not "no bot" (a human, not a bot)
        out.append(f"{start}(?P<v>{no})(?=\\s*+(?:$|[{_END}])){end}")
    bad = w.formed("bad", but="no")
    prefix, worth = w.words("negating_prefix"), w.words("good")
    if bad and prefix and worth and w.b:  # a word of worth negated in one word, where the
        # language writes it so: "nieprzydatne", "unbrauchbar", "onjuist"
        bad = f"(?:{bad}|\\b{prefix}{worth}\\b)"
    if bad:  # on its own, or on the answer ("useless bot"), never on a thing ("wrong card")
        answer = w.bounded("answer")
        after = rf"(?=\s*+(?:$|[{_END}]|[^\w\s]" + (f"|{answer}" if answer else "") + "))"
        copulas = w.bounded("copulas")
        # negated, it is none ("no está mal", "não é ruim": not bad)
        unsaid = (
            f"(?![^{_END}]*?{neg}\\s+" + (f"(?:{copulas}\\s+)?" if copulas else "") + f"{bad})"
            if neg
            else ""
        )
        if copulas:  # the verdict after its noun: only after a verb "to be" or the answer
            lead = f"(?:{w.own()}{copulas}\\s+)?" + (f"(?:{answer}\\s+){{0,2}}" if answer else "")
            out.append(f"{w.opening()}{unsaid}{lead}(?P<v>{bad}){after}{end}")
        else:
            out.append(f"{start}{unsaid}(?P<v>{bad}){after}{end}")
    worked, nothing = w.bounded("worked"), w.bounded("for_nothing")
    if worked and nothing:  # thanks for nothing: a polite word turned against the answer
        out.append(f"{w.opening()}(?P<v>{worked}\\W*{nothing}){end}")
    it_is = w.bounded("it_is")
    if it_is and neg and w.b:  # the answer corrected: "it is X, not Y" ("that's the weekday
        # schedule, not Saturday", "het is €9,95, niet €4,95"), nothing asked after it
        tail = rf"[^\w{_END}]*(?:[^\W_]+(?:[.,]\d+)?[^\w{_END}]*){{1,3}}$"  # "€4,95"
        fact = f"{it_is}\\s*[^?？]*?"
        out.append(f"{w.opening()}{fact}(?P<v>[,\\s]\\s*{neg}\\s*{tail})")
    elif it_is and neg:  # without spaces, the clause after it ("你回答的是贷款，不是提取。…")
        fact = f"{it_is}[^?？{_END}]*"
        out.append(
            f"{w.opening()}{_not_question(table, 'turn')}{fact}"
            f"(?P<v>[,，]\\s*{neg}[^{_END}]{{1,8}})(?=[{_END}]|$)"
        )
    still = w.bounded("still")
    if still:  # the problem the answer was to end goes on ("pfeift immer noch", "아직도 문자
        # 와요"), in a clause that asks nothing, wherever it stands in it
        questions = w.bounded("questions") if table.get("wh_in_situ") else None
        asks = f"(?![^{_END}]*{questions})" if questions else ""
        lead = f"(?:{w.word}){{0,{w.width}}}?" if w.b else f"[^{_END}]{{0,{w.width}}}?"
        out.append(f"{w.opening()}{asks}{lead}(?P<v>{still}){end}[^{_END}]*")
    despite = w.words("despite")
    if despite and neg:  # done as told, it still fails: a concession, then a negation in its
        # clause ("交換しても赤ランプが消えません", "그거 해도 안됨"), nothing asked
        questions = w.bounded("questions") if table.get("wh_in_situ") else None
        asks = f"(?![^{_END}]*{questions})" if questions else ""
        out.append(
            f"{w.opening()}{asks}{_not_question(table, 'turn')}[^{_END}]*?"
            f"(?P<v>{despite}[^{_END}]*?{w.b}{w.words('negators')})"  # "안됨": one word
        )
    parts, absent = w.bounded("parts"), w.words("absent")
    if parts and absent:  # a part of the product the answer named is not there, words
        # between them ("die knop 'X' is er gewoon niet", "アプリにそんなメニューないです",
        # "메뉴가 앱에 없어요")
        questions = w.bounded("questions") if table.get("wh_in_situ") else None
        asks = f"(?![^{_END}]*{questions})" if questions else ""
        between = f"[^{_END}]{{0,{32 if w.b else 4}}}?"
        out.append(
            f"{w.opening()}{asks}{_not_question(table, 'turn')}[^{_END}]*?"
            f"(?P<v>{parts}{between}{w.b}{absent})"
        )
    missing = w.words("missing")
    if missing:
        # where question words stay in place, none in the clause ("周日几点关门": when do
        # you close, not "you are closed")
        questions = w.bounded("questions") if table.get("wh_in_situ") else None
        asks = f"(?![^{_END}]*{questions})" if questions else ""
        out.append(
            f"{w.opening()}{asks}{_not_question(table, 'turn')}[^{_END}]*?(?P<v>{w.b}{missing})"
        )
    return out


def _no_question(table: Mapping[str, object]) -> str:
    """After a verdict, what makes its clause a complaint: the clause does not end with a
    question mark, and no later clause opens with a question word — a problem of the user's
    own and a question about it ("my card payment didn't work, what other methods …",
    "wrong item delivered, how do I send it back": users leave the question mark out)."""
    questions = _Words(table).bounded("questions")
    # where question words stay in place (Chinese, Japanese, Korean, Turkish), anywhere in
    # a later clause: "没成功，还有什么别的付款方式"
    within = f"[^{_END}]*?" if table.get("wh_in_situ") else r"\s*[¿¡]?"
    later = rf"(?!.*[{_END}]{within}{questions})" if questions else ""
    return _not_question(table, "clause") + later


def asked_after(table: Mapping[str, object]) -> str:
    """What must not follow a complaint the language lists whole (searched for, not matched
    at a clause's start): ``_no_question``. That its own clause opens with no question word
    is looked at where one matched (``asks``)."""
    return _no_question(table)


def escalation(table: Mapping[str, object]) -> list[str]:
    """A request × a person, a wish for a person, a call asked for, a person alone."""
    w = _Words(table)
    start = w.opening("asking")  # "est-ce que quelqu'un peut m'appeler" asks for a person
    lead = f"(?:{w.word}){{0,{2 * w.width}}}?"
    out: list[str] = []
    request, persons = w.bounded("request"), w.bounded("persons")
    if request and persons:
        out.append(f"{start}{lead}{request}\\W*{w.gap(4)}{persons}")
        if table.get("person_first"):
            out.append(f"{start}{lead}{persons}\\W*{w.gap(4)}{request}")
    want, fillers = w.bounded("want"), w.bounded("fillers")
    if want and persons:
        fill = f"(?:{fillers}\\s*){{0,3}}" if fillers else ""
        out.append(f"{start}{lead}{want}\\s*{fill}{persons}")
        that = w.bounded("that")  # "I want a person to do it", "quiero que una persona …"
        if that:
            out.append(f"{start}{lead}{want}\\W*{that}\\s*{w.gap(4)}{persons}")
    talk = w.bounded("talk_to")
    if talk:  # talk to, put through to: whoever is named after it is a person ("parlare
        # con la segreteria", "połączcie mnie z działem obsługi"), not the bot, not mine
        bot = "|".join(x for x in (w.bounded("answer"), w.bounded("mine")) if x)
        fill = f"(?:{fillers}\\s+){{0,3}}+" if fillers else ""
        out.append(f"{start}{lead}{talk}\\s+{fill}" + (f"(?!{bot})" if bot else "") + r"[^\W\d_]")
    heard = w.words("to_talk")
    if heard:  # the same where the verb comes last ("mit der Kitaleitung sprechen")
        out.append(f"{start}{lead}{w.b}{heard}")
    callback = w.words("callback")
    if callback:  # a call asked for, not refused ("I do not want to be called"); a
        # negation that asks "… or not" is the question's ("能不能给我回个电话")
        neg, either = w.bounded("negators"), w.bounded("or_not")
        step = f"(?!{neg}){w.word}" if neg else w.word
        if neg and either:
            step = f"{either}|{step}"
        unsaid = f"(?:{step}){{0,{2 * w.width}}}?"
        out.append(f"{start}{unsaid}{w.b}{callback}")
    if persons:  # a person and polite words alone: "agent", "a human adviser please 🙏", a
        # channel before them ("Chat mit einem Mitarbeiter bitte": ``channels``)
        gap = rf"[^\w{_END}]*+"  # spaces and emoji, not a clause's end
        before = "|".join(x for x in (fillers, w.bounded("channels")) if x)
        pre = f"(?:(?:{before}){gap}){{0,3}}" if before else ""
        post = f"(?:{gap}{fillers}){{0,3}}" if fillers else ""
        out.append(f"{_START}{pre}{persons}(?:{gap}{persons})?{post}{gap}(?:$|(?=[{_END}]))")
    return out


def positive(table: Mapping[str, object]) -> list[str]:
    """A clause that opens by saying it worked or helped (thanks among them)."""
    w = _Words(table)
    worked = w.bounded("worked")
    if not worked:
        return []
    if w.b:  # its last letter typed twice or more ("graziee", "dankjewell")
        listed = [str(x) for x in table["worked"]]  # type: ignore[attr-defined]
        # and said twice without a space ("ㄱㅅㄱㅅ", "thxthx")
        worked = rf"\b{_alt([_held(x) for x in listed])}+\b"
    # before it, fillers and the words that make thanks formal (``thanks_lead``: "hartelijk
    # dank", "herzlichen Dank", "je vous remercie", "la ringrazio")
    leads = [x for x in (w.bounded("fillers"), w.bounded("thanks_lead")) if x]
    lead = f"(?:(?:{'|'.join(leads)})\\W*+){{0,2}}" if leads else ""
    # and at most two words after it in its clause: "works perfectly", not "works the app
    # offline" (a question typed without its mark); after thanks, what they are for
    # (``thanks_for``: "danke für die schnelle hilfe", three words more, behind one word
    # that says how much: "la ringrazio molto per la disponibilità")
    rest = rf"[^\w{_END}]*+"
    word = r"[^\W_]+(?:'[^\W_]+)?"  # "j'ai trouvé": two words
    tail = rf"(?:{rest}{word}){{0,2}}{rest}" if w.b else rf"[^{_END}]{{0,8}}"
    thanks_for = w.bounded("thanks_for")
    if thanks_for and w.b:
        tail = rf"(?:(?:{rest}{word})?{rest}{thanks_for}(?:{rest}{word}){{1,3}}{rest}|{tail})"
    end = rf"(?:$|(?=[{_END}]))"
    out = [f"{w.opening()}{_not_question(table, 'clause')}{lead}{worked}{tail}{end}"]
    # where the verb comes last, what is thanked for stands before the thanks, one or two
    # words (``thanked_last``: "친절한 안내 감사드립니다", kind guidance, thank you)
    last = w.bounded("thanked_last")
    if last and w.b:
        thing = rf"(?:{word}{rest}){{1,2}}"
        out.append(f"{w.opening()}{_not_question(table, 'clause')}{thing}{last}{rest}{end}")
    return out


def _held(word: str) -> str:
    """A word of ``worked`` with its last letter typed once or more ("graziee"), when it
    ends with a letter (not with an expression's class or escape)."""
    if word[-1:].isalpha() and word[-2:-1] != "\\":
        return word + "+"
    return word


def asks(table: Mapping[str, object]) -> str:
    """A clause that opens with one of the language's question words (where they stay in
    place, ``wh_in_situ``: that holds one anywhere)."""
    within = f"[^{_END}]*?" if table.get("wh_in_situ") else r"\s*[¿¡]?"
    return rf"[^\w{_END}]*[{_END}]*{within}{_Words(table).bounded('questions')}"


def or_not(table: Mapping[str, object]) -> str | None:
    """The language's "… or not" ("yes or no", "oder nicht"): a negation in a clause with one
    of these is the question's, not a verdict on the answer."""
    return _Words(table).bounded("or_not")


def others(table: Mapping[str, object]) -> str | None:
    """The language's words for another one ("other", "andere", "其他"): a question that
    asks about another one is not the question asked again."""
    return _Words(table).bounded("others")


def prices(table: Mapping[str, object]) -> str | None:
    """The language's words that ask for a price ("how much", "kostet", "多少钱"): a
    question that asks what a thing costs where the other asked whether it is there or
    how it is done is another question ("are there cabins for pets" / "how much is the
    cabin for pets")."""
    return _Words(table).bounded("prices")


def amounts(table: Mapping[str, object]) -> str | None:
    """The language's words that ask how much ("how much", "quanto", "ne kadar"): of a
    price or of anything else ("how much luggage"), so a turn with one may ask a price."""
    return _Words(table).bounded("amounts")


def features(table: Mapping[str, object]) -> str | None:
    """The language's words for a part of the product ("button", "settings", "widget",
    "included"): a request for a call or a chat in a clause with one of these is about the
    feature ("where is the callback button"), not for a person."""
    return _Words(table).bounded("features")


def in_advance(table: Mapping[str, object]) -> str | None:
    """The language's thanks for an answer not given yet ("thanks in advance"): a thank-you
    with one of these words is not feedback."""
    return _Words(table).words("in_advance")


def composed(table: Mapping[str, object]) -> dict[str, list[str]]:
    """The patterns one language's ``grammar`` table composes, per signal kind."""
    return {
        "escalation": escalation(table),
        "negative": negative(table),
        "positive": positive(table),
    }
