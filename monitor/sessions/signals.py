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
  a run of its clauses that asks ("hola?? <the question>"); never when B opens as a next
  question and names something new ("and for the Team plan?", ``openers``), asks about
  another one ("what other methods", ``others``) or the opposite (``antonyms``).
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
collapsed), ``openers`` (one regular expression), ``generic`` (words) and its word roles
(``grammar``: see ``grammar.py``). Every language's patterns run
on every turn: users switch language and type English words into others ("human pls").
"""

from __future__ import annotations

import operator
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from importlib import resources
from itertools import repeat
from typing import Final, NamedTuple

import ahocorasick

from monitor.core.model import FOLLOWUP_SIGNALS
from monitor.sessions import grammar, matching
from monitor.sessions.matching import required

SIGNALS: Final = FOLLOWUP_SIGNALS  # named once, in the model: lines, metrics, explain read it
REPHRASE, ESCALATION, NEGATIVE, POSITIVE = SIGNALS

MAX_CHARS = 1000  # of a turn, read for its signals (a pasted document is not a question)
_FEW_WORDS = 3  # a turn this short is read by every language's patterns
_MAX_OWN_WORDS = 4  # a thank-you with more words of its own says something else too

# Snowball's stemmers by language code (Chinese, Japanese and Korean: character pairs)
_STEMMERS = {
    "ar": "arabic", "de": "german", "en": "english", "es": "spanish", "fr": "french",
    "hi": "hindi", "it": "italian", "nl": "dutch", "pl": "polish", "pt": "portuguese",
    "ru": "russian", "sv": "swedish",
}  # fmt: skip
# Turkish words by their first five letters: its suffixes pile up ("bağlarım", "bağlanır",
# "bağlama"), where Snowball's Turkish stemmer leaves them apart or cuts them to nothing
_PREFIXED = {"tr": 5}
_PAIRED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
# a word: letters and the marks written on them (Devanagari's vowel signs, Arabic's short
# vowels: not letters to ``\w``, so "कीमत" would fall apart into "क" and "मत")
_MARKS = "\u0300-\u036f\u064b-\u065f\u0670\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963"
_WORD = re.compile(rf"[^\W_](?:[^\W_]+|[{_MARKS}]+)*(?:['’][^\W_]+)*")
_PLAIN_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")  # the same, faster, on ASCII text
# the patterns read the turn lower-cased (``normalise``): matched as written, three times
# cheaper than with IGNORECASE, whose case folding runs on every character tried
_FLAGS = re.NOFLAG
# a letter typed three times or more: "daaanke" (not a character of Chinese, Japanese or
# Korean, which say words twice: "谢谢谢谢")
_REPEATED = re.compile(r"([^\W\d_\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])\1{2,}")
# Korean's compatibility jamo as NFKC makes them (the language files write "ㄱㅅ")
_JAMO = {c: unicodedata.normalize("NFKC", chr(c)) for c in range(0x3131, 0x318F)}
_TRIPLE = re.compile(r"(.)\1\1")  # any character three times: where _REPEATED may be


class Gated(NamedTuple):
    """One pattern of a signal in one language, and the literals one of which every match
    contains (``cues``; None: no such set, the pattern always runs). A ``clause`` pattern
    (composed by ``grammar``) is matched at each clause's start instead of searched for:
    anchored, it costs one attempt a clause where a search tries every character."""

    pattern: re.Pattern[str]
    cues: frozenset[str] | None
    clause: bool = False  # matched at the start of each clause, not searched
    # a searched complaint's clause must not open with one of these question words
    asks: re.Pattern[str] | None = None


class Language(NamedTuple):
    """One language's follow-up patterns and its words that only say how a thing is asked
    (``stop``; in scripts written without spaces, ``unspaced`` finds them inside a run)."""

    code: str
    escalation: tuple[Gated, ...]
    negative: tuple[Gated, ...]
    positive: tuple[Gated, ...]
    openers: re.Pattern[str] | None
    stop: frozenset[str]
    unspaced: re.Pattern[str] | None = None
    antonyms: matching.Antonyms = matching.Antonyms((), None, frozenset())
    numerals: dict[str, str] = {}  # noqa: RUF012 (never changed) a number's word -> its digits
    in_advance: str | None = None  # thanks for an answer not given yet ("in advance")
    or_not: str | None = None  # a question asked as "… or not": no negation of the answer
    others: re.Pattern[str] | None = None  # "other", "andere": a question about another one
    asks: re.Pattern[str] | None = None  # a clause that opens with a question word


def _gates_of(
    patterns: Iterable[str], clauses: Iterable[str] = (), asks: re.Pattern[str] | None = None
) -> tuple[Gated, ...]:
    """Each pattern compiled with its own gate: a common literal one pattern needs opens that
    pattern only. ``clauses``: patterns matched at each clause's start; ``asks``: the
    question words a searched pattern's clause must not open with."""
    compiled = (re.compile(p, _FLAGS) for p in patterns)
    searched = [Gated(c, required(c), False, asks) for c in compiled]
    anchored = [Gated(c, required(c), True) for c in (re.compile(p, _FLAGS) for p in clauses)]
    return (*searched, *anchored)


