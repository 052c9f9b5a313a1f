"""A retrieval tool's text output as passages: numbered blocks split with the ids they name,
anything else left whole with its id unknown (never a guess)."""

from __future__ import annotations

import json

import pytest

from monitor.ingest.conventions.tool_output import numbered_blocks, tool_docs
from monitor.ingest.otlp import Event, Span

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


def test_a_search_apis_own_keys_name_text_and_source() -> None:
    """Web and vector search tools return ``snippet``/``chunk`` and ``url``/``source``; the
    conventions' keys win where both are present."""
    raw = (
        '{"results": [{"url": "https://help.example/refunds", "snippet": "Refunds take 14 '
        'days."}, {"source": "kb/warranty.md", "chunk": "Two years."}, {"id": "p-1", '
        '"url": "https://x.example", "text": "Own id and text first."}]}'
    )
    assert [(d.id, d.text) for d in tool_docs(raw)] == [
        ("https://help.example/refunds", "Refunds take 14 days."),
        ("kb/warranty.md", "Two years."),
        ("p-1", "Own id and text first."),
    ]
    # an object without any text is not a document: the output stays one passage
    (doc,) = tool_docs('[{"url": "https://x.example", "title": "Refunds"}]')
    assert doc.id is None


def _inference(
    messages: object = None, events: tuple[tuple[str, dict[str, str]], ...] = ()
) -> Span:
    attrs = {"gen_ai.operation.name": "chat"}
    if messages is not None:
        attrs["gen_ai.input.messages"] = json.dumps(messages)
    return Span("t", "s", "", "chat", 0, 1, attrs,
                events=[Event(name, attributes) for name, attributes in events])  # fmt: skip


def test_genai_tool_results_this_turns_and_the_history() -> None:
    """A conversation's next call carries the earlier turns: the results after the last user
    message that says something are this turn's, the ones before it the history (PydanticAI
    puts a tool's result, as ``result``, in a ``user`` message of ``tool_call_response``
    parts: not a new question). A result carried twice under one call id is one result; two
    calls with the same answer stay two calls."""
    from monitor.ingest.conventions.genai import _tool_results
    from monitor.ingest.conventions.turns import ToolResult

    said = lambda role, text: {"role": role, "parts": [{"type": "text", "content": text}]}  # noqa: E731
    result = lambda value, key="response", role="tool", call="c": {  # noqa: E731
        "role": role,
        "parts": [{"type": "tool_call_response", "id": call, key: value}]}  # fmt: skip
    messages = [said("user", "first question"), result("[earlier]", call="a"),
                said("assistant", "one"), said("user", "second question"),
                result("[now]", "result", "user", call="b"), result({"hits": []}, call="c"),
                result({"hits": []}, call="c"), result("[now]", call="d")]  # fmt: skip
    assert _tool_results(_inference(messages)) == [
        ToolResult("a", "[earlier]", False), ToolResult("b", "[now]", True),
        ToolResult("c", '{"hits": []}', True), ToolResult("d", "[now]", True)]  # fmt: skip


def test_strands_tool_result_blocks_are_the_results() -> None:
    """Strands' content events: a ``gen_ai.tool.message`` holds Bedrock-style ``toolResult``
    blocks (one result each, text or JSON content, the call's ``toolUseId``); an earlier
    turn's before the last ``gen_ai.user.message``."""
    from monitor.ingest.conventions.genai import _tool_results
    from monitor.ingest.conventions.turns import ToolResult

    block = '[{"toolResult": {"toolUseId": "%s", "status": "success", "content": %s}}]'
    events = (
        ("gen_ai.user.message", {"content": '[{"text": "first"}]'}),
        ("gen_ai.tool.message", {"content": block % ("a", '[{"text": "old"}]')}),
        ("gen_ai.user.message", {"content": '[{"text": "second"}]'}),
        ("gen_ai.tool.message", {"content": block % ("b", '[{"text": "[1] x"}, {"text": "[2] y"}]')}),  # noqa: E501
        ("gen_ai.tool.message", {"content": block % ("c", '[{"json": {"id": "d"}}]')}),
        ("gen_ai.tool.message", {"content": "plain result"}),
        ("gen_ai.tool.message", {"content": "plain result"}),  # no id: the same content, once
    )  # fmt: skip
    assert _tool_results(_inference(events=events)) == [
        ToolResult("a", "old", False), ToolResult("b", "[1] x\n[2] y", True),
        ToolResult("c", '{"id": "d"}', True), ToolResult(None, "plain result", True)]  # fmt: skip


@pytest.mark.parametrize(
    "raw",
    ["", "  ", "[]", "{}", "null", "None", "No passages found.", "no results", "No results found",
     "No relevant documents were found.", "Nothing found", "0 results", "N/A",
     '{"results": []}', '{"documents": [], "query": "x"}', "{'hits': [], 'query': 'x'}"],
)  # fmt: skip
def test_a_result_that_says_it_found_nothing_is_no_passage(raw: str) -> None:
    assert tool_docs(raw) == []


def test_a_python_repr_of_a_tool_returned_list_is_read_as_its_documents() -> None:
    """A framework that hands the model ``str()`` of the dict its tool returned: the repr is
    read (never evaluated) as the JSON would be; text that only starts like one stays whole."""
    hits = [{"url": "https://h/a", "snippet": "It's 14 days.", "score": 0.5},
            {"url": "https://h/b", "snippet": 'A "fee" applies.', "meta": None}]  # fmt: skip
    raw = str({"hits": hits})
    assert [(d.id, d.text) for d in tool_docs(raw)] == [
        ("https://h/a", "It's 14 days."), ("https://h/b", 'A "fee" applies.')]  # fmt: skip
    for whole in ("[1] It's the first (doc_id: a)", "{'a': 1} and more text", "{'a': len(x)}"):
        assert len(tool_docs(whole)) == 1


