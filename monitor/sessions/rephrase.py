"""Whether a turn asks again what the turn before it asked: the ``rephrase`` signal of
``signals`` (see its module for what counts), read on the two turns' content words
(``words``)."""

from __future__ import annotations

import re
from functools import cache

from monitor.sessions import grammar, initials, keywords, korean, matching, unspaced
from monitor.sessions.words import (
    _FOLD,
    _KANA,
    Language,
    _by_code,
    _content_of,
    _first_language,
    _next_question,
    _prepared,
    _skipped,
    _stop_index,
    _Turn,
    content,
    languages,
    names,
)


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


_SLIPS = 2  # words of B's own at most that may be stop words typed with a slip
_FRAGMENT = 3  # words at most of a turn that is a question cut to its words ("urlaubstage???")


def _fragment(b: _Turn, in_b: int, shared: int) -> bool:
    """Whether B is the earlier question cut to a few of its words ("betaalmethodes?",
    "segunda via boleto", "revolut?"): at most ``_FRAGMENT`` words, every content word of
    B's (``in_b``) among A's (``shared``)."""
    return 0 < in_b == shared and len(b.words) <= _FRAGMENT


def _asked_out(a: _Turn, b: _Turn, ca: frozenset[str], cb: frozenset[str], shared: int) -> bool:
    """Whether B asks in full what A asked as a fragment ("battery stats?" -> "where do i
    see battery stats", "statystyki baterii?" -> "gdzie widzę statystyki baterii"): A is at
    most ``_FRAGMENT`` words and opens with no question word, B keeps every content word of
    A's (two at least), opens with a question word and adds one content word at most (the
    verb the question is asked with). A question that adds a thing of its own ("cabins for
    pets?" -> "how much does the cabin for pets cost and is food included") adds more."""
    if len(a.words) > _FRAGMENT or shared < len(ca) or len(ca) < 2 or len(cb) - shared > 1:
        return False
    asks = _next_question()[1]
    return asks.match(b.text) is not None and asks.match(a.text) is None


def _spaced_kept(ca: frozenset[str], cb: frozenset[str], b: _Turn, exact: int) -> bool:
    """``_kept`` or ``_fragment`` of a question written with spaces (``exact``: the words
    B and A share as they are), words typed with a slip or cut short looked for only when
    they can decide."""
    if _kept(exact, len(ca), len(cb)) or _fragment(b, len(cb), exact):
        return True
    most = min(len(ca), len(cb))  # shared at most: the words that may match decide
    if (
        not _kept(most, len(ca), len(cb))
        and not _fragment(b, len(cb), most)
        and not _cut_counts(len(ca), len(cb), most)
    ):
        return False
    shared = matching.shared(ca, cb)
    return (
        _kept(shared, len(ca), len(cb))
        or _fragment(b, len(cb), shared)
        or _cut_to_keywords(b, len(ca), len(cb), shared)
    )


_KEPT_SHORT = 1 / 3  # of A's content words that B, cut to some of them, keeps at least


def _cut_counts(in_a: int, in_b: int, shared: int) -> bool:
    """``_cut_to_keywords``'s counts: every word of B's A's, two at least, a third of A's."""
    return shared >= 2 and in_b == shared and shared >= _KEPT_SHORT * in_a


def _cut_to_keywords(b: _Turn, in_a: int, in_b: int, shared: int) -> bool:
    """Whether B asks A again cut to some of its words, none of its own, where A said much
    around its question ("siema wypożyczyłem deskę i wiązanie pękło, co teraz" -> "wiązanie
    pękło co robić??", "Boa tarde. Gostaria de saber se … transferir minha passagem …" ->
    "Reitero a pergunta: é possível transferir a passagem …?"): two of A's words at least
    and ``_KEPT_SHORT`` of them, B asking (a question mark or a question word, wherever it
    stands: "senha incorreta o que fazer") and not opening as a next question ("e da Torino
    a Milano?"). A statement that names the thing asks nothing ("ik heb geen e-bike", "I
    reset my password twice and it still says wrong password")."""
    if not _cut_counts(in_a, in_b, shared):
        return False
    openers, asks = _next_question()
    if openers.match(b.text):
        return False
    return "?" in b.text or "？" in b.text or asks.search(b.text) is not None