def _stop_words(code: str) -> frozenset[str]:
    """The language's stop words (the stop-words package), English excepted: its list holds
    a thousand words, many of them what users ask about ("pro", "system"); English uses the
    ``generic`` list alone."""
    if code == "en":
        return frozenset()
    from stop_words import get_stop_words

    return frozenset(w.lower() for w in get_stop_words(code))


@cache
def languages() -> tuple[Language, ...]:
    """Every language's patterns, loaded once: English first, then by code."""
    folder = resources.files("monitor.sessions") / "languages"
    found = []
    for entry in sorted(folder.iterdir(), key=lambda e: (e.name != "en.toml", e.name)):
        if not entry.name.endswith(".toml"):
            continue
        # as normalise reads a turn: NFKC makes Korean's compatibility jamo ("ㄱㅅ") others
        data = tomllib.loads(entry.read_text(encoding="utf-8").translate(_JAMO))
        code = data["code"]
        openers = data.get("openers")
        table = data.get("grammar", {})
        # a verb "to be" asks about nothing either ("tá errado", "c'est faux")
        said = [*data.get("generic", ()), *table.get("meta", ()), *table.get("copulas", ())]
        said += [w for phrase in table.get("or_not", ()) for w in phrase.split()]  # "o no"
        if table.get("spaced", True):  # polite words ask nothing either ("porfa", "aub")
            said += [w for f in table.get("fillers", ()) for w in f.split() if w.isalpha()]
        stop = _stop_words(code) | {w.lower() for w in said}
        unspaced = sorted((w for w in stop if _PAIRED.fullmatch(w)), key=len, reverse=True)
        made = grammar.composed(table)
        asks = re.compile(grammar.asks(table), _FLAGS) if table.get("questions") else None
        found.append(
            Language(
                code=code,
                escalation=_gates_of(data.get("escalation", ()), made["escalation"]),
                negative=_gates_of(
                    [f"(?P<v>{p}){grammar.asked_after(table)}" for p in data.get("negative", ())],
                    made["negative"],
                    asks,
                ),
                positive=_gates_of(data.get("positive", ()), made["positive"]),
                openers=re.compile(openers, _FLAGS) if openers else None,
                stop=stop,
                unspaced=re.compile("|".join(map(re.escape, unspaced))) if unspaced else None,
                antonyms=matching.antonyms(table.get("antonyms", ())),
                numerals={
                    form: str(n)
                    for n, ws in enumerate(table.get("numerals", ()))
                    for w in ws.split("|")
                    for form in (w, w.translate(_FOLD))
                    if n > 1 or form not in stop  # "une fois", "een keer": an article
                },
                in_advance=grammar.in_advance(table),
                or_not=grammar.or_not(table),
                others=re.compile(o, _FLAGS) if (o := grammar.others(table)) else None,
                asks=asks,
            )
        )
    return tuple(found)


