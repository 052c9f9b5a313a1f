"""A retrieval tool's output as passages, when it is a recognisable list of documents written
as text: numbered blocks (``[1] …``, ``1. …``, ``1) …``, ``Document 1: …``, ``Source 1 -
…``), numbered from 1 without a gap, at the start of a line. Each block is one passage, its
text the block without its number (and without the id's label when it stands in
parentheses: ``(doc_id: X)`` annotates, it is not the passage); its id is the one the block
names (``doc_id: X``, ``document_id=X``, ``chunk_id: X``, ``id: X``, ``(source: X)``), else
unknown; or markdown sections (``## Title`` and what follows), when every section names its
id. Anything else — free text, a list that does not count from 1, a single block that
names no id — is not split: a free-text output stays one passage of unknown id (never a
guess). The citation check then reads the answer's ``[n]`` against the passages as the tool
numbered them.
"""

from __future__ import annotations

import re
from typing import Any

from monitor.ingest.conventions.core import _Doc, _doc, _loads
from monitor.ingest.conventions.pyrepr import ReprError, parse

# a block's number at the start of a line: [n], n. / n), or a label and n
_MARKER = re.compile(
    r"^[ \t]*(?:\[(\d{1,3})\]|(\d{1,3})[.)](?=\s)|(?:document|doc|source|result|passage|chunk"
    r"|snippet)\s*#?(\d{1,3})\s*[:.)-])[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
# an id the block names, labelled as one
_ID = re.compile(
    r"(?<![\w-])(?:doc(?:ument)?[_ ]?id|chunk[_ ]?id|id|source)\s*[:=]\s*"
    r"([^\s,;)\]]+)",
    re.IGNORECASE,
)
# the id's label when the block puts it in parentheses or brackets: "(doc_id: X)"
_LABEL = re.compile(
    r"[ \t]*[(\[](?:doc(?:ument)?[_ ]?id|chunk[_ ]?id|id|source)\s*[:=]\s*[^\s,;)\]]+[)\]]",
    re.IGNORECASE,
)
MAX_BLOCKS = 200


def numbered_blocks(raw: str) -> list[tuple[str | None, str]] | None:
    """(id or None, text) of each numbered block of ``raw``, or None when ``raw`` is not a
    list of blocks numbered 1, 2, 3 … (two or more, or one that names its id; text before
    the first block, such as "Found 3 results:", is not a passage)."""
    marks = list(_MARKER.finditer(raw))
    if not 1 <= len(marks) <= MAX_BLOCKS:
        return None
    if len(marks) == 1 and _ID.search(raw, marks[0].end()) is None:
        return None  # one numbered block that names no id: nothing says it is a document
    numbers = [int(next(g for g in m.groups() if g is not None)) for m in marks]
    if numbers != list(range(1, len(marks) + 1)):
        return None
    blocks = []
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        text = raw[mark.end() : after.start() if after is not None else len(raw)].strip()
        if not text:
            return None  # a number with nothing after it: not a list of documents
        found = _ID.search(text)
        if found is not None:
            # the id's label in parentheses is the tool's annotation, not the passage's text
            text = _LABEL.sub("", text, count=1).strip() or text
        blocks.append((found.group(1).rstrip(".:") if found else None, text))
    return blocks


# What search tools name their results' text and source beside the conventions' keys
# (``_doc``: id, doc_id, document_id, metadata; content, text, page_content).
_TOOL_TEXT = ("snippet", "chunk", "passage", "body")
_TOOL_ID = ("source", "url", "chunk_id")


def _tool_doc(value: dict[str, object]) -> _Doc:
    """One JSON result of a search tool as a document: ``_doc``'s keys first, then a search
    API's (``snippet``/``chunk``/``passage``/``body``; ``source``/``url``/``chunk_id``)."""
    doc = _doc(value)
    text = doc.text or next((v for k in _TOOL_TEXT if isinstance(v := value.get(k), str)), None)
    doc_id = doc.id or next((v for k in _TOOL_ID if isinstance(v := value.get(k), str) and v), None)
    return _Doc(doc_id, text, doc.score, doc.chunk)


# a markdown heading at the start of a line: "## Title"
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S.*$", re.MULTILINE)


def markdown_sections(raw: str) -> list[tuple[str | None, str]] | None:
    """(id, text) of each markdown section of ``raw`` (a heading and what follows it, up to
    the next heading), or None unless there are two or more and every one names its id: a
    markdown document whose sections name no ids is one document, not a list of them (text
    before the first heading is not a passage)."""
    heads = list(_HEADING.finditer(raw))
    if not 2 <= len(heads) <= MAX_BLOCKS:
        return None
    sections = []
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        text = raw[head.start() : after.start() if after is not None else len(raw)].strip()
        found = _ID.search(text)
        if found is None:
            return None
        sections.append((found.group(1).rstrip(".:"), _LABEL.sub("", text, count=1).strip()))
    return sections


# A result that says it found nothing, as a whole: "No passages found.", "No results",
# "No relevant documents were found", "Nothing found", "0 results", "None", "null", "N/A".
_NOTHING = re.compile(
    r"(?:(?:no|0|zero)\s+(?:relevant\s+|matching\s+|related\s+)?(?:passages?|results?"
    r"|documents?|docs|matches|hits|chunks|entries|records|sources|items)"
    r"(?:\s+(?:were|was))?(?:\s+(?:found|returned|available))?|nothing(?:\s+was)?\s+found"
    r"|none|null|n/a)",
    re.IGNORECASE,
)
_LISTS = ("documents", "results", "passages", "chunks", "hits")


def _structured(raw: str) -> object:
    """A tool result's value: its JSON, or — a framework that hands the model ``str()`` of
    the list or dict its tool returned — the Python repr of one (read by ``pyrepr``, never
    evaluated); else the text itself."""
    value = _loads(raw)
    if isinstance(value, str) and raw.lstrip()[:1] in ("[", "{") and "'" in raw:
        try:
            literal = parse(raw.strip())
        except ReprError:
            return value
        if isinstance(literal, list | dict):
            return literal
    return value


def says_nothing(raw: str) -> bool:
    """A tool result that is no passage: empty (``""``, ``[]``, ``{}``, ``null``, an object
    whose list of results is empty) or a sentence that says nothing was found
    (``_NOTHING``, the whole result but for its final punctuation)."""
    text = raw.strip().rstrip(".!").strip()
    if not text or text in ("[]", "{}", '""') or _NOTHING.fullmatch(text):
        return True
    value: Any = _structured(text)
    if isinstance(value, dict) and value:
        lists = [value[k] for k in _LISTS if isinstance(value.get(k), list)]
        return bool(lists) and not any(lists)
    return False


def tool_docs(raw: str) -> list[_Doc]:
    """The documents in one tool result: a JSON list of documents (or an object holding one
    under ``documents``/``results``/``passages``/``chunks``/``hits``; or the Python repr of
    one, a framework's ``str()`` of what its tool returned), numbered text blocks
    (``numbered_blocks``), else the result's text as one passage whose id is unknown; a
    result that says it found nothing (``says_nothing``) is no passage."""
    if says_nothing(raw):
        return []
    value: Any = _structured(raw)
    if isinstance(value, dict):
        value = next((value[k] for k in _LISTS if isinstance(value.get(k), list)), value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        docs = [_tool_doc(v) for v in value]
        if all(d.text for d in docs):
            return docs
    if isinstance(raw, str) and (blocks := numbered_blocks(raw)) is not None:
        return [_Doc(doc_id, text) for doc_id, text in blocks]
    if isinstance(raw, str) and (sections := markdown_sections(raw)) is not None:
        return [_Doc(doc_id, text) for doc_id, text in sections]
    return [_Doc(None, raw)]
