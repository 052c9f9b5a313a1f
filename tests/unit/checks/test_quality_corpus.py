"""The labelled case files under ``tests/quality/``: every case, hard negatives included."""

from __future__ import annotations

import pytest

from monitor.checks import Citation, ContextConflict, Refusal, TraceView, UnsupportedNumbers
from monitor.checks.refusal import find_refusal
from monitor.core.model import RagTrace
from tests.quality import Case, load_cases

NUMBERS = load_cases("numbers")
REFUSALS = load_cases("refusal")
CITATIONS = load_cases("citation")
CONFLICTS = load_cases("conflict")


def trace(case: Case) -> TraceView:
    passages = [{"doc_id": d, "text": t} for d, t in case.passages()]
    data = {"trace_id": "ab" * 16, "query": case.query, "answer": case.answer, "context": passages}
    return TraceView(RagTrace.from_data(data))


def _cases(cases: list[Case]) -> list[object]:
    """The cases as parameters; a known miss is expected to fail (and must)."""
    return [
        pytest.param(c, id=c.id, marks=pytest.mark.xfail(reason=c.known_miss, strict=True))
        if c.known_miss
        else pytest.param(c, id=c.id)
        for c in cases
    ]


@pytest.mark.parametrize("case", _cases(NUMBERS))
def test_unsupported_numbers_case(case: Case) -> None:
    """The check reports exactly the figures the case marks unsupported."""
    evidence = UnsupportedNumbers()(trace(case)).evidence.to_line()
    assert sorted(evidence["numbers"]) == sorted(case.expected["unsupported"]), case.answer


@pytest.mark.parametrize("case", REFUSALS, ids=[c.id for c in REFUSALS])
def test_refusal_case(case: Case) -> None:
    """Refusals in every covered language are flagged; answers that state a limit are not."""
    result = Refusal()(trace(case))
    assert result.flagged == case.expected["refusal"], (case.answer, result.evidence.to_line())


@pytest.mark.parametrize("case", CITATIONS, ids=[c.id for c in CITATIONS])
def test_citation_case(case: Case) -> None:
    """Each cited id is found once, and exactly the ones naming no passage are invalid."""
    evidence = Citation()(trace(case)).evidence.to_line()
    assert evidence["cited"] == case.expected["cited"], case.answer
    assert evidence["invalid"] == case.expected["invalid"], case.answer


@pytest.mark.parametrize("case", _cases(CONFLICTS))
def test_context_conflict_case(case: Case) -> None:
    """Stale and current versions of a page conflict; other plans, regions, versions do not."""
    result = ContextConflict()(trace(case))
    assert result.flagged == case.expected["conflict"], (case.context, result.evidence.to_line())


@pytest.mark.parametrize(
    ("cases", "minimum"), [(NUMBERS, 20), (REFUSALS, 20), (CITATIONS, 20), (CONFLICTS, 20)]
)
def test_every_class_has_enough_cases_with_negatives(cases: list[Case], minimum: int) -> None:
    """Each class holds at least ``minimum`` cases, some positive and some hard negatives."""
    by_class: dict[str, list[Case]] = {}
    for case in cases:
        by_class.setdefault(case.cls, []).append(case)
    for cls, members in by_class.items():
        assert len(members) >= minimum, cls
        flags = {_positive(c) for c in members}
        assert flags == {True, False}, f"{cls} needs positives and hard negatives"


def _positive(case: Case) -> bool:
    e = case.expected
    if "unsupported" in e:
        return bool(e["unsupported"])
    if "refusal" in e:
        return bool(e["refusal"])
    if "conflict" in e:
        return bool(e["conflict"])
    return bool(e["invalid"]) or not e["cited"]


@pytest.mark.parametrize("case", REFUSALS, ids=[c.id for c in REFUSALS])
def test_refusal_gate_changes_no_outcome(case: Case) -> None:
    """The cue gates (English cue substrings, per-language cue words) skip only patterns
    that cannot match: gated and ungated runs agree on every case."""
    assert find_refusal(case.answer) == find_refusal(case.answer, gated=False)