def _unstemmed(turn: _Turn, lang: Language) -> frozenset[str]:
    """A turn's content words as typed (without accents), not stemmed (kept on the turn)."""
    key = f"{lang.code}~"
    got = turn.contents.get(key)
    if got is None:
        skipped = _skipped(lang.code)
        got = turn.contents[key] = frozenset(
            f for w in turn.words if w not in skipped and (f := w.translate(_FOLD)) not in skipped
        )
    return got


def _unstemmed_kept(a: _Turn, b: _Turn, lang: Language) -> bool:
    """``_spaced_kept`` of the words as typed, where the stemmer cut a word typed with a
    slip apart from its word ("canbiare" / "cambiare": "canb", "camb") or a short word
    too far ("rzym": "rz", "rzymu": "rzym")."""
    ua, ub = _unstemmed(a, lang), _unstemmed(b, lang)
    if not ua or not ub or (ua == a.contents.get(lang.code) and ub == b.contents.get(lang.code)):
        return False  # read so already
    return _spaced_kept(ua, ub, b, len(ua & ub))


def _as_keywords(
    a: _Turn, b: _Turn, lang: Language, ca: frozenset[str], cb: frozenset[str]
) -> bool:
    """Whether B asks A again as its keywords with one word of its own (``keywords``: three
    of A's words at least and ``_KEPT_SHORT`` of them, or two in a bare query, one clause
    that neither asks nor negates: ``keywords.bare``), asking with no question word (with a
    question mark or typed as keywords: ``keywords.typed_as_keywords``) and not A with
    another thing put in the place of one of its words."""
    if not keywords.counts(len(ca), len(cb), min(len(ca), len(cb)), _KEPT_SHORT, keywords.BARE):
        return False  # not even with every word alike (the common case)
    shared = matching.shared(ca, cb)
    if not keywords.counts(len(ca), len(cb), shared, _KEPT_SHORT) and not (
        keywords.counts(len(ca), len(cb), shared, _KEPT_SHORT, keywords.BARE)
        and keywords.bare(b, cb, lang)
    ):
        return False
    if _next_question()[1].search(b.text) is not None:
        return False
    if "?" not in b.text and "？" not in b.text and not keywords.typed_as_keywords(b, cb):
        return False  # a statement that names A's things ("the parcel still goes to …")
    return not keywords.in_place(a, b, lang)


_SLICE = 3  # words at least of B typed as a run of A's words


def _cut_from(a: _Turn, b: _Turn) -> bool:
    """Whether B is A's question typed again and cut short: ``_SLICE`` words at least that
    stand in a row in A, as A typed them, B asking (a question mark or a question word):
    "why was I charged twice for my … order #88412" -> "WHY WAS I CHARGED TWICE"."""
    if not _SLICE <= len(b.words) < len(a.words):
        return False
    if f" {' '.join(b.words)} " not in f" {' '.join(a.words)} ":
        return False
    return "?" in b.text or "？" in b.text or _next_question()[1].search(b.text) is not None


_ELLIPTIC = 3  # content words at most of a next question cut to what it moves to ("and X?")
_SPELLED = 3  # words of its own at most that B spells such a question out with
_KEYWORDS = 5  # words at most of B so spelled out: keywords, as typed into a search box


def _spelled_out(a: _Turn, b: _Turn, lang: Language, cb: frozenset[str]) -> bool:
    """Whether A is a next question cut to what it moves to ("¿y a Baleares?", "e per
    disattivarla?", "och kajak?"), its question the turn's before it, and B asks it again
    spelled out: every word A names after its opener, and at most ``_SPELLED`` words of its
    own, the earlier question's ("envíos a baleares??", "disattivare modalità notte")."""
    opened = _next_question()[0].match(a.text)
    if len(b.words) > _KEYWORDS or opened is None or _next_question()[0].match(b.text):
        return False
    rest = a.text[opened.end() :]
    named = content(rest, lang)
    if not named or len(named) > _ELLIPTIC or len(cb) - len(named) > _SPELLED:
        return False
    return matching.shared(named, cb) == len(named)


_LEAD = 4  # words at most of a lead-in before a colon ("Jag frågar igen:", "te pregunté:")


def _after_lead(a: _Turn, b: _Turn, ca: frozenset[str], lang: Language) -> bool:
    """Whether B asks A again after a lead-in that says so, whatever it names around A's
    words ("Jag frågar igen: hur beställer jag ett saldobesked för mitt konto hos …?",
    "te pregunté: ¿dónde veo mi IBAN en la app de …?"): a few words (``_LEAD``) before a
    colon, then a question (a question mark or a question word) that opens as no next
    question and holds every content word of A's, two at least."""
    colon = b.text.find(": ")  # not a time of day ("10:30")
    if colon < 0 or len(ca) < 2 or len(b.text[:colon].split()) > _LEAD:
        return False
    rest = b.text[colon + 1 :].strip()
    openers, asks = _next_question()
    if not rest or openers.match(rest) or ("?" not in rest and asks.search(rest) is None):
        return False
    return matching.shared(_content_of(_prepared(rest), lang.code), ca) == len(ca)


