"""empty_context, context_conflict and grounding_overlap."""

from __future__ import annotations

from pathlib import Path

from monitor.checks import ContextConflict, EmptyContext, GroundingOverlap, TraceView
from monitor.ingest import conversion
from monitor.sources import framing
from tests.conftest import make_trace, view

OLD = (
    "Refund policy. Customers can request a full refund within 14 days of purchase. Refunds "
    "are issued to the original payment method within 10 business days. Sale items and gift "
    "cards are not refundable."
)
NEW = OLD.replace("14 days", "30 days").replace("10 business", "5 business")
OTHER = (
    "Shipping. Orders to EU countries ship within 2 business days from our warehouse. "
    "Standard delivery takes 3-5 business days; express delivery arrives the next day."
)


def test_empty_context_names_the_retrieval_stage() -> None:
    """No passages and nothing retrieved: retrieval broke."""
    result = EmptyContext()(view("Answer.", []))
    assert result.flagged
    assert result.evidence.to_line()["stage"] == "retrieval"


def test_empty_context_names_the_packing_stage() -> None:
    """Candidates retrieved but none packed: the packer dropped them."""
    trace = make_trace("Answer.", [], retrieved=[{"doc_id": "a", "score": 0.4, "rank": 1}])
    result = EmptyContext()(TraceView(trace))
    assert result.flagged
    assert result.evidence.to_line() == {"passages": 0, "retrieved": 1, "stage": "packing"}


def test_whitespace_passages_count_as_empty() -> None:
    """Passages of only whitespace carry no context."""
    assert EmptyContext()(view("Answer.", ["  ", "\n"])).flagged


def test_context_present_passes() -> None:
    """One real passage is context."""
    assert not EmptyContext()(view("Answer.", [OTHER])).flagged


def test_conflict_between_old_and_new_versions() -> None:
    """Two versions of one page stating different figures are a conflict, with the figures."""
    result = ContextConflict()(view("Answer.", [NEW, OTHER, OLD]))
    assert result.flagged
    (conflict,) = result.evidence.to_line()["conflicts"]
    assert conflict["passages"] == [1, 3]
    assert conflict["first_states"] == ["30", "5"]
    assert conflict["second_states"] == ["14", "10"]


def test_identical_duplicates_are_not_a_conflict() -> None:
    """The same passage twice states the same figures."""
    assert not ContextConflict()(view("Answer.", [OLD, OLD])).flagged


def test_different_pages_are_not_a_conflict() -> None:
    """Unrelated passages with different figures are not duplicates."""
    assert not ContextConflict()(view("Answer.", [OLD, OTHER])).flagged


def test_single_passage_not_applicable() -> None:
    """A conflict needs two passages."""
    assert not ContextConflict()(view("Answer.", [OLD])).applicable


def test_grounding_overlap_high_for_copied_answer() -> None:
    """An answer built from context words overlaps fully and is never flagged."""
    result = GroundingOverlap()(view("Customers request a full refund within days.", [OLD]))
    assert result.score == 1.0
    assert not result.flagged


def test_grounding_overlap_low_for_unrelated_answer() -> None:
    """An answer about something else has low overlap and lists the missing words."""
    result = GroundingOverlap()(view("Quantum entanglement enables teleportation.", [OLD]))
    assert result.score is not None and result.score < 0.2
    assert "quantum" in result.evidence.to_line()["missing"]


def test_grounding_overlap_not_applicable_for_short_answers() -> None:
    """Too few content words give no signal."""
    assert not GroundingOverlap()(view("Yes.", [OLD])).applicable


def test_a_check_that_raises_does_not_lose_the_trace() -> None:
    """The suite turns a check's exception into a not-applicable result naming the error."""
    from monitor.checks import CheckSuite
    from monitor.core.model import CheckResult

    class Broken:
        name = "broken"

        def __call__(self, view: TraceView) -> CheckResult:
            raise ZeroDivisionError("division by zero")

    results = CheckSuite([Broken(), EmptyContext()])(make_trace("Answer.", [OTHER]))
    assert results["broken"].outcome == "not_applicable"
    assert (
        results["broken"].evidence.to_line()["reason"]
        == "error: ZeroDivisionError: division by zero"
    )
    assert results["empty_context"].outcome == "passed"


