"""unsupported_numbers and citation, forms found in public labelled answers (issue 75, wave
15): figures the number check flagged in answers people labelled faithful (HAGRID's GPT-3.5
answers, BUMP's and Polytope's CNN/DM summaries; their development parts only). Each rule is
written in docs/checks.md; each with the look-alikes it must leave flagged."""

from __future__ import annotations

import re

import pytest

from monitor.checks.text import (
    REFERENCE_WORDS,
    REFERENCE_WORDS_GLUED,
    TEXTUAL_GUARDS,
    TEXTUAL_REFERENCE,
    TEXTUAL_WORDS,
    textual_references,
)
from tests.unit.checks.numbers_support import unsupported
from tests.unit.checks.test_citation_brackets import cited

FEE = ["The wire fee is 30 euros.", "Refunds take 5 business days."]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # HAGRID: "... resulting in no one actually helping (contexts 1 and 2)."
        ("The wire fee is 30 euros (contexts 1 and 2).", []),
        ("The wire fee is 30 euros, according to passage 2.", []),
        ("The wire fee is 30 euros (context 2).", []),
        ("As stated in Source 2, the wire fee is 30 euros.", []),
        ("Passages 1, 2 and 4 agree: the wire fee is 30 euros.", []),
        ("Documents 1-3 say refunds take 5 business days.", []),
        ("Chunk #2 says the wire fee is 30 euros.", []),
        # hard negatives: a quantity after such a word, and the claims beside a reference
        ("Send the documents 2 weeks before the transfer.", ["2"]),
        ("The wire fee is 35 euros (contexts 1 and 2).", ["35 euros"]),
        ("According to passage 2, refunds take 7 business days.", ["7"]),
        ("We keep 3 sources of funds.", ["3"]),
        ("Keep the sources 2 million miles apart.", ["2 million"]),
    ],
)
def test_a_reference_to_passages_in_words_is_no_claim(answer: str, expected: list[str]) -> None:
    """A passage named in words is a citation, as ``citation`` reads it: its number was flagged
    as an unsupported figure ("2" in "(contexts 1 and 2)" beside a context without a 2)."""
    assert unsupported(answer, FEE) == expected


def test_a_context_named_in_words_is_cited() -> None:
    """ "(contexts 1 and 2)" cites passages 1 and 2 as "(sources 1 and 2)" does; a third does
    not exist."""
    ids = ["refunds", "fees"]
    assert cited("Refunds take 5 days (contexts 1 and 2).", ids) == (["1", "2"], [])
    assert cited("Refunds take 5 days (context 3).", ids) == (["3"], ["3"])
    assert cited("Send the documents 2 weeks before.", ids) == ([], [])


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # BUMP: "... switch on an old record player like in the 60s." beside "the 1960s"
        ("She plays records like in the 60s.", "Yes, I love the 1960s.", []),
        ("She plays records like in the '60s.", "Yes, I love the 1960s.", []),
        ("She plays records like in the ’60s.", "Yes, I love the 1960’s.", []),
        ("She plays records like in the 60s.", "The shop opened in 1962.", []),
        # hard negatives: another decade; an age; a year of another decade
        ("She plays records like in the 70s.", "Yes, I love the 1960s.", ["70s"]),
        ("She plays records like in the 60s.", "The shop opened in 1972.", ["60s"]),
        ("A woman in her 60s was hurt.", "A woman born in 1962 was hurt.", ["60s"]),
        ("A woman in their late 60s was hurt.", "A woman born in 1962 was hurt.", ["60s"]),
    ],
)
def test_a_decade_in_two_digits(answer: str, context: str, expected: list[str]) -> None:
    """ "the 60s" is a decade of any century: a year or a decade of the context backs it (it
    was flagged beside "the 1960s"); after a possessive it is an age."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        # BUMP: "1 in 12 truck drivers are high" beside "one in every 12 truckies tested positive"
        ("One in every 12 truckies tested positive for drugs.", []),
        ("one in 12 truckies tested positive for drugs.", []),
        # hard negatives: "one" as a pronoun; the rate's other side unstated
        ("No one of the 12 truckies tested positive.", ["1"]),
        ("One in every 15 truckies tested positive for drugs.", ["12"]),
    ],
)
def test_one_in_a_rate(context: str, expected: list[str]) -> None:
    """ "one in 12" backs the 1 of "1 in 12" ("one" backs 1 before a unit only, so the rate's
    1 was flagged)."""
    assert unsupported("About 1 in 12 truck drivers are high.", context) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # round eight's sealed case, left at the end of its round
        ("The heatmap cell grid[1][2] after loading holds the peak value [2].", (["2"], [])),
        ("Both passages give the same peak values [1]!", (["1"], [])),
        # hard negatives: the clause goes on; a value word that is no noun
        ("The default value [3] is used when the field is empty.", ([], [])),
        ("Set the value [3] in the form.", ([], [])),
        ("The function returns [2].", ([], [])),
    ],
)
def test_a_value_ending_its_sentence_cites(
    answer: str, expected: tuple[list[str], list[str]]
) -> None:
    """After "value" a bracket is a value ("the default value [3] is used"), but one that ends
    its sentence is a citation, as one ending a grid's clause is (it was read as a value)."""
    assert cited(answer, ["heatmaps", "loading", "peaks"]) == expected