def _names_off(a: _Turn, lang: Language, ca: frozenset[str], cb: frozenset[str]) -> bool:
    """Whether B is A with the names A typed left out ("wie stelle ich beim Heizprofi
    Thermostat den Urlaubsmodus ein" -> "wie stelle ich den Urlaubsmodus ein"): every word of
    B's is A's, and B keeps two at least and half of A's other words."""
    if len(cb) < 2 or not (typed := names(a.query)):
        return False
    if not cb <= ca and matching.shared(ca, cb) < len(cb):
        return False  # a word of B's own, not another form of one of A's ("zawieszenie")
    named = content(" ".join(sorted(typed)), lang) - cb
    rest = ca - named
    return bool(named & ca) and len(cb) >= 2 and 2 * len(cb) >= len(rest)


def _unslipped(a: _Turn, b: _Turn, lang: Language, cb: frozenset[str]) -> frozenset[str]:
    """B's content words less those typed for a stop word with a slip (a word of four
    letters at least that is none, begins as one and is one slip from it: "coment" for
    "comment", "säjer" for "säger", ``matching.slipped``) and those that are another form
    of a stop word A says ("cómo agrego …" / "agregar …": the stop list holds one form)."""
    ends = _stop_by_ends(lang.code)
    skipped = _skipped(lang.code)  # as typed and without accents ("agregó": "agrego")
    said = [w for w in a.words if len(w) >= 4 and w in skipped]
    slipped = [
        w for w in b.words
        if len(w) >= 4 and w not in lang.stop and (any(
            abs(len(s) - len(w)) <= 1 and matching.slipped(w, s) for s in ends.get(w[0] + w[-1], ())
        ) or any(w[:4] == s[:4] and matching.close(w, s) for s in said))
    ]  # fmt: skip
    if not slipped:
        return cb
    kept = [w for w in b.words if w not in slipped]
    return content(" ".join(kept), lang, kept, False)


@cache
def _stop_by_ends(code: str) -> dict[str, tuple[str, ...]]:
    """A language's stop words of three letters or more by their first and last letters
    (a slip keeps both: ``matching.slipped``)."""
    out: dict[str, list[str]] = {}
    for word in _by_code()[code].stop:
        if len(word) >= 3:
            out.setdefault(word[0] + word[-1], []).append(word)
    return {ends: tuple(words) for ends, words in out.items()}


def _alike(a: _Turn, b: _Turn) -> bool:
    """Whether a word of B begins as one of A (their first four letters), or either is
    written without spaces: a rephrase needs one."""
    if a.unspaced or b.unspaced:
        return True
    return not a.starts.isdisjoint(b.starts)


def _as_typed_in(a: _Turn, b: _Turn) -> _Turn:
    """B with its words joined or split as A typed them: a word of B's that is two of A's in
    a row typed together ("debitcard", "epostadress" for "e-postadress", "xb200",
    "checkout"), or two of B's in a row that A typed as one ("check out" / "checkout"), or
    a short word of B's that is the initials of a run of A's words (``initials``: "mdp",
    "rdv", "2fa")."""
    whole = set(a.words)
    if whole.issuperset(b.words):
        return b  # every word of B's typed as in A (and most other turns: nothing alike)
    words: list[str] = []
    i, changed = 0, False
    joined = {x + y: (x, y) for x, y in zip(a.words, a.words[1:], strict=False)}
    read: list[str] = []  # A's words as initials read them, once one may be

    def _read(turn: _Turn) -> list[str]:
        read.extend(initials.pieces(turn.words, _numerals()))
        return read

    while i < len(b.words):
        word = b.words[i]
        if word not in whole and (parts := joined.get(word)) is not None:
            words += parts
            changed = True
        elif (
            i + 1 < len(b.words) and word not in whole and (both := word + b.words[i + 1]) in whole
        ):
            words.append(both)
            i += 1
            changed = True
        elif (
            2 <= len(word) <= 4
            and word not in whole
            and word not in _stop_index()  # a word that asks is no name's initials ("der")
            and (run := initials.expanded(word, a.words, read or _read(a))) is not None
        ):
            words += run  # "mdp" for "mot de passe", "2fa" for "two factor authentication"
            changed = True
        else:
            words.append(word)
        i += 1
    if not changed:
        return b
    # read in B's languages: a part split off ("e" of "esim") is no stop word of another's
    return _prepared(" ".join(words))._replace(counts=b.counts)


