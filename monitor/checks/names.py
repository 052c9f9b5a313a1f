"""``unsupported_names``: proper names the answer writes that neither the context nor the
query contains (docs/checks.md says what is a name and when the context has it).

A name is a capitalised word of the running text (a capital, then small letters, one more
capital inside allowed: ``McKinsey``), of three letters or more, that does not start a
sentence, a line, a list item, a table cell or what follows a colon, is not in a heading or
a title line, is not a month, a weekday or a word a sentence may capitalise without naming
anything, and is not inside a marker, a URL, an address or code. The context has it when
its text, its passages' ids or the query write it, in any case and with or without accents,
at the start of a word. An answer in German (every noun capitalised) is not judged.

A sentence's first word is capitalised whatever it is: it is a name only when it is written
as one (``is_name``), the context does not write it, and it is a brand's capitals
(``JumpCloud``) or no English word at all (``Mailchimp``, ``Ofwat``: pyspellchecker's word
list, read only then), in an answer in English (fastText's language identification). A first
word that is also an English word (``Stripe``, ``Visa``) is not judged.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from importlib import resources
from typing import ClassVar

from monitor.checks.evidence import NamesEvidence
from monitor.checks.numbers.patterns import strip_noise
from monitor.checks.refusal import find_refusal
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.language import is_english
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
    mrs miss sir madam cllr
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

# Acronyms of no one: units, currencies, time zones, file formats, trades' and offices'
# everyday terms, and words written in capitals for emphasis. Any other acronym of two to
# six capitals names a body, a place or a product ("FCA", "NHS", "MHRA", "UK").
GENERIC_ACRONYMS = frozenset(
    """
    AM PM UTC GMT BST CET CEST EST EDT CST CDT PST PDT MST IST AEST JST
    KB MB GB TB PB KBPS MBPS GBPS MHZ GHZ KW KWH MW MWH KM KG MG ML MM CM MPH KPH BPM RPM
    USD EUR GBP JPY INR AUD CAD NZD CHF CNY HKD SGD
    PDF CSV XLS XLSX DOC DOCX PNG JPG JPEG GIF SVG MP MP3 MP4 ZIP TXT XML JSON YAML HTML
    CSS HTTP HTTPS URL URI FTP SFTP SSH SSL TLS DNS IP VPN LAN WAN SMS MMS OTP PIN ATM
    ID IDS API APIS SDK CLI GUI UI UX OS CPU GPU RAM ROM SSD HDD USB HDMI LED LCD TV PC
    DVD CD AI ML LLM NLP RAG OCR QR SQL CRM ERP SSO SAML MFA TFA FAQ FAQS
    CEO CFO COO CTO CIO CMO VP HR IT PR QA RND KPI OKR ROI SLA SLO NDA RFP RFQ POS
    VAT GST HST PST TAX APR AER IBAN BIC SWIFT BACS CHAPS EFT ACH IRA ISA LTV
    GP AE ICU ER ENT MRI CT ECG EKG BMI BP DNA RNA PCR IV OTC
    ETA ETD RSVP TBC TBD TBA NA ASAP FYI AKA DIY PS NB OK RE FW CC BCC HM HRH MSK
    UV IQ EV PHD MBA BSC MSC BA MA MD
    NOTE TIP WARNING CAUTION IMPORTANT NEW FREE SALE ONLY NOT ALL AND THE OR NO YES NEVER
    ALWAYS MUST DO DONT STOP UNK
    """.split()
)
_ROMAN = re.compile(r"[IVXLC]+")
_CODE_AFTER = re.compile(r"[ \t]?[-/]?[ \t]?\d")  # an acronym leading a code: "LH 4521"
_ACRONYM = re.compile(r"[A-Z]{2,6}")

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
# A bold label and its value ("**Installer:** Tomasz Kowalski", its opening "**" stripped
# with the list marks), the value not a title whatever its capitals
_LABEL = re.compile(r"([^*:|]{1,40})(?::\*\*|\*\*:)\s+(\S.*)")
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


# A brand written with its capitals where a name has none: "iPad", "eConsult", "BambooHR"
_BRAND = re.compile(r"[a-z][A-Z][a-z]{2,}|[A-Z][a-z]{2,}[A-Z]{2,3}")


def is_name(word: str) -> bool:
    """Whether ``word`` (a possessive set aside) is written as a name: a capital, then small
    letters, one more capital inside allowed (``McKinsey``, ``LeBron``), three letters or
    more, letters only, or a brand's capitals (``_BRAND``); never a word of ``NOT_NAMES``."""
    if _BRAND.fullmatch(word) is not None:
        return word.lower() not in NOT_NAMES
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


