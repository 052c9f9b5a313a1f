"""``unsupported_names``: proper names the answer writes that neither the context nor the
query contains (docs/checks.md says what is a name and when the context has it).

A name is a capitalised word of the running text (a capital, then small letters, one more
capital inside allowed: ``McKinsey``), of three letters or more, that does not start a
sentence, a line, a list item, a table cell or what follows a colon, is not in a heading or
a title line, is not a month, a weekday or a word a sentence may capitalise without naming
anything, and is not inside a marker, a URL, an address or code. The context has it when
its text, its passages' ids or the query write it, in any case and with or without accents,
at the start of a word. An answer in German (every noun capitalised) is not judged.
"""

from __future__ import annotations

import re
import unicodedata
from typing import ClassVar

from monitor.checks.evidence import NamesEvidence
from monitor.checks.numbers.patterns import strip_noise
from monitor.checks.refusal import find_refusal
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.model import CheckResult

# Words a sentence may capitalise without naming anything (lower-cased): articles, pronouns,
# determiners, conjunctions, prepositions, sentence adverbs, titles of address, the words of
# a reference to the context, months and weekdays (dates are unsupported_numbers' to judge).
NOT_NAMES = frozenset(
    """
    the and but for nor yet not now then than that this these those there here what which
    who whom whose when where why how all any both each either neither every some such
    she her hers him his its our ours their theirs them they you your yours one ones
    after before during since until while with without within into onto upon from about
    above below under over between among through across along around against toward
    towards beyond behind despite except per via like unlike near off out
    also although though however moreover furthermore meanwhile therefore thus hence
    instead otherwise overall additionally finally firstly secondly lastly generally
    typically usually currently today yes yeah okay please thanks thank sorry sure well
    mrs miss sir madam
    passage passages document documents doc docs source sources context contexts article
    articles section sections table tables figure figures step steps note notes answer
    question reference references page pages chapter
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    celsius fahrenheit kelvin
    ihr ihre ihren ihrem ihrer ihnen sie vous votre vos usted ustedes
    twój twoja twoje twojego twojej twoim twoich twoją tobie ciebie wasz wasza wasze waszego
    waszym waszej państwo pan pani
    """.split()
)
# The function words that tell an answer in German from one in English (neither list holds
# a word both languages write, "in", "die", "man").
_GERMAN = frozenset(
    "der die das und ist nicht mit für ein eine einen einem einer auf den dem des zu von sich "
    "sie wir ich auch wird werden sind im bei oder aber wie nach kann können zum zur es gibt "
    "kein keine keinen nein ja bis sehr darf dürfen muss müssen".split()
)
_ENGLISH = frozenset(
    "the and is not with for a an on of to from it they we also will are at or but how "
    "after can this that".split()
)
GERMAN_WORDS = 2  # the German function words an answer needs, above its English ones

# A sentence ends after . ! ? or : and a space; a table cell or a blanked marker ("|") ends
# one too. The point of a title of address or of "e.g." does not end a sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\s*\|\s*")
_NO_END = re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof|St|Sr|Jr|vs|e\.g|i\.e)\.", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['’-][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s?$")
# An acronym's expansion beside it, "ARIA (Accessible Rich Internet Applications)" or "Web
# Content Accessibility Guidelines (WCAG)": words of the expansion are not names.
_EXPANDED = re.compile(r"\b([A-Z]{2,})\s*\(([^()\n]{3,120})\)")
_EXPANDING = re.compile(
    r"((?:[A-Z][\w'’-]*\s+(?:(?:of|and|for|the|on|in|from|to|with|at|by|a|an|&)\s+)*){1,9})"
    r"\(([A-Z]{2,})\)"
)


_HEADING_END = frozenset(".!?")
_INNER_END = re.compile(r"[.!?]\s+\S")
# A line that lists the answer's sources is its citations, not a claim.
_SOURCES = re.compile(r"[*_]*(?:sources?|references?|citations?)[*_]*\s*:", re.IGNORECASE)


def _without_expansions(text: str) -> str:
    """``text`` with each acronym's expansion beside it blanked (see ``_EXPANDED``): the
    capitalised words whose initials spell the acronym."""
    if "(" not in text:
        return text

    def blank(words: str, acronym: str, last: bool) -> str:
        caps = [m for m in _WORD.finditer(words) if m.group(0)[0].isupper()]
        if last:  # the expansion ends right before "(WCAG)": its last capitalised words
            caps = caps[-len(acronym) :]
        initials = "".join(m.group(0)[0] for m in caps)
        if len(caps) < 2 or initials != acronym:  # ("Driver and Vehicle ... (DVLA)": not it)
            return words
        start, end = caps[0].start(), caps[-1].end()
        return words[:start] + " " * (end - start) + words[end:]

    text = _EXPANDED.sub(
        lambda m: m.group(0).replace(m.group(2), blank(m.group(2), m.group(1), False)), text
    )
    return _EXPANDING.sub(
        lambda m: blank(m.group(1), m.group(2), True) + m.group(0)[len(m.group(1)) :], text
    )


