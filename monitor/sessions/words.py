"""How the follow-up signals (``signals``) read a turn: every language's file loaded (its
patterns, each behind the literals one of which every match holds, and its word roles), the
turn normalised and split into words, the languages it is written in told by their stop
words, and what it asks about (its content words)."""

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

from monitor.sessions import grammar, matching, ordinals
from monitor.sessions.light import light
from monitor.sessions.matching import required

MAX_CHARS = 1000  # of a turn, read for its signals (a pasted document is not a question)
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
_DIGIT_LETTER = re.compile(r"\d[^\W\d_]")  # a word begun with digits, letters after them


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
    # whether a word typed without its accents is read as that word ("suscripcion"): not
    # where they make letters of their own (Swedish "ändra", to change, is no "andra")
    accents_fold: bool = True
    others: re.Pattern[str] | None = None  # "other", "andere": a question about another one
    prices: re.Pattern[str] | None = None  # "price", "kostet": a question about a price
    amounts: re.Pattern[str] | None = None  # "how much", "quanto": one that may be
    features: str | None = None  # "button", "settings": a request in a clause with one is none
    asks: re.Pattern[str] | None = None  # a clause that opens with a question word
    # where a change goes ("to annual", "a individual", "改成个人套餐"): group 1
    towards: re.Pattern[str] | None = None
    # the plain words of its verdicts' roles (``VERDICT_ROLES``), a listed word's start where
    # the role lists its forms ("도움\\w*": 도움)
    verdict: tuple[str, ...] = ()
    # the plain words that negate ("not", "kein", "yok", "nie"): a turn that holds one says
    # a thing is not so, where keywords ask
    negators: frozenset[str] = frozenset()


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


# the word roles of a verdict (``grammar``): what stands around one says nothing of its own
# ("non serve a niente", "도움이 안 돼요": the verdict's group holds the negation and the verb)
VERDICT_ROLES: Final = ("negators", "good", "bad", "for_nothing", "no", "answer")


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
        # a question word in a script without spaces asks about nothing either, whole: "어디서"
        # (where), not "어디" and a "서" of B's own
        said += [w for w in table.get("questions", ()) if w.isalpha() and _PAIRED.fullmatch(w)]
        if table.get("spaced", True):  # polite words ask nothing either ("porfa", "aub")
            said += [w for f in table.get("fillers", ()) for w in f.split() if w.isalpha()]
        stop = _stop_words(code) | {w.lower() for w in said} | light(code)
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
                    **{  # ordinals too ("deuxième", "tweede"), where no stop word
                        form: n
                        for w, n in ordinals.ordinals(code).items()
                        for form in (w, w.translate(_FOLD))
                        if form not in stop
                    },
                    **{
                        form: str(n)
                        for n, ws in enumerate(table.get("numerals", ()))
                        for w in ws.split("|")
                        for form in (w, w.translate(_FOLD))
                        if n > 1 or form not in stop  # "une fois", "een keer": an article
                    },
                },
                in_advance=grammar.in_advance(table),
                or_not=grammar.or_not(table),
                accents_fold=data.get("accents_fold", True),
                others=re.compile(o, _FLAGS) if (o := grammar.others(table)) else None,
                prices=re.compile(p, _FLAGS) if (p := grammar.prices(table)) else None,
                amounts=re.compile(m, _FLAGS) if (m := grammar.amounts(table)) else None,
                features=grammar.features(table),
                asks=asks,
                towards=re.compile(t, _FLAGS) if (t := table.get("towards")) else None,
                verdict=tuple(
                    plain
                    for role in VERDICT_ROLES
                    for x in table.get(role, ())
                    for w in x.split()
                    if (plain := w.removesuffix("\\w*")).isalpha()
                ),
                negators=frozenset(
                    w for x in table.get("negators", ()) for w in x.split() if w.isalpha()
                ),
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
        if _DIGIT_LETTER.search(text):  # an ordinal typed with its digits: "2e", "2nd": "2"
            words = [(ordinals.typed(w) or w) if w[0].isdigit() else w for w in words]
        kept = [w for w in words if w not in skipped]
        if text.isascii():
            return frozenset(map(stemmer, kept) if stemmer is not None else kept)
        # stemmed as typed, then without accents: the stemmer knows the language's letters
        # ("doğrulamayı" -> "doğrulama"; "dogrulamayi" it leaves whole)
        if lang.accents_fold:
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


class _Turn(NamedTuple):
    """A turn as the signals read it: normalised, its words, its stop words' counts per
    language, and whether it holds Chinese, Japanese or Korean script."""

    text: str
    words: list[str]  # shared between the pairs a turn is in: never changed
    counts: tuple[int, ...]
    unspaced: bool
    contents: dict[str, frozenset[str]]  # its content words by language, once read
    starts: frozenset[str]  # its words' first four letters, as typed and without accents
    # what it says on its own, by the languages read (``signals``: a request for a person, a
    # complaint, thanks), once read
    said: dict[tuple[str, ...], tuple[object, object]]
    query: str  # as typed (``names`` reads it, where a rephrase needs it)


_RAW_WORD = re.compile(r"[^\W_]+")
_OPENS_CLAUSE = re.compile(r"[.,;:!?。、，！？…]\s*$")  # a word after it opens a clause


@lru_cache(maxsize=1024)
def names(query: str) -> frozenset[str]:
    """The words of a turn typed as names: a capital inside a word ("KinoGo"), or a word
    begun with one that does not open the turn or a clause ("… bei Banken Tall")."""
    if query[1:].islower() or not any(c.isupper() for c in query[1:]):
        return frozenset()  # the common case: nothing named so
    out = set()
    for m in _RAW_WORD.finditer(query):
        word = m.group()
        inner = any(c.isupper() for c in word[1:]) and not word.isupper()
        if not inner and (
            not word[0].isupper() or m.start() == 0 or _OPENS_CLAUSE.search(query, 0, m.start())
        ):
            continue
        out.add(normalise(word))
    return frozenset(out)


@lru_cache(maxsize=4096)
def _prepared(query: str) -> _Turn:
    """A turn read once: every turn but a session's first and last is the B of one pair and
    the A of the next."""
    text = normalise(query)
    words = _words(text)
    unspaced = _UNSPACED.search(text) is not None
    starts = frozenset(w[:4] for w in words)
    if not text.isascii():  # and without accents: "şifremi" typed "sifremi"
        starts |= {w.translate(_FOLD) for w in starts if not w.isascii()}
    return _Turn(text, words, _counts(words), unspaced, {}, starts, {}, query)


_KANA = re.compile(r"[\u3041-\u309f]+")  # hiragana: Japanese grammar, not a thing named


_CLAUSE_END = re.compile(rf"[{grammar.END}]")


@cache
def _next_question() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Every language's next-question openers, and every language's clause that opens with
    a question word: two alternations, one attempt each a clause."""
    openers = [lang.openers.pattern for lang in languages() if lang.openers is not None]
    asks = [lang.asks.pattern for lang in languages() if lang.asks is not None]
    joined = ("|".join(f"(?:{p})" for p in ps) for ps in (openers, asks))
    return re.compile(next(joined), _FLAGS), re.compile(next(joined), _FLAGS)