def is_acronym(word: str) -> bool:
    """Whether ``word`` is an acronym that names something: two to six capitals, not a
    roman numeral, not one of ``GENERIC_ACRONYMS``."""
    return (
        _ACRONYM.fullmatch(word) is not None
        and word not in GENERIC_ACRONYMS
        and _ROMAN.fullmatch(word) is None
    )


# A term the answer gives its own short form: "dimethyl sulphide, or DMS", "the due date
# (DD)": words in small letters before it
_TERM = re.compile(r"\b[a-z]{2,}(?:,\s*or|\s*\(|,?\s+or)\s*([A-Z]{2,6})\b")


def _shouted(line: str) -> bool:
    """A line written in capitals for emphasis: more than one word of four letters or more
    all in capitals, and at least half of its words so (its acronyms are not told from its
    shouting)."""
    words = _WORD.findall(line)
    caps = sum(1 for w in words if w.isupper() and len(w) > 1)
    return caps > 1 and 2 * caps >= len(words) and any(len(w) >= 4 and w.isupper() for w in words)


def _heading(line: str) -> bool:
    """A markdown heading, or a line that neither ends as a sentence does nor holds a
    sentence that ends, whose words are more than half capitalised (a title)."""
    if line.startswith("#"):
        return True
    if line.rstrip("*_\"'”’) ")[-1:] in _HEADING_END or _INNER_END.search(line):
        return False  # it ends as a sentence does, or holds one that ends
    words = _WORD.findall(line)
    return len(words) >= 2 and 2 * sum(w[0].isupper() for w in words) > len(words)


