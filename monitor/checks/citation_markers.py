"""Finding an answer's citations (see ``monitor.checks.citation`` for what counts): the
markers, footnotes, reference lists, parentheses, textual references, URLs and file names,
each resolved to a passage index or id; ``find_citations`` returns them with the passages'
ids to judge them against."""

from __future__ import annotations

import re
from collections.abc import Iterable

from monitor.checks.citation_ids import Citations
from monitor.checks.citation_lists import (
    FILE_NAME,
    FOOTNOTE_DEF,
    INDEX,
    LABEL,
    LABEL_DEF,
    LOCATOR,
    SOURCES_LINE,
    SPLIT,
    SUPERSCRIPT_DEF,
    URL,
    blank_named_label,
    cite_part,
    cite_target,
    definitions,
    in_url,
    indexing,
)
from monitor.checks.citation_prose import mentioned_ids, parentheses, textual
from monitor.checks.text import (
    MARKER_MAX,
    SUPERSCRIPT_DIGITS,
    SUPERSCRIPTS,
    TEXTUAL_WORDS,
)
from monitor.core.model import Passage

_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]+`", re.DOTALL)
_BRACKET = re.compile(rf"\[([^\[\]\n]{{1,{MARKER_MAX}}})\](?![(:])|【([^】\n]{{1,{MARKER_MAX}}})】")
# Editors' notes in brackets: "[citation needed]", "[emphasis added]", "[when?]", "[sic]".
_EDITORIAL = re.compile(
    r"\b(?:needed|added|sic|emphasis|clarification|dubious|discuss|verify|verification|"
    r"translated|translation|omitted|redacted|paraphrased|edited|whom|ibid|ibidem|op\.?[ \t]?cit"
    r"|loc\.?[ \t]?cit)\b|\?[ \t]*$|^[Ii]d\.$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^[+\-−]?\d+(?:[.,]\d+)?$")
# An ion's concentration in brackets ("[Ca2+]", "[H+]", "[Cl-]"): chemistry, not a citation
_ION = re.compile(r"[A-Z][a-z]?\d*[+\-−]")
# The words before an interval from zero ("p in [0, 1]"): mathematics, no passage 0 cited
_IN_WORDS = frozenset("in on within over across".split())
_AMOUNT = re.compile(r"^[ \t]*[$€£¥]|%[ \t]*$|^\d+\.\d+$")
# The word before a bracket that makes it a value, not a citation ("returns [1, 2, 3]",
# "limit is [10]"), or an interval ("in the range [1, 100]").
_VALUE_WORDS = frozenset(
    "is are was were be returns return returned equals equal yields yield outputs output prints "
    "print becomes become to at array list vector tuple value values like".split()
)
# ... but a noun of them ending its sentence cites ("holds the peak value [2].", "checked
# against the lot list [1].")
_VALUE_NOUNS = frozenset("value values array list vector tuple".split())
_ENDS_SENTENCE = re.compile(r"[ \t]*+(?:[.!?](?!\w)|\n|$)")  # (a bullet's line end too)
# "according to [3]": a citation, though "to [3]" is a value elsewhere ("set to [3]")
_CITING_TO = ("according to", "refer to", "referring to")
_RANGE_WORDS = frozenset(
    "range ranges interval intervals between bound bounds domain clamp clamped values value "
    "scale from ∈".split()
)
# Nouns and verbs a bracketed number right after belongs to: "Table [4]", "Section [2]",
# "option [3]", "press [5]" number the table, the section, the key, not a passage.
_NUMBERED = frozenset(
    "table tables figure figures fig section sections chapter chapters page pages option "
    "options question questions line lines column columns appendix exhibit equation eq "
    "clause article rule level tier slot key button press type enter dial tap select choose "
    "pick paragraph paragraphs para annex schedule index indices element elements position "
    "offset step steps version plan grade phase stage round floor gate platform".split()
)
# A year or a decade in brackets ("[2019]", "[1990s]"): a date, unless it names a passage.
_YEAR = re.compile(r"^(?:1[5-9]|20)\d\d(?:s|'s)?$")
# "[1:4]", "[1:14]": a passage and a place in it (not "[14:32]", a clock time)
_PLACE = re.compile(r"^(?!\d\d:\d\d$)(\d{1,3}):\d{1,4}$")
# A clock time or a date in brackets ("[10:32]", "[09:30]", "[00:01:23]", "[12/03/2024]"): a
# stamp; a clock time has two digits before the colon or seconds after the minutes
_STAMP = re.compile(r"^\d\d:\d\d$|^\d{1,2}:\d\d:\d\d$|^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$")
# A count right after the bracket ("has [12] rooms", "[4] items remain"): a plural noun that
# is not a verb a citation is the subject of ("[4] shows", "[2] states")
_NOT_COUNTED = (
    r"(?!(?:says|shows|states|suggests|notes|mentions|explains|describes|lists|covers"
    r"|confirms|indicates|reports|has|was|is|does|gives|provides|claims|contains|includes"
    r"|adds|applies|requires|allows|as|its|this|thus|also|plus|yes|us|whereas)\b)"
)
_COUNTED_AFTER = re.compile(rf"[ \t]+{_NOT_COUNTED}[a-z]{{3,}}s\b")
# After a verb of having one word may stand before the counted noun ("The studio has [12]
# edit suites"): not a function word nor a plural, and the noun no verb ("has [2] clearly
# states")
_HAVING = frozenset(
    "has have had holds hold offers offer contains contain includes include employs features "
    "boasts comprises sells with".split()
)
_COUNTED_AFTER_WORD = re.compile(
    r"[ \t]+(?!(?:of|or|and|to|the|a|an|in|on|at|for|by|with|from|than|per|more|less|other"
    r"|such|each|that|which|who|not|also|then|now|still|just|only|even)\b)[a-z]{2,}(?<!s)"
    rf"[ \t]+{_NOT_COUNTED}[a-z]{{3,}}s\b"
)
_VALUE_AFTER = re.compile(r"^[ \t]*(?:as an? )?(?:json|array|list|tuple|vector)\b", re.IGNORECASE)
_UNIT_BEFORE_SUPERSCRIPT = frozenset("m cm mm km ft in mi yd s".split())
_HTML_SUP = re.compile(r"<sup>[ \t]*\[?(\d{1,3})\]?[ \t]*</sup>", re.IGNORECASE)
_GENERIC_LABEL = frozenset({"source", "sources", "file", "doc", "document", "来源", "出典"})
_RESULT = re.compile(r"\s*\d{1,4}:(\d{1,3})\s*$")  # "4:0": message 4, result 0
_LINES = re.compile(r"L\d+(?:-L\d+)?")  # "L1-L5": lines of the cited result
# A version or a name with a version number in brackets ("[v2]", "[v2.1]", "[GPT-4o]",
# "[Llama-3.1]", "[Claude 3]"): not a citation unless the passages' ids have its form; the
# words a citation puts before its number are not names ("[Doc-3]", "[Source 2]", "[KB-15]")
_VERSIONED = re.compile(
    r"[vV]\d{1,3}(?:\.\d+)*"
    r"|(?!(?:sources?|src|docs?|documents?|refs?|references?|passages?|context|excerpts?"
    r"|chunks?|snippets?|files?|citations?|cite|kb|notes?|footnotes?|items?|results?|pages?"
    r"|sections?|parts?|ids?)[- ])"
    r"[A-Za-z]{2,12}[- ]\d{1,2}(?:\.\d+)*[A-Za-z]?",
    re.IGNORECASE,
)
_VERSION_WORD = re.compile(r"[A-Za-z]+")
_ID_NUMBER = re.compile(r"[-_ ]?\d")


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces (offsets kept)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _blank_code(answer: str, m: re.Match[str]) -> str:
    """A code span or block as spaces (offsets kept); a code span on a sources line as its
    text ("*Sources:* `handbook/leave.md`": an id written as code)."""
    span = m.group(0)
    if span.startswith("`") and not span.startswith("``"):
        line = answer[answer.rfind("\n", 0, m.start()) + 1 : m.start()]
        if SOURCES_LINE.match(line) is not None:
            return f" {span[1:-1]} "
    return " " * len(span)


