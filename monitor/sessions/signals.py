"""What a user's next turn says about the answer before it, model-free.

For a pair of consecutive turns (A, B) of one conversation, ``read`` returns the signals B
carries, in ``SIGNALS`` order:

* ``rephrase`` — B asks again for what A asked: the same words (an exact repeat, cases,
  punctuation and emoji aside), a part of them, or a rewording that keeps what was asked
  about. What a question is *about* is its content words: the words left when the words
  that only say *how* something is asked (question words, "cost", "price", "explain",
  pronouns, auxiliaries — the language's stop words and ``generic`` list) are dropped,
  stemmed (Snowball) or, in Chinese, Japanese and Korean, as character pairs. B is a
  rephrase when every content word of B was in A and it keeps at least half of A's, or
  when it keeps three in five of A's and adds at most one in four of its own, whole or in
  a run of its clauses that asks ("hola?? <the question>"), or when A was a fragment of a
  few words and B asks it in full with one word more ("battery stats?" -> "where do i
  see battery stats"); never when B opens as a next question and names something new
  ("and for the Team plan?", ``openers``), asks about another one ("what other methods",
  ``others``), the opposite (``antonyms``), or a price where A asked something else
  (``prices``, ``amounts``: "do you ship to Canada" / "how much is shipping to Canada").
* ``escalation`` — B asks for a person: a human, an agent, a call back, live chat. Asking
  *how* to contact support is a question, not an escalation: the patterns name a person.
* ``negative_feedback`` — B says A was wrong, useless, not what was asked, did not work.
  The patterns need the answer as their subject ("that is wrong", "it didn't work"), so
  "what's wrong with my invoice?" is a question.
* ``positive_feedback`` — B thanks or says it worked, and asks nothing more: a thank-you
  followed by a question, or by more than four words of its own, is a new question.
  Negative feedback wins over a polite word ("thanks for nothing").

The patterns are data: one TOML file per language in ``languages/`` (the languages the
refusal check covers, and Swedish), each with ``escalation``, ``negative`` and ``positive``
(lists of regular expressions, matched against the lower-cased turn with whitespace
collapsed), ``openers`` (one regular expression), ``generic`` (words), ``accents_fold``
(false where accented letters are letters of their own) and its word roles
(``grammar``: see ``grammar.py``). Every language's patterns run
on every turn: users switch language and type English words into others ("human pls").
"""

from __future__ import annotations

import operator
import re
from functools import cache, lru_cache
from typing import Final

import ahocorasick

from monitor.core.model import FOLLOWUP_SIGNALS
from monitor.sessions import grammar, matching, reported
from monitor.sessions.rephrase import _alike, _asked_again, is_rephrase
from monitor.sessions.words import (
    _CLAUSE_END,
    _FLAGS,
    _KANA,
    Gated,
    Language,
    _by_code,
    _content_of,
    _first_language,
    _next_question,
    _prepared,
    _ranked,
    _tally,
    _Turn,
    content,
    languages,
)

SIGNALS: Final = FOLLOWUP_SIGNALS  # named once, in the model: lines, metrics, explain read it
REPHRASE, ESCALATION, NEGATIVE, POSITIVE = SIGNALS

_FEW_WORDS = 3  # a turn this short is read by every language's patterns
_MAX_OWN_WORDS = 4  # a thank-you with more words of its own says something else too
_MAX_CODES = 1024  # language tuples whose codes (``_key``) and unions (``_with``) are kept
_MORE_THANKS = 2  # the other thanks of a thank-you taken out before its own words are counted
_STEM = 4  # a word that begins with a verdict word this long at least is a form of it

_KINDS = 3  # escalation, negative, positive: their places in ``_gated``
_SECOND = operator.itemgetter(1)
Opened = frozenset[tuple[str, int, int]]  # (language, kind, the pattern's place)


def _gated(lang: Language, kind: int) -> tuple[Gated, ...]:
    return (lang.escalation, lang.negative, lang.positive)[kind]


