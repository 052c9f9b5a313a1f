"""citation: bracketed text that is not a citation, as it occurs in real answers, each beside
real citations and invalid ids written in the same styles (which must stay cited)."""

from __future__ import annotations

import pytest

from monitor.checks import Citation, TraceView
from monitor.core.model import RagTrace

check = Citation()
IDS = ["refunds-2024", "shipping-policy", "fees"]


def cited(answer: str, ids: list[str] = IDS) -> tuple[list[str], list[str]]:
    trace = RagTrace.from_data(
        {
            "trace_id": "0" * 31 + "1",
            "answer": answer,
            "context": [{"doc_id": i, "text": f"Text of {i}."} for i in ids],
        }
    )
    line = check(TraceView(trace)).evidence.to_line()
    return line.get("cited", []), line.get("invalid", [])


# (answer, cited, invalid): what each marker cites, with three passages
NOT_CITATIONS = [
    ("- [x] Refunds take 5 days [1].", ["1"], []),
    ("- [ ] Keep the receipt [2].", ["2"], []),
    ("See [the refund page](https://example.com/refunds) [1].", ["1"], []),
    ("Refunds take 5 days [1]. Details [...] follow.", ["1"], []),
    ('He "wrote [sic] the policy" [1].', ["1"], []),
    ("Refunds take 5 days [citation needed].", [], []),
    ("The name was [redacted] in the passage [1].", ["1"], []),
    ("The transcript says [Music] then [Applause] [2].", ["2"], []),
    ("In Python, items[0] and a[1] index lists [1].", ["1"], []),
    ("Shipping date: [TBD] [2].", ["2"], []),
    ("Install [v2.3.1] of the tool [1].", ["1"], []),
    ("Built with [GPT-4o] on [iOS 17] [1].", ["1"], []),
    ("Roughly [1/2] of refunds are fast [1].", ["1"], []),
    ("Refunds take 5 days [3/4].", [], []),
    ("Runs on [PS5] and stores [MP4] files [1].", ["1"], []),
    ("Runs [ES2015] code [1].", ["1"], []),
    ("Uses [SHA-256] hashes and [UTF-8] text [1].", ["1"], []),
    ("Charges over [USB-C] [1].", ["1"], []),
    ("Refunds take 5 days [N/A] [1].", ["1"], []),
    ("Replace [YOUR_API_KEY] with your key [1].", ["1"], []),
    ("Refunds take 5 days [ibid.] [1].", ["1"], []),
    ("Refunds take 5 days [Ibid., p. 4] [1].", ["1"], []),
    ("Refunds take 5 days [Id.] [1].", ["1"], []),
    ("The matrix [[1, 2], [3, 4]] is small [1].", ["1"], []),
    # real citations in the same places
    ("Refunds take 5 days [1-3].", ["1", "2", "3"], []),
    ("Refunds take 5 days [1, 2].", ["1", "2"], []),
    ("Refunds take 5 days [[1]].", ["1"], []),
    ("Refunds take 5 days.\n\nSources: [1], [3]", ["1", "3"], []),
    # hard negatives: invalid ids in the same styles stay invalid
    ("Refunds take 5 days [4].", ["4"], ["4"]),
    ("Refunds take 5 days [2, 5].", ["2", "5"], ["5"]),
    ("Refunds take 5 days [1-5].", ["1", "2", "3", "4", "5"], ["4", "5"]),
    ("Refunds take 5 days [S4].", ["S4"], ["S4"]),
    ("Refunds take 5 days [KB-15].", ["KB-15"], ["KB-15"]),
    ("Refunds take 5 days [DOC-9].", ["DOC-9"], ["DOC-9"]),
    ("Refunds take 5 days [refunds-2023].", ["refunds-2023"], ["refunds-2023"]),
    ("Refunds take 5 days [[1, 4]].", ["1", "4"], ["4"]),
]


@pytest.mark.parametrize(("answer", "want_cited", "want_invalid"), NOT_CITATIONS)
def test_bracketed_text_that_is_not_a_citation(
    answer: str, want_cited: list[str], want_invalid: list[str]
) -> None:
    """Checkboxes, links, editors' notes, placeholders, versions, products, formats,
    fractions and arrays cite nothing; citations and invalid ids beside them stay."""
    assert cited(answer) == (want_cited, want_invalid)


