"""Round 13's review of the follow-up signals: inputs one step from this round's rules that
raised or cost too much, each held here (a pair of turns no longer raises; the words of the
pair are written here, not taken from a labelled set)."""

from __future__ import annotations

import pytest

from monitor.sessions import korean
from monitor.sessions.signals import SIGNALS, read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("esim esim", "esimesim 안 돼요"),  # a word typed twice, then the two typed together
        ("esim esim 돼요?", "esimesim 어떻게 해요?"),
        ("merci merci", "도:mercimerci"),
    ],
)
def test_a_word_typed_twice_then_together_reads_without_error(a: str, b: str) -> None:
    """Read by Korean stems, two of A's stems in a row typed together keep both: a stem
    typed twice is one stem of A's, kept once (it was removed twice: ValueError)."""
    got = read(a, b)
    assert got == [s for s in SIGNALS if s in got]


def test_a_stem_typed_twice_together_is_kept_once() -> None:
    assert korean.shared(["esim", "esim"], ["esimesim"]) == (0, 0)
    assert korean.shared(["수강", "기간"], ["수강기간"]) == (1, 2)  # two stems typed together
