"""citation: presence of citations and validity of every cited index or id."""

from __future__ import annotations

import pytest

from monitor.checks import Citation
from tests.conftest import view

check = Citation()
CTX = ["Refunds within 30 days.", "Fees are $25.", "Sale items are final."]


def evidence(answer: str, context: list[str] = CTX) -> tuple[bool, dict[str, object]]:
    result = check(view(answer, context))
    return result.flagged, result.evidence.to_line()


@pytest.mark.parametrize(
    ("answer", "cited"),
    [
        ("Refunds within 30 days [1].", ["1"]),
        ("Refunds within 30 days [1, 3].", ["1", "3"]),
        ("Refunds within 30 days [1-3].", ["1", "2", "3"]),
        ("Refunds within 30 days [d2].", ["d2"]),
        ("Refunds within 30 days [source: d1].", ["d1"]),
        ("Refunds within 30 days [^1].", ["1"]),
        ("Refunds within 30 days【1†source】.", ["1"]),
        ("Refunds within 30 days¹.", ["1"]),
        ("Refunds within 30 days.\n\nSources: d1, d3", ["d1", "d3"]),
        ("Refunds within 30 days [Source 2].", ["2"]),
    ],
)
def test_valid_citations_pass(answer: str, cited: list[str]) -> None:
    """Each citation style is recognised and, when it names a passage, accepted."""
    flagged, ev = evidence(answer)
    assert not flagged
    assert ev["cited"] == cited
    assert ev["invalid"] == []


def test_a_file_search_marker_names_the_result_not_the_message() -> None:
    """OpenAI's file search writes ``【M:N†source】``. The first number is not a passage: real
    answers (read in public code that prints an Assistants run's annotations) cite three
    sources of one search as ``【3:0†source】【3:1†source】【3:2†source】``, one annotation
    each, and cite different files as ``【4:0†a.txt】`` and ``【4:4†b.txt】``: the first number
    stays the same across sources, the second counts the search's results from 0. Read as
    passage M, ``【4:0†source】`` beside three passages was an invalid citation."""
    flagged, ev = evidence("Refunds within 30 days【3:0†source】【3:1†source】【3:2†source】.")
    assert (flagged, ev["cited"], ev["invalid"]) == (False, ["1", "2", "3"], [])
    flagged, ev = evidence("Refunds within 30 days【4:0†source】.")
    assert (flagged, ev["cited"], ev["invalid"]) == (False, ["1"], [])
    flagged, ev = evidence("Refunds within 30 days【4:3†source】.")  # a fourth result
    assert (flagged, ev["cited"], ev["invalid"]) == (True, ["4"], ["4"])


def test_no_citation_is_flagged() -> None:
    """An answer without any citation is flagged with empty evidence lists."""
    flagged, ev = evidence("Refunds within 30 days.")
    assert flagged
    assert ev == {"cited": [], "invalid": [], "valid": 0}


def test_out_of_range_index_is_invalid() -> None:
    """[7] with three passages is an invalid citation; with no valid one the answer is flagged."""
    flagged, ev = evidence("Refunds within 30 days [7].")
    assert flagged
    assert ev["invalid"] == ["7"]


def test_unknown_id_is_invalid_but_a_valid_one_passes() -> None:
    """Invalid citations are reported even when another citation is valid."""
    flagged, ev = evidence("Refunds within 30 days [1] and fees [doc-9].")
    assert not flagged
    assert ev["cited"] == ["1", "doc-9"]
    assert ev["invalid"] == ["doc-9"]


def test_an_id_cited_in_two_cases_is_listed_once() -> None:
    """Ids are matched case-insensitively, so an id cited as ``D2`` and ``d2`` is one id,
    listed once as first written (docs/checks.md: "every cited id, once"); an unknown one
    the same, in ``cited`` and in ``invalid``."""
    flagged, ev = evidence("Refunds within 30 days [D2]; fees apply [d2].")
    assert not flagged
    assert ev["cited"] == ["D2"]
    _, ev = evidence("Refunds [1]. Fees [Doc-9], sale items [doc-9].")
    assert (ev["cited"], ev["invalid"]) == (["1", "Doc-9"], ["Doc-9"])


