"""The review page marks what each check's evidence points at: every kind of highlight an
evidence type gives has its place in the marking order and its colour in the page's style
sheet (a new kind left out would be marked last and unstyled), and a name is marked as a
word."""

from __future__ import annotations

import re
from pathlib import Path

from monitor.checks import CHECK_TYPES
from monitor.checks.evidence import (
    CitationEvidence,
    NamesEvidence,
    NumbersEvidence,
    RefusalEvidence,
)
from monitor.core.evidence import Evidence
from monitor.golden import page

CSS = Path(page.__file__).parent / "static" / "review" / "review.css"


def kinds() -> set[str]:
    """The highlight kinds the checks' evidence gives, each from an instance that has one."""
    samples: list[Evidence] = [
        NumbersEvidence(("45",), 1), NamesEvidence(("Ellery",), 1),
        CitationEvidence(("9",), ("9",), 0), RefusalEvidence("I don't know", "no_knowledge"),
    ]  # fmt: skip
    assert {type(e) for e in samples} >= {c.evidence for c in CHECK_TYPES if c.evidence is not
                                          None and "highlights" in c.evidence.__dict__}  # fmt: skip
    return {h.why for e in samples for h in e.highlights()}


def test_every_highlight_kind_is_ordered_and_styled() -> None:
    styled = set(re.findall(r"mark\.([a-z]+)\s*\{", CSS.read_text()))
    assert kinds() <= set(page._MARK_ORDER), kinds() - set(page._MARK_ORDER)
    assert kinds() <= styled, kinds() - styled


def test_a_name_is_marked_as_a_word_only() -> None:
    checks = {"unsupported_names": {"flagged": True, "applicable": True,
                                    "evidence": {"names": ["Ann"], "checked": 1}}}  # fmt: skip
    pieces = page.mark_answer("The Annual report, by Ann.", checks)  # type: ignore[arg-type]
    assert [(p.text, p.mark) for p in pieces if p.mark] == [("Ann", "name")]