def _lines(text: str) -> Iterator[tuple[str, bool]]:
    """``text``'s lines, list marks stripped, a table's rows as their cells, a bold label and
    its value as two, each with whether it is one of those two (never a title)."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and len(line) > 1:  # a table's row
            for cell in line.strip("|").split("|"):
                yield cell.strip().lstrip("-*•>+ ").strip(), False
            continue
        line = line.lstrip("-*•>+ ").strip()
        label = _LABEL.match(line) if "**" in line else None
        if label is None or _SOURCES.match(line):
            yield line, False
        else:
            yield label.group(1), True
            yield label.group(2), True


def answer_names(answer: str, first: list[str] | None = None) -> list[str]:
    """The names ``answer`` writes (see ``is_name``), once each, in order, as written;
    ``first``, when given, receives the sentences' first words written as names, which
    may be names or not (see ``english_word``), once each, in order."""
    if answer.lower() == answer:
        return []  # nothing capitalised
    text = answer if "(" not in answer else _without_expansions(answer)
    text = strip_noise(_NO_END.sub(_no_end, text) if "." in text else text)
    found: list[tuple[str, str]] = []  # (name, its sentence)
    openers: list[tuple[str, str]] = []  # (a sentence's first word written as a name, ...)
    terms = {m.group(1) for m in _TERM.finditer(text)}  # short forms of terms, not names
    for line, labelled in _lines(text):
        if not line or (not labelled and _SOURCES.match(line)):
            continue
        if not labelled and _heading(line):
            if first is not None:  # a title's words are capitalised whatever they are: only
                # those that are no English word are names (``english_word``, as first words)
                for m in _WORD.finditer(line.lstrip("#").strip()):
                    word = _POSSESSIVE.sub("", m.group(0))
                    if "-" not in word and word[:1].isupper() and is_name(word):
                        openers.append((word, line))
            continue
        acronyms = not _shouted(line)
        for sentence in _SENTENCE_END.split(line):
            for i, m in enumerate(_WORD.finditer(sentence)):
                whole = m.group(0)
                bare = _POSSESSIVE.sub("", whole) if "'" in whole or "’" in whole else whole
                if acronyms and is_acronym(bare) and bare not in terms:
                    if sentence[m.start() - 1 : m.start()].isdigit() or _CODE_AFTER.match(
                        sentence, m.end()
                    ):
                        continue  # "2FA", "LH 4521": a code (unsupported_numbers' to judge)
                    found.append((bare, sentence))  # (first or not: "NHS England said")
                    continue
                if i == 0 and first is not None and whole[0].isupper() and "-" not in whole:
                    word = _POSSESSIVE.sub("", whole) if "'" in whole or "’" in whole else whole
                    if is_name(word):
                        openers.append((word, sentence))
                if i == 0 or not (whole[0].isupper() or "-" in whole or whole[1:2].isupper()):
                    continue  # a sentence's first word is capitalised whatever it is
                for part in whole.split("-"):
                    word = _POSSESSIVE.sub("", part) if "'" in part or "’" in part else part
                    if is_name(word):
                        found.append((word, sentence))
    # a refusal's sentences claim nothing (their first words neither: asked only when one
    # of them may be a name, no English word)
    if (found or any(not english_word(w) for w, _ in openers)) and find_refusal(answer) is not None:
        refusing: dict[str, bool] = {}
        for _, sentence in [*found, *openers]:
            if sentence not in refusing:
                refusing[sentence] = find_refusal(sentence) is not None
        found = [(w, s) for w, s in found if not refusing[s]]
        openers = [(w, s) for w, s in openers if not refusing[s]]
    names = list(dict.fromkeys(w for w, _ in found))
    if first is not None:
        first.extend(dict.fromkeys(w for w, _ in openers if w not in names))
    return names


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


def _whole_word(text: str, word: str) -> bool:
    """Whether ``text`` writes ``word`` as a word of its own."""
    i = text.find(word)
    while i >= 0:
        end = i + len(word)
        if (i == 0 or not text[i - 1].isalpha()) and (end == len(text) or not text[end].isalpha()):
            return True
        i = text.find(word, i + 1)
    return False


def _starts_a_word(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` where no letter comes just before it, and not as
    the town a county is named after ("gloucester" of "gloucestershire")."""
    i = text.find(word)
    while i >= 0:
        if (i == 0 or not text[i - 1].isalpha()) and not text.startswith("shire", i + len(word)):
            return True
        i = text.find(word, i + 1)
    return False


def german(answer: str) -> bool:
    """Whether ``answer`` reads as German by its function words (see the module)."""
    words = answer.lower().split()
    de = sum(w in _GERMAN for w in words)
    return de >= GERMAN_WORDS and de > sum(w in _ENGLISH for w in words)


# The small words a name's expansion holds between its capitalised ones ("Department for
# Work and Pensions", DWP)
_JOINERS = frozenset("of and for the on in to at by from with de du la le & a an".split())
# Places written so that no initials spell their acronyms
_ALIASES = {
    "UK": ("britain", "british", "united kingdom"),
    "US": ("united states", "america"),
    "USA": ("united states", "america"),
}


def _spelling_runs(text: str) -> Iterator[list[str]]:
    """Each part of a run of ``text``'s capitalised words that may spell an acronym: two to
    seven words, small words between them set aside, a possessive read as its word."""
    run: list[str] = []
    for word in [*_WORD.findall(text), "."]:
        if word[0].isupper():
            run.append(_POSSESSIVE.sub("", word) if "'" in word or "’" in word else word)
            continue
        if word.lower() in _JOINERS and run:
            continue
        for i in range(len(run)):
            for j in range(i + 2, min(len(run), i + 7) + 1):
                yield run[i:j]
        run = []


def initialisms(text: str) -> set[str]:
    """Every acronym the initials of a run of ``text``'s capitalised words spell, small words
    between them set aside ("Financial Conduct Authority" spells FCA, CA and FC too)."""
    return {"".join(map(_initials, words)) for words in _spelling_runs(text)}


