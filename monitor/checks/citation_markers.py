"""Finding an answer's citations (see ``monitor.checks.citation`` for what counts): the
markers, footnotes, reference lists, parentheses, textual references, URLs and file names,
each resolved to a passage index or id; ``find_citations`` returns them with the passages'
ids to judge them against."""

from __future__ import annotations

import re
from collections.abc import Iterable

from monitor.checks.citation_ids import ID_CHARS, ID_SHAPE, Citations, stem
from monitor.checks.text import MARKER_MAX, SUPERSCRIPT_DIGITS, SUPERSCRIPTS
from monitor.model import Passage

_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]+`", re.DOTALL)
_BRACKET = re.compile(rf"\[([^\[\]\n]{{1,{MARKER_MAX}}})\](?![(:])|【([^】\n]{{1,{MARKER_MAX}}})】")
_FOOTNOTE_DEF = re.compile(r"(?m)^[ \t]*\[\^([^\]\n]{1,40})\]:[ \t]*(.+)$")
_LABEL_DEF = re.compile(r"(?m)^[ \t]*\[([^\^\]\n][^\]\n]{0,39})\]:[ \t]*(.+)$")
# Editors' notes in brackets: "[citation needed]", "[emphasis added]", "[when?]", "[sic]".
_EDITORIAL = re.compile(
    r"\b(?:needed|added|sic|emphasis|clarification|dubious|discuss|verify|verification|"
    r"translated|translation|omitted|redacted|paraphrased|edited|whom)\b|\?[ \t]*$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^[+\-−]?\d+(?:[.,]\d+)?$")
_EXPLICIT_CUES = frozenset("source sources src ref refs reference references citing".split())
_LIST_HEADER = re.compile(
    r"(?im)^[ \t#*_>]*(?:sources?|references?|citations?|cited(?: sources)?|bibliography|"
    r"fuentes|quellen|références)[ \t*_]*(?::[ \t*_]*(?P<rest>.*)|[ \t*_]*)$"
)
_LIST_ENTRY = re.compile(
    r"^[ \t]*(?:[-*•][ \t]*|\d{1,3}[.)][ \t]+)?(?:\[(\^?[^\]\n]{1,40})\][ \t:]*)?(.*)$"
)
_PAREN = re.compile(
    r"\((?:(?P<cue>sources?|src|refs?|references?|see|cf\.?|per|via|from|citing|cited in)"
    r"\b[ \t]*:?[ \t]*)?(?P<inner>[^()\n]{1,80})\)",
    re.IGNORECASE,
)
_TEXTUAL = re.compile(
    r"\b(?:passages?|documents?|docs?|sources?|excerpts?|snippets?|chunks?)"
    r"(?:[ \t]+#?[ \t]*|[ \t]*#[ \t]*)(\d{1,2})"
    r"(?:[ \t]*(?:,|and|&|-|–|to)[ \t]*(\d{1,2}))?\b(?![.,]\d|[ \t]*%)",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s)\]>\"'`]+")
