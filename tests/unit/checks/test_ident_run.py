"""The digit-run pattern of phone and reference numbers (``numbers.index._IDENT_RUN``): the
same matches as the ambiguous form it replaced, and linear in a long run of digits (the old
form took a minute on 30 digits followed by a letter: a check must never stall the daemon)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.numbers.index import _IDENT_RUN
from tests.conftest import ends_in_time

# The form before: "\d+" followed by groups whose separator is optional, so a run of n digits
# splits into groups in 2^n ways, each tried when the lookahead after the run fails.
_AMBIGUOUS = re.compile(r"(?<![\w.,])[+(]?\d+(?:[ .\-/]?\(?\d+\)?)+(?![\w]|[.,]\d)")

# Short strings over the characters the pattern reads: the old form is quick on these.
_SHORT = st.text(alphabet="0123456789 .-/()+x,a", max_size=14)


@settings(max_examples=3000)
@given(text=_SHORT)
def test_the_same_matches_as_the_ambiguous_form(text: str) -> None:
    assert _IDENT_RUN.findall(text) == _AMBIGUOUS.findall(text)


def test_phone_numbers_read_whole() -> None:
    text = "call +1 (800) 555-0199 or 0044 20 7946 0321, ref 12/34/56"
    assert _IDENT_RUN.findall(text) == ["+1 (800) 555-0199", "0044 20 7946 0321", "12/34/56"]


def test_a_long_digit_run_before_a_letter_ends() -> None:
    """Run in a child so that a regression fails (after 60 s) instead of hanging the tier: 60
    digits and a letter is 2^60 splits for the ambiguous form, a few microseconds for this."""
    code = (
        "from monitor.checks.numbers.index import _IDENT_RUN\n"
        "for unit in ('1', '1 ', '1(', '12)', '1 2)'):\n"
        "    _IDENT_RUN.findall(unit * 60 + 'x')\n"
    )
    assert ends_in_time(code)