STALE = "Refunds were issued within 30 days of receiving the returned item."
CURRENT = "Refunds are issued within 14 days of receiving the returned item."


def test_versions_reworded_a_little_are_near_duplicates() -> None:
    """Two versions of one policy whose wording changed ("were" and "are") still conflict
    (the README's example: refunds-2019 and refunds-2024)."""
    result = ContextConflict()(view("Answer.", [STALE, CURRENT]))
    assert result.flagged
    (conflict,) = result.evidence.to_line()["conflicts"]
    assert (conflict["first_states"], conflict["second_states"]) == (["30"], ["14"])


def test_a_citation_of_the_passage_the_answer_contradicts_is_named() -> None:
    """ "14 days [1]" citing the 30-day page while the 14-day page is packed: the cited
    passage is named; citing the page that states the figure, or nothing, names none."""
    for answer, named in (("Refunds take 14 days [1].", 1), ("Refunds take 30 days [2].", 2),
                          ("Refunds take 14 days [2].", None), ("Refunds take 14 days.", None),
                          ("Refunds take 14 days [d1].", 1)):  # fmt: skip
        result = ContextConflict()(view(answer, [STALE, CURRENT]))
        (conflict,) = result.evidence.conflicts
        assert conflict.cited_disagreeing == named, answer
        if named:
            assert f"cites passage {named}" in result.evidence.explain()


def test_one_sentence_pages_of_two_editions_are_not_a_conflict() -> None:
    """A year or a version in a one-sentence passage names its edition: the 2023 and 2024
    holiday pages, versions 2.3 and 2.4, differ without conflicting."""
    for a, b in (("In 2023 the office was closed on 3 public holidays in December.",
                  "In 2024 the office is closed on 4 public holidays in December."),
                 ("Version 2.3 was supported for 12 months after release.",
                  "Version 2.4 is supported for 18 months after release.")):  # fmt: skip
        assert not ContextConflict()(view("Answer.", [a, b])).flagged


def test_labels_that_differ_in_a_number_are_not_a_conflict() -> None:
    """Passages of fewer than four content words are labels, not statements: "Passage 1 of
    kb-12" and "Passage 2 of kb-13" (or "of 3" and "of 14") state nothing that conflicts."""
    for a, b in (("Passage 1 of kb-12.", "Passage 2 of kb-13."),
                 ("Passage 1 of 3.", "Passage 2 of 14."),
                 ("Passage 1 of kb#1042.", "Passage 2 of kb#1043.")):  # fmt: skip
        assert not ContextConflict()(view("Answer [1].", [a, b])).flagged, a


def test_long_passages_are_compared_verbatim_and_not_by_their_skeletons() -> None:
    """Skeletons are for passages of a sentence or two: longer versions of a page keep a
    sentence verbatim (flagged), and a long passage never builds a skeleton."""
    tail = " Sale items are final. Gift cards are not refundable. Contact support to start."
    result = ContextConflict()(view("Answer.", [STALE + tail, CURRENT + tail]))
    assert result.flagged
    facts = view("Answer.", [STALE + tail, CURRENT.replace("are", "get") + " Other text."])
    ContextConflict()(facts)
    assert all(not hasattr(f, "_skeleton") for f in facts.facts)


def test_the_first_otlp_example_flags_its_stale_policy() -> None:
    """The README's first OTLP example packs refunds-2019 (30 days) and refunds-2024 (14
    days) and answers "14 days [1]" citing the 2019 page: flagged, the citation named."""
    data = (Path(__file__).parents[3] / "examples" / "langchain-openinference.otlp").read_bytes()
    traces = conversion.convert(
        list(framing.read_messages(data, "otlp-proto")), "otlp_proto"
    ).traces
    flagged = [t for t in traces if ContextConflict()(TraceView(t)).flagged]
    assert len(flagged) == 1
    (conflict,) = ContextConflict()(TraceView(flagged[0])).evidence.conflicts
    assert set(conflict.doc_ids) == {"refunds-2019", "refunds-2024"}
    assert conflict.cited_disagreeing == conflict.doc_ids.index("refunds-2019") + 1