@cache
def _stemmer(code: str) -> Callable[[str], str] | None:
    if (n := _PREFIXED.get(code)) is not None:
        return operator.itemgetter(slice(n))
    name = _STEMMERS.get(code)
    if name is None:
        return None
    import Stemmer

    stem: Callable[[str], str] = Stemmer.Stemmer(name, 10_000).stemWord  # caches 10,000 words
    return stem


def normalise(text: str) -> str:
    """The turn as the patterns read it: NFKC, lower case, one kind of apostrophe, spaces
    collapsed, cut to ``MAX_CHARS``."""
    text = unicodedata.normalize("NFKC", text[:MAX_CHARS]).lower().replace("’", "'")
    if "\u0307" in text:  # Turkish "İ" lower-cased: "i" and a combining dot
        text = text.replace("i\u0307", "i")
    if _TRIPLE.search(text):  # rare, and five times cheaper to look for than to replace
        text = _REPEATED.sub(r"\1", text)
    return " ".join(text.split())


def _words(text: str) -> list[str]:
    return (_PLAIN_WORD if text.isascii() else _WORD).findall(text)


_SCRIPTS = (("ko", re.compile(r"[\uac00-\ud7af]")), ("ja", re.compile(r"[\u3040-\u30ff]")),
            ("zh", re.compile(r"[\u3400-\u9fff]")))  # fmt: skip
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@cache
def _stop_index() -> dict[str, tuple[int, ...]]:
    """Stop word -> the languages (their places in ``languages()``) whose list holds it."""
    index: dict[str, list[int]] = {}
    for i, lang in enumerate(languages()):
        for word in lang.stop:
            index.setdefault(word, []).append(i)
    return {word: tuple(places) for word, places in index.items()}


def _counts(words: list[str]) -> tuple[int, ...]:
    """Per language (in ``languages()`` order), how many of ``words`` are its stop words."""
    index = _stop_index()
    counts = [0] * len(languages())
    for word in words:
        for i in index.get(word, ()):
            counts[i] += 1
    return tuple(counts)


def _tally(
    text: str, counts: tuple[int, ...], unspaced: bool
) -> tuple[Language, tuple[Language, ...]]:
    """The language of ``text`` and the languages whose patterns read it: for Korean,
    Japanese and Chinese (``unspaced``: the text holds their script), their script; else the
    languages whose stop words ``text`` uses most (``counts``; English first on a tie), and
    every language when it uses none."""
    if unspaced:
        for code, script in _SCRIPTS:
            if script.search(text) and (lang := _by_code().get(code)) is not None:
                if code == "zh" and (ja := _by_code().get("ja")) is not None:
                    return lang, (languages()[0], lang, ja)  # kanji alone: "担当者"
                return lang, (languages()[0], lang)
    return _ranked(counts)


@lru_cache(maxsize=8192)
def _ranked(counts: tuple[int, ...]) -> tuple[Language, tuple[Language, ...]]:
    """``_tally`` of a text written with spaces, by its stop words' counts alone (kept: few
    count vectors recur, whatever the words)."""
    langs = languages()
    top = max(counts)
    if top == 0:
        return langs[0], langs
    tied = tuple(lang for lang, n in zip(langs, counts, strict=True) if n == top)
    return tied[0], tied if tied[0] is langs[0] else (langs[0], *tied)


def _first_language(a: _Turn, b: _Turn) -> Language:
    """``_tally``'s language of the two turns together."""
    counts = tuple(map(operator.add, a.counts, b.counts))
    if a.unspaced or b.unspaced:
        return _tally(f"{a.text} {b.text}", counts, True)[0]
    return _ranked(counts)[0]


@cache
def _by_code() -> dict[str, Language]:
    return {lang.code: lang for lang in languages()}


