"""Text pieces the checks (and the heuristic judge) share, defined once.

Bracket markers: ``citation`` reads ``[…]`` and ``【…】`` of up to ``MARKER_MAX`` characters
and decides from their content whether they cite (``[1, 3]`` does; ``[1, 2, … 30]`` of
"valid values" does not). ``unsupported_numbers`` skips brackets without reading their
content, so it skips only the shorter ones (``NUMBER_SKIP_MAX``): past that length a bracket
is more often a list of values whose figures are claims (the verdict guard holds such a
case) than a citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

MARKER_MAX = 80  # characters inside one [..] or 【..】 the citation check reads
NUMBER_SKIP_MAX = 60  # characters inside one the number check skips unread
SUPERSCRIPTS = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
SUPERSCRIPT_DIGITS = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹⁰", "1234567890")
# A content word: four letters or more (apostrophes and hyphens inside), lower case.
CONTENT_WORD = re.compile(r"[a-z][a-z'-]{3,}")

# A textual reference to passages: "according to passage 2", "(see Document 3)", "sources 1
# and 3", "(contexts 1 and 2)", "passages 1-3", "passages 1, 2 and 3". ``citation`` resolves
# it to the passages it names; ``unsupported_numbers`` does not read its figures as claims.
# (lower-cased; other languages' words too: "Quelle: Dokument 2", "fuente 2", "出典：文書2")
TEXTUAL_WORDS = re.compile(
    r"passage|doc|source|excerpt|snippet|chunk|context|dokument|quelle|fuente|fonte"
    r"|文書|文档|文件|資料|资料"
)
# The same words without their first letter ("Source 2" and "source 2" alike): a gate for text
# not lower-cased, a few substring tests (a case-blind search cost 5 µs an answer)
TEXTUAL_GUARDS = ("assage", "oc", "ource", "xcerpt", "nippet", "hunk", "ontext", "okument",
                  "uelle", "uente", "onte", "文書", "文档", "文件", "資料", "资料")  # fmt: skip
# A quantity after a reference word's figure: "send the documents 2 weeks before", "sources
# 2 million", "the heat source 12 cm away", "the documents 15 March", "chunks 40 tokens".
_QUANTITY = (
    r"(?:(?:business|calendar|working|school|full|more|additional|extra|consecutive)[ \t]+)?"
    r"(?:(?:day|week|month|year|hour|hr|minute|min|second|sec|ms|night|fortnight|decade|wk|yr"
    r"|page|time|copie|percent|per|million|billion|thousand|hundred|dozen|[kmgt]i?b|byte"
    r"|token|character|char|mm|cm|km|m|metre|meter|kilometre|kilometer|centimetre|centimeter"
    r"|millimetre|millimeter|mile|mi|ft|feet|foot|inch|inche|yard|yd|kg|mg|g|gram|kilogram"
    r"|milligram|lb|pound|oz|ounce|ton|tonne|l|ml|litre|liter|millilitre|milliliter|gallon"
    r"|volt|watt|kw|kwh|mah|hz|khz|mhz|ghz|degree|mph|kph|dollar|euro|cent|pence|penny|usd"
    r"|eur|gbp|yen|rupee|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|january|february"
    r"|march|april|june|july|august|september|october|november|december)s?\b|[$€£¥°])"
)
# The words a textual reference starts with (English, German, Spanish, Portuguese), each
# one a gate above lets through; and those written with no space before the number (Chinese,
# Japanese: "文書2")
REFERENCE_WORDS = (
    "passages?", "documents?", "docs?", "sources?", "excerpts?", "snippets?", "chunks?",
    "contexts?", "dokumente?", "quellen?", "fuentes?", "documentos?", "fontes?",
)  # fmt: skip
REFERENCE_WORDS_GLUED = ("文書", "文档", "文件", "資料", "资料")
TEXTUAL_REFERENCE = re.compile(
    rf"(?:\b(?:{'|'.join(REFERENCE_WORDS)})"
    # (each run of spaces read once: possessive, never split between two of them)
    rf"(?=[ \t#])|{'|'.join(REFERENCE_WORDS_GLUED)})[ \t]*+#?[ \t]*+(\d{{1,2}})"
    # (not a range of a quantity: "process the documents 2-3 days before")
    rf"(?!(?:[-–]|[ \t]++to[ \t]++)\d{{1,2}}(?:[ \t]*+%|[ \t]++{_QUANTITY}))"
    r"(?:[ \t]*+(?:,|and|&|-|–|to)[ \t]*+(\d{1,2}))?\b(?![.,]\d|[ \t]*+%)"
    # (not a quantity: "send the documents 2 weeks before", "sources 2 million")
    rf"(?![ \t]*+{_QUANTITY})",
    re.IGNORECASE,
)
# One more number or span of a textual list ("passages 1, 2 and 3": ", 3" or " and 3" after
# "1, 2"; "passages 1-3, 5 and 7-9": ", 5" and " and 7-9" after "1-3"; a span's "to" too)
_TO = r"(?:[ \t]*+[-–][ \t]*+|[ \t]++to[ \t]++)"
_MORE = rf"(\d{{1,2}})(?:{_TO}(\d{{1,2}}))?(?![.,]\d)"
_VERB = r"[ \t]++[a-z]+(?<!s)\b"  # "Passages 1, 2 and 4 agree" (not "4 days")
_LIST_MORE = re.compile(
    rf"[ \t]*+(?:,[ \t]*+(?:and[ \t]++)?|and[ \t]++|&[ \t]*+){_MORE}"
    r"(?=[ \t]*+(?:[,;:.!?)\]]|and\b|&|for\b|$))"  # (not "..., 30 days": a quantity)
    # the last after "and" or a comma, a verb after it ("Passages 1, 2 and 4 agree",
    # "Passages 1, 2, 4 agree"; not a quantity, "sources 1, 2, 3 cm")
    rf"|[ \t]*+(?:,[ \t]*+(?:(?:and|&)[ \t]++)?|(?:and|&)[ \t]++){_MORE}(?={_VERB})"
    rf"(?![ \t]*+{_QUANTITY})"
)
# The end of a span second in a list ("passages 1, 3-5", "passages 1 and 3 to 5 agree"),
# before what may follow that number alone (not a quantity: "sources 1 and 2-3 km")
_SPAN_TAIL = re.compile(
    rf"{_TO}(\d{{1,2}})(?![.,]\d)(?![ \t]*+{_QUANTITY})"
    rf"(?=[ \t]*+(?:[,;:.!?)\]]|and\b|&|$)|{_VERB})"
)
_WIDEST = 50  # a span of more passages than this names none ("sources 1-99")


class TextualReference(NamedTuple):
    """A reference to passages in words, as ``textual_references`` reads it."""

    start: int
    end: int  # its list included
    word: str  # as written: "passage", "Sources"
    numbers: tuple[int, ...]  # each passage named, in order, a span's every one ("1-3": 1, 2, 3)


def _span(first: int, last: int | None) -> list[int]:
    """The passages a span from ``first`` to ``last`` names (``last`` None: ``first`` alone);
    none for one backwards or wider than ``_WIDEST``."""
    if last is None:
        return [first]
    return list(range(first, last + 1)) if first <= last <= first + _WIDEST else []


def textual_references(text: str) -> Iterator[TextualReference]:
    """Each textual reference of ``text`` and the passages it names: a span's every one when
    the words between two numbers say so ("-", "–", "to"), each of a list ("passages 1, 2
    and 3"), spans and single numbers mixed ("passages 1-3, 5 and 7")."""
    for m in TEXTUAL_REFERENCE.finditer(text):
        word = m.group(0).split(None, 1)[0].rstrip("#0123456789")  # ("文書2": no space)
        first = int(m.group(1))
        if not m.group(2):
            yield TextualReference(m.start(), m.end(), word, (first,))
            continue
        joiner = text[m.end(1) : m.start(2)]
        tail = None
        if "-" in joiner or "–" in joiner or "to" in joiner:  # "passages 1-3", "sources 2 to 4"
            numbers = _span(first, int(m.group(2)))
        else:  # a list, its second number perhaps a span's first ("passages 1, 3-5")
            tail = _SPAN_TAIL.match(text, m.end())
            upto = None if tail is None else int(tail.group(1))
            numbers = [first, *_span(int(m.group(2)), upto)]
        end = m.end() if tail is None else tail.end()
        while (x := _LIST_MORE.match(text, end)) is not None:
            last = x.group(3) is not None
            more, to = (x.group(3), x.group(4)) if last else (x.group(1), x.group(2))
            numbers += _span(int(more), None if to is None else int(to))
            end = x.end()
            if last:
                break  # (the last of the list)
        yield TextualReference(m.start(), end, word, tuple(numbers))