@cache
def _numerals() -> dict[str, str]:
    """Every language's number words and their digits ("two", "zwei": "2")."""
    return {w: n for lg in languages() for w, n in lg.numerals.items()}


def is_rephrase(a: _Turn, b: _Turn) -> bool:
    """Whether B asks again for what A asked (see the module)."""
    if b.words and a.words == b.words:  # the same words: an exact repeat, cases aside
        return True
    if not _alike(a, b) and not _opens(a):
        # no word begun alike: nothing asked again ("thanks", "agent"); but a next question
        # cut to its verb may be spelled out with the verb's particle on it ("und wie
        # schalte ich ihn aus?" -> "nachtmodus ausschalten": ``_spelled_out``)
        return False
    if _asks_again(a, b):
        return True
    # words typed together that A typed apart, or apart that A typed together: looked for
    # only when they can decide
    if a.unspaced or b.unspaced or (typed := _as_typed_in(a, b)) is b:
        return False
    return _asks_again(a, typed)


def _opens(turn: _Turn) -> bool:
    """Whether a turn opens as a next question (kept on the turn: a turn is the A of one
    pair, read against each B while its session is open)."""
    got = turn.contents.get(_OPENS)
    if got is None:
        opened = _next_question()[0].match(turn.text) is not None
        got = turn.contents[_OPENS] = frozenset({_OPENS}) if opened else frozenset()
    return bool(got)


_OPENS = "\x00opens"  # the key ``_opens`` keeps its reading under (no language's code)


def _asks_again(a: _Turn, b: _Turn) -> bool:
    """``is_rephrase`` of two turns with a word begun alike."""
    lang = _first_language(a, b)
    english = languages()[0]
    cb = _content_of(b, lang.code)
    if not cb or not (ca := _content_of(a, lang.code)):
        return False
    exact, paired = len(ca & cb), a.unspaced or b.unspaced
    spelled = False  # B spells out a next question cut to what it moves to (``_spelled_out``)
    if paired and not _kept(exact, len(ca), len(cb), True):
        # reordered ("密码重置" / "重置密码") or cut short, a question written without
        # spaces changes its character pairs, not its characters (``unspaced.held``)
        chars_a, chars_b = unspaced.characters(ca), unspaced.characters(cb)
        if not chars_b:
            return False
        if not unspaced.held(a, b, chars_a, chars_b) and not (
            (verbal := unspaced.verbal(a.text, b.text, chars_a, chars_b)) is not chars_b
            and unspaced.held(a, b, chars_a, verbal)
        ):
            # Korean read by its stems: a thing swapped is a stem of B's own there, its
            # endings changed no thing (the character pairs' guards below are not read);
            # a next question spelled out: B's own characters are the earlier question's
            spelled = unspaced.spelled_out(a, b, chars_a, chars_b)
            if not spelled and not _by_stems(a, b, lang):
                return False
            paired = False
    elif (
        not paired
        and not _spaced_kept(ca, cb, b, exact)
        and not (len(cb - ca) <= _SLIPS and _unstemmed_kept(a, b, lang))
        and not _names_off(a, lang, ca, cb)
        and not (len(a.words) <= _FRAGMENT and _asked_out(a, b, ca, cb, matching.shared(cb, ca)))
        and not (spelled := _spelled_out(a, b, lang, cb))
        and not _after_lead(a, b, ca, lang)
        and not _as_keywords(a, b, lang, ca, cb)
        and not _cut_from(a, b)
    ):
        # a question word or the like typed with a slip ("coment", "säjer") is no word of
        # B's own: looked for only when it can decide
        # (it leaves A's words kept as they are: only where they are kept enough)
        shared = matching.shared(ca, cb)
        if (
            not shared
            or len(cb) - shared > _SLIPS
            or (len(b.words) > _FRAGMENT and 2 * shared < len(ca))
        ):
            return False
        cb = _unslipped(a, b, lang, cb)
        if not cb or not _spaced_kept(ca, cb, b, len(ca & cb)):
            return False
    # a next question that narrows or moves on names what it moves to ("and for the Team
    # plan?"); one that names nothing new asks again ("entonces … o no")
    if not cb <= ca:
        for lg in (lang,) if lang is english else (lang, english):
            if lg.openers is not None and lg.openers.search(b.text):
                return False
    if (
        paired
        and (matching.swapped(ca - cb, cb - ca, ca) or unspaced.replaced(ca, cb))
        and not _by_stems(a, b, lang)
    ):
        return False  # a thing swapped; in Korean, an ending changed is none ("됐어요" / "됨")
    for lg in (lang,) if lang is english else (lang, english):
        if lg.others is not None and _other(lg.others, a.text, b.text):
            return False  # what other payment methods are there: not the same ones
        if (
            lg.prices is not None
            and _priced(lg.prices, lg.amounts, a.text, b.text)
            and not (spelled or _spelled_out(a, b, lang, cb))
            and not (lg.prices.search(b.text) is None and _cut_to_words(b, ca, cb))
        ):
            return False  # is there one / how much is it: not the same question (a
            # question cut to what it moves to asks what the turn before it asked, and
            # so does A asking a price cut to its words)
        if lg.towards is not None and _turned(lg.towards, a.text, b.text):
            return False  # from individual to family, then from family to individual
    pairs = (lang.antonyms,) if lang is english else (lang.antonyms, english.antonyms)
    # opposites are among the words one turn has and the other lacks ("on" / "off"): in
    # every language's pairs, a turn's language told by its stop words being a guess
    # (Portuguese "como ativo o …" / "como desativo o …" reads as Spanish)
    if a.text.isascii() and b.text.isascii():
        in_a, in_b = set(a.words), set(b.words)
        a_only = " ".join(w for w in a.words if w not in in_b)
        b_only = " ".join(w for w in b.words if w not in in_a)
    else:  # "désactiver" / "desactiver": one word
        in_a, in_b = _folded(a.words), _folded(b.words)
        a_only = " ".join(w for w in a.words if w.translate(_FOLD) not in in_b)
        b_only = " ".join(w for w in b.words if w.translate(_FOLD) not in in_a)
    if a_only and b_only and matching.opposed(a_only, b_only, _every_antonym()):
        return False
    return not (a_only and matching.dropped(a.text, b.text, pairs))