@cache
def _skipped(code: str) -> frozenset[str]:
    """The words ``content`` leaves out in ``code``: its stop words and English's, as typed
    and without their accents."""
    stop = _by_code()[code].stop | languages()[0].stop
    return stop | {w.translate(_FOLD) for w in stop}


def _fold_table() -> dict[int, str]:
    """Latin letters with a mark -> the letter alone ("ó" -> "o", "ş" -> "s", "ı" -> "i")."""
    table = {ord(c): b for c, b in (("ı", "i"), ("ł", "l"), ("ø", "o"), ("ß", "ss"), ("đ", "d"))}
    for code in range(0xC0, 0x250):
        base = unicodedata.normalize("NFKD", chr(code))[:1]
        if base.isascii() and base.isalpha() and base != chr(code):
            table[code] = base.lower() if chr(code).islower() else base
    return table


_FOLD: Final = _fold_table()


def content(
    text: str, lang: Language, words: list[str] | None = None, unspaced: bool | None = None
) -> frozenset[str]:
    """What a turn asks about: its words (``words``, if already split) less the language's
    stop words and English's generic ones, stemmed; runs of Chinese, Japanese or Korean
    (``unspaced``, if already known) as character pairs."""
    skipped = _skipped(lang.code)
    stemmer = _stemmer(lang.code)
    words = _words(text) if words is None else words
    if unspaced is None:
        unspaced = _UNSPACED.search(text) is not None
    if not unspaced:  # the common case: words and nothing else
        # numbers as digits ("deux fois": 2, though "deux" is a stop word) and words read
        # without accents ("suscripcion", "nasil")
        if not lang.numerals.keys().isdisjoint(words):
            words = [lang.numerals.get(w, w) for w in words]
        kept = [w for w in words if w not in skipped]
        if text.isascii():
            return frozenset(map(stemmer, kept) if stemmer is not None else kept)
        # stemmed as typed, then without accents: the stemmer knows the language's letters
        # ("doğrulamayı" -> "doğrulama"; "dogrulamayi" it leaves whole)
        kept = [w for w in kept if w.translate(_FOLD) not in skipped]
        stems = map(stemmer, kept) if stemmer is not None else kept
        return frozenset(map(str.translate, stems, repeat(_FOLD)))
    out: set[str] = set()
    for word in words:
        for run in _PAIRED.findall(word):
            pieces = lang.unspaced.sub(" ", run).split() if lang.unspaced else [run]
            for piece in pieces:
                out.update(piece[i : i + 2] for i in range(max(1, len(piece) - 1)))
        rest = _PAIRED.sub(" ", word).split() if _PAIRED.search(word) else [word]
        for w in rest:
            if w not in skipped:
                out.add(stemmer(w) if stemmer is not None else w)
    # pairs that are all stop words (Chinese particles: "的是") say nothing either
    return frozenset(w for w in out if w not in lang.stop)


def _content_of(turn: _Turn, code: str) -> frozenset[str]:
    """``content`` of a turn in a language, kept on the turn: the B of one pair is the A of
    the next, read in the same language as a rule."""
    got = turn.contents.get(code)
    if got is None:
        got = turn.contents[code] = content(turn.text, _by_code()[code], turn.words, turn.unspaced)
    return got


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


@lru_cache(maxsize=1024)
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


def _speakers(b: _Turn) -> tuple[Language, ...]:
    """The languages whose patterns read B: English (typed into any other: "human pls") and
    every language whose stop words B uses most (all of them on a tie); every language when
    nothing in B tells ("humano", an emoji)."""
    if len(b.words) <= _FEW_WORDS and not b.unspaced:
        return languages()  # "thx", "grx!", "show obg": too few words to tell
    return _tally(b.text, b.counts, b.unspaced)[1]


