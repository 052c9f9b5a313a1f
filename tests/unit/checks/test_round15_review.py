"""unsupported_numbers and citation, the review of wave 15 (references to passages in words,
two-digit decades, "one in 12", "value [2]."): the faults the review found, each with the
look-alikes that must keep their reading. Each rule is written in docs/checks.md."""

from __future__ import annotations

import time

import pytest

from monitor.checks.citation import Citation
from monitor.checks.numbers.patterns import strip_noise
from tests.conftest import view
from tests.unit.checks.numbers_support import unsupported
from tests.unit.checks.test_citation_brackets import cited

FEE = ["The wire fee is 30 euros.", "Refunds take 5 business days."]
IDS = ["refunds", "fees", "terms"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a measure, a sum, a date or a count of tokens after the word: a quantity, stated
        ("Keep the heat source 12 cm away from the wall.", ["12"]),
        ("The narrow passage 2 metres wide leads to the cave.", ["2"]),
        ("Source 3 litres of water per person.", ["3"]),
        ("The power source 12 volts is required.", ["12"]),
        ("Keep the water source 8 km away.", ["8"]),
        ("Allow the documents 3 business days.", ["3"]),
        ("Keep the documents 7 yrs.", ["7"]),
        ("The docs 10 dollars.", ["10 dollars"]),
        ("Submit the documents 15 March at the latest.", ["15 March"]),
        ("The chunks 40 tokens each overlap.", ["40"]),
        # a range of such a quantity: neither end is a reference
        ("Process the documents 2-3 days before the transfer.", ["2", "3"]),
        ("Keep the documents 2 to 3 weeks.", ["2", "3"]),
        # hard negatives: references still, the figure beside them read as before
        ("According to Source 2 – 35 euros is the fee.", ["35 euros"]),
        ("According to passage 2, 7 days apply.", ["7"]),
        ("Passages 1, 2 and 3 agree: the wire fee is 30 euros.", []),
        ("Source 2 vs source 3: the fee is 30 euros.", []),
        ("According to source 2 may apply the fee of 30 euros.", []),
        ("Documents 1-3 say refunds take 5 business days.", []),
    ],
)
def test_a_quantity_after_a_reference_word_is_a_claim(answer: str, expected: list[str]) -> None:
    """ "source 12 cm", "documents 2-3 days": a quantity after the word, as "documents 2
    weeks" is, not a passage named in words."""
    assert unsupported(answer, FEE) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Keep the heat source 2 cm away from the wall.", []),
        ("Process the documents 2-3 days before the transfer.", []),
        ("Submit the documents 3 March at the latest.", []),
        ("According to Source 2 – 30 euros is the fee.", ["2"]),
        ("Passages 1, 2 and 3 agree.", ["1", "2", "3"]),
    ],
)
def test_a_quantity_after_a_reference_word_cites_nothing(answer: str, expected: list[str]) -> None:
    assert cited(answer, IDS)[0] == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # seconds, not a decade
        ("Set a timeout of 10s.", "Founded in 2015; the timeout is 30 seconds.", ["10s"]),
        ("Retry after 60s.", "Founded in 1962. Retries happen every 30 seconds.", ["60s"]),
        # hard negatives: decades, with "the", an apostrophe, or after another decade
        ("It was big in the 60s.", "Founded in 1962.", []),
        ("It was big in '60s Britain.", "Founded in 1962.", []),
        ("It was big in the 1950s and 60s.", "Founded in 1955 and sold in 1962.", []),
        ("It was big in the 50s and 60s.", "Founded in 1955 and sold in 1962.", []),
        ("It was big in the early 60s.", "Founded in 1962.", []),
        ("It was big in the 60s.", "Founded in 1972.", ["60s"]),
    ],
)
def test_a_two_digit_decade_is_written_as_one(
    answer: str, context: str, expected: list[str]
) -> None:
    """ "the 60s" or "the '60s" is a decade; "after 60s" is sixty seconds, which a year of the
    sixties does not back."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The plan allows 1 device.", "The company released one in 2020.", ["1"]),
        # hard negatives: rates
        ("About 1 in 12 people.", "About one in 12 people.", []),
        ("About 1 in 12 people.", "About one in every 12 people.", []),
        ("About 1 in 1,000 people.", "About one in 1,000 people.", []),
    ],
)
def test_one_in_a_year_is_no_rate(answer: str, context: str, expected: list[str]) -> None:
    """ "one in 2020" is a pronoun and a year, not the rate "one in 12"."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("- Peak value [2]\n- Low value [3]", ["2", "3"]),
        ("Peak value [2]\nLow value [3].", ["2", "3"]),
        # hard negatives: a value, the clause going on
        ("The default value [3] is used.", []),
        ("It returns the values [1, 2].", []),
    ],
)
def test_a_value_ending_its_line_cites(answer: str, expected: list[str]) -> None:
    """A bullet ends its sentence at the line's end: "- Peak value [2]" cites as "holds the peak
    value [2]." does."""
    assert cited(answer, IDS)[0] == expected


@pytest.mark.parametrize(
    "answer",
    [
        "documents" + " " * 30_000 + "x",
        "passages 1, 2" + " " * 30_000 + "x",
        "source 1 and" + " " * 30_000 + "x",
        "passages 1 ," + " " * 30_000 + "x",
    ],
)
def test_a_reference_word_before_many_spaces_is_read_in_linear_time(answer: str) -> None:
    """The spaces after a reference word are read once, not once for each split of them."""
    start = time.perf_counter()
    strip_noise(answer)
    Citation()(view(answer, FEE))
    assert time.perf_counter() - start < 1.0