def is_name(word: str) -> bool:
    """Whether ``word`` (a possessive set aside) is written as a name: a capital, then small
    letters, one more capital inside allowed (``McKinsey``, ``LeBron``), three letters or
    more, letters only; never a word of ``NOT_NAMES``."""
    if len(word) < 3 or not word[0].isupper() or not word.isalpha():
        return False
    rest = word[1:]
    if not rest.islower():
        caps = [i for i, c in enumerate(rest) if c.isupper()]
        if len(caps) != 1 or caps[0] < 1 or len(rest) - caps[0] < 3:
            return False
        if not (rest[: caps[0]].islower() and rest[caps[0] + 1 :].islower()):
            return False
    low = word.lower()  # (weekdays in the plural too: "open on Saturdays")
    return low not in NOT_NAMES and not (low.endswith("days") and low[:-1] in NOT_NAMES)


def _heading(line: str) -> bool:
    """A markdown heading, or a line that neither ends as a sentence does nor holds a
    sentence that ends, whose words are more than half capitalised (a title)."""
    if line.startswith("#"):
        return True
    if line.rstrip("*_\"'”’) ")[-1:] in _HEADING_END or _INNER_END.search(line):
        return False  # it ends as a sentence does, or holds one that ends
    words = _WORD.findall(line)
    return len(words) >= 2 and 2 * sum(w[0].isupper() for w in words) > len(words)


def answer_names(answer: str) -> list[str]:
    """The names ``answer`` writes (see ``is_name``), once each, in order, as written."""
    if answer.lower() == answer:
        return []  # nothing capitalised
    text = answer if "(" not in answer else _without_expansions(answer)
    text = strip_noise(_NO_END.sub(_no_end, text) if "." in text else text)
    found: list[tuple[str, str]] = []  # (name, its sentence)
    for line in text.splitlines():
        line = line.strip().lstrip("-*•>+ ").strip()
        if not line or _heading(line) or _SOURCES.match(line):
            continue
        for sentence in _SENTENCE_END.split(line):
            for i, m in enumerate(_WORD.finditer(sentence)):
                whole = m.group(0)
                if i == 0 or not (whole[0].isupper() or "-" in whole):
                    continue  # a sentence's first word is capitalised whatever it is
                for part in whole.split("-"):
                    word = _POSSESSIVE.sub("", part) if "'" in part or "’" in part else part
                    if is_name(word):
                        found.append((word, sentence))
    if found and find_refusal(answer) is not None:  # a refusal's sentences claim nothing
        refusing: dict[str, bool] = {}
        for _, sentence in found:
            if sentence not in refusing:
                refusing[sentence] = find_refusal(sentence) is not None
        found = [(w, s) for w, s in found if not refusing[s]]
    return list(dict.fromkeys(w for w, _ in found))


def _no_end(m: re.Match[str]) -> str:
    """A title of address or "e.g." without its point, which ends no sentence."""
    return m.group(0)[:-1] + " "


# Letters no accent is taken off, read as the letters they are written as in English
# ("Søren" as "Soren", "Łódź" as "Lodz", "Straße" as "Strasse")
_UNSTROKED = str.maketrans(
    dict(zip("øØłŁđĐħĦıðÐ", "oOlLdDhHidD", strict=True))
    | {"ß": "ss", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe", "þ": "th", "Þ": "Th"}
)


def _folded(text: str) -> str:
    """``text`` without its accents (``Szijjártó`` -> ``Szijjarto``), its stroked letters
    and ligatures as their plain ones (``Søren`` -> ``Soren``, ``Straße`` -> ``Strasse``)."""
    plain = unicodedata.normalize("NFKD", text.translate(_UNSTROKED))
    return "".join(c for c in plain if not unicodedata.combining(c))


def _starts_a_word(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` where no letter comes just before it."""
    i = text.find(word)
    while i >= 0:
        if i == 0 or not text[i - 1].isalpha():
            return True
        i = text.find(word, i + 1)
    return False


def german(answer: str) -> bool:
    """Whether ``answer`` reads as German by its function words (see the module)."""
    words = answer.lower().split()
    de = sum(w in _GERMAN for w in words)
    return de >= GERMAN_WORDS and de > sum(w in _ENGLISH for w in words)


class UnsupportedNames:
    """Flags answers writing a proper name that neither the context nor the query contains.

    Evidence lists the names not found, as the answer writes them, and how many were read.
    """

    name: ClassVar[str] = "unsupported_names"
    evidence: ClassVar[type[NamesEvidence]] = NamesEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = ()
    options: ClassVar[None] = None  # nothing to configure

    def __init__(self, options: None = None) -> None:
        """Nothing to configure (``options`` is always None)."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        answer = view.answer
        if german(answer):
            return CheckResult.not_applicable(self.name, "an answer in German")
        names = answer_names(answer)
        if not names:
            return CheckResult(name=self.name, flagged=False, evidence=NamesEvidence((), 0))
        trace = view.trace
        ids = " ".join(p.doc_id or "" for _, p in view.packed)
        known = f"{view.context_text}\n{ids}\n{trace.query}".lower()
        folded: str | None = None
        missing: list[str] = []
        for name in names:
            low = name.lower()
            if _starts_a_word(known, low):
                continue
            if not (known.isascii() and low.isascii()):  # accents do not matter
                folded = folded if folded is not None else _folded(known)
                if _starts_a_word(folded, _folded(low)):
                    continue
            missing.append(name)
        evidence = NamesEvidence(tuple(missing), len(names))
        return CheckResult(name=self.name, flagged=bool(missing), evidence=evidence)
