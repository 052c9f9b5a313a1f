"""``citation``: does the answer cite its passages, and does every citation point at one?

What counts as a citation, each reported as one id (the index as digits, or the id):

* bracket markers ``[1]``, grouped ``[1, 5]`` / ``[1][3]``, ranged ``[1-3]`` / ``[1–3]``,
  prefixed ``[Source 2]`` / ``[doc: refunds-2024]``, ids ``[refunds-2024]`` / ``[faq.md]``;
* footnotes ``[^1]`` and ``[^refunds]``: a definition line ``[^1]: refunds-2024`` decides what
  the footnote cites; without one a numeric footnote is an index;
* reference lists: a ``Sources:`` / ``References:`` line or block (``- [1] returns-2024``,
  ``1. faq.md``, URLs); a list entry ``[n] target`` makes every ``[n]`` in the text cite
  ``target``;
* OpenAI file-search markers ``【4:0†refunds.md】`` (the file name is the id) and
  ``【1†source】`` (the number is the index); superscripts ``¹``;
* parentheses ``(source: x)``, ``(see Document 3)``, or a known id ``(refunds-2024)``, and
  textual references "according to passage 2", "Document 3 states";
* URLs and file names, when they name a passage (their last path segment, with or without
  extension, equals a passage id's) or stand in a reference list.

Never a citation: fenced and inline code (``items[0]``, ``retry_delays=[1, 2, 4]``), JSON
arrays, markdown links to pages that are not passages, intervals ("in the range [1, 100]",
numbers far beyond the passage count), bracketed notes ("[5 users max]", "[sic]"), amounts
("[€5]", "[10%]").

A numeric index is valid when it names a packed passage (1-based, or 0-based when the answer
uses 0); an id is valid when it matches a passage's ``doc_id`` or ``chunk_id``
(case-insensitive; for paths and URLs the last segment, with or without extension).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from monitor.checks.view import TraceView
from monitor.model import CheckResult, Passage

_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]+`", re.DOTALL)
_BRACKET = re.compile(r"\[([^\[\]\n]{1,80})\](?![(:])|【([^】\n]{1,80})】")
_FOOTNOTE_DEF = re.compile(r"(?m)^[ \t]*\[\^([^\]\n]{1,40})\]:[ \t]*(.+)$")
_LIST_HEADER = re.compile(
    r"(?im)^[ \t#*_>]*(?:sources?|references?|citations?|cited(?: sources)?|bibliography|"
    r"fuentes|quellen|références)[ \t*_]*(?::[ \t*_]*(?P<rest>.*)|[ \t*_]*)$"
)
_LIST_ENTRY = re.compile(r"^[ \t]*(?:[-*•][ \t]*|\d{1,3}[.)][ \t]+)?(?:\[(\^?[^\]\n]{1,40})\][ \t:]*)?(.*)$")
_SUPERSCRIPT = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
_SUPERSCRIPT_DIGITS = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹⁰", "1234567890")
_PAREN = re.compile(
    r"\((?:(?P<cue>sources?|src|refs?|references?|see|cf\.?|per|via|from|citing|cited in)"
    r"\b[ \t]*:?[ \t]*)?(?P<inner>[^()\n]{1,80})\)",
    re.IGNORECASE,
)
_TEXTUAL = re.compile(
    r"\b(?:passages?|documents?|docs?|sources?|excerpts?|snippets?|chunks?)"
    r"(?:[ \t]+#?[ \t]*|[ \t]*#[ \t]*)(\d{1,2})(?:[ \t]*(?:,|and|&|-|–|to)[ \t]*(\d{1,2}))?\b(?![.,]\d|[ \t]*%)",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s)\]>\"'`]+")
_SPLIT = re.compile(r"[ \t]*[,;][ \t]*|[ \t]+(?:and|&)[ \t]+")
_PREFIXED = re.compile(
    r"^(?:source|src|doc|document|ref|reference|passage|id|context|excerpt|chunk|snippet|file)"
    r"[ \t]*(?::|#|[ \t])[ \t]*(.+)$",
    re.IGNORECASE,
)
_INDEX = re.compile(r"^#?(\d{1,3})(?:[ \t]*(?:-|–|—|to)[ \t]*(\d{1,3}))?$")
_AMOUNT = re.compile(r"^[ \t]*[$€£¥]|%[ \t]*$|^\d+[.,]\d+$")
_RANGE_CUE = re.compile(
    r"\b(?:range|ranges|interval|intervals|between|bounds?|domain|clamp(?:ed)?|values?|"
    r"scale(?: of)?|from)\W*$",
    re.IGNORECASE,
)
_GENERIC_LABEL = frozenset({"source", "sources", "file", "doc", "document", "来源", "出典"})
_ID_CHARS = frozenset("-_.:/#")
_EXTENSION = re.compile(r"\.[a-z0-9]{1,5}$")


def _keys(ident: str) -> set[str]:
    """The spellings under which an id may be cited: itself, and for a path or URL its last
    segment with and without extension."""
    low = ident.strip().lower().rstrip("/")
    keys = {low}
    if "/" in low:
        low = low.rsplit("/", 1)[1]
        keys.add(low)
    keys.add(_EXTENSION.sub("", low))
    keys.discard("")
    return keys


@dataclass
class _Citations:
    """Ids cited by an answer, in order of first appearance, and which of them are invalid."""

    n_passages: int
    known: dict[str, str]
    stems: set[str]
    zero_based: bool = False
    found: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)

    def index(self, i: int) -> None:
        self.found.append(("index", str(i)))

    def ident(self, value: str) -> None:
        value = value.strip().strip(" .,;*_\"'`<>")
        if value:
            self.found.append(("id", value))

    def title(self, value: str) -> None:
        self.found.append(("title", value.strip()))

    def valid(self, kind: str, value: str) -> bool | None:
        """True or False; None for a title, which names no id."""
        if kind == "title":
            return None
        if kind == "index":
            i = int(value)
            return 0 <= i < self.n_passages if self.zero_based else 1 <= i <= self.n_passages
        return not _keys(value).isdisjoint(self.known)

    def looks_like_id(self, token: str) -> bool:
        """A bare token is an id when it is a known one, carries a digit or an id separator,
        or shares its first word with a known id ("refunds-2023" next to "refunds-2024")."""
        low = token.lower()
        if not _keys(low).isdisjoint(self.known):
            return True
        if " " in token or "\t" in token or not any(c.isalnum() for c in token):
            return False
        if any(c.isdigit() or c in _ID_CHARS for c in token):
            return True
        return _stem(low) in self.stems


def _stem(ident: str) -> str:
    return re.split(r"[-_./:#\s]", ident, maxsplit=1)[0]


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces (offsets kept)."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


class Citation:
    """Flags answers with no valid citation; evidence lists each cited and invalid id."""

    name = "citation"

    def __call__(self, view: TraceView) -> CheckResult:
        answer = view.answer
        if not answer.strip():
            return CheckResult.not_applicable(self.name, "empty_answer")
        cites = self.citations(answer, view.trace.context)
        if not cites.found:
            return CheckResult(name=self.name, flagged=True,
                               evidence={"cited": [], "invalid": [], "valid": 0})  # fmt: skip
        cited: list[str] = []
        invalid: list[str] = []
        valid = 0
        for kind, value in cites.found:
            if value in cited:
                continue
            cited.append(value)
            ok = cites.valid(kind, value)
            if ok:
                valid += 1
            elif ok is not None:
                invalid.append(value)
        return CheckResult(
            name=self.name,
            flagged=valid == 0,
            evidence={"cited": cited, "invalid": invalid, "valid": valid},
        )

    @staticmethod
    def citations(answer: str, passages: Iterable[Passage]) -> _Citations:
        """Every citation in ``answer``, resolved through its footnotes and reference list."""
        passages = list(passages)
        known: dict[str, str] = {}
        for p in passages:
            for ident in (p.doc_id, p.chunk_id):
                if ident:
                    for key in _keys(ident):
                        known.setdefault(key, ident)
        stems = {s for k in known if len(s := _stem(k)) >= 3}
        cites = _Citations(len(passages), known, stems)
        text = _blank(answer, _CODE) if "`" in answer or "~~~" in answer else answer
        labels = _definitions(text, cites)
        text = _blank(text, _FOOTNOTE_DEF) if labels else text
        if "[" in text or "【" in text:
            _brackets(text, cites, labels)
        if "(" in text:
            _parentheses(text, cites)
        _textual(text, cites)
        if "http" in text:
            for m in _URL.finditer(text):
                url = m.group(0).rstrip(".,;:!?")
                if not _keys(url).isdisjoint(cites.known):
                    cites.ident(url)
        for m in _SUPERSCRIPT.finditer(text):
            # A footnote follows a word or punctuation: "days¹", "days.²" (not "m ²").
            if m.start() and not text[m.start() - 1].isspace():
                cites.index(int(m.group(0).translate(_SUPERSCRIPT_DIGITS)))
        cites.zero_based = any(k == "index" and v == "0" for k, v in cites.found)
        return cites


def _definitions(text: str, cites: _Citations) -> dict[str, str]:
    """Footnote definitions and reference-list entries: label -> target. Entries without a
    label are cited directly; the block's lines are blanked from further parsing by the
    caller only for footnote definitions (list lines hold no other markers)."""
    labels: dict[str, str] = {}
    if "[^" in text:
        for m in _FOOTNOTE_DEF.finditer(text):
            labels["^" + m.group(1).strip().lower()] = m.group(2).strip()
    lower = text.lower()
    if not any(w in lower for w in ("source", "reference", "citation", "cited", "bibliograph",
                                    "fuentes", "quellen", "références")):  # fmt: skip
        return labels
    for m in _LIST_HEADER.finditer(text):
        rest = (m.group("rest") or "").strip()
        if rest:
            # "Sources: a.md, b.md"; bracket markers on the line are read as brackets.
            if "[" not in rest and "【" not in rest:
                for part in _SPLIT.split(rest):
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


def _cite_target(target: str, cites: _Citations) -> None:
    """A reference-list target: an index ("Source 2", "2"), a URL or an id (first token)."""
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
    # "returns-2024 — Returns policy" cites its first token; a title alone ("Returns policy")
    # is a citation whose validity cannot be told: cited, neither valid nor invalid.
    if cites.looks_like_id(token):
        cites.ident(token)
    else:
        cites.title(target)


def _cite_part(part: str, cites: _Citations, loose: bool = True) -> bool:
    """One element of a marker ("1", "1-3", "Source 2", "doc: x", "refunds-2024")."""
    part = part.strip()
    idx = _INDEX.match(part)
    pre = _PREFIXED.match(part) if idx is None else None
    if pre is not None:
        part = pre.group(1).strip()
        idx = _INDEX.match(part)
    if idx:
        lo = int(idx.group(1))
        hi = int(idx.group(2)) if idx.group(2) else lo
        if hi < lo or hi - lo > 50:
            return False
        for i in range(lo, hi + 1):
            cites.index(i)
        return True
    if pre is not None or (loose and cites.looks_like_id(part)):
        cites.ident(part)
        return True
    return False


def _brackets(text: str, cites: _Citations, labels: dict[str, str]) -> None:
    bound = max(20, 2 * cites.n_passages)
    for m in _BRACKET.finditer(text):
        if m.group(2) is not None:
            _file_search(m.group(2), cites)
            continue
        inner = m.group(1).strip()
        before = text[max(0, m.start() - 30) : m.start()]
        if before.rstrip().endswith(("=", ":", "(", ",")) or any(c in inner for c in "\"{}"):
            continue  # code-like or a JSON array
        if _AMOUNT.search(inner):
            continue  # "[€5]", "[10%]"
        if inner.startswith("^"):
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
        parts = [p for p in _SPLIT.split(inner) if p]
        numbers = [int(x) for p in parts for x in re.findall(r"\d+", p) if _INDEX.match(p)]
        if numbers and (max(numbers) > bound or _RANGE_CUE.search(before)):
            continue  # an interval or a list of values, not passage indices
        for part in parts:
            if not _cite_part(part, cites):
                break  # "[5 users max]", "[sic]": a note, not a citation


def _file_search(inner: str, cites: _Citations) -> None:
    """``【4:0†refunds.md】`` cites the file; ``【1†source】`` cites passage 1."""
    head, _, tail = inner.partition("†")
    tail = tail.strip()
    if tail and tail.lower() not in _GENERIC_LABEL:
        cites.ident(tail)
        return
    first = re.match(r"\s*(\d{1,3})", head)
    if first:
        cites.index(int(first.group(1)))


def _parentheses(text: str, cites: _Citations) -> None:
    for m in _PAREN.finditer(text):
        inner = m.group("inner").strip()
        if m.group("cue"):
            parts = [p for p in _SPLIT.split(inner) if p]
            if all(_PREFIXED.match(p) or _INDEX.match(p) or cites.looks_like_id(p) for p in parts):
                for part in parts:
                    _cite_part(part, cites)
            continue
        # "(refunds-2024)" cites when it names a passage or has a passage id's shape.
        if " " not in inner and not _INDEX.match(inner) and not _keys(inner).isdisjoint(cites.known):
            cites.ident(inner)
        elif " " not in inner and any(c in _ID_CHARS for c in inner) and _stem(inner.lower()) in cites.stems:
            cites.ident(inner)


def _textual(text: str, cites: _Citations) -> None:
    """"according to passage 2", "(see Document 3)", "sources 1 and 3"."""
    lower = text.lower()
    if not any(w in lower for w in ("passage", "document", "doc", "source", "excerpt",
                                    "snippet", "chunk", "context")):  # fmt: skip
        return
    for m in _TEXTUAL.finditer(text):
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        joiner = text[m.end(1) : m.start(2)] if m.group(2) else ""
        if m.group(2) and ("-" in joiner or "–" in joiner or "to" in joiner):
            if lo <= hi <= lo + 50:
                for i in range(lo, hi + 1):
                    cites.index(i)
            continue
        cites.index(lo)
        if m.group(2):
            cites.index(hi)