def _kept(shared: int, in_a: int, in_b: int, pairs: bool = False) -> bool:
    """Whether B, sharing ``shared`` of A's ``in_a`` content words with ``in_b`` of its own,
    asks what A asked: all of B's words were A's and it keeps half of A's, or it keeps all of
    A's and adds at most one in four — a word of A's swapped for another is the same
    question about something else ("annual" -> "monthly"). Read as character pairs
    (``pairs``), where one changed word changes two pairs, three in five of A's are enough
    (``matching.swapped`` tells the swaps)."""
    kept, own = shared / in_a, 1 - shared / in_b
    enough = 0.6 if pairs else 1
    return (own == 0 and kept >= 0.5) or (shared >= 2 and kept >= enough and own <= 0.25)


def _alike(a: _Turn, b: _Turn) -> bool:
    """Whether a word of B begins as one of A (their first four letters), or either is
    written without spaces: a rephrase needs one."""
    if a.unspaced or b.unspaced:
        return True
    return not a.starts.isdisjoint(b.starts)


def is_rephrase(a: _Turn, b: _Turn) -> bool:
    """Whether B asks again for what A asked (see the module)."""
    if b.words and a.words == b.words:  # the same words: an exact repeat, cases aside
        return True
    if not _alike(a, b):
        return False  # no word begun alike: nothing asked again ("thanks", "agent")
    lang = _first_language(a, b)
    english = languages()[0]
    cb = _content_of(b, lang.code)
    if not cb or not (ca := _content_of(a, lang.code)):
        return False
    exact, paired = len(ca & cb), a.unspaced or b.unspaced
    if paired and not _kept(exact, len(ca), len(cb), True):
        # reordered ("密码重置" / "重置密码") or cut short, a question written without
        # spaces changes its character pairs, not its characters: B's all A's, and three
        # in five of A's
        chars_a, chars_b = _characters(ca), _characters(cb)
        if not chars_b or not chars_b <= chars_a or len(chars_b) < 0.6 * len(chars_a):
            return False
    elif not _kept(exact, len(ca), len(cb), paired):
        # words typed with a slip or cut short: looked for only when they can decide
        if not _kept(min(len(ca), len(cb)), len(ca), len(cb), paired):
            return False
        if not _kept(matching.shared(ca, cb), len(ca), len(cb), paired):
            return False
    # a next question that narrows or moves on names what it moves to ("and for the Team
    # plan?"); one that names nothing new asks again ("entonces … o no")
    if not cb <= ca:
        for lg in (lang,) if lang is english else (lang, english):
            if lg.openers is not None and lg.openers.search(b.text):
                return False
    if paired and (matching.swapped(ca - cb, cb - ca, ca) or _replaced(ca, cb)):
        return False
    for lg in (lang,) if lang is english else (lang, english):
        if lg.others is not None and _other(lg.others, a.text, b.text):
            return False  # what other payment methods are there: not the same ones
    pairs = (lang.antonyms,) if lang is english else (lang.antonyms, english.antonyms)
    # opposites are among the words one turn has and the other lacks ("on" / "off")
    in_a, in_b = set(a.words), set(b.words)
    a_only = " ".join(w for w in a.words if w not in in_b)
    b_only = " ".join(w for w in b.words if w not in in_a)
    return not (a_only and b_only and matching.opposed(a_only, b_only, pairs))


def _replaced(ca: frozenset[str], cb: frozenset[str]) -> bool:
    """Whether a question written without spaces names another thing in the place of one
    (手机号 -> 邮箱, 포인트 -> 쿠폰): a character pair of each that shares no character
    with the other question (hiragana, grammar, aside)."""
    in_a, in_b = _characters(ca), _characters(cb)

    def foreign(pairs: frozenset[str], other: frozenset[str]) -> bool:
        return any(
            not p.isascii() and not _KANA.fullmatch(p) and other.isdisjoint(p) for p in pairs
        )

    return foreign(cb - ca, in_a) and foreign(ca - cb, in_b)


@lru_cache(maxsize=1024)
def _other(others: re.Pattern[str], a: str, b: str) -> bool:
    """Whether B asks about another one where A did not ("what other methods …")."""
    return others.search(b) is not None and others.search(a) is None