def find_citations(answer: str, passages: Iterable[Passage]) -> Citations:
    """Every citation in ``answer``, resolved through its footnotes and reference list."""
    passages = list(passages)
    ids = [i for p in passages for i in (p.doc_id, p.chunk_id) if i]
    cites = Citations(len(passages), ids, [p.text for p in passages])
    code = "`" in answer or "~~~" in answer
    text = _CODE.sub(lambda m: _blank_code(answer, m), answer) if code else answer
    # where each code span ends: a bracket after one follows a value, not the word before it
    code_ends = frozenset(m.end() for m in _CODE.finditer(answer)) if code else frozenset()
    if "\\[" in text:
        text = text.replace("\\[", " [").replace("\\]", "] ")  # escaped markdown "\[1\]"
    if "<sup>" in text:
        for m in _HTML_SUP.finditer(text):
            cites.at = m.start()
            cites.index(int(m.group(1)))
    lower = text.lower()
    cites.at = -1  # a reference list's entries come first, as they always did
    labels = definitions(text, lower, cites)
    if labels and "]:" in text:
        text = LABEL_DEF.sub(blank_named_label, _blank(text, FOOTNOTE_DEF))
    sup_defs = labels and any(k.startswith("sup:") for k in labels)
    if sup_defs:
        text = _blank(text, SUPERSCRIPT_DEF)  # their definition lines are read
    if "[" in text or "【" in text:
        _brackets(text, cites, labels, code_ends)
    if "(" in text or "（" in text:
        parentheses(text, cites)
    if TEXTUAL_WORDS.search(lower):
        textual(text, cites)
    mentioned_ids(lower, text, cites)
    if "http" in text:  # URLs and file names cite only when they name a passage
        for m in URL.finditer(text):
            url = m.group(0).rstrip(".,;:!?")
            if cites.names_passage(url):
                cites.at = m.start()
                cites.ident(url)
    for m in SUPERSCRIPTS.finditer(text) if not text.isascii() else ():
        # A footnote follows a word or punctuation: "days¹", "days.²" (not "m ²", "40 m²").
        if m.start() and not text[m.start() - 1].isspace():
            word = text[: m.start()].rsplit(None, 1)[-1] if text[: m.start()].strip() else ""
            unit = word.rsplit("/", 1)[-1]  # ("80 W/m²": a unit's power)
            if unit.lower() in _UNIT_BEFORE_SUPERSCRIPT or word.isdigit():
                continue
            cites.at = m.start()
            target = labels.get("sup:" + m.group(0)) if sup_defs else None
            if target is not None:
                cite_target(target, cites)
            else:
                cites.index(int(m.group(0).translate(SUPERSCRIPT_DIGITS)))
    if "." in text and any("." in i for i in ids):
        for m in FILE_NAME.finditer(text):
            if cites.names_passage(m.group(0)):
                cites.at = m.start()
                cites.ident(m.group(0))
    cites.in_order()
    return cites