@cache
def _automaton() -> ahocorasick.Automaton:
    """Every gate's literals, found in one pass over a turn; each found literal says which
    patterns (language, kind, place) it opens."""
    owners: dict[str, set[tuple[str, int, int]]] = {}
    for lang in languages():
        for kind in range(_KINDS):
            for i, gated in enumerate(_gated(lang, kind)):
                for cue in gated.cues or ():
                    owners.setdefault(cue, set()).add((lang.code, kind, i))
    found = ahocorasick.Automaton()
    for cue, opens in owners.items():
        found.add_word(cue, frozenset(opens))
    found.make_automaton()
    return found


@cache
def _ungated() -> Opened:
    """The patterns without a gate (none today: a test holds it), which always run."""
    return frozenset((lang.code, kind, i) for lang in languages() for kind in range(_KINDS)
                     for i, g in enumerate(_gated(lang, kind)) if g.cues is None)  # fmt: skip


_Plan = tuple[dict[str, tuple[int, ...]], ...]  # per kind: language -> the opened places


def _by_pattern(open_: Opened) -> _Plan:
    """``open_`` per kind: language -> the opened patterns' places, in order."""
    out: tuple[dict[str, list[int]], ...] = tuple({} for _ in range(_KINDS))
    for code, kind, i in open_:
        out[kind].setdefault(code, []).append(i)
    return tuple({code: tuple(sorted(places)) for code, places in by_code.items()}
                 for by_code in out)  # fmt: skip


@lru_cache(maxsize=4096)
def _plan_of(found: frozenset[Opened]) -> _Plan | None:
    """The patterns to run when the gates' literals found in a turn open ``found`` (one set
    per literal found), per kind; None when none opened. Kept: the same literals recur in
    many turns."""
    open_ = _ungated().union(*found)
    return _by_pattern(open_) if open_ else None


def _plan(text: str) -> _Plan | None:
    """The patterns the gates' literals found in ``text`` open, per kind (``_plan_of``)."""
    return _plan_of(frozenset(map(_SECOND, _automaton().iter(text))))


def _any(
    text: str,
    kind: int,
    langs: tuple[Language, ...],
    open_: _Plan | None,
) -> re.Match[str] | None:
    """The first match of a ``kind`` pattern of ``langs`` in ``text``: of the first language
    with one, the leftmost (the first pattern's on a tie), as the patterns joined in one
    alternation would find it. A pattern runs only when a literal it requires opened it
    (``open_``, from ``_by_pattern``; None: every pattern runs, the reference the gates are
    tested against)."""
    opened_here = open_[kind] if open_ is not None else None
    if opened_here is not None:
        if not opened_here:
            return None  # no pattern of this kind opened, in any language
        if langs is languages():  # every language: the opened ones alone, in their order
            rank = _rank()
            langs = tuple(_by_code()[c] for c in sorted(opened_here, key=rank.__getitem__))
    for lang in langs:
        places: tuple[int, ...] | None
        if opened_here is None:
            places = tuple(range(len(_gated(lang, kind))))
        else:
            places = opened_here.get(lang.code)
            if places is None:
                continue
        searched, clause, asks = _joined(lang.code, kind, places)
        best = _at_clause(clause, text) if clause is not None else None
        if searched is not None:
            m = searched.search(text)
            while m is not None and asks is not None:  # a complaint's clause: no question
                opened = max(s for s in grammar.clauses(text) if s <= m.start())
                if not asks.match(text, opened):  # "why does … not work" asks
                    break
                m = searched.search(text, m.start() + 1)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        if best is not None:
            return best
    return None


Joined = tuple[re.Pattern[str] | None, re.Pattern[str] | None, re.Pattern[str] | None]


