"""``PassageMemo``: what the checks derive from one passage's text alone, kept across traces.

Retrieval is skewed: the same chunks come back in trace after trace. Everything a check reads
from a passage by itself — its lower-cased bytes, its digit-masked sentence keys, its word
trigrams, its sentences — is the same each time that text comes back, so it is computed once
and kept in a bounded memo.

The memo is content-addressed: the key is the passage's text itself (the dict hashes it and
compares it on a hit), never its chunk id, so a chunk that comes back with new text — the
stale-document case — is a miss, and no digest collision can hand one passage another's
facts. Hashing a 1 KB text costs ~0.25 µs against ~1.7 µs for encoding it and taking a
BLAKE2 digest. Entries are evicted least recently used once the estimated bytes exceed the
cap. A memo belongs to one check suite, which one thread runs.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Set, Sized
from typing import cast

from monitor.checks import kernels
from monitor.checks.text import CONTENT_WORD

# What changes between two versions of one sentence without changing what it says: the
# auxiliaries and articles, and the endings of words ("were issued" and "are issued",
# "covered" and "covers", "shipped" and "ship", "year" and "years"). A sentence's skeleton
# keeps the first three letters of each word: two C-level substitutions, no call per word.
_FILLER = re.compile(
    rb"\b(?:a|an|the|is|are|was|were|be|been|being|has|have|had|will|would|shall|can|could"
    rb"|may|might|do|does|did) "
)
_WORD_HEAD = re.compile(rb"\b([a-z]{3})[a-z]+")
_DIGIT_RUN = re.compile(rb"#+")


_ENTRY_OVERHEAD = 1000  # the facts object, its slots, the dict and the LRU links (bytes)
_DOOR_SHARE = 1 / 64  # of the cap, for the door table of passages seen once
_WINDOW = 2000  # lookups over which the hit rate is judged
_MIN_HIT_RATE = 0.01  # below it, only one trace in _SAMPLE consults the memo
_SAMPLE = 10


def lowered(text: str) -> bytes:
    """``text`` as UTF-8 bytes, ASCII-lower-cased: much faster to build and to search than
    ``str.lower()`` on text with any non-ASCII character (€, –). The one spelling of a
    passage's lower-cased form: the per-passage and the whole-context look-ups must agree.
    A lone surrogate (half of a UTF-16 pair, which no UTF-8 encodes) is kept as the three
    bytes it would take (``surrogatepass``): the checks read the rest of the text."""
    return text.encode("utf-8", "surrogatepass").lower()


def shingles_of(text: str) -> frozenset[tuple[str, ...]]:
    """The word trigrams of ``text`` (its words as one tuple when there are fewer than three).
    Kept as word tuples: mapping them to their hashes would halve their memory but cost
    ~6 µs per passage in Python-level calls, on every passage that has a near-duplicate."""
    words = CONTENT_WORD.findall(text.lower())
    if len(words) < 3:
        return frozenset({tuple(words)})
    return frozenset(zip(words, words[1:], words[2:], strict=False))


_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*")
# A year, a version or a code with a figure in it ("2024", "2.3", "v2", "Q1", "FY24",
# "kb-12", "SKU_4471").
_EDITION = re.compile(
    r"\b(?:1[89]\d\d|20\d\d|\d+\.\d+(?:\.\d+)?|[A-Za-z]+[-_]?\d+[A-Za-z\d]*)\b(?![%$])"
)
_HEADING = re.compile(r"(?:[^.!?\n]|\.(?=\d)){1,80}?(?=[.!?:](?:\s|$)|\n)")


def _starts_sentence(text: str, i: int) -> bool:
    j = i
    while j > 0 and text[j - 1] in " \t\n\"'(":
        j -= 1
    return j == 0 or text[j - 1] in ".!?:\n"


class PassageFacts:
    """One passage's text-only analysis. ``lower`` and the sentence ``keys`` are built with
    the facts (every trace reads them); ``masked``, ``shingles``, ``pieces``, ``names``,
    ``words`` and ``skeleton`` on first use (only passages that share a sentence with another,
    or short ones, need them). The lazy parts are unset slots until then, and ``size`` and
    ``owner`` are set only for facts a memo keeps: a passage that is not kept pays for nothing
    but its analysis.

    Nothing is converted for keeping (sentence hashes or trigram hashes would take less
    memory but cost more per passage than the memo saves at a low hit rate).
    """

    __slots__ = (
        "_masked", "_names", "_pieces", "_shingles", "_skeleton", "_words", "keys", "lower",
        "owner", "size", "text",
    )  # fmt: skip

    owner: PassageMemo | None  # the memo that keeps these facts (set by it)
    size: int  # estimated bytes, while kept (``estimate``)
    _shingles: frozenset[tuple[str, ...]]
    _pieces: tuple[str, ...]
    _names: frozenset[str]
    _words: frozenset[str]
    _skeleton: frozenset[bytes]
    _masked: Set[bytes]

    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = lowered(text)
        self.keys: object = kernels.keys(self.lower)  # never changed

    def estimate(self) -> int:
        """The estimated bytes of what is built so far: the text as str and bytes, the
        sentence keys (a sentence's bytes and a set slot each, or 8 bytes a hash), and the
        lazy parts already read."""
        per_key = 90 if kernels.EXACT else 8
        size = _ENTRY_OVERHEAD + 3 * len(self.lower) + per_key * kernels.count(self.keys)
        for name in ("_masked", "_shingles", "_pieces", "_names", "_words", "_skeleton"):
            part = getattr(self, name, None)
            size += self._bytes_of(name, part) if part is not None else 0
        return size

    def _bytes_of(self, name: str, part: Sized) -> int:
        """The estimated bytes of the lazy part ``name``: set slots, tuples and words for
        the trigrams (measured), the sentences' strings, a set slot per name; the masked
        sentences when they are not the keys themselves."""
        if name == "_shingles":
            return 135 * len(part)
        if name == "_pieces":
            return len(self.text) + 60 * len(part)
        if name == "_masked":
            return 0 if kernels.EXACT else 90 * len(part)
        return 60 * len(part)

    @property
    def masked(self) -> Set[bytes]:
        """The passage's distinct sentences, digits masked (``kernels.masked_sentences``):
        the keys themselves in the interpreted build."""
        try:
            return self._masked
        except AttributeError:
            if kernels.EXACT:
                self._masked = cast(Set[bytes], self.keys)
            else:
                self._masked = kernels.masked_sentences(self.lower)
            self._grow("_masked", self._masked)
            return self._masked

    def shares_sentence(self, other: PassageFacts) -> bool:
        """The two passages have a sentence in common, digits masked (a shared hash is
        confirmed on the sentences: hashes can collide)."""
        if not kernels.shares(self.keys, other.keys):
            return False
        return kernels.EXACT or not self.masked.isdisjoint(other.masked)

    def at_most(self, n: int) -> bool:
        """The passage has at most ``n`` distinct sentences, digits masked (the hashes'
        count is a lower bound: a passage that seems short is counted on its sentences)."""
        if kernels.count(self.keys) > n:
            return False
        return kernels.EXACT or len(self.masked) <= n

    @property
    def shingles(self) -> frozenset[tuple[str, ...]]:
        """The passage's word trigrams, for near-duplicate similarity."""
        try:
            return self._shingles
        except AttributeError:
            self._shingles = shingles_of(self.text)
            self._grow("_shingles", self._shingles)
            return self._shingles

    @property
    def words(self) -> frozenset[str]:
        """The passage's content words, for the similarity of short near-duplicates."""
        try:
            return self._words
        except AttributeError:
            self._words = frozenset(CONTENT_WORD.findall(self.text.lower()))
            self._grow("_words", self._words)
            return self._words

    @property
    def skeleton(self) -> frozenset[bytes]:
        """The masked sentences without their auxiliaries and articles, each word cut to its
        first three letters ("refunds were issued within # days" and "refunds are issued
        within # days" are one skeleton): for passages of a sentence or two, which share no
        sentence verbatim when one word changes between two versions of a page."""
        try:
            return self._skeleton
        except AttributeError:
            text = _DIGIT_RUN.sub(b"#", b". ".join(self.masked))  # "5 GB" and "50 GB" alike
            skeleton = _WORD_HEAD.sub(rb"\1", _FILLER.sub(b"", text))
            self._skeleton = frozenset(skeleton.split(b". ")) - {b""}
            self._grow("_skeleton", self._skeleton)
            return self._skeleton

    @property
    def pieces(self) -> tuple[str, ...]:
        """The passage split at sentence ends (``". "``), as the conflict check compares them."""
        try:
            return self._pieces
        except AttributeError:
            self._pieces = tuple(self.text.split(". "))
            self._grow("_pieces", self._pieces)
            return self._pieces

    @property
    def names(self) -> frozenset[str]:
        """What the passage is about: the capitalised words it uses inside its sentences
        ("Pro", "EU", "API"; a word that starts a sentence is not counted) and, when its
        heading (the first sentence) holds a figure, that heading ("Release notes 2.3",
        "2024 holidays", "API v2": a version, period or edition of its own)."""
        try:
            return self._names
        except AttributeError:
            text = self.text
            names = {
                m.group(0) for m in _NAME.finditer(text) if not _starts_sentence(text, m.start())
            }
            heading = _HEADING.match(text)
            # a figure in the heading names an edition only when it is a year or a version
            # ("Release notes 2.3", "2024 holidays", "API v2"); "Orders over $50 ship free"
            # is a first sentence whose figure the next version of the page changes
            if heading is not None and _EDITION.search(heading.group(0)):
                names.add(heading.group(0).strip())
            self._names = frozenset(names)
            self._grow("_names", self._names)
            return self._names

    def _grow(self, name: str, part: Sized) -> None:
        """A lazy part was built: a memo that keeps these facts counts its bytes."""
        owner = getattr(self, "owner", None)
        if owner is not None:
            extra = self._bytes_of(name, part)
            self.size += extra
            owner.grew(extra)


class PassageMemo:
    """A byte-capped LRU of ``PassageFacts`` by passage text, with hit, miss and eviction
    counts (read by the metrics at scrape time, not incremented per trace).

    A passage is kept from its second sighting on: the first one only sets a mark for the
    text's hash in a door table (a one-byte-per-slot Bloom filter, ``_DOOR_SHARE`` of the
    cap, cleared when half full so that old sightings age out; a collision merely admits a
    passage early). Most passages of a skewed corpus are seen once; keeping them would evict
    the ones that recur, and where nothing recurs (every passage new) it would cost a full
    memo's upkeep for no hit. The table costs one index per miss and nothing to collect.

    Where passages do not recur at all, even a lookup per passage is a cost for nothing
    (~3 % of the check suite): after a window of ``_WINDOW`` lookups with fewer than
    ``_MIN_HIT_RATE`` hits, only one trace in ``_SAMPLE`` consults the memo (``consulted``)
    until a window shows hits again. The results are the same either way.
    """

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, PassageFacts] = OrderedDict()
        self._door_size = max(64, int(max_bytes * _DOOR_SHARE))
        self._door = bytearray(self._door_size)
        self._door_marks = 0
        self._bytes = self._door_size  # the door table, counted whole
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self.bypassed = 0  # traces that did not consult the memo (nothing recurred)
        self._bypass = 0  # traces still to let by
        self._window = [0, 0, 0]  # lookups, hits, traces in the current window

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """The estimated size of the kept facts."""
        return self._bytes

    def grew(self, extra: int) -> None:
        """A kept entry built a lazy part: count it, evict if the cap is now exceeded."""
        self._bytes += extra
        self._evict()

    def consulted(self) -> bool:
        """Whether the trace being checked consults the memo (see the class docstring)."""
        if self._bypass:
            self._bypass -= 1
            self.bypassed += 1
            return False
        self._window[2] += 1
        return True

    def _count(self, hit: bool) -> None:
        window = self._window
        window[0] += 1
        window[1] += hit
        if window[0] >= _WINDOW:
            if window[1] < _MIN_HIT_RATE * window[0]:
                self._bypass = (_SAMPLE - 1) * window[2]
            self._window = [0, 0, 0]

    def facts(self, text: str) -> PassageFacts:
        """The facts of ``text``: kept ones on a hit, else built (and kept while they fit)."""
        entries = self._entries
        found = entries.get(text)
        if found is not None:
            self.hits += 1
            self._count(True)
            entries.move_to_end(text)
            return found
        self.misses += 1
        self._count(False)
        facts = PassageFacts(text)
        if self._first_sighting(hash(text)):
            return facts
        size = facts.estimate()
        if size <= self.max_bytes - self._door_size:
            entries[text] = facts
            facts.size = size
            facts.owner = self
            self._bytes += size
            self._evict()
        return facts

    def _first_sighting(self, key: int) -> bool:
        """Whether ``key`` has no mark in the door table (it gets one)."""
        slot = key % self._door_size
        if self._door[slot]:
            return False
        self._door[slot] = 1
        self._door_marks += 1
        if self._door_marks > self._door_size // 2:
            self._door = bytearray(self._door_size)  # age: forget every first sighting
            self._door_marks = 0
        return True

    def _evict(self) -> None:
        """Drop the least recently used entries until the estimate fits the cap."""
        while self._bytes > self.max_bytes and self._entries:
            _, old = self._entries.popitem(last=False)
            old.owner = None
            self._bytes -= old.size
            self.evictions += 1