def test_a_zero_index_names_no_passage() -> None:
    """Passages are numbered from 1 in the prompt: [0] is invalid, and does not shift the
    other indices; a passage whose id is "0" is named by it."""
    flagged, ev = evidence("See [0] and [2].")
    assert not flagged
    assert ev["invalid"] == ["0"]
    _, ev = evidence("See [0] and [3].")
    assert ev["invalid"] == ["0"]


def test_bracketed_words_are_not_citations() -> None:
    """[sic] or [Note] are not citations; markdown links are not either."""
    flagged, ev = evidence("The fee [sic] is small. [Note] See [the docs](https://x.test/1).")
    assert flagged
    assert ev["cited"] == []


def test_empty_answer_not_applicable() -> None:
    """Nothing to cite in an empty answer."""
    assert not check(view("", CTX)).applicable


@pytest.mark.parametrize("answer", ["Refunds within 30 days [¹].", "Fees [²]: see the table."])
def test_a_bracketed_superscript_digit_is_read_not_raised(answer: str) -> None:
    """ "¹" is a digit to ``str.isdigit`` but not a decimal ``int()`` reads: a bracket holding
    one used to raise ValueError (the check then became "not applicable" on that trace)."""
    result = check(view(answer, CTX))
    assert result.applicable


def _cited(answer: str, docs: list[str]) -> dict[str, object]:
    from monitor.checks import TraceView
    from monitor.core.model import RagTrace

    context = [{"doc_id": d, "text": f"Passage {i} of {d}."} for i, d in enumerate(docs, 1)]
    data = {"trace_id": "ab" * 16, "query": "", "answer": answer, "context": context}
    line: dict[str, object] = check(TraceView(RagTrace.from_data(data))).evidence.to_line()
    return line


@pytest.mark.parametrize(
    ("answer", "docs", "cited", "invalid"),
    [
        ("The API changed in [v2]; refunds take 5 days [1].", ["d1", "d2"], ["1"], []),
        ("Drafted with [GPT-4]; refunds take 5 days [1].", ["d1", "d2"], ["1"], []),
        ("See [gpt-4o], [Llama-3.1] and [v2.1] [1].", ["d1", "d2"], ["1"], []),
        ("Limits rose in [v2] [rate-limits-v2].", ["rate-limits-v2"], ["rate-limits-v2"], []),
        ("The old limits are in [v2].", ["v1", "v3"], ["v2"], ["v2"]),
        ("The notes are in [GPT-4].", ["gpt-3", "gpt-5"], ["GPT-4"], ["GPT-4"]),
        ("Refunds take 5 days [Doc-3].", ["refunds-2024"], ["Doc-3"], ["Doc-3"]),
        ("Refunds take 5 days [KB-15].", ["refunds-2024"], ["KB-15"], ["KB-15"]),
        ("Refunds take 5 days [pricing-v2].", ["refunds-2024"], ["pricing-v2"], ["pricing-v2"]),
    ],
)
def test_a_bracketed_version_or_model_is_a_citation_only_in_the_ids_form(
    answer: str, docs: list[str], cited: list[str], invalid: list[str]
) -> None:
    """ "[v2]" and "[GPT-4]" are a version and a model's name, not invalid citations, unless
    the passages' ids are that word before a number ("v1", "gpt-3"); citation words before a
    number ("Doc-3", "KB-15") and longer ids stay citations."""
    ev = _cited(answer, docs)
    assert (ev["cited"], ev["invalid"]) == (cited, invalid)


def test_a_passage_id_after_a_value_word_is_cited() -> None:
    """ "not returned [fees]": a bracket naming a passage's id is a citation after any word
    (a number after "returned" is still a value)."""
    ev = _cited("Card fees are not returned [fees].", ["refunds-2024", "fees"])
    assert (ev["cited"], ev["invalid"]) == (["fees"], [])
    ev = _cited("The call returned [3] rows.", ["refunds-2024", "fees"])
    assert ev["cited"] == []