@lru_cache(maxsize=4096)
def _joined(code: str, kind: int, places: tuple[int, ...]) -> Joined:
    """A language's opened patterns of a kind joined: the searched ones in one alternation,
    the clause ones in another (the leftmost match, the first pattern's on a tie, as each
    run alone and the leftmost kept: one attempt where there were as many as patterns), and
    the question words a searched complaint's clause must not open with. Kept: few sets of
    opened patterns recur."""
    gates = _gated(_by_code()[code], kind)
    searched = [gates[i] for i in places if not gates[i].clause]
    clause = [gates[i] for i in places if gates[i].clause]
    asks = next((g.asks for g in searched if g.asks is not None), None)
    return _join(searched), _join(clause), asks


def _join(gates: list[Gated]) -> re.Pattern[str] | None:
    """Patterns in one alternation, each one's verdict group named apart (``v0``, ``v1``)."""
    if len(gates) <= 1:
        return gates[0].pattern if gates else None
    parts = (g.pattern.pattern.replace("(?P<v>", f"(?P<v{j}>") for j, g in enumerate(gates))
    return re.compile("|".join(f"(?:{p})" for p in parts), _FLAGS)


def _verdict(match: re.Match[str]) -> tuple[int, int]:
    """Where a complaint's verdict is in its match (its ``v`` group), else the match."""
    for name in match.re.groupindex:
        if name[0] == "v" and match.start(name) >= 0:
            return match.span(name)
    return match.span()


@cache
def _rank() -> dict[str, int]:
    """Each language's place in ``languages()``."""
    return {lang.code: i for i, lang in enumerate(languages())}


