"""A retrieval tool's output as passages, when it is a recognisable list of documents written
as text: numbered blocks (``[1] …``, ``1. …``, ``1) …``, ``Document 1: …``, ``Source 1 -
…``), numbered from 1 without a gap, at the start of a line. Each block is one passage, its
text the block without its number; its id is the one the block names (``doc_id: X``,
``document_id=X``, ``chunk_id: X``, ``id: X``, ``(source: X)``), else unknown. Anything else
— free text, a list that does not count from 1, a single block — is not split: a free-text
output stays one passage of unknown id (never a guess). The citation check then reads the
answer's ``[n]`` against the passages as the tool numbered them.
"""

from __future__ import annotations

import re

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
MAX_BLOCKS = 200


def numbered_blocks(raw: str) -> list[tuple[str | None, str]] | None:
    """(id or None, text) of each numbered block of ``raw``, or None when ``raw`` is not a
    list of two or more blocks numbered 1, 2, 3 … (text before the first block, such as
    "Found 3 results:", is not a passage)."""
    marks = list(_MARKER.finditer(raw))
    if not 2 <= len(marks) <= MAX_BLOCKS:
        return None
    numbers = [int(next(g for g in m.groups() if g is not None)) for m in marks]
    if numbers != list(range(1, len(marks) + 1)):
        return None
    blocks = []
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        text = raw[mark.end() : after.start() if after is not None else len(raw)].strip()
        if not text:
            return None  # a number with nothing after it: not a list of documents
        found = _ID.search(text)
        blocks.append((found.group(1).rstrip(".:") if found else None, text))
    return blocks