def _folded(words: list[str]) -> set[str]:
    """Words without their accents."""
    return {w.translate(_FOLD) for w in words}


@cache
def _every_antonym() -> tuple[matching.Antonyms, ...]:
    """Every language's pairs of opposite words, in one set (one pass over a turn)."""
    sides = [side.pattern for lg in languages() for side in lg.antonyms.sides]
    return (matching.antonyms(zip(sides[::2], sides[1::2], strict=True)),)


def _by_stems(a: _Turn, b: _Turn, lang: Language) -> bool:
    """Whether, in Korean, B keeps what A asked by its words' stems (``korean``: "쿠폰이 적용이
    안 되는데 왜 그런가요?" -> "쿠폰 적용 안 돼요 왜??", "알림 문자 끄는 법은요?" -> "알림
    문자 끄기"), read as words written with spaces are (``_kept``, ``_cut_to_keywords``)."""
    if lang.code != "ko":
        return False
    stop = _skipped(lang.code)
    stems_a, stems_b = korean.stems(a.words, stop), korean.stems(b.words, stop)
    if not stems_a or not stems_b:
        return False
    in_a, in_b = len(set(stems_a)), len(set(stems_b))
    found, kept = korean.shared(stems_a, stems_b)
    if found == in_b and (kept >= 0.5 * in_a or _cut_to_keywords(b, in_a, in_b, kept)):
        return True
    return kept == in_a and found >= 2 and in_b - found <= 0.25 * in_b


def _turned(towards: re.Pattern[str], a: str, b: str) -> bool:
    """Whether B asks for the change A asked for the other way round: where B's change goes
    (``towards``, by its first four letters) A named but not as where its change goes, and
    where A's goes B names but not so ("cambio el plan familiar a individual" -> "cambio
    el plan individual a familiar", "家庭套餐怎么改成个人套餐" -> "个人套餐怎么改成家庭套餐")."""
    to_a = {m[:4] for m in towards.findall(a)}
    if not to_a:
        return False
    to_b = {m[:4] for m in towards.findall(b)}
    new, old = to_b - to_a, to_a - to_b
    return bool(new and old) and all(w in a for w in new) and all(w in b for w in old)