TRAIN = [
    "Land train stops: Main Gate, Lakeside, Safari Café and Castle.",
    "A day ticket is £3.40; under-5s ride free.",
]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # round nine's open label, left at the end of its round
        ("The land train has three stops (Main Gate, Lakeside and Castle).", TRAIN, ["three"]),
        ("The land train has four stops.", TRAIN, []),
        ("The club has three courts.", "The club has 3.4 courts.", ["three"]),
        # hard negatives: a whole figure backs the count; rounding still backs a measure
        ("The club has three courts.", "The club has 3 courts and a café.", []),
        ("It takes about 3 hours.", "It takes 3.4 hours.", []),
        ("A day ticket costs £3.", TRAIN, []),
    ],
)
def test_a_count_of_things_is_never_rounded(
    answer: str, context: str | list[str], expected: list[str]
) -> None:
    """A count of things is a whole figure: "£3.40" rounds to 3, but backs no "three stops"
    (the look-up backed it before the count of the list was read)."""
    assert unsupported(answer, context) == expected


def test_every_reference_word_passes_both_gates() -> None:
    """The words a textual reference starts with are written in the pattern, and its gates
    (``TEXTUAL_WORDS`` on lower-cased text, ``TEXTUAL_GUARDS`` on text as written) are written
    apart from it: a word added to the pattern and not to a gate would never be read."""
    words = [
        form
        for alt in REFERENCE_WORDS
        for form in ((alt[:-2], alt[:-1]) if alt.endswith("?") else (alt,))
    ]
    assert len(words) == 26 and all(re.fullmatch("[a-z]+", w) for w in words), words
    assert all(w in TEXTUAL_REFERENCE.pattern for w in REFERENCE_WORDS + REFERENCE_WORDS_GLUED)
    for word in REFERENCE_WORDS_GLUED:  # (written with no space before the number)
        text = f"根据{word}2，费用不退。"
        assert [r.numbers for r in textual_references(text)] == [(2,)], word
        assert TEXTUAL_WORDS.search(text.lower()) is not None, word
        assert any(g in text for g in TEXTUAL_GUARDS), word
    for word in words:
        for written in (word, word.capitalize(), word.upper()):
            text = f"See {written} 2 for the fee."
            assert [r.numbers for r in textual_references(text)] == [(2,)], written
            assert TEXTUAL_WORDS.search(text.lower()) is not None, written
            if written != word.upper():  # (capitals throughout are not gated)
                assert any(g in text for g in TEXTUAL_GUARDS), written
