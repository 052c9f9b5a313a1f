"""unsupported_numbers, the twelfth blind round (issue 75) and the public summaries read
beside it: each rule with the right figure beside it and the look-alikes it must keep. Each
rule is written in docs/checks.md."""

from __future__ import annotations

import pytest

from tests.unit.checks.numbers_support import unsupported


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a list of persons whose items carry a quantity does not count its items
        ("The crew is three people.", "The crew is a skipper, two deckhands and a cook.",
         ["three"]),
        ("Trips go underground with three people.",
         "A trip goes underground with a leader, two assistant leaders and a photographer.",
         ["three"]),
        # hard negatives: the sum of the items, and a list with no quantity
        ("The crew is four people.", "The crew is a skipper, two deckhands and a cook.", []),
        ("The crew is three people.", "The crew is a skipper, a deckhand and a cook.", []),
        # a thing in the list counts no persons, as before
        ("Four people were found.", "They found a guide, two hikers and a dog.", ["Four"]),
        # a list of things adds its items' quantities up
        ("The kit has three tools.", "The kit has tools: a hammer, two saws and a drill.",
         ["three"]),
        ("The kit has four tools.", "The kit has tools: a hammer, two saws and a drill.", []),
    ],
)  # fmt: skip
def test_items_with_a_quantity_add_up(answer: str, context: str, expected: list[str]) -> None:
    """ "a skipper, two deckhands and a cook" is four: the count of things read the list's
    three items as three, and backed "three people"."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("The dig had **29** members underground in total: **18** on Saturday and **11** on "
         "Sunday.", "The dig had 18 members underground on Saturday and 11 on Sunday.", []),
        ("The dig had 29 members underground in total.",
         "The dig had 18 members underground on Saturday and 11 on Sunday.", []),
        ("The dig had 30 members underground in total.",
         "The dig had 18 members underground on Saturday and 11 on Sunday.", ["30"]),
        # three words away is not at the figure
        ("The dig had 29 members from the club in total.",
         "The dig had 18 members underground on Saturday and 11 on Sunday.", ["29"]),
    ],
)  # fmt: skip
def test_a_sum_said_two_words_after_the_figure(answer: str, context: str,
                                               expected: list[str]) -> None:  # fmt: skip
    """ "29 members underground in total": "in total" two words after the figure, or after
    its bold, says it states a sum, as "29 in total" and "29 members in total" did."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("He could buy out his deal for $ 1.7 million.",
         "He could buy out his current deal for $ 1. 7 million . Liverpool insist.", []),
        ("He could buy out his deal for $17 million.",
         "He could buy out his current deal for $ 1. 7 million . Liverpool insist.",
         ["$17 million"]),
        ("The club wanted a $10 million deal.", "The club eyed a $10-million deal.", []),
        ("The club wanted a $100 million deal.", "The club eyed a $10-million deal.",
         ["$100 million"]),
        ("A $10-million-a-year deal.", "Saban was eyeing a $ 10 - million - per - year deal.",
         []),
        ("About 10-15 million users.", "About 10-15 million users.", []),
    ],
)  # fmt: skip
def test_scales_written_tokenised_or_with_a_hyphen(answer: str, context: str,
                                                   expected: list[str]) -> None:  # fmt: skip
    """ "$ 1. 7 million" (a tokenised decimal, a scale word apart) and "$10-million" (a
    scale joined by a hyphen) are the figures they spell."""
    assert unsupported(answer, context) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Eight people brew.",
         "The brewery employs a master brewer, six cellar hands and a rice polisher.", []),
        ("Seven people brew.",
         "The brewery employs a master brewer, six cellar hands and a rice polisher.",
         ["Seven"]),
        ("Four people brew.", "The brewery employs a master brewer, two hands and a cat.",
         ["Four"]),
    ],
)  # fmt: skip
def test_hands_written_apart_are_persons(answer: str, context: str,
                                         expected: list[str]) -> None:  # fmt: skip
    """ "six cellar hands" names persons as "six deckhands" does (the sealed part of round
    twelve, read after it was scored); "two hands" does not."""
    assert unsupported(answer, context) == expected