def _priced(prices: re.Pattern[str], amounts: re.Pattern[str] | None, a: str, b: str) -> bool:
    """Whether one turn asks for a price (``prices``) and the other neither does nor asks
    how much (``amounts``: "pro plan ne kadar?" / "pro plan fiyatı" is one question) nor
    holds the price's word typed with a slip: "do you ship to Canada" / "how much is
    shipping to Canada", "kan jag pausa" / "kostar pausen något"."""
    in_a, in_b = prices.search(a), prices.search(b)
    if (in_a is None) == (in_b is None):
        return False
    asked, other = (in_a, b) if in_a is not None else (in_b, a)
    assert asked is not None
    if amounts is not None and amounts.search(other) is not None:
        return False
    # the price's word typed with a slip in the other ("kosten" / "kostn") is the same
    said = asked.group().strip()
    return " " in said or not any(matching.close(said, w) for w in other.split())


def _cut_to_words(b: _Turn, ca: frozenset[str], cb: frozenset[str]) -> bool:
    """Whether B is A cut to some of its words and asks nothing of its own: every content
    word of B's A's, no question mark, no question word ("qual o valor da parcela do
    consórcio de 60 mil?" -> "parcela consorcio 60 mil": the price A asked)."""
    if "?" in b.text or "？" in b.text or _next_question()[1].search(b.text) is not None:
        return False
    return matching.shared(ca, cb) == len(cb)


def _other(others: re.Pattern[str], a: str, b: str) -> bool:
    """Whether B asks about another one where A did not ("what other methods …"): A
    holds no form of B's word for it, as typed or without accents ("inną" / "inna")."""
    found = others.search(b)
    if found is None or others.search(a) is not None:
        return False
    said = found.group().strip().translate(_FOLD)
    return not any(w.translate(_FOLD) == said for w in a.split())


def _asked_again(a: _Turn, b: _Turn) -> bool:
    """Whether B asks A again, whole or in a part with words of its own around it ("hola??
    <the question>", "<the question>. I asked an hour ago", "wrong, there is no cancel
    option. <the question>"): B's clauses from its start, or to its end, that ask (open with
    a question word or end with a question mark) or name every word A asked about ("nochmal
    ganz langsam: kann ich … kündigen oder nicht"). A may have asked with words of its own
    around its question too ("<the question>? Thanks in advance for your help!", "yo <the
    question>"): its part that asks, read so against B."""
    if _asked_in_part(a, b):
        return True
    starts = grammar.clauses(a.text)
    if len(starts) < 2 or not _alike(a, b):
        return False
    asks = _next_question()[1]
    code = _first_language(a, b).code
    for start in starts[1:]:
        for part in (a.text[start:], a.text[:start].rstrip()):
            if not _asks(asks, part):
                continue
            turn = _prepared(part)
            if _names_two(turn, code) and _asked_in_part(turn, b):
                return True
            # or of one word, when B asks with no other ("Kann ich auch die Rechnungsadresse
            # ändern? Vielen Dank im Voraus …" -> "Hallo?? kann ich die Rechnungsadresse
            # ändern?"), the guards read
            if (
                _asks(asks, b.text)
                and (named := _content_of(turn, code))
                and named == _content_of(b, code)
                and is_rephrase(turn, b)
            ):
                return True
    return False


def _asked_in_part(a: _Turn, b: _Turn) -> bool:
    """Whether B asks A again, whole or in a part of its own (``_asked_again``)."""
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
    ca = _content_of(a, code)
    for start in starts[1:]:
        for part in (b.text[start:], b.text[:start].rstrip()):
            asked = _asks(asks, part)
            if not asked and not ca <= _content_of(b, code):
                continue  # nor does B name all A asked about
            turn = _prepared(part)
            if not asked and not ca <= _content_of(turn, code):
                continue  # a part that does not ask names all A asked about
            if _names_two(turn, code) and is_rephrase(a, turn):
                return True
    return False


def _asks(asks: re.Pattern[str], part: str) -> bool:
    """Whether a part of a turn asks: opens with a question word (``asks``) or ends with a
    question mark."""
    return asks.match(part) is not None or part.endswith(("?", "？"))


def _names_two(turn: _Turn, code: str) -> bool:
    """Whether a part of a turn is a question of its own: two words of what it asks about
    at least (not one, "…, dass ich Student bin?"), hiragana (grammar) aside."""
    return sum(not _KANA.fullmatch(w) for w in _content_of(turn, code)) >= 2