@pytest.mark.parametrize(
    ("answer", "cited"),
    [
        ("Exchanges are free¹ and refunds take 5 days [2].", ["1", "2"]),
        ("According to passage 2 refunds take 5 days [1].", ["2", "1"]),
        ("Fees apply (see Document 3) and refunds take 5 days [1].", ["3", "1"]),
        ("Refunds take 5 days [2] and fees apply¹.", ["2", "1"]),
    ],
)
def test_cited_ids_are_listed_in_the_answers_order(answer: str, cited: list[str]) -> None:
    """The evidence lists each cited id in the order the answer cites it, whatever the
    markers' kinds (before: brackets first, then parentheses, textual references and
    superscripts)."""
    assert evidence(answer)[1]["cited"] == cited


@pytest.mark.parametrize(
    ("answer", "docs", "cited", "invalid"),
    [
        ("Refunds take 5 days (refunds-2024, §3).", ["refunds-2024", "fees"], ["refunds-2024"], []),
        ("Refunds take 5 days [refunds-2024 §2].", ["refunds-2024", "fees"], ["refunds-2024"], []),
        ("Refunds take 5 days (kb-12, pp. 3-4).", ["kb-12", "kb-13"], ["kb-12"], []),
        ("Refunds take 5 days (kb-14, pp. 3-4).", ["kb-12", "kb-13"], ["kb-14"], ["kb-14"]),
        (
            "Refunds take 5 days [refunds-2023 §2].",
            ["refunds-2024"],
            ["refunds-2023"],
            ["refunds-2023"],
        ),
        ("The fee is small (see p. 4).", ["refunds-2024"], [], []),
    ],
)
def test_a_place_in_a_passage_after_its_id_is_set_aside(
    answer: str, docs: list[str], cited: list[str], invalid: list[str]
) -> None:
    """ "(refunds-2024, §3)" cites refunds-2024 (before: nothing, the section sign made the
    parentheses a note); a page alone cites nothing."""
    ev = _cited(answer, docs)
    assert (ev["cited"], ev["invalid"]) == (cited, invalid)


@pytest.mark.parametrize(
    ("answer", "docs", "cited", "invalid"),
    [
        ("Refunds take 5 days (passages 1, 2 and 3).", ["d1", "d2"], ["1", "2", "3"], ["3"]),
        ("See sources 1, 2, 3 and 4.", ["d1", "d2", "d3", "d4"], ["1", "2", "3", "4"], []),
        ("Passages 1 and 2, 30 days apply.", ["d1", "d2"], ["1", "2"], []),
        ("Refunds take 5 days [refunds.md, L4-L9].", ["refunds.md", "fees.md"], ["refunds.md"], []),
    ],
)
def test_a_textual_list_and_a_line_range(
    answer: str, docs: list[str], cited: list[str], invalid: list[str]
) -> None:
    """ "passages 1, 2 and 3" cites each (before: the third was dropped, an invalid one
    unseen), a quantity after the list is not one of them; a file-search line range after an
    id is a place in it (before: "L4-L9" was an invalid id)."""
    ev = _cited(answer, docs)
    assert (ev["cited"], ev["invalid"]) == (cited, invalid)


@pytest.mark.parametrize(
    ("answer", "docs", "cited", "invalid"),
    [
        ("Revenue grew in [Q3] [1].", ["doc-1", "doc-2"], ["1"], []),
        ("The codec is [H.264] at [4K] [2].", ["doc-1", "doc-2"], ["2"], []),
        ("Targets for [FY24] and [H2] [1].", ["doc-1", "doc-2"], ["1"], []),
        ("Streams in [1080p] or [5G] [1].", ["doc-1", "doc-2"], ["1"], []),
        ("Revenue grew in [Q3] [1].", ["q1", "q2"], ["Q3", "1"], ["Q3"]),
        ("Revenue grew [Q3].", ["q3", "q4"], ["Q3"], []),
    ],
)
def test_a_quarter_a_format_or_a_size_in_brackets_is_not_a_citation(
    answer: str, docs: list[str], cited: list[str], invalid: list[str]
) -> None:
    """ "[Q3]", "[H.264]", "[4K]" were read as invalid ids; they cite only when they name a
    passage or the passages' ids have their form."""
    line = _cited(answer, docs)
    assert line.get("cited", []) == cited
    assert line.get("invalid", []) == invalid