@lru_cache(maxsize=1024)
def _characters(pairs: frozenset[str]) -> frozenset[str]:
    """The characters of a question's character pairs, hiragana aside (Japanese grammar:
    particles, verb endings), and its words in other scripts whole ("csv")."""
    out: set[str] = set()
    for pair in pairs:
        if pair.isascii() or not _PAIRED.fullmatch(pair):
            out.add(pair)
        else:
            out.update(c for c in pair if not _KANA.fullmatch(c))
    return frozenset(out)


class _Turn(NamedTuple):
    """A turn as the signals read it: normalised, its words, its stop words' counts per
    language, and whether it holds Chinese, Japanese or Korean script."""

    text: str
    words: list[str]  # shared between the pairs a turn is in: never changed
    counts: tuple[int, ...]
    unspaced: bool
    contents: dict[str, frozenset[str]]  # its content words by language, once read
    starts: frozenset[str]  # its words' first four letters


@lru_cache(maxsize=4096)
def _prepared(query: str) -> _Turn:
    """A turn read once: every turn but a session's first and last is the B of one pair and
    the A of the next."""
    text = normalise(query)
    words = _words(text)
    unspaced = _UNSPACED.search(text) is not None
    return _Turn(text, words, _counts(words), unspaced, {}, frozenset(w[:4] for w in words))


def read(a_query: str, b_query: str, gated: bool = True) -> list[str]:
    """The signals B carries about the answer to A, in ``SIGNALS`` order (empty: none).
    Without ``gated``, every pattern runs (the reference the gates are tested against)."""
    a, b = _prepared(a_query), _prepared(b_query)
    open_ = None
    if gated:
        open_ = _plan(b.text)
        if open_ is None:  # no literal any pattern requires: none can match
            return [REPHRASE] if b.text and _asked_again(a, b) else []
    langs = _speakers(b)
    text = b.text
    escalation = _any(text, 0, langs, open_)
    negative = _any(text, 1, langs, open_)
    if negative is not None and _or_not(text, negative):
        negative = None  # "swish works or not", "yes or no": a question
    # the question asked again beside a complaint or a request for a person ("not what I
    # asked. <the question>", "<the question>? or get me a human"): read without them
    rephrase = bool(b.text) and _asked_again(a, b)
    if negative is None and (open_ is None or open_[1]):
        negative = _complaint_ahead(a, b, escalation, langs, open_)
        rephrase = rephrase or (negative is not None and escalation is None)
    if not rephrase and (said := escalation or negative) is not None and _alike(a, b):
        rest = _prepared(text[: said.start()] + " " + text[said.end() :])
        rephrase = bool(rest.text) and is_rephrase(a, rest)
    positive = False
    if negative is None and escalation is None:  # a request for a person is no thanks ("🙏")
        m = _any(text, 2, langs, open_)
        said_by = b
        if m is not None and _emoji(m):  # thanks in words beside it read first ("danke 🙏")
            said_by = _prepared(text[: m.start()] + " " + text[m.end() :])
            worded = _any(said_by.text, 2, langs, _plan(said_by.text))
            m, said_by = (m, b) if worded is None else (worded, said_by)
        # thanks in words asks nothing more ("merged, thanks!" is not the question again);
        # an emoji beside a question asked again is a plea, not thanks
        positive = m is not None and _only_thanks(said_by, m) and not (rephrase and _emoji(m))
        rephrase = rephrase and not positive
    found = [REPHRASE] if rephrase else []
    if escalation is not None:
        found.append(ESCALATION)
    if negative is not None:
        found.append(NEGATIVE)
    if positive:
        found.append(POSITIVE)
    return found


