"""Three text primitives of the checks, and which build of them runs.

* A passage's sentences as the conflict check compares them: lower-cased, digits masked,
  split at ``". "``; two passages are compared further only when they share one
  (``keys``, ``shares``, ``count``).
* ``contains``: a substring test (the grounding check's look-up of each answer word in the
  whole context).
* ``phrasing``: how many of the answer's word trigrams the context and the question do not
  hold (the risk's new phrasing).

One result, two builds. Interpreted, these are the Python functions below: a passage's keys
are its sentences themselves (a set of bytes), ``contains`` is ``in``. In the compiled build
(``deploy/compile.py``) they are C (``text_kernels.c``): the keys are the sentences' 64-bit
hashes, built without a bytes object per sentence nor a set per passage (~15 µs a trace of
C-level work that mypyc cannot speed up), ``contains`` is the C library's memmem (2.5-4x
faster on a 5 KB context), and ``phrasing`` finds each trigram's longest word with memmem
and reads its neighbours in place, where the reference rewrites the whole context with a
regular expression first (3-4x less for the risk on FRANK's articles, 10x for the count on
the bench corpus). Hashes can collide, so there ``shares`` is a pre-filter whose True the
caller confirms on the sentences (``EXACT`` is False), and ``count`` is a lower bound of the
number of distinct sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from monitor.checks import native

MASK_DIGITS = bytes.maketrans(b"0123456789", b"##########")


def masked_sentences(lower: bytes) -> Set[bytes]:
    """The distinct sentences of ``lower`` (a lower-cased passage), digits masked ("refunds
    within 30 days" and "refunds within 14 days" are one sentence), empty ones left out."""
    pieces = set(lower.translate(MASK_DIGITS).split(b". "))
    pieces.discard(b"")
    return pieces


# the interpreted build's: its keys are sets (no cast: a call per pair of passages here)
def _shares(a: object, b: object) -> bool:
    return not a.isdisjoint(b)  # type: ignore[attr-defined]


def _count(keys: object) -> int:
    return len(keys)  # type: ignore[arg-type]


def _contains(haystack: bytes, needle: bytes) -> bool:
    return needle in haystack


# ASCII letters and digits, and every byte of a multi-byte character, are word bytes; the
# rest of ASCII separates words, as does the General Punctuation block (dashes, curly
# quotes, ellipsis: U+2000-U+206F, UTF-8 E2 80-81 xx) that the answer's own folding misses.
_WORD_BYTES = bytes(
    c if (chr(c).isascii() and chr(c).isalnum()) or c >= 0x80 else 0x20 for c in range(256)
)
_PUNCTUATION = re.compile(rb"\xe2[\x80\x81][\x80-\xbf]")
_SPACES = re.compile(rb"  +")


def _words_of(lower: bytes) -> bytes:
    """``lower`` (lower-cased UTF-8) with every run of separators one space."""
    if b"\xe2" in lower:
        lower = _PUNCTUATION.sub(b" ", lower)
    return _SPACES.sub(b" ", lower.translate(_WORD_BYTES))


def _phrasing(answer: bytes, context: bytes, question: bytes, most: int) -> tuple[int, int]:
    """How many of the word trigrams of ``answer`` (lower-cased UTF-8, as the others) are
    found in neither ``context`` nor ``question``, and how many were looked up: at most
    ``most`` spread evenly over a long answer, none when it has fewer than three words. A
    trigram's last word may be the start of a longer one ("refund" in "refunds")."""
    if most < 1:
        raise ValueError("phrasing() needs a count of at least 1")
    words = _words_of(answer).split()
    if len(words) < 3:
        return 0, 0
    count = len(words) - 2
    step = -(-count // most)  # ceiling: at most ``most``, evenly spread
    known = b" " + _words_of(context + b" " + question)
    trigrams = [b" " + b" ".join(words[i : i + 3]) for i in range(0, count, step)]
    return sum(1 for t in trigrams if t not in known), len(trigrams)


keys: Callable[[bytes], object]  # a passage's keys, from its lower-cased bytes
shares: Callable[[object, object], bool]  # two passages' keys have one in common
count: Callable[[object], int]  # how many keys
EXACT: bool  # the keys are the sentences (else hashes: confirm a shared key on the sentences)
contains: Callable[[bytes, bytes], bool]  # contains(haystack, needle): needle in haystack
# phrasing(answer, context, question, most): (trigrams new, trigrams looked up)
phrasing: Callable[[bytes, bytes, bytes, int], tuple[int, int]]
if native.BUILD == "compiled":
    c = native.c_module("text_kernels")
    keys, shares, count, EXACT, contains = c.keys, c.shares, c.count, False, c.contains
    phrasing = c.phrasing
else:
    keys, shares, count, EXACT, contains = masked_sentences, _shares, _count, True, _contains
    phrasing = _phrasing
