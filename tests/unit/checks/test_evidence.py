"""Typed check evidence: each check's evidence reads back from its line form unchanged, and
explains itself and marks the answer without any consumer knowing its keys."""

from __future__ import annotations

import json

import pytest

from monitor.checks import CHECK_TYPES, CheckSuite, evidence_of
from monitor.checks.citation import CitationEvidence
from monitor.checks.context import Conflict, ConflictEvidence, EmptyContextEvidence
from monitor.checks.refusal import RefusalEvidence
from monitor.checks.unsupported import NumbersEvidence
from monitor.core.evidence import Evidence, Highlight, NotApplicable
from monitor.core.model import RagTrace
from tests.quality import load_cases

_CASES = [*load_cases("numbers"), *load_cases("refusal"), *load_cases("citation")]


def _trace(query: str, answer: str, passages: list[tuple[str, str]]) -> RagTrace:
    context = [{"doc_id": d, "text": t} for d, t in passages]
    data = {"trace_id": "ab" * 16, "query": query, "answer": answer, "context": context}
    return RagTrace.from_data(data)


def test_every_check_declares_its_own_evidence_type() -> None:
    types = [cls.evidence for cls in CHECK_TYPES]
    assert all(issubclass(t, Evidence) and t is not Evidence for t in types)
    assert len(set(types)) == len(types)


def test_evidence_reads_back_from_every_line_of_the_corpus() -> None:
    suite = CheckSuite()
    seen: set[type[Evidence]] = set()
    for case in _CASES:
        for name, result in suite(_trace(case.query, case.answer, case.passages())).items():
            line = json.loads(json.dumps(result.to_line()))  # as stored: lists, not tuples
            back = evidence_of(name, line)
            assert back == result.evidence, (name, case.id)
            assert back.to_line() == line["evidence"]
            seen.add(type(back))
    assert seen >= {cls.evidence for cls in CHECK_TYPES} | {NotApplicable}


@pytest.mark.parametrize(
    ("evidence", "explained"),
    [
        (NumbersEvidence(("45", "$12"), 3), "figures not in the context: 45, $12"),
        (NumbersEvidence((), 2), '{"numbers": [], "checked": 2}'),
        (RefusalEvidence("I don't know", "no_knowledge"), "refusal: I don't know"),
        (CitationEvidence(("7",), ("7",), 0), "invalid citations: 7"),
        (CitationEvidence(), "no citation"),
        (
            CitationEvidence(("1", "7"), ("7",), 1),
            '{"cited": ["1", "7"], "invalid": ["7"], "valid": 1}',
        ),
        (EmptyContextEvidence(0, 3, "packing"), "no context reached the model (stage: packing)"),
        (EmptyContextEvidence(2), '{"passages": 2}'),
        (NotApplicable("empty_answer"), '{"reason": "empty_answer"}'),
    ],
)
def test_evidence_explains_itself(evidence: Evidence, explained: str) -> None:
    assert evidence.explain() == explained


def test_highlights_and_named_passages() -> None:
    assert NumbersEvidence(("45",), 1).highlights() == (Highlight("45", "number"),)
    assert RefusalEvidence().highlights() == ()
    pair = Conflict((1, 3), ("a", None), 0.9, ("30",), ("14",))
    assert ConflictEvidence((pair,)).passages_named() == {1, 3}
    assert evidence_of("context_conflict", {"evidence": {"conflicts": [pair.to_line()]}}) == (
        ConflictEvidence((pair,))
    )


def test_a_line_of_another_shape_or_check_marks_nothing() -> None:
    assert evidence_of("context_conflict", {"evidence": {"conflicts": 3}}) == Evidence()
    assert evidence_of("not_a_check", {"evidence": {"x": 1}}) == Evidence()
    assert evidence_of("refusal", {"evidence": "text"}) == RefusalEvidence()