@pytest.mark.parametrize(
    "raw",
    ["No, gift cards cannot be refunded.", "No results for refunds were older than 2019.",
     "None of the plans include phone support."],
)  # fmt: skip
def test_a_sentence_that_starts_like_nothing_is_a_passage(raw: str) -> None:
    assert [d.text for d in tool_docs(raw)] == [raw]


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ('[{"id": "a"}]', '[{"id": "a"}]'),  # the result itself (OpenAI Agents' tool message)
        ('Observation:\n[{"id": "a"}]', '[{"id": "a"}]'),  # smolagents' observation
        ('Before the observation we saw [{"id": "a"}]', None),  # inside other text: not it
        ('Observation:\n[{"id": "a"}] and more', None),  # more than the result
    ],
)  # fmt: skip
def test_an_openinference_tool_message_carries_a_result_whole(
    message: str, found: str | None
) -> None:
    from monitor.ingest.conventions.openinference import _result_in

    assert _result_in(message, {'[{"id": "a"}]'}) == found


def test_a_langchain_tool_message_is_read_through_to_its_content() -> None:
    """LangGraph's ToolNode: the TOOL span records the whole ``ToolMessage``; the model is
    given its content. Any other JSON output is the result as it stands."""
    from monitor.ingest.conventions.openinference import _is_message_state, _tool_result

    dumped = '{"type": "tool", "data": {"content": "[1] a (doc_id: x)", "tool_call_id": "c"}}'
    assert _tool_result(dumped) == "[1] a (doc_id: x)"
    assert _tool_result('{"results": [{"id": "a", "text": "t"}]}') == (
        '{"results": [{"id": "a", "text": "t"}]}')  # fmt: skip
    assert _tool_result(None) is None
    assert _is_message_state('{"messages": [["user", "how long"]]}')
    assert not _is_message_state('{"question": "how long"}')


def test_google_adks_result_wrapper_is_read_through() -> None:
    """ADK's tool caller (google-adk 2.13, ``flows/llm_flows/tools/_caller.py``): "Specs
    requires the result to be a dict", so a return value that is not one becomes
    ``{'result': value}``. A dict the tool returned itself stays JSON."""
    from monitor.ingest.conventions.genai import _response_text

    assert _response_text({"result": "[1] a (doc_id: x)"}) == "[1] a (doc_id: x)"
    assert _response_text({"result": "a", "status": "ok"}) == '{"result": "a", "status": "ok"}'
    assert _response_text({"result": ["a"]}) == '["a"]'
    assert _response_text("plain") == "plain"


def test_a_hybrids_retrieved_list_is_the_joining_steps_order() -> None:
    """Two retrievers side by side: the first later step that lists exactly their documents
    (a reranker's input, a CHAIN's documents, Haystack reprs by id) gives the order; a step
    that lists other documents (a cut) does not."""
    from monitor.ingest.conventions.core import _Doc
    from monitor.ingest.conventions.openinference import _fused

    def span(sid: str, start: int, kind: str, **attrs: object) -> Span:
        return Span("a" * 32, sid * 16, "", sid, start, start + 1,
                    {"openinference.span.kind": kind, **attrs})  # fmt: skip

    a, b, c = _Doc("a", "text a"), _Doc("b", "text b"), _Doc("c", "text c")
    retrievers = [span("1", 0, "RETRIEVER"), span("2", 0, "RETRIEVER")]
    cut = span("3", 5, "CHAIN", **{"output.value": json.dumps({"documents": [
        "Document(id=c, content: 'text c', score: 1.0)"]})})  # fmt: skip
    joiner = span("4", 6, "CHAIN", **{"output.value": json.dumps({"documents": [
        "Document(id=c, content: 'text c', score: 1.0)",
        "Document(id=a, content: 'text a', score: 0.9)",
        "Document(id=b, content: 'text b', score: 0.8)"]})})  # fmt: skip
    ranker = span("5", 7, "RERANKER", **{
        "reranker.input_documents.0.document.content": "text b",
        "reranker.input_documents.1.document.content": "text c",
        "reranker.input_documents.2.document.content": "text a"})  # fmt: skip
    spans = [*retrievers, cut, joiner, ranker]
    assert _fused(spans, retrievers, [a, b, c]) == [c, a, b]
    assert _fused([*retrievers, ranker], retrievers, [a, b, c]) == [b, c, a]
    assert _fused([*retrievers, cut], retrievers, [a, b, c]) == []


def test_markdown_sections_that_name_their_ids_are_passages() -> None:
    raw = (
        "Results:\n## Refunds\nRefunds take 14 days.\n(doc_id: refunds-2024)\n\n"
        "## Warranty\nsource: kb/warranty.md\nTwo years."
    )
    docs = tool_docs(raw)
    assert [(d.id, d.text) for d in docs] == [
        ("refunds-2024", "## Refunds\nRefunds take 14 days."),
        ("kb/warranty.md", "## Warranty\nsource: kb/warranty.md\nTwo years."),
    ]


@pytest.mark.parametrize(
    "raw",
    [
        "## Refunds\nRefunds take 14 days.\n## Warranty\nTwo years.",  # one document's sections
        "## Refunds\nRefunds take 14 days. (doc_id: r)\n## Warranty\nTwo years.",  # one unnamed
        "## Refunds (doc_id: r)\nRefunds take 14 days.",  # a single section
        "#hashtag first\n#another",  # not headings: no space after the marks
    ],
)
def test_markdown_that_is_not_a_list_of_documents_stays_whole(raw: str) -> None:
    (doc,) = tool_docs(raw)
    assert (doc.id, doc.text) == (None, raw)
