"""The checks' text kernels give the reference's answers in either build: the conflict
check's sentence pre-filter (interpreted: the sentences themselves; compiled: C hashes, a
shared one confirmed) and the substring test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks import kernels, native
from monitor.checks.kernels import masked_sentences
from monitor.checks.memo import PassageFacts, lowered

# few words, digits and sentence ends, so that passages often share a sentence
_PIECE = st.sampled_from(["refunds", "within", "30", "14", "days", "the", "plan", "€5", "3.5"])
_SENTENCE = st.lists(_PIECE, min_size=0, max_size=4).map(" ".join)
_PASSAGE = st.lists(_SENTENCE, min_size=0, max_size=6).map(". ".join)
compiled_only = pytest.mark.skipif(
    native.BUILD != "compiled", reason="the C module runs in the compiled build"
)


def reference_shares(a: str, b: str) -> bool:
    return not masked_sentences(lowered(a)).isdisjoint(masked_sentences(lowered(b)))


@settings(max_examples=400, deadline=None)
@given(_PASSAGE, _PASSAGE, st.integers(0, 4))
def test_passages_share_a_sentence_exactly_when_their_sentences_do(a: str, b: str, n: int) -> None:
    """Digits masked, empty sentences left out, a ". " inside a figure not a sentence end."""
    fa, fb = PassageFacts(a), PassageFacts(b)
    assert fa.shares_sentence(fb) == reference_shares(a, b)
    assert fa.at_most(n) == (len(masked_sentences(lowered(a))) <= n)


@compiled_only
@given(_PASSAGE, _PASSAGE)
def test_the_c_keys_match_the_python_sentences(a: str, b: str) -> None:
    """No collision on such texts: the C answers are the reference's without confirming."""
    la, lb = lowered(a), lowered(b)
    assert kernels.shares(kernels.keys(la), kernels.keys(lb)) == reference_shares(a, b)
    assert kernels.count(kernels.keys(la)) == len(masked_sentences(la))


@compiled_only
def test_the_c_module_refuses_what_is_not_a_key_string() -> None:
    with pytest.raises(ValueError, match="multiple of 8"):
        kernels.shares(b"12345", kernels.keys(b"a. b"))
    with pytest.raises(TypeError):
        kernels.keys("text, not bytes")  # type: ignore[arg-type]


def test_a_shared_hash_is_confirmed_on_the_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every passage's keys collide: the answers still come from the kernels."""
    monkeypatch.setattr(kernels, "keys", lambda lower: b"\0" * 8)
    monkeypatch.setattr(kernels, "shares", lambda a, b: a == b)
    monkeypatch.setattr(kernels, "count", lambda keys: 1)
    monkeypatch.setattr(kernels, "EXACT", False)
    one = PassageFacts("Refunds within 30 days. Ask support. Keep the receipt.")
    other = PassageFacts("Shipping is free. Orders over 5 items ship in 2 days.")
    same = PassageFacts("Refunds within 14 days. Nothing else.")
    assert not one.shares_sentence(other)
    assert one.shares_sentence(same)  # "refunds within ## days"
    assert not one.at_most(2) and same.at_most(2)


_BYTES = st.binary(max_size=40) | st.sampled_from([b"", b"refund", b"\x00", b"days. 30"])


@given(_BYTES, _BYTES)
def test_contains_is_a_substring_test(haystack: bytes, needle: bytes) -> None:
    """memmem in the compiled build, ``in`` in the interpreted one: the same answers."""
    assert kernels.contains(haystack + needle + haystack, needle)
    assert kernels.contains(haystack, needle) == (needle in haystack)


@compiled_only
def test_no_two_short_sentences_share_a_key() -> None:
    """Every sentence of one or two bytes: as many distinct keys as distinct sentences once
    digits are masked (the length was once xor-ed into the first word: " \\0" and "#" had
    one key)."""
    pieces = [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256)
                                                for b in range(256)]  # fmt: skip
    pieces = [p for p in pieces if p != b". "]
    assert kernels.count(kernels.keys(b" \0. #")) == 2
    masked = {p.translate(kernels.MASK_DIGITS) for p in pieces}
    assert len({kernels.keys(p) for p in pieces}) == len(masked)
