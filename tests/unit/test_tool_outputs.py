"""A retrieval tool's text output as passages: numbered blocks split with the ids they name,
anything else left whole with its id unknown (never a guess)."""

from __future__ import annotations

import pytest

from monitor.ingest.conventions.tool_output import numbered_blocks, tool_docs

OPENAI_AGENTS_STYLE = (
    "[1] Plans and prices (doc_id: vel-plans-001)\nThe Pro plan costs $20 a month.\n"
    "[2] Refunds (doc_id: vel-refunds-002)\nRefunds are issued within 14 days.\n"
    "[3] Shipping\nExpress shipping takes 1-2 days."
)


def test_numbered_text_becomes_passages_with_the_ids_it_names() -> None:
    docs = tool_docs(OPENAI_AGENTS_STYLE)
    assert [d.id for d in docs] == ["vel-plans-001", "vel-refunds-002", None]
    # the id's label in parentheses annotates the block: not the passage's text
    assert docs[1].text == "Refunds\nRefunds are issued within 14 days."


@pytest.mark.parametrize(
    ("raw", "ids"),
    [
        ("1. Refund policy (source: https://x.example/refunds)\nRefunds take 14 days.\n"
         "2. Warranty (id=w-7)\nTwo years.", ["https://x.example/refunds", "w-7"]),
        ("Found 2 results:\n1) Refunds take 14 days. chunk_id: r#3\n2) Two years warranty.",
         ["r#3", None]),
        ("Document 1: The Pro plan costs $20 (document_id: plans).\nDocument 2: Refunds take "
         "14 days.", ["plans", None]),
        ("Source 1 - Refunds take 14 days.\nSource 2 - Warranty is two years.", [None, None]),
    ],
)  # fmt: skip
def test_the_numbered_forms(raw: str, ids: list[str | None]) -> None:
    blocks = numbered_blocks(raw)
    assert blocks is not None and [i for i, _ in blocks] == ids


@pytest.mark.parametrize(
    "raw",
    [
        "The Pro plan costs $20 [1] and refunds take 14 days [2].",  # citations inline
        "2. second\n3. third",  # does not count from 1
        "1. first\n3. third",  # a gap
        "1. only one block",
        "Refunds take 14 days. Warranty: two years.",  # free text
        "[1]\n[2] empty first block",
    ],
)
def test_anything_else_stays_one_passage_of_unknown_id(raw: str) -> None:
    assert numbered_blocks(raw) is None
    (doc,) = tool_docs(raw)
    assert (doc.id, doc.text) == (None, raw)


def test_json_results_under_hits_are_documents() -> None:
    raw = '{"hits": [{"id": "a", "text": "one"}, {"id": "b", "text": "two"}]}'
    assert [(d.id, d.text) for d in tool_docs(raw)] == [("a", "one"), ("b", "two")]


def test_one_numbered_block_is_a_document_only_when_it_names_its_id() -> None:
    """A tool that found one document writes one block: with its id it is that document
    (the label annotates, it is not the text); without one, "[1] ..." may be anything and
    stays the output's text, unsplit."""
    assert numbered_blocks("[1] Gift cards cannot be refunded. (doc_id: gift-cards)") == [
        ("gift-cards", "Gift cards cannot be refunded.")
    ]
    assert numbered_blocks("[1] Gift cards cannot be refunded.") is None
    (doc,) = tool_docs("[1] Gift cards cannot be refunded.")
    assert (doc.id, doc.text) == (None, "[1] Gift cards cannot be refunded.")
