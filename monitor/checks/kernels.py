"""Two text primitives of the checks, and which build of them runs.

* A passage's sentences as the conflict check compares them: lower-cased, digits masked,
  split at ``". "``; two passages are compared further only when they share one
  (``keys``, ``shares``, ``count``).
* ``contains``: a substring test (the grounding check's look-up of each answer word in the
  whole context).

One result, two builds. Interpreted, these are the Python functions below: a passage's keys
are its sentences themselves (a set of bytes), ``contains`` is ``in``. In the compiled build
(``deploy/compile.py``) they are C (``text_kernels.c``): the keys are the sentences' 64-bit
hashes, built without a bytes object per sentence nor a set per passage (~15 µs a trace of
C-level work that mypyc cannot speed up), and ``contains`` is the C library's memmem (2.5-4x
faster on a 5 KB context). Hashes can collide, so there ``shares`` is a pre-filter whose True
the caller confirms on the sentences (``EXACT`` is False), and ``count`` is a lower bound of
the number of distinct sentences.
"""

from __future__ import annotations

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


keys: Callable[[bytes], object]  # a passage's keys, from its lower-cased bytes
shares: Callable[[object, object], bool]  # two passages' keys have one in common
count: Callable[[object], int]  # how many keys
EXACT: bool  # the keys are the sentences (else hashes: confirm a shared key on the sentences)
contains: Callable[[bytes, bytes], bool]  # contains(haystack, needle): needle in haystack
if native.BUILD == "compiled":
    c = native.c_module("text_kernels")
    keys, shares, count, EXACT, contains = c.keys, c.shares, c.count, False, c.contains
else:
    keys, shares, count, EXACT, contains = masked_sentences, _shares, _count, True, _contains