def _at_clause(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of ``pattern`` at the start of a clause of ``text``."""
    for start in grammar.clauses(text):
        if (m := pattern.match(text, start)) is not None:
            return m
    return None


def _speakers(a: _Turn, b: _Turn) -> tuple[Language, ...]:
    """The languages whose patterns read B: English (typed into any other: "human pls") and
    every language whose stop words B uses most (all of them on a tie), and those of the
    two turns together (a short B's words may be another language's too: "me transfere pro
    sac" reads as Spanish alone); every language when nothing in B tells ("humano", an
    emoji)."""
    if len(b.words) <= _FEW_WORDS and not b.unspaced:
        return languages()  # "thx", "grx!", "show obg": too few words to tell
    if b.unspaced:
        return _tally(b.text, b.counts, b.unspaced)[1]
    own = _near(b.counts)
    if not any(a.counts):  # A tells no language ("", a first turn)
        return own
    return _with(own, _near(tuple(map(operator.add, a.counts, b.counts))))


@lru_cache(maxsize=8192)
def _near(counts: tuple[int, ...]) -> tuple[Language, ...]:
    """``_ranked``'s languages of the two turns together and those one stop word short of
    the most (close languages share many: Portuguese read as Spanish by one more 'me',
    'por' or 'que' of theirs, "me transfere pro atendimento")."""
    top = max(counts)
    if top < 2:
        return _ranked(counts)[1]
    langs = languages()
    near = tuple(lang for lang, n in zip(langs, counts, strict=True) if n >= top - 1)
    return near if near[0] is langs[0] else (langs[0], *near)


def _with(own: tuple[Language, ...], more: tuple[Language, ...]) -> tuple[Language, ...]:
    """``own`` and then the languages of ``more`` it lacks (kept by the two tuples' ids,
    with the tuples: few pairs of them recur)."""
    if more is own:
        return own
    known = _JOINED.get((id(own), id(more)))
    if known is not None and known[0] is own and known[1] is more:
        return known[2]
    extra = tuple(lang for lang in more if all(lang is not o for o in own))
    joined = (*own, *extra) if extra else own
    if len(_JOINED) >= _MAX_CODES:
        _JOINED.clear()
    _JOINED[(id(own), id(more))] = (own, more, joined)
    return joined


_Langs = tuple[Language, ...]
_JOINED: dict[tuple[int, int], tuple[_Langs, _Langs, _Langs]] = {}  # ``_with``'s, kept


def read(a_query: str, b_query: str, gated: bool = True) -> list[str]:
    """The signals B carries about the answer to A, in ``SIGNALS`` order (empty: none).
    Without ``gated``, every pattern runs (the reference the gates are tested against)."""
    a, b = _prepared(a_query), _prepared(b_query)
    open_ = None
    if gated:
        open_ = _plan(b.text)
        if open_ is None:  # no literal any pattern requires: none can match
            if not (b.text and _asked_again(a, b)):
                return []
            return [REPHRASE, NEGATIVE] if _told_opposite(a, b) else [REPHRASE]
    langs = _speakers(a, b)
    text = b.text
    escalation, negative = _said(b, langs, open_)
    # the question asked again beside a complaint or a request for a person ("not what I
    # asked. <the question>", "<the question>? or get me a human"): read without them
    rephrase = bool(b.text) and _asked_again(a, b)
    if negative is None and (open_ is None or open_[1]):
        negative, again = _complaint_ahead(a, b, escalation, langs, open_)
        rephrase = rephrase or again
    if not rephrase and (said := escalation or negative) is not None and _alike(a, b):
        rest = _prepared(text[: said.start()] + " " + text[said.end() :])
        rephrase = bool(rest.text) and is_rephrase(a, rest)
    if negative is not None and rephrase and reported.restated(a, b, _verdict(negative)):
        negative = None  # the user's problem asked again ("login not working mobile")
    # the question asked again beside its opposite: the answer explained that one instead
    opposite = rephrase and negative is None and _told_opposite(a, b)
    positive = False
    if escalation is not None and negative is None:  # the hand-off thanked for
        m, only = _thanked(b, langs, open_)
        if m is not None and only and reported.thanked_handoff(a, b, escalation, m, _asked_person):
            escalation = None
    if negative is None and escalation is None and not opposite:  # a request for a person
        # is no thanks ("🙏")
        m, only = _thanked(b, langs, open_)
        # thanks in words asks nothing more ("merged, thanks!" is not the question again);
        # an emoji beside a question asked again is a plea, not thanks
        # thanks after the question asked again are its polite end ("comment obtenir un rib
        # merci"), not thanks for the answer
        # and thanks that close the question asked again, every word before them asking it
        # ("förra månadens kvitto igen tack": Swedish thanks for please)
        closing = m is not None and _closes(a, text, m)
        plea = closing or (
            rephrase and m is not None and (_emoji(m) or _asks_before(text, m.start()))
        )
        positive = only and not plea
        rephrase = (rephrase or closing) and not positive
    found = [REPHRASE] if rephrase else []
    if escalation is not None:
        found.append(ESCALATION)
    if negative is not None or opposite:
        found.append(NEGATIVE)
    if positive:
        found.append(POSITIVE)
    return found


def _asked_person(a: _Turn) -> bool:
    """Whether A asked for a person (as B's request is read, in A's own languages)."""
    langs = _speakers(_prepared(""), a)
    return a.text != "" and _said(a, langs, _plan(a.text))[0] is not None


def _told_opposite(a: _Turn, b: _Turn) -> bool:
    """Whether B, asking A again, also names the opposite of what A asked ("vous m'avez
    encore expliqué comment les activer. comment désactiver …"): in A's and B's language's
    pairs and English's."""
    if len(b.text) <= len(a.text):  # B names A's side, the other and asks: it is longer
        return False
    lang, english = _first_language(a, b), languages()[0]
    pairs = (lang.antonyms,) if lang is english else (lang.antonyms, english.antonyms)
    return matching.told_both(a.text, b.text, pairs)


def _closes(a: _Turn, text: str, thanks: re.Match[str]) -> bool:
    """Whether ``thanks`` closes ``text`` (nothing but signs after it) in the clause of the
    words before it, two at least, which ask A again on their own (not "merged, thanks!":
    a clause of its own, what was done)."""
    if thanks.start() == 0 or re.search(r"\w", text[thanks.end() :]):
        return False
    if _CLAUSE_END.search(text, 0, thanks.start()):
        return False
    before = _prepared(text[: thanks.start()])
    return len(before.words) >= 2 and is_rephrase(a, before)


def _key(langs: tuple[Language, ...], open_: _Plan | None) -> tuple[str, ...]:
    """What B's own readings (``_said``, ``_thanked``) depend on besides B: the languages
    read, and whether the gates ran."""
    known = _CODES.get(id(langs))
    if known is not None and known[0] is langs:
        codes = known[1]
    else:
        codes = ("*",) if langs is languages() else tuple(lang.code for lang in langs)
        if len(_CODES) >= _MAX_CODES:
            _CODES.clear()
        _CODES[id(langs)] = (langs, codes)  # the tuple kept: its id stays its own
    return codes if open_ is not None else ("-", *codes)


# the codes of the language tuples read lately, by the tuple's id (``_key``)
_CODES: dict[int, tuple[tuple[Language, ...], tuple[str, ...]]] = {}


def _said(
    b: _Turn, langs: tuple[Language, ...], open_: _Plan | None
) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """B's request for a person and B's complaint on their own (a complaint in a clause
    that asks "… or not" is none), kept on the turn: a turn recurs ("thanks!", "human
    pls"), and each is the B of one pair and the A of the next."""
    key = _key(langs, open_)
    got = b.said.get(key)
    if got is None:
        text = b.text
        escalation = _any(text, 0, langs, open_)
        if escalation is not None and _on_a_feature(text, escalation):
            escalation = None  # "where is the callback button", "is live chat included"
        negative = _any(text, 1, langs, open_)
        if negative is not None and _or_not(text, negative):
            negative = None  # "swish works or not", "yes or no": a question
        got = b.said[key] = (escalation, negative)
    return got  # type: ignore[return-value]


@cache
def _features() -> re.Pattern[str] | None:
    """Every language's words for a part of the product, in one alternation."""
    words = [lang.features for lang in languages() if lang.features]
    return re.compile("|".join(f"(?:{w})" for w in words), _FLAGS) if words else None


def _on_a_feature(text: str, request: re.Match[str]) -> bool:
    """Whether the clause of a request for a person names a part of the product: the
    request is then the feature's name ("the callback button", "live chat included")."""
    features = _features()
    if features is None:
        return False
    opened = max(s for s in grammar.clauses(text) if s <= request.start())
    closed = _CLAUSE_END.search(text, request.end())
    return (
        features.search(text, opened, len(text) if closed is None else closed.start()) is not None
    )


def _thanked(
    b: _Turn, langs: tuple[Language, ...], open_: _Plan | None
) -> tuple[re.Match[str] | None, bool]:
    """B's thanks (in words where there are words beside an emoji: "danke 🙏"), and whether
    it asks nothing more (``_only_thanks``); kept on the turn as ``_said``."""
    key = ("+", *_key(langs, open_))
    got = b.said.get(key)
    if got is None:
        text = b.text
        m = _any(text, 2, langs, open_)
        said_by = b
        if m is not None and _emoji(m):  # thanks in words beside it read first ("danke 🙏")
            said_by = _prepared(text[: m.start()] + " " + text[m.end() :])
            worded = _any(said_by.text, 2, langs, _plan(said_by.text))
            m, said_by = (m, b) if worded is None else (worded, said_by)
        got = b.said[key] = (m, m is not None and _only_thanks(said_by, m))
    return got  # type: ignore[return-value]


def _complaint_ahead(
    a: _Turn,
    b: _Turn,
    escalation: re.Match[str] | None,
    langs: tuple[Language, ...],
    open_: _Plan | None,
) -> tuple[re.Match[str] | None, bool]:
    """A complaint in the clauses before a request for a person, or before the question
    asked again ("not helpful, is there a person I can talk to?", "no, not what I asked. <the
    question>?"): the question mark there is the request's or the question's, not the
    complaint's; and whether B's part after it asks A again. None when there is no such
    complaint (and, without a request, when no later part of B asks A again, but for a
    verdict that names nothing, ``_names_nothing``, before a question that names a thing)."""
    text = b.text
    starts = grammar.clauses(text)
    if len(starts) < 2:
        return None, False
    if escalation is not None:  # the request may have taken the clauses before it in
        for cut in starts[1:]:
            if cut >= escalation.end():
                break
            if (found := _any(text[:cut], 1, langs, open_)) is not None:
                return found, False
        return None, False
    alike = _alike(a, b)
    for start in starts[1:]:
        head = text[:start]
        if (found := _any(head, 1, langs, open_)) is None:
            continue
        tail = _prepared(text[start:])
        again = alike and bool(tail.text) and is_rephrase(a, tail)
        if again and _about_the_answer(_around(head, found), a, b):
            return found, True
        if _names_nothing(_clause_of(head, found), a, b) and _names_a_thing(tail, a, b):
            # on the answer alone, before a question that names a thing: a verdict ("not
            # what I asked. <a question in other words>"), not "nothing happened, what now?"
            return found, again
        if again:
            return None, False
    return None, False


def _around(text: str, complaint: re.Match[str]) -> str:
    """The words of a complaint's clause around its verdict (whole words: the verdict may
    end inside one, "değil" in "değildi")."""
    start, end = _verdict(complaint)
    while end < len(text) and text[end].isalnum():
        end += 1
    opened = max(s for s in grammar.clauses(text) if s <= start)
    closed = _CLAUSE_END.search(text, end)
    return text[opened:start] + " " + text[end : len(text) if closed is None else closed.start()]


def _about_the_answer(head: str, a: _Turn, b: _Turn) -> bool:
    """Whether the words around a complaint before the question asked again (``head``, the
    complaint taken out) name nothing A did not ("no, not what I asked"), unlike a problem
    of the user's own before a question about it ("my card payment didn't work, what other
    payment methods …"). In Japanese, character pairs of hiragana alone are grammar, not a
    thing named."""
    lang = _first_language(a, b)
    new = content(head, lang) - _content_of(a, lang.code) - _verdict_words(lang.code)
    return all(_KANA.fullmatch(w) for w in new)


def _names_nothing(head: str, a: _Turn, b: _Turn) -> bool:
    """Whether the words of a complaint's clause (``head``) are words of verdicts alone,
    naming nothing, not even what A asked about: the complaint is on the answer ("não foi isso
    que eu perguntei", "不是这个", "not helpful"), whatever question follows it, unlike a
    problem named before a question about it ("card payment didn't work, what other …")."""
    lang = _first_language(a, b)
    verdict, letters = _verdict_words(lang.code), _verdict_letters(lang.code)
    return all(
        _KANA.fullmatch(w)
        or w in verdict
        or any(w[:k] in verdict for k in range(_STEM, len(w)))  # a form ("beantwoordt")
        or (len(w) == 2 and set(w) <= letters)  # a pair of a verdict's characters ("答错")
        for w in content(head, lang) - verdict
    )


@cache
def _verdict_letters(code: str) -> frozenset[str]:
    """The characters of a language's verdict words written without spaces ("回答", "错了"),
    each read alone."""
    return frozenset(c for w in _verdict_words(code) if len(w) == 2 for c in w if not c.isascii())


def _names_a_thing(turn: _Turn, a: _Turn, b: _Turn) -> bool:
    """Whether a turn holds a content word that is no grammar (in Japanese, character pairs
    of hiragana alone are; in Chinese, Japanese and Korean, read as character pairs, a lone
    character is what a question word left: "怎么办"): "what do I do now?" names nothing."""
    words = _content_of(turn, _first_language(a, b).code)
    return any(len(w) > 1 and not _KANA.fullmatch(w) for w in words)


def _clause_of(text: str, complaint: re.Match[str]) -> str:
    """The clause of a complaint's verdict, the verdict's own words with it."""
    start, end = _verdict(complaint)
    opened = max(s for s in grammar.clauses(text) if s <= start)
    closed = _CLAUSE_END.search(text, end)
    return text[opened : len(text) if closed is None else closed.start()]


@cache
def _verdict_words(code: str) -> frozenset[str]:
    """The content words of a language's verdict roles (``Language.verdict``)."""
    lang = _by_code()[code]
    return content(" ".join(lang.verdict), lang)


def _emoji(match: re.Match[str]) -> bool:
    """Whether a match holds no letter: an emoji, a sign."""
    return not any(c.isalpha() for c in match.group())


@cache
def _or_nots() -> re.Pattern[str] | None:
    """Every language's "… or not" ("oder nicht", "eller inte", "还是不")."""
    words = [lang.or_not for lang in languages() if lang.or_not]
    return re.compile("|".join(words), _FLAGS) if words else None


def _or_not(text: str, complaint: re.Match[str]) -> bool:
    """Whether a complaint's clause asks "… or not": its negation is the question's."""
    found = _or_nots()
    if found is None:
        return False
    start, end = _verdict(complaint)
    opened = max(s for s in grammar.clauses(text) if s <= start)
    closed = _CLAUSE_END.search(text, end)
    return found.search(text, opened, len(text) if closed is None else closed.start()) is not None


@cache
def _in_advance() -> re.Pattern[str] | None:
    """Every language's thanks for an answer not given yet ("thanks in advance")."""
    words = [lang.in_advance for lang in languages() if lang.in_advance]
    return re.compile("|".join(words), _FLAGS) if words else None


def _asks_next(text: str, after: int) -> bool:
    """Whether a clause after ``after`` (or the rest of the thank-you's own) opens with a
    question word, behind a next question's opener if any ("thanks! and where do I find the
    API key", "merci, et où …": users leave the question mark out)."""
    openers, asks = _next_question()
    for start in (after, *(s for s in grammar.clauses(text) if s > after)):
        clause = text[start:]  # the openers are anchored at the string's start
        if (opened := openers.match(clause)) is None:
            if asks.match(clause):
                return True
        else:  # behind an opener, the question word anywhere in the clause ("peki … nasıl")
            end = _CLAUSE_END.search(clause, opened.end())
            if asks.search(clause, opened.end(), len(clause) if end is None else end.start()):
                return True
    return False


def _asks_before(text: str, end: int) -> bool:
    """Whether ``text`` before ``end`` holds a question word (where it opens a clause, or
    after words of greeting: "bonjour comment …")."""
    return _next_question()[1].search(text, 0, end) is not None


def _only_thanks(b: _Turn, match: re.Match[str]) -> bool:
    """A thank-you that asks nothing more: no question mark, and few words of its own."""
    text = b.text
    if "?" in text or "？" in text or "؟" in text:
        return False
    if (ahead := _in_advance()) is not None and ahead.search(text):
        return False
    if _asks_next(text, match.end()):
        return False
    rest = (text[: match.start()] + " " + text[match.end() :]).strip()
    lang = _tally(text, b.counts, b.unspaced)[0]
    # an emoji thanks only on its own (polite words aside): beside words of its own it is a
    # plea ("daten download bitte 🙏"). Without spaces, content is read as character pairs:
    # about three a word
    own = 0 if _emoji(match) else _MAX_OWN_WORDS * (3 if b.unspaced else 1)
    for _ in range(_MORE_THANKS):
        if len(content(rest, lang)) <= own:
            return True
        # thanks said twice are no words of their own ("super, vielen dank für die hilfe")
        if (more := _any(rest, 2, languages(), _plan(rest))) is None or not more.group().strip():
            return False
        rest = (rest[: more.start()] + " " + rest[more.end() :]).strip()
    return len(content(rest, lang)) <= own
