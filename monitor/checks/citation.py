"""``citation``: does the answer cite its passages, and does every citation point at one?

Recognised markers: numeric indices ``[1]``, ``[1, 3]``, ``[2-4]``; id citations ``[doc-3]``,
``[source: refund-policy]``; markdown footnotes ``[^2]``; ``【1†source】``; superscripts
``¹``; and trailing ``Source: …`` / ``Sources: …`` lines. A numeric index is valid when it
names a packed passage (1-based, or 0-based when the answer uses 0); an id is valid when it
equals a passage's ``doc_id`` or ``chunk_id`` (case-insensitive).
"""

from __future__ import annotations

import re

from monitor.checks.view import TraceView
from monitor.model import CheckResult

_BRACKET = re.compile(r"\[\^?([^\[\]\n]{1,80})\](?!\()|【([^】]{1,80})】")
_SUPERSCRIPT = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
_SOURCE_WORDS = ("source", "reference", "cited", "citation")
_SOURCE_LINE = re.compile(r"(?im)^\W{0,3}(?:sources?|references?|cited|citations?)\s*:\s*(.+)$")
_INDEX_LIST = re.compile(
    r"^\s*(?:(?:source|doc|passage|ref|context)\s*#?\s*)?(\d{1,3})(?:\s*[-–]\s*(\d{1,3}))?\s*$",
    re.IGNORECASE,
)
_ID_PREFIX = re.compile(r"^\s*(?:source|src|doc|document|ref|id)\s*:\s*", re.IGNORECASE)
_SUPERSCRIPT_DIGITS = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹⁰", "1234567890")
_SPLIT = re.compile(r"\s*[,;]\s*|\s+and\s+")


def _parts(inner: str) -> list[str]:
    inner = inner.split("†", 1)[0]
    return [p for p in _SPLIT.split(inner.strip()) if p]


class Citation:
    """Flags answers with no valid citation; evidence lists cited and invalid markers."""

    name = "citation"

    def __call__(self, view: TraceView) -> CheckResult:
        answer = view.answer
        if not answer.strip():
            return CheckResult.not_applicable(self.name, "empty_answer")
        ids = {i.lower() for p in view.trace.context for i in (p.doc_id, p.chunk_id) if i}
        markers = self._markers(answer, ids)
        if not markers:
            return CheckResult(name=self.name, flagged=True,
                               evidence={"cited": [], "invalid": [], "valid": 0})  # fmt: skip
        n = len(view.trace.context)
        zero_based = any(kind == "index" and value == "0" for kind, value, _ in markers)
        cited: list[str] = []
        invalid: list[str] = []
        valid = 0
        for kind, value, raw in markers:
            if raw not in cited:
                cited.append(raw)
            if kind == "index":
                i = int(value)
                ok = 0 <= i < n if zero_based else 1 <= i <= n
            else:
                ok = value.lower() in ids
            if ok:
                valid += 1
            elif raw not in invalid:
                invalid.append(raw)
        return CheckResult(
            name=self.name,
            flagged=valid == 0,
            evidence={"cited": cited, "invalid": invalid, "valid": valid},
        )

    @staticmethod
    def _markers(answer: str, ids: set[str]) -> list[tuple[str, str, str]]:
        """(kind, value, raw) for every citation in the answer; kind is index or id."""
        out: list[tuple[str, str, str]] = []
        brackets = _BRACKET.finditer(answer) if "[" in answer or "【" in answer else ()
        for m in brackets:
            inner = m.group(1) if m.group(1) is not None else m.group(2)
            raw = m.group(0)
            for part in _parts(inner):
                idx = _INDEX_LIST.match(part)
                if idx:
                    lo = int(idx.group(1))
                    hi = int(idx.group(2)) if idx.group(2) else lo
                    out.extend(("index", str(i), raw) for i in range(lo, min(hi, lo + 50) + 1))
                    continue
                ident = _ID_PREFIX.sub("", part).strip()
                # "[sic]" or "[Note]" are not citations: an id is a known passage id or
                # carries a digit or a separator.
                if ident and (
                    ident.lower() in ids or any(c.isdigit() or c in "-_.:/#" for c in ident)
                ):
                    out.append(("id", ident, raw))
        for m in _SUPERSCRIPT.finditer(answer):
            # A footnote follows a word or punctuation: "days¹", "days.²" (not "m ²").
            if m.start() and not answer[m.start() - 1].isspace():
                out.append(("index", m.group(0).translate(_SUPERSCRIPT_DIGITS), m.group(0)))
        lower = answer.lower()
        source_lines = (
            _SOURCE_LINE.finditer(answer) if any(w in lower for w in _SOURCE_WORDS) else ()
        )
        for m in source_lines:
            for part in _parts(m.group(1)):
                part = part.strip(" .*_`\"'")
                idx = _INDEX_LIST.match(part)
                if idx:
                    out.append(("index", idx.group(1), f"Source: {part}"))
                elif part and not part.startswith("["):
                    out.append(("id", part, f"Source: {part}"))
        return out