@pytest.mark.parametrize(
    ("answer", "ids", "want"),
    [
        ("Runs on [PS5] [1].", ["ps4", "faq"], (["PS5", "1"], ["PS5"])),
        ("Uses [SHA-256] [1].", ["sha-256", "faq"], (["SHA-256", "1"], [])),
        ("Set [API_KEY] first [1].", ["API_KEY", "faq"], (["API_KEY", "1"], [])),
        ("Roughly [1/2] of them.", ["1/2", "faq"], (["1/2"], [])),
    ],
)
def test_a_label_that_names_a_passage_or_has_the_ids_form_is_cited(
    answer: str, ids: list[str], want: tuple[list[str], list[str]]
) -> None:
    """A product or placeholder is still cited when it names a passage, or when the ids
    are the same word before a number ("[PS5]" beside ps4: invalid)."""
    assert cited(answer, ids) == want


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("Deposits apply [doc-03].", (["doc-03"], [])),
        ("Deposits apply [doc-09].", (["doc-09"], ["doc-09"])),
        ("Deposits apply [doc3].", (["3"], [])),
        ("Deposits apply [doc-3].", (["doc-3"], [])),
    ],
)
def test_a_zero_padded_label_is_the_id_as_written(
    answer: str, want: tuple[list[str], list[str]]
) -> None:
    """ "[doc-03]" beside doc-3 cites the id doc-03 (it was read as the index 3)."""
    ids = [f"doc-{i}" for i in range(1, 7)]
    assert cited(answer, ids) == want


@pytest.mark.parametrize(
    "label",
    ["[2x]", "[x2]", "[12V]", "[3D]", "[2FA]", "[B2B]", "[IPv6]", "[Y/n]", "[yes/no]", "[F5]",
     "[Alt+F4]", "[1st]", "[18+]", "[A-Z]", "[a-z0-9]", "[::1]", "[GMT+1]", "[UTC+05:30]",
     "[en-US]", "[1.2.3-beta]", "[16:9]", "[4:3]"],
)  # fmt: skip
def test_keys_choices_factors_and_ratios_are_labels(label: str) -> None:
    """Keys, choices, factors, ordinals, character classes, addresses, zones, locales and
    ratios cite nothing (each was an invalid id or index)."""
    assert cited(f"Use the {label} option [1].") == (["1"], [])


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("Refunds take 5 days [2:7].", (["2"], [])),
        ("Refunds take 5 days [S4] and [Source 4].", (["S4", "4"], ["S4", "4"])),
        ("Refunds take 5 days [1-3].", (["1", "2", "3"], [])),
        ("Refunds take 5 days [doc-9].", (["doc-9"], ["doc-9"])),
    ],
)
def test_places_and_invalid_ids_beside_the_labels_stay(
    answer: str, want: tuple[list[str], list[str]]
) -> None:
    """A place in a passage, an invalid label or range is read as before."""
    assert cited(answer) == want


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("If you loop over grid[2][3] you get the cell, as [1] explains.", (["1"], [])),
        ("The weights live in grid[2][3] after loading [1].", (["1"], [])),
        ("The piece on board[3][2] moves first [2].", (["2"], [])),
        ("Certificates follow [ISO-9001] and [ISO 27001:2022] [2].", (["2"], [])),
        ("Dates follow [RFC-9110] and floats [IEEE-754] [1].", (["1"], [])),
        # hard negatives: a claim glued to its markers, an invalid id of a code's shape
        ("The load is shared across the power grid[2][3].", (["2", "3"], [])),
        ("The load is shared across the power grid[2][4] and the fee is 5%.", (["2", "4"], ["4"])),
        ("Refunds take 30 days[1][4] after purchase.", (["1", "4"], ["4"])),
        ("Tracked as [JIRA-1234] [1].", (["JIRA-1234", "1"], ["JIRA-1234"])),
        ("Certified under [ISO-9001] [1].", (["ISO-9001", "1"], ["ISO-9001"])),
    ],
)
def test_a_grid_indexed_twice_and_a_standard_named_by_its_body(
    answer: str, want: tuple[list[str], list[str]]
) -> None:
    """ "grid[2][3]" with the clause going on is a row and a column (they were cited, invalid
    beyond the passages); "[ISO-9001]" is a standard (an invalid id), unless a passage id has
    its form; a grid's brackets that end the claim, and ticket ids, stay cited."""
    ids = [*IDS, "iso-9000"] if "Certified" in answer else IDS
    assert cited(answer, ids) == want


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("The studio has [12] edit suites.", ([], [])),
        ("The plan includes [2] premium seats [1].", (["1"], [])),
        ("The hotel offers [4] family rooms and a pool [3].", (["3"], [])),
        # hard negatives: a verb after the marker, a function word, no verb of having
        ("The studio has [2] clearly states this.", (["2"], [])),
        ("Refunds take 30 days [4] for returns.", (["4"], ["4"])),
        ("The fee rises with [2] more details.", (["2"], [])),
        ("Shipping is free [4] edit suites aside.", (["4"], ["4"])),
    ],
)
def test_a_count_after_a_verb_of_having_with_a_word_before_its_noun(
    answer: str, want: tuple[list[str], list[str]]
) -> None:
    """ "has [12] edit suites" counts the suites as "has [12] beds" does (it was an invalid
    index); a verb, a function word after the marker, or no verb of having before it, and the
    marker cites."""
    assert cited(answer) == want


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("Ticket codes match [0-9] only, without letters [2].", (["2"], [])),
        ("A reference is made of [0-9] digits [fees].", (["fees"], [])),
        ("Scores run over [0, 10] in the survey [1].", (["1"], [])),
        ("Digits [0–7] form an octal number [3].", (["3"], [])),
        # hard negatives: a range from 0 within the passages, a range from 1, a 0 alone
        ("Shipping is free over $50 [0-2].", (["0", "1", "2"], ["0"])),
        ("Shipping is free over $50 [0, 3].", (["0", "3"], ["0"])),
        ("Refunds take 5 days [1-3].", (["1", "2", "3"], [])),
        ("Refunds take 5 days [2-4].", (["2", "3", "4"], ["4"])),
        ("Refunds take 5 days [0].", (["0"], ["0"])),
    ],
)
def test_two_numbers_from_zero_past_the_passages_are_a_class_or_an_interval(
    answer: str, want: tuple[list[str], list[str]]
) -> None:
    """ "[0-9]" beside three passages is the character class of digits, "[0, 10]" an interval
    (each was read as ten indices, nine invalid); a range from 0 within the passages, "[0-2]",
    is a model counting from 0, and a range from 1 or a 0 alone stay cited."""
    assert cited(answer) == want