@pytest.mark.parametrize(
    ("answer", "cited", "invalid"),
    [
        ("Refunds take 5 days¹.\n\n¹ refunds-2024", ["refunds-2024"], []),
        ("Refunds take 5 days¹.\n\n¹ refunds-2023", ["refunds-2023"], ["refunds-2023"]),
        (
            "Refunds take 5 days¹, shipping is free².\n\n¹: refunds-2024\n²: shipping",
            ["refunds-2024", "shipping"],
            [],
        ),
        ("Refunds take 5 days¹.", ["1"], []),
    ],
)
def test_a_superscript_footnotes_definition_decides_what_it_cites(
    answer: str, cited: list[str], invalid: list[str]
) -> None:
    """ "¹ refunds-2024" defines what "¹" cites, as "[^1]: refunds-2024" does for "[^1]" (the
    superscript was read as index 1 beside the id)."""
    line = _cited(answer, ["refunds-2024", "shipping"])
    assert line.get("cited", []) == cited
    assert line.get("invalid", []) == invalid


@pytest.mark.parametrize(
    ("answer", "cited", "invalid"),
    [
        ("Enterprise is billed yearly [pricing.md#enterprise].", ["pricing.md"], []),
        ("Invoices go out on the 1st [faq.md#billing].", ["faq.md"], ["faq.md"]),
        ("Refunds take 5 days [refunds.md#7].", ["refunds.md#7"], ["refunds.md#7"]),
    ],
)
def test_an_anchor_is_set_aside_from_the_cited_id(
    answer: str, cited: list[str], invalid: list[str]
) -> None:
    """ "[pricing.md#enterprise]" cites and lists pricing.md (it was listed with its anchor);
    a chunk ("#7") stays part of the id."""
    line = _cited(answer, ["pricing.md", "refunds.md"])
    assert line.get("cited", []) == cited
    assert line.get("invalid", []) == invalid


@pytest.mark.parametrize(
    ("answer", "docs", "cited", "invalid"),
    [
        ("返品は30日以内に可能です[1]。", ["returns-policy", "warranty-2025"], ["1"], []),
        (
            "Sale items cannot be returned [returns_policy].",
            ["returns-policy"],
            ["returns_policy"],
            [],
        ),
        ("Pets stay free [31].", ["7", "12", "31"], ["31"], []),
        ("Pets stay free [40].", ["7", "12", "31"], ["40"], ["40"]),
        (
            "The old terms are in warranty-2024.",
            ["returns-policy", "warranty-2025"],
            ["warranty-2024"],
            ["warranty-2024"],
        ),
        ("It runs on covid-19 rules [1].", ["returns-policy", "warranty-2025"], ["1"], []),
    ],
)
def test_cjk_markers_numeric_ids_joined_words_and_shaped_ids_in_prose(
    answer: str, docs: list[str], cited: list[str], invalid: list[str]
) -> None:
    """A marker glued to Japanese text, a number among numeric ids, an id with its words
    joined by "_", an id's stem and shape in the prose: each cited nothing before."""
    line = _cited(answer, docs)
    assert line.get("cited", []) == cited
    assert line.get("invalid", []) == invalid


def test_the_last_of_a_textual_list_before_a_verb_is_cited() -> None:
    """ "Passages 1, 2 and 4 agree": 4 is one of the list (it was dropped), invalid among
    three passages; "Passages 1 and 2, 30 days apply" still cites two."""
    line = _cited("Passages 1, 2 and 4 agree that admins manage this.", ["a", "b", "c"])
    assert line.get("cited") == ["1", "2", "4"]
    assert line.get("invalid") == ["4"]
    assert _cited("Passages 1 and 2, 30 days apply.", ["a", "b", "c"]).get("cited") == ["1", "2"]