_SPLIT = re.compile(r"[ \t]*[,;][ \t]*|[ \t]+(?:and|&)[ \t]+")
_LIST_SPLIT = re.compile(r"[ \t]*[,;][ \t]*")
_PREFIXED = re.compile(
    r"^(?:source|src|doc|document|ref|reference|passage|id|context|excerpt|chunk|snippet|file"
    r"|citation|cite)"
    r"[ \t]*(?::|#|[ \t])[ \t]*(.+)$",
    re.IGNORECASE,
)
_INDEX = re.compile(r"^#?(\d{1,3})(?:[ \t]*(?:-|–|—|to)[ \t]*(\d{1,3}))?$")
_AMOUNT = re.compile(r"^[ \t]*[$€£¥]|%[ \t]*$|^\d+\.\d+$")
# The word before a bracket that makes it a value, not a citation ("returns [1, 2, 3]",
# "limit is [10]"), or an interval ("in the range [1, 100]").
_VALUE_WORDS = frozenset(
    "is are was were be returns return returned equals equal yields yield outputs output prints "
    "print becomes become to at array list vector tuple value values".split()
)
_RANGE_WORDS = frozenset(
    "range ranges interval intervals between bound bounds domain clamp clamped values value "
    "scale from".split()
)
_VALUE_AFTER = re.compile(r"^[ \t]*(?:as an? )?(?:json|array|list|tuple|vector)\b", re.IGNORECASE)
_CODE_NAMES = frozenset(
    "arr array items item list data matrix row rows col cols values args argv result results "
    "df x y i j k".split()
)
_UNIT_BEFORE_SUPERSCRIPT = frozenset("m cm mm km ft in mi yd s".split())
_LIST_WORDS = re.compile(r"source|r[eé]f[eé]rence|citation|cited|bibliograph|fuentes|quellen")
_TEXTUAL_WORDS = re.compile(r"passage|doc|source|excerpt|snippet|chunk")
_HTML_SUP = re.compile(r"<sup>[ \t]*\[?(\d{1,3})\]?[ \t]*</sup>", re.IGNORECASE)
_FILE_NAME = re.compile(
    r"(?<![\w/.-])[\w-]+\.(?:md|mdx|pdf|html?|txt|docx?|rst|csv|json|ya?ml)\b", re.IGNORECASE
)
_GENERIC_LABEL = frozenset({"source", "sources", "file", "doc", "document", "来源", "出典"})


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces (offsets kept)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def find_citations(answer: str, passages: Iterable[Passage]) -> Citations:
    """Every citation in ``answer``, resolved through its footnotes and reference list."""
    passages = list(passages)
    ids = [i for p in passages for i in (p.doc_id, p.chunk_id) if i]
    cites = Citations(len(passages), ids, [p.text for p in passages])
    text = _blank(answer, _CODE) if "`" in answer or "~~~" in answer else answer
    if "\\[" in text:
        text = text.replace("\\[", " [").replace("\\]", "] ")  # escaped markdown "\[1\]"
    if "<sup>" in text:
        for m in _HTML_SUP.finditer(text):
            cites.index(int(m.group(1)))
    lower = text.lower()
    labels = _definitions(text, lower, cites)
    if labels and "]:" in text:
        text = _LABEL_DEF.sub(_blank_named_label, _blank(text, _FOOTNOTE_DEF))
    if "[" in text or "【" in text:
        _brackets(text, cites, labels)
    if "(" in text:
        _parentheses(text, cites)
    if _TEXTUAL_WORDS.search(lower):
        _textual(text, cites)
    _mentioned_ids(lower, text, cites)
    if "http" in text:  # URLs and file names cite only when they name a passage
        for m in _URL.finditer(text):
            url = m.group(0).rstrip(".,;:!?")
            if cites.names_passage(url):
                cites.ident(url)
    for m in SUPERSCRIPTS.finditer(text) if not text.isascii() else ():
        # A footnote follows a word or punctuation: "days¹", "days.²" (not "m ²", "40 m²").
        if m.start() and not text[m.start() - 1].isspace():
            word = text[: m.start()].rsplit(None, 1)[-1] if text[: m.start()].strip() else ""
            if word.lower() in _UNIT_BEFORE_SUPERSCRIPT or word.isdigit():
                continue
            cites.index(int(m.group(0).translate(SUPERSCRIPT_DIGITS)))
    if "." in text and any("." in i for i in ids):
        for m in _FILE_NAME.finditer(text):
            if cites.names_passage(m.group(0)):
                cites.ident(m.group(0))
    return cites


def _source_parts(rest: str, cites: Citations) -> list[str]:
    """The sources a "Sources: a, b and c" line names: split at commas and semicolons, and at
    "and" only between ids ("refunds-2024 and fees", not "Returns and exchanges")."""
    parts: list[str] = []
    for chunk in _LIST_SPLIT.split(rest):
        pieces = _SPLIT.split(chunk)
        ids = all(ID_SHAPE.search(p) or cites.names_passage(p) for p in pieces if p.strip())
        parts.extend(pieces if ids else [chunk])
    return parts


def _blank_named_label(m: re.Match[str]) -> str:
    """A "[note 1]: target" line blanked (its label was read); "[1]: url" kept as it was."""
    return m.group(0) if m.group(1).strip().isdigit() else " " * len(m.group(0))


def _definitions(text: str, lower: str, cites: Citations) -> dict[str, str]:
    """Footnote definitions and reference-list entries: label -> target. Entries without a
    label are cited directly; the block's lines are blanked from further parsing by the
    caller only for footnote definitions (list lines hold no other markers)."""
    labels: dict[str, str] = {}
    if "[^" in text:
        for m in _FOOTNOTE_DEF.finditer(text):
            labels["^" + m.group(1).strip().lower()] = m.group(2).strip()
    if "]:" in text:  # "[note 1]: refunds-2024" (a numeric label stays a passage index)
        for m in _LABEL_DEF.finditer(text):
            if not m.group(1).strip().isdigit():
                labels[m.group(1).strip().lower()] = m.group(2).strip()
    if _LIST_WORDS.search(lower) is None:
        return labels
    for m in _LIST_HEADER.finditer(text):
        rest = (m.group("rest") or "").strip()
        if rest:
            # "Sources: a.md, b.md"; bracket markers on the line are read as brackets.
            if "[" not in rest and "【" not in rest:
                for part in _source_parts(rest, cites):
                    if part.strip(" .*_`\"'"):
                        _cite_target(part.strip(" .*_`\"'"), cites)
            continue
        for line in _list_block(text, m.end()):
            em = _LIST_ENTRY.match(line)
            if em is None:
                continue
            label, target = em.group(1), _PREFIX_WORD.sub("", em.group(2).strip(" .*_`\"'"))
            if label and target:
                labels[label.strip().lower()] = target
                _cite_target(target, cites)
            elif target:
                _cite_target(target, cites)
    return labels