def _initials(word: str) -> str:
    """What ``word`` gives an acronym: its first letter, or itself when it is one of two or
    three capitals ("HM Revenue & Customs" spells HMRC)."""
    return word if len(word) <= 3 and word.isupper() else word[0]


_WRITTEN_ACRONYM = re.compile(r"(?<![\w-])[A-Z][A-Za-z&]{1,7}(?![\w-])")


def expanded(answer: str, text: str) -> set[str]:
    """The answer's capitalised words that spell out an acronym ``text`` writes, small words
    between them set aside ("Financial Ombudsman Service" for FOS, "Transport for London"
    for TfL; a possessive read as its word)."""
    acronyms = {
        caps
        for m in _WRITTEN_ACRONYM.finditer(text)
        if len(caps := "".join(c for c in m.group(0) if c.isupper())) >= 2
    }
    out: set[str] = set()
    for words in _spelling_runs(answer):
        if "".join(map(_initials, words)) in acronyms:
            out.update(words)
    return out


def _acronym_known(acronym: str, known: str, spelled: set[str]) -> bool:
    """Whether the context (``known``: its text, ids and the query, lower-cased) writes
    ``acronym`` as a word or its plural ("pcns" backs "PCN"), writes what it stands for
    (``spelled``: its ``initialisms``), or, for a country, its name."""
    low = acronym.lower()
    i = known.find(low)
    while i >= 0:
        end = i + len(low)
        if end < len(known) and known[end] == "s":
            end += 1  # (its plural)
        if (i == 0 or not known[i - 1].isalnum()) and not known[end : end + 1].isalnum():
            return True
        i = known.find(low, i + 1)
    return acronym in spelled or any(alias in known for alias in _ALIASES.get(acronym, ()))


_FAMILY = re.compile(r"\b([A-Z]\w+)\s+family\b")  # "the Walters family": a surname
_BROKEN = re.compile(r"(?<=\w)-\n\s*(?=\w)")
# A name's short form in a lower-cased text: "St Mary's" for "Saint Mary's"
_SHORT_FORMS = {
    "saint": re.compile(r"\bst\.?\s"),
    "sainte": re.compile(r"\bste\.?\s"),
    "mount": re.compile(r"\bmt\.?\s"),
}


class _Known:
    """The context, its ids and the query, lower-cased (``text``), and folded once, when a
    name asks without an accent the text has or with one it lacks."""

    def __init__(self, text: str) -> None:
        # a word broken over two lines at a hyphen is read whole too ("Rotter-\ndam")
        self.text = text if "-\n" not in text else f"{text}\n{_BROKEN.sub('', text)}"
        self._folded: str | None = None
        self._bare: str | None = None

    def writes(self, name: str, plural: bool = True) -> bool:
        """Whether the text writes ``name`` at the start of a word, with or without
        accents, with or without an apostrophe ("Addenbrookes" for "Addenbrooke's"), in
        the plural ("Inns" for "Inn"), or as its short form ("St" for "Saint")."""
        low = name.lower()
        if _starts_a_word(self.text, low):
            return True
        if low in _SHORT_FORMS and _SHORT_FORMS[low].search(self.text) is not None:
            return True
        if plural and low.endswith("s") and len(low) > 3 and _whole_word(self.text, low[:-1]):
            return True  # a plural: "Premier Inns" for "Premier Inn"
        if low.endswith("s") and ("'" in self.text or "’" in self.text):
            if self._bare is None:
                self._bare = self.text.replace("'", "").replace("’", "")
            if _starts_a_word(self._bare, low):
                return True
        if self.text.isascii() and low.isascii():
            return False
        if self._folded is None:
            self._folded = _folded(self.text)
        return _starts_a_word(self._folded, _folded(low))


def _first_at(answer: str, word: str) -> int:
    """Where ``answer`` first writes ``word`` as a word of its own."""
    found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", answer)
    return found.start() if found is not None else len(answer)


