"""Each check's evidence: the typed record of what it found on one trace, as evaluation lines,
events and the review page show it (``monitor.core.model.Evidence``), and the metrics a check
exports of its own (``CheckMeasure``).

In one module apart from the checks' logic: the evidence types are the checks' output
contract, and a compiled build (mypyc, ``RAGMON_MYPYC``) compiles the checks but keeps this
module interpreted, since compiled classes cannot subclass the interpreted ``Evidence`` base.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from monitor.core.evidence import CheckMeasure, Evidence, Highlight

INVALID_CITATIONS = CheckMeasure(
    "ragmon_invalid_citations_total", "Citation markers that name no packed passage.", "counter"
)


@dataclass(frozen=True, slots=True)
class CitationEvidence(Evidence):
    """Every id the answer cites (once each, in order), those that name no passage, and how
    many name one; no valid citation flags the answer."""

    cited: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    valid: int = 0

    def measured(self) -> Mapping[str, float]:
        """How many cited ids name no passage, for their counter."""
        return {INVALID_CITATIONS.metric: len(self.invalid)} if self.invalid else {}

    def explain(self) -> str:
        """The invalid citations, or that there is none, when no citation is valid."""
        if self.valid:
            return Evidence.explain(self)
        return "invalid citations: " + ", ".join(self.invalid) if self.invalid else "no citation"

    def highlights(self) -> tuple[Highlight, ...]:
        """Each invalid citation."""
        return tuple(Highlight(c, "citation") for c in self.invalid)


@dataclass(frozen=True, slots=True)
class EmptyContextEvidence(Evidence):
    """How many passages were packed; when none, how many were retrieved and which stage
    (``retrieval`` or ``packing``) lost them."""

    passages: int = 0
    retrieved: int | None = None
    stage: str | None = None

    def explain(self) -> str:
        """The stage that lost the context, when it was lost."""
        if self.stage is None:
            return Evidence.explain(self)
        return f"no context reached the model (stage: {self.stage})"


@dataclass(frozen=True, slots=True)
class Conflict(Evidence):
    """Two near-duplicate passages (1-based positions and their doc ids) and the figures each
    states that the other does not: one entry of ``ConflictEvidence`` (an ``Evidence`` for
    its line form only)."""

    passages: tuple[int, ...] = ()
    doc_ids: tuple[str | None, ...] = ()
    similarity: float = 0.0
    first_states: tuple[str, ...] = ()
    second_states: tuple[str, ...] = ()
    # the passage of the pair that the answer cites while stating a figure only the other
    # one states ("14 days [1]" citing the 30-day page when the 14-day page is packed too)
    cited_disagreeing: int | None = None


@dataclass(frozen=True, slots=True)
class ConflictEvidence(Evidence):
    """Every conflicting pair of passages."""

    conflicts: tuple[Conflict, ...] = ()

    @classmethod
    def from_line(cls, line: Mapping[str, object]) -> Self:
        """Read back, each pair as a ``Conflict``."""
        pairs = line.get("conflicts") or ()
        if not isinstance(pairs, list | tuple):  # a line of another shape (evidence_of)
            raise TypeError(f"conflicts: {type(pairs).__name__}")
        return cls(tuple(Conflict.from_line(c) for c in pairs))

    def explain(self) -> str:
        """That near-duplicates disagree, when they do."""
        cited = [c.cited_disagreeing for c in self.conflicts if c.cited_disagreeing]
        if cited:
            return (f"the answer cites passage {cited[0]} but states the figure of a "
                    "near-duplicate passage that disagrees with it")  # fmt: skip
        if self.conflicts:
            return "near-duplicate passages state different figures"
        return Evidence.explain(self)

    def passages_named(self) -> frozenset[int]:
        """Every passage of every conflicting pair."""
        return frozenset(int(i) for c in self.conflicts for i in c.passages)


@dataclass(frozen=True, slots=True)
class OverlapEvidence(Evidence):
    """The share of the answer's content words found in the context, how many there were,
    and (up to 20) the missing ones."""

    overlap: float = 0.0
    content_words: int = 0
    missing: tuple[str, ...] = ()

    def explain(self) -> str:
        """The share, as a percentage."""
        return f"{self.overlap:.0%} of the answer's content words are in the context"

    def measured(self) -> Mapping[str, float]:
        """The share, for its histogram."""
        return {OVERLAP_RATIO.metric: self.overlap}


OVERLAP_RATIO = CheckMeasure(
    "ragmon_grounding_overlap_ratio",
    "Share of the answer's content words found in the packed context.",
    "histogram",
    (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)


@dataclass(frozen=True, slots=True)
class RefusalEvidence(Evidence):
    """The refusal phrase as the answer writes it, and its kind (``no_knowledge``,
    ``context_lacks``, ``cannot_help``)."""

    phrase: str | None = None
    kind: str | None = None

    def explain(self) -> str:
        """``refusal: <phrase>``."""
        return f"refusal: {self.phrase}" if self.phrase else Evidence.explain(self)

    def highlights(self) -> tuple[Highlight, ...]:
        """The phrase."""
        return (Highlight(self.phrase, "refusal"),) if self.phrase else ()


@dataclass(frozen=True, slots=True)
class NumbersEvidence(Evidence):
    """The figures the context does not back, as the answer writes them, of ``checked``;
    ``derived``: the figures the context implies by one step, and how ("45 = 20 + 25");
    ``unjudged``: small counts of things the context neither states nor presents."""

    numbers: tuple[str, ...] = ()
    checked: int = 0
    derived: tuple[str, ...] | None = None
    # small counts of things the context neither states nor presents: not flagged
    unjudged: tuple[str, ...] | None = None

    def explain(self) -> str:
        """The unsupported figures, or the evidence as JSON when there are none."""
        if self.numbers:
            return "figures not in the context: " + ", ".join(self.numbers)
        return Evidence.explain(self)

    def highlights(self) -> tuple[Highlight, ...]:
        """Each unsupported figure."""
        return tuple(Highlight(n, "number") for n in self.numbers)


@dataclass(frozen=True, slots=True)
class NamesEvidence(Evidence):
    """The names the context does not write, as the answer writes them (once each, in
    order), of ``checked`` distinct names read."""

    names: tuple[str, ...] = ()
    checked: int = 0

    def explain(self) -> str:
        """The names not in the context, or the evidence as JSON when there are none."""
        if self.names:
            return "names not in the context: " + ", ".join(self.names)
        return Evidence.explain(self)

    def highlights(self) -> tuple[Highlight, ...]:
        """Each name not in the context."""
        return tuple(Highlight(n, "name") for n in self.names)