_PREFIX_WORD = re.compile(r"^(?:source|doc|document|passage)[ \t]*:[ \t]*", re.IGNORECASE)
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[-*•]|\d{1,3}[.)]|\[)")


def _list_block(text: str, start: int) -> list[str]:
    """The list lines right after a reference-list header (blank lines before them skipped)."""
    lines: list[str] = []
    for line in text[start:].splitlines()[1:]:
        if not line.strip():
            if lines:
                break
            continue
        if _BLOCK_LINE.match(line) is None:
            break
        lines.append(line)
    return lines


def _cite_target(target: str, cites: Citations) -> None:
    """A reference-list target: an index ("Source 2", "2"), a URL or an id (first token)."""
    target = _PREFIX_WORD.sub("", target)
    url = _URL.search(target)
    if url:
        cites.ident(url.group(0).rstrip(".,;:!?"))
        return
    idx = _INDEX.match(target)
    pre = _PREFIXED.match(target)
    if idx or (pre and _INDEX.match(pre.group(1).strip())):
        _cite_part(target, cites)
        return
    token = target.split()[0] if target.split() else ""
    # "returns-2024 — Returns policy" cites its first token; a title ("Returns policy",
    # "Shipping policy" beside shipping-policy) is judged as a title (see Citations.valid).
    if cites.names_passage(token) or (
        (ID_SHAPE.search(token) or len(target.split()) == 1) and cites.looks_like_id(token)
    ):
        cites.ident(token)
    else:
        cites.title(target)


def _cite_part(part: str, cites: Citations, loose: bool = True) -> bool:
    """One element of a marker ("1", "1-3", "Source 2", "doc: x", "refunds-2024")."""
    part = part.strip()
    idx = _INDEX.match(part)
    pre = _PREFIXED.match(part) if idx is None else None
    word = ""
    if pre is not None:
        word = part[: pre.start(1)].strip(" \t:#")
        part = pre.group(1).strip()
        idx = _INDEX.match(part)
    if idx:
        lo = int(idx.group(1))
        hi = int(idx.group(2)) if idx.group(2) else lo
        if hi < lo or hi - lo > 50:
            return False
        for i in range(lo, hi + 1):
            cites.index(i, word if lo == hi else "")
        return True
    if pre is not None and (" " in part or "\t" in part) and not cites.names_passage(part):
        cites.title(part)  # "[Source: internal wiki]": a source named, maybe not a passage
        return True
    if pre is not None or (loose and cites.looks_like_id(part)):
        cites.ident(part)
        return True
    return False


def _indexing(text: str, start: int, skipped: int) -> bool:
    """A bracket glued to a short or code-like name, or to an index just skipped."""
    if start == 0:
        return False
    if start == skipped:
        return True
    i = start
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        i -= 1
    word = text[i:start]
    if not word:
        return False
    if text.startswith("[0]", start):
        return True  # "tiers[0]": passages are numbered from 1, so a glued [0] indexes
    return (
        len(word) <= 3
        or "_" in word
        or any(c.isdigit() for c in word)
        or word.lower() in _CODE_NAMES
    )