_DETERMINERS = frozenset("the a an this that these our your its their each every same".split())
_WORD_AFTER = re.compile(r"[ \t]+[a-z]")


def _numbers_noun(text: str, before: str, end: int) -> bool:
    """The bracket after a noun of ``_NUMBERED`` is its number: "Table [4]", "option [4] in
    the menu", "Press [4] to", not "in the pricing table [2]." (a determiner before the noun,
    or the clause ending at the bracket: a citation)."""
    words = before.rsplit(None, 2)
    if before.endswith(".") or (len(words) > 1 and words[-2].lower() in _DETERMINERS):
        return False
    return words[-1][:1].isupper() or _WORD_AFTER.match(text, end) is not None


def _after_code(text: str, start: int, code_ends: frozenset[int]) -> bool:
    """Whether only blanks stand between a code span's end and ``start`` (each blank read once
    a bracket: a code span is blanked too, so the walk stops at its end)."""
    i = start
    while i not in code_ends:
        if i == 0 or not text[i - 1].isspace():
            return False
        i -= 1
    return True


def _brackets(
    text: str, cites: Citations, labels: dict[str, str], code_ends: frozenset[int]
) -> None:
    bound = max(20, 2 * cites.n_passages)
    if cites.ids and all(i.isdecimal() and len(i) <= 3 for i in cites.ids):
        bound = 999  # the passages' ids are numbers: "[31]" names one, "[40]" none
    skipped = -1
    for m in _BRACKET.finditer(text):
        cites.at = m.start()
        if m.group(2) is not None:
            _file_search(m.group(2), cites)
            continue
        inner = m.group(1).strip()
        if "†" in inner:  # the same marker in square brackets: "[3†L1-L5]", "[4:0†source]"
            _file_search(inner, cites)
            continue
        before = text[max(0, m.start() - 30) : m.start()].rstrip()
        if code_ends and _after_code(text, m.start(), code_ends):
            before = ""  # "is `delays=[1, 2]` [2]": after the code span, a value, not "is"
        after = text[m.end() : m.end() + 1]
        if (
            (before.endswith("[") and after == ",") or (before.endswith("],") and after == "]")
        ) and all(_NUMBER.match(p) for p in SPLIT.split(inner) if p):
            continue  # "[[1, 2], [3, 4]]": a nested array of values
        if inner.isdecimal() and len(inner) <= 3:  # "[2]", the common case
            word = before.rsplit(None, 1)[-1].lower() if before else ""
            if not (
                before.endswith(("=", '":', "':"))
                or (
                    word in _VALUE_WORDS
                    and not before.lower().endswith(_CITING_TO)
                    and not (word in _VALUE_NOUNS and _ENDS_SENTENCE.match(text, m.end()))
                )
                or int(inner) > bound
                or (word.rstrip(".") in _NUMBERED and _numbers_noun(text, before, m.end()))
                or (
                    (before[-1:].isalnum() or before.endswith(":"))
                    and _COUNTED_AFTER.match(text, m.end()) is not None
                )
                or (word in _HAVING and _COUNTED_AFTER_WORD.match(text, m.end()) is not None)
                or in_url(text, m.start())
                or indexing(text, m.start(), skipped)
                or _VALUE_AFTER.match(text, m.end())
            ):
                target = labels.get(inner) if labels else None
                if target is not None:
                    cite_target(target, cites)
                else:
                    cites.index(int(inner))
                continue
            skipped = m.end()
            continue
        last = before.rsplit(None, 1)[-1].lower() if before else ""
        if (
            before.endswith(("=", '":', "':"))
            or (last in _VALUE_WORDS and not cites.names_passage(inner))
            or any(c in inner for c in '"{}')
        ):
            continue  # code-like, a JSON array or a value ("set to [1, 2]", "returns [3]");
            # a passage's id is cited after any word ("fees are not returned [fees]")
        footnote = inner.startswith("^")  # "UTC[^1][^2]", "fee[^a]": never indexing
        if not footnote and (
            _VALUE_AFTER.match(text, m.end()) or indexing(text, m.start(), skipped)
        ):
            skipped = m.end()
            continue  # "items[0]", "a[2][3]": indexing in prose
        if _AMOUNT.search(inner) or _ION.fullmatch(inner):
            continue  # "[€5]", "[10%]", "[Ca2+]"
        if _STAMP.match(inner):
            continue  # "[00:01:23] Connection reset": a time or a date, not a passage
        if _YEAR.match(inner) and not cites.names_passage(inner):
            continue  # "In [2020], revenue grew": a year, not a passage
        place = _PLACE.match(inner)
        if place is not None and not cites.names_passage(inner):
            if int(place.group(1)) <= cites.n_passages:
                cites.index(int(place.group(1)))  # "[1:4]": passage 1, at its line or verse 4
            continue  # beyond the passages, a ratio ("[16:9]", "[4:3]")
        if footnote:
            inner = inner.rstrip("^")  # "[^1^]"
            label = inner.lower()
            target = labels.get(label)
            if target is not None:
                cite_target(target, cites)
            elif not cite_part(inner[1:], cites, loose=False):
                cites.ident(inner[1:])  # a named footnote with no definition
            continue
        target = labels.get(inner.lower())
        if target is not None:
            cite_target(target, cites)
            continue
        if _EDITORIAL.search(inner):
            continue  # "[citation needed]", "[emphasis added]", "[when?]": an editor's note
        if URL.match(inner) or inner.lower().startswith("www."):
            if cites.names_passage(inner):
                cites.ident(inner)
            continue  # a bare link that names no passage cites nothing
        if _VERSIONED.fullmatch(inner) is not None and not _id_form(inner, cites):
            continue  # "[v2]", "[GPT-4]": a version or a model, not an id the passages use
        if LABEL.fullmatch(inner) is not None and not (
            cites.names_passage(inner) or (inner[0].isalpha() and _id_form(inner, cites))
        ):
            continue  # "[Q3]", "[H.264]", "[4K]": a quarter, a format, a size
        if "§" in inner or "." in inner or " " in inner:
            inner = LOCATOR.sub("", inner) or inner  # "[refunds-2024 §2]": the passage
        parts = [p for p in SPLIT.split(inner) if p]
        if all(_NUMBER.match(p) for p in parts) and not all(p.isdigit() for p in parts):
            continue  # "[0.5, 0.5]", "[-1, 1]": values, not passage indices
        numbers = [int(n) for p in parts if (i := INDEX.match(p)) for n in i.groups() if n]
        if numbers and (
            max(numbers) > bound or last in _RANGE_WORDS or _from_zero(numbers, cites, last)
        ):
            continue  # an interval or a list of values, not passage indices
        for part in parts:
            if not cite_part(part, cites):
                break  # "[5 users max]", "[sic]": a note, not a citation