def test_a_range_from_zero_cites_where_the_passage_ids_are_numbers() -> None:
    """Where the passages' ids are numbers, 0 may name one: "[0-9]" stays cited."""
    assert cited("Refunds take 5 days [0-9].", ["0", "4", "9"])[0] == [str(i) for i in range(10)]


@pytest.mark.parametrize(
    ("answer", "ids", "want"),
    [
        (
            "Open-water swims need a tow float [S-OW-2].",
            ["s-ow-1", "s-ow-3"],
            (["S-OW-2"], ["S-OW-2"]),
        ),
        ("Lockers cost £1 [B-12-7].", ["b-12-1", "b-12-2"], (["B-12-7"], ["B-12-7"])),
        # hard negatives: the id itself, a label of no passage id's form, a character class
        ("Open-water swims need a tow float [S-OW-3].", ["s-ow-1", "s-ow-3"], (["S-OW-3"], [])),
        ("Open-water swims need a tow float [S-OW-2].", IDS, ([], [])),
        ("Names match [A-Z] only [s-ow-1].", ["s-ow-1", "s-ow-3"], (["s-ow-1"], [])),
        ("Files are [UTF-8] text [1].", ["s-ow-1", "s-ow-3"], (["1"], [])),
    ],
)
def test_a_label_with_the_passage_ids_words_and_separators_is_their_id(
    answer: str, ids: list[str], want: tuple[list[str], list[str]]
) -> None:
    """ "[S-OW-2]" beside passages "s-ow-1" and "s-ow-3" has their form, another number: an id,
    cited and invalid (it was read as a label, "S-O" and "W-2" like a character class, and
    cited nothing); beside ids of another form it stays a label."""
    assert cited(answer, ids) == want