def _asked_again(a: _Turn, b: _Turn) -> bool:
    """Whether B asks A again, whole or in a part with words of its own around it ("hola??
    <the question>", "<the question>. I asked an hour ago", "wrong, there is no cancel
    option. <the question>"): B's clauses from its start, or to its end, that ask (open with
    a question word or end with a question mark)."""
    if is_rephrase(a, b):
        return True
    starts = grammar.clauses(b.text)
    if len(starts) < 2 or not _alike(a, b):
        return False
    code = _first_language(a, b).code
    if len(_content_of(a, code) & _content_of(b, code)) < 2:
        return False  # a part asks again with two words of A's at least (below)
    openers, asks = _next_question()
    if openers.match(b.text):
        return False  # a next question that narrows ("e a devolução, como rastreio?")
    for start in starts[1:]:
        for part in (b.text[start:], b.text[:start].rstrip()):
            if not (asks.match(part) or part.endswith(("?", "？"))):
                continue
            turn = _prepared(part)
            # a question of its own: two words of what it asks about at least (not one,
            # "…, dass ich Student bin?"), hiragana (grammar) aside
            named = [w for w in _content_of(turn, code) if not _KANA.fullmatch(w)]
            if len(named) >= 2 and is_rephrase(a, turn):
                return True
    return False


def _complaint_ahead(
    a: _Turn,
    b: _Turn,
    escalation: re.Match[str] | None,
    langs: tuple[Language, ...],
    open_: _Plan | None,
) -> re.Match[str] | None:
    """A complaint in the clauses before a request for a person, or before the question
    asked again ("not helpful, is there a person I can talk to?", "no, not what I asked. <the
    question>?"): the question mark there is the request's or the question's, not the
    complaint's. None when there is no such complaint (and, without a request, when no later
    part of B asks A again)."""
    text = b.text
    starts = grammar.clauses(text)
    if len(starts) < 2:
        return None
    if escalation is not None:  # the request may have taken the clauses before it in
        for cut in starts[1:]:
            if cut >= escalation.end():
                break
            if (found := _any(text[:cut], 1, langs, open_)) is not None:
                return found
        return None
    if not _alike(a, b):
        return None
    for start in starts[1:]:
        head = text[:start]
        if (found := _any(head, 1, langs, open_)) is None:
            continue
        tail = _prepared(text[start:])
        if tail.text and is_rephrase(a, tail):
            return found if _about_the_answer(_around(head, found), a, b) else None
    return None


def _around(text: str, complaint: re.Match[str]) -> str:
    """The words of a complaint's clause around its verdict (whole words: the verdict may
    end inside one, "değil" in "değildi")."""
    start, end = _verdict(complaint)
    while end < len(text) and text[end].isalnum():
        end += 1
    opened = max(s for s in grammar.clauses(text) if s <= start)
    closed = _CLAUSE_END.search(text, end)
    return text[opened:start] + " " + text[end : len(text) if closed is None else closed.start()]


_KANA = re.compile(r"[\u3041-\u309f]+")  # hiragana: Japanese grammar, not a thing named


def _about_the_answer(head: str, a: _Turn, b: _Turn) -> bool:
    """Whether the words around a complaint before the question asked again (``head``, the
    complaint taken out) name nothing A did not ("no, not what I asked"), unlike a problem
    of the user's own before a question about it ("my card payment didn't work, what other
    payment methods …"). In Japanese, character pairs of hiragana alone are grammar, not a
    thing named."""
    lang = _first_language(a, b)
    new = content(head, lang) - _content_of(a, lang.code)
    return all(_KANA.fullmatch(w) for w in new)


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


_CLAUSE_END = re.compile(rf"[{grammar.END}]")


@cache
def _next_question() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Every language's next-question openers, and every language's clause that opens with
    a question word: two alternations, one attempt each a clause."""
    openers = [lang.openers.pattern for lang in languages() if lang.openers is not None]
    asks = [lang.asks.pattern for lang in languages() if lang.asks is not None]
    joined = ("|".join(f"(?:{p})" for p in ps) for ps in (openers, asks))
    return re.compile(next(joined), _FLAGS), re.compile(next(joined), _FLAGS)


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
    return len(content(rest, lang)) <= own