def _from_zero(numbers: list[int], cites: Citations, last: str) -> bool:
    """Two numbers from 0 after "in" or "on" ("p in [0, 1]"), or to past the passages ("[0-9]",
    "[0, 10]" beside three passages): a character class or an interval, as passages are
    counted from 1; "[0-2]" beside three is a range of indices from a model that counts from
    0 (0 invalid; so is "... 5 days [0, 2]."), and where the passages' ids are numbers a 0 may
    be one. ``last``: the word before the bracket, lower-cased."""
    if len(numbers) != 2 or numbers[0] != 0:
        return False
    return last in _IN_WORDS or (
        numbers[1] > cites.n_passages and not any(i.isdecimal() for i in cites.ids)
    )


def _id_form(inner: str, cites: Citations) -> bool:
    """A bracketed version or name with a version number ("v2", "GPT-4") has the form of
    the passages' ids: it names one, or an id is the same word before a number ("v1",
    "gpt-3"), or the same words and separators ("S-OW-2" beside "s-ow-1")."""
    if cites.names_passage(inner):
        return True
    word = _VERSION_WORD.match(inner)
    head = word.group(0).lower() if word is not None else ""
    body = inner.lower().rstrip("0123456789")
    return any(
        (i.lower().startswith(head) and _ID_NUMBER.match(i, len(head)) is not None)
        or (len(body) < len(inner) and i[-1:].isdigit() and i.lower().rstrip("0123456789") == body)
        for i in cites.ids
    )


def _file_search(inner: str, cites: Citations) -> None:
    """``【4:0†refunds.md】`` cites the file; ``【1†source】`` cites passage 1; ``【4:0†source】``
    cites the search's first result, passage 1 (the first number counts messages, the second
    the results from 0: one answer writes ``【3:0†source】【3:1†source】【3:2†source】`` for
    three sources); ``【3†L1-L5】`` cites passage 3 (lines 1 to 5 of it)."""
    head, _, tail = inner.partition("†")
    tail = tail.strip()
    if tail and tail.lower() not in _GENERIC_LABEL and _LINES.fullmatch(tail) is None:
        cites.ident(tail)
        return
    result = _RESULT.match(head)
    if result:
        cites.index(int(result.group(1)) + 1)
        return
    first = re.match(r"\s*(\d{1,3})", head)
    if first:
        cites.index(int(first.group(1)))
