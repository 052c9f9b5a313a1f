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

from typing import ClassVar

from monitor.checks.citation_markers import find_citations
from monitor.checks.evidence import INVALID_CITATIONS, CitationEvidence
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.model import CheckResult


class Citation:
    """Flags answers with no valid citation; evidence lists each cited and invalid id."""

    name: ClassVar[str] = "citation"
    evidence: ClassVar[type[CitationEvidence]] = CitationEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = (INVALID_CITATIONS,)
    options: ClassVar[None] = None  # nothing to configure

    def __init__(self, options: None = None) -> None:
        """Nothing to configure (``options`` is always None)."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        answer = view.answer
        if not answer.strip():
            return CheckResult.not_applicable(self.name, "empty_answer")
        cites = find_citations(answer, view.trace.context)
        if not cites.found:
            return CheckResult(name=self.name, flagged=True, evidence=CitationEvidence())
        cited: list[str] = []
        invalid: list[str] = []
        valid = 0
        seen: set[str] = set()
        for kind, value in cites.found:
            if value.casefold() in seen:  # once, as ids are matched: case-insensitively
                continue
            seen.add(value.casefold())
            cited.append(value)
            ok = cites.valid(kind, value)
            if ok:
                valid += 1
            elif ok is not None:
                invalid.append(value)
        return CheckResult(
            name=self.name,
            flagged=valid == 0,
            evidence=CitationEvidence(tuple(cited), tuple(invalid), valid),
        )