@functools.cache
def _words() -> frozenset[str]:
    """pyspellchecker's English word list (lower-cased; loaded once, on first use)."""
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(language="en", distance=1).word_frequency.keys())


# British spellings of the list's American words: "organisers", "fibre", "tyres", "colour"
_BRITISH = (
    (re.compile(r"is(e|es|ed|ing|ation|ations|er|ers)$"), r"iz\1"),
    (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"),
    (re.compile(r"our(s|ed|ing|ful|able)?$"), r"or\1"),
    (re.compile(r"([^aeiou])re(s|d)?$"), r"\1er\2"),
    (re.compile(r"yre(s)?$"), r"ire\1"),
    (re.compile(r"ll(ed|ing|er|ers)$"), r"l\1"),
    (re.compile(r"ogue(s)?$"), r"og\1"),
)


@functools.cache
def _proper() -> frozenset[str]:
    """The words SCOWL's en_US dictionary lists only with a capital, lower-cased
    (``languages/en_proper.txt``, written by deploy/proper_nouns.py; read on first use)."""
    text = resources.files(__package__).joinpath("languages", "en_proper.txt")
    lines = text.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w and not w.startswith("#"))


@functools.lru_cache(maxsize=8192)  # (the same first words and names come again and again)
def english_word(word: str) -> bool:
    """Whether ``word`` is an English word in any case (``Stripe``: a stripe; ``Fibre``, a
    British spelling), rather than a name only (``Mailchimp``, ``Ofwat``; ``Amsterdam``,
    ``Gareth``, ``Microsoft``: words the word list holds that the dictionary writes only
    with a capital, in the plural or possessive too); a brand's capitals (``JumpCloud``)
    are a name's."""
    if _BRAND.fullmatch(word) is not None:
        return False
    low, words = word.lower(), _words()
    if not (low in words or _british(low, words)):
        return False
    proper = _proper()
    base = low[:-2] if low.endswith(("'s", "’s")) else low
    if base.endswith("s") and base not in proper:
        base = base[:-1]  # ("Tyres": a tyre, the British spelling, not the city of Tyre)
    return base not in proper or _british(base, words)


def _british(low: str, words: frozenset[str]) -> bool:
    """Whether ``low`` is the British spelling of a word of ``words`` ("fibre", "tyre")."""
    return any(
        (us := pattern.sub(american, low)) != low and us in words for pattern, american in _BRITISH
    )


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
        first: list[str] = []  # the sentences' first words written as names
        names = answer_names(answer, first)
        # the first words that are names: no English word (the word list is loaded on first
        # use), in an answer in English ("Malheureusement, je ne dispose ...": no name)
        opening = [w for w in first if not english_word(w)]
        if opening and not is_english(answer):
            opening = []
        if not names and not opening:
            return CheckResult(name=self.name, flagged=False, evidence=NamesEvidence((), 0))
        trace = view.trace
        ids = " ".join(p.doc_id or "" for _, p in view.packed)
        known = _Known(f"{view.context_text}\n{ids}\n{trace.query}".lower())
        spelled: set[str] | None = None  # the context's initialisms, when an acronym asks
        families = set(_FAMILY.findall(answer)) if " family" in answer else set()
        missing: list[str] = []
        for name in names:
            if name.isupper():
                if spelled is None:
                    spelled = initialisms(f"{view.context_text}\n{trace.query}")
                if not _acronym_known(name, known.text, spelled):
                    missing.append(name)
                continue
            if not known.writes(name, name not in families):
                missing.append(name)
        if any(not name.isupper() for name in missing):  # "National Health Service" for NHS
            spelt = expanded(answer, f"{view.context_text}\n{trace.query}")
            missing = [name for name in missing if name not in spelt]
        unknown = [w for w in opening if not known.writes(w, w not in families)]
        if unknown:  # in order of first appearance, among the others
            missing = sorted([*missing, *unknown], key=lambda w: _first_at(answer, w))
        evidence = NamesEvidence(tuple(missing), len(names) + len(opening))
        return CheckResult(name=self.name, flagged=bool(missing), evidence=evidence)