def _brackets(text: str, cites: Citations, labels: dict[str, str]) -> None:
    bound = max(20, 2 * cites.n_passages)
    skipped = -1
    for m in _BRACKET.finditer(text):
        if m.group(2) is not None:
            _file_search(m.group(2), cites)
            continue
        inner = m.group(1).strip()
        before = text[max(0, m.start() - 30) : m.start()].rstrip()
        if inner.isdigit() and len(inner) <= 3:  # "[2]", the common case
            if not (
                before.endswith(("=", '":', "':"))
                or (before.rsplit(None, 1)[-1].lower() if before else "") in _VALUE_WORDS
                or int(inner) > bound
                or _indexing(text, m.start(), skipped)
                or _VALUE_AFTER.match(text, m.end())
            ):
                target = labels.get(inner) if labels else None
                if target is not None:
                    _cite_target(target, cites)
                else:
                    cites.index(int(inner))
                continue
            skipped = m.end()
            continue
        last = before.rsplit(None, 1)[-1].lower() if before else ""
        if (
            before.endswith(("=", '":', "':"))
            or last in _VALUE_WORDS
            or any(c in inner for c in '"{}')
        ):
            continue  # code-like, a JSON array or a value ("set to [1, 2]", "returns [3]")
        if _VALUE_AFTER.match(text, m.end()) or _indexing(text, m.start(), skipped):
            skipped = m.end()
            continue  # "items[0]", "a[2][3]": indexing in prose
        if _AMOUNT.search(inner):
            continue  # "[€5]", "[10%]"
        if inner.startswith("^"):
            inner = inner.rstrip("^")  # "[^1^]"
            label = inner.lower()
            target = labels.get(label)
            if target is not None:
                _cite_target(target, cites)
            elif not _cite_part(inner[1:], cites, loose=False):
                cites.ident(inner[1:])  # a named footnote with no definition
            continue
        target = labels.get(inner.lower())
        if target is not None:
            _cite_target(target, cites)
            continue
        if _EDITORIAL.search(inner):
            continue  # "[citation needed]", "[emphasis added]", "[when?]": an editor's note
        if _URL.match(inner) or inner.lower().startswith("www."):
            if cites.names_passage(inner):
                cites.ident(inner)
            continue  # a bare link that names no passage cites nothing
        parts = [p for p in _SPLIT.split(inner) if p]
        if all(_NUMBER.match(p) for p in parts) and not all(p.isdigit() for p in parts):
            continue  # "[0.5, 0.5]", "[-1, 1]": values, not passage indices
        numbers = [int(n) for p in parts if (i := _INDEX.match(p)) for n in i.groups() if n]
        if numbers and (max(numbers) > bound or last in _RANGE_WORDS):
            continue  # an interval or a list of values, not passage indices
        for part in parts:
            if not _cite_part(part, cites):
                break  # "[5 users max]", "[sic]": a note, not a citation


def _file_search(inner: str, cites: Citations) -> None:
    """``【4:0†refunds.md】`` cites the file; ``【1†source】`` cites passage 1."""
    head, _, tail = inner.partition("†")
    tail = tail.strip()
    if tail and tail.lower() not in _GENERIC_LABEL:
        cites.ident(tail)
        return
    first = re.match(r"\s*(\d{1,3})", head)
    if first:
        cites.index(int(first.group(1)))


def _parentheses(text: str, cites: Citations) -> None:
    for m in _PAREN.finditer(text):
        inner = m.group("inner").strip()
        if m.group("cue"):
            parts = [p for p in _SPLIT.split(inner) if p]
            if all(_PREFIXED.match(p) or _INDEX.match(p) or cites.looks_like_id(p) for p in parts):
                for part in parts:
                    _cite_part(part, cites)
            elif m.group("cue").lower() in _EXPLICIT_CUES and _URL.match(inner) is None:
                cites.title(inner)  # "(Source: internal wiki)": a source named by its title
            continue
        # "(refunds-2024)", "(refunds-2024, fees)" cite when every part names a passage or
        # has a passage id's shape ("(refunds-2023)" next to "refunds-2024").
        parts = [p.strip() for p in _SPLIT.split(inner) if p.strip()]
        if parts and all(_id_in_parentheses(p, cites) for p in parts):
            for part in parts:
                cites.ident(part)


def _id_in_parentheses(part: str, cites: Citations) -> bool:
    if " " in part or _INDEX.match(part):
        return False
    if cites.names_passage(part):
        return True
    return any(c in ID_CHARS for c in part) and stem(part.lower()) in cites.stems


def _mentioned_ids(lower: str, text: str, cites: Citations) -> None:
    """Passage ids written in the prose ("see returns-2023"): only ids with a digit or an id
    separator, so that a plain-word id ("fees") is not read into every sentence."""
    absent: list[str] = []
    for ident in cites.ids:
        key = ident.lower()
        if any(key.startswith(a) for a in absent):
            continue  # "kb-12#0" cannot be in a text that lacks "kb-12"
        i = lower.find(key)
        if i < 0:
            absent.append(key)
            continue
        if ID_SHAPE.search(key) is None:
            continue
        while i >= 0:
            j = i + len(key)
            before = lower[i - 1] if i else " "
            after = lower[j] if j < len(lower) else " "
            if not (before.isalnum() or before in "-_/#[(") and not (
                after.isalnum() or after in "-_/#])"
            ):
                cites.ident(text[i:j])
                break
            i = lower.find(key, i + 1)


def _textual(text: str, cites: Citations) -> None:
    """ "according to passage 2", "(see Document 3)", "sources 1 and 3"."""
    for m in _TEXTUAL.finditer(text):
        word = m.group(0).split(None, 1)[0].rstrip("#")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        joiner = text[m.end(1) : m.start(2)] if m.group(2) else ""
        if m.group(2) and ("-" in joiner or "–" in joiner or "to" in joiner):
            if lo <= hi <= lo + 50:
                for i in range(lo, hi + 1):
                    cites.index(i)
            continue
        cites.index(lo, word)
        if m.group(2):
            cites.index(hi, word)
