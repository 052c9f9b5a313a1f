"""What a citation can name: the passages' indices and ids (``Citations``), with the keys an
id is matched by (case, path segments, extensions) and the stem that tells an id-shaped token
naming a passage from one that does not."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

ID_CHARS = frozenset("-_.:/#")


_CHUNK = re.compile(r"(?:chunk|part|split|node|c|p)?[-_]?\d+", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _keys(ident: str, cited: bool = True) -> frozenset[str]:
    """The spellings under which a citation and a passage id meet: the id itself, its last
    path segment (for paths and URLs), and its name without extension, tagged so that a
    name without extension meets one with ("faq" and "faq.md") while two different
    extensions do not ("pricing.pdf" is not "pricing.md"). ``cited`` tags the side."""
    low = ident.strip().lower()
    if "/" in low and "?" in low:
        low = low.split("?", 1)[0]  # a URL's query: "…/refunds-2024?lang=en"
    low = low.rstrip("/")
    if "/" in low and _INDEX_PAGE.search(low):
        low = low.rsplit("/", 1)[0]  # ".../refunds-2024/index.html" is the page refunds-2024
    name = low.rsplit("/", 1)[1] if "/" in low else low
    dot = name.rfind(".")
    ext = name[dot + 1 :] if dot > 0 else ""
    has_ext = 0 < len(ext) <= 5 and ext.isalnum() and not ext.isdigit()
    stem = name[:dot] if has_ext else name
    # a citation without extension looks for ids with one, and the other way round
    tag = "with-ext:" if has_ext != cited else "no-ext:"
    keys = {low, name, tag + stem}
    if any(c.isdigit() for c in name) or "_" in name or "-" in name:
        # the same id with its number zero-padded or its words joined otherwise ("KB-0042"
        # for kb-42, "doc7" or "doc_7" for doc-7, "refunds_2024" for refunds-2024,
        # "returns_policy" for returns-policy)
        keys.add("folded:" + _FOLD.sub("", _ZEROS.sub("", name)))
        keys.add(tag + "folded:" + _FOLD.sub("", _ZEROS.sub("", stem)))
    keys.discard("")
    return frozenset(keys)


_INDEX_PAGE = re.compile(r"[^/]/(?:index|default)\.(?:html?|php|aspx?)$")
_DIGIT_RUNS = re.compile(r"\d+")
_ZEROS = re.compile(r"(?<!\d)0+(?=\d)")  # the leading zeros of a number
_FOLD = re.compile(r"[-_\s]")


@dataclass
class Citations:
    """Ids cited by an answer, in order of first appearance, and which of them are invalid."""

    n_passages: int
    ids: list[str]  # the passages' doc and chunk ids
    texts: list[str] = field(default_factory=list)  # the passages' texts (for titles)
    found: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)
    at: int = 0  # where in the answer the marker being read starts (its citations' place)

    def __post_init__(self) -> None:
        self._keys: tuple[set[str], set[str]] | None = None  # built by _index on first use
        self._places: list[int] = []  # each found citation's ``at``
        # the id each (word, number) spells, once: a span names up to 51 numbers
        self._spelled: dict[tuple[str, int], str | None] = {}

    def _add(self, kind: str, value: str) -> None:
        self.found.append((kind, value))
        self._places.append(self.at)

    def in_order(self) -> None:
        """Put ``found`` in the order of the answer (the markers are read kind by kind:
        "free¹ and 5 days[^2]" cites 1 first); those read before any marker (a reference
        list's entries) keep their place."""
        places = self._places
        if len(places) > 1 and places != sorted(places):
            order = sorted(range(len(self.found)), key=self._places.__getitem__)
            self.found = [self.found[i] for i in order]
            self._places = [self._places[i] for i in order]

    @property
    def _index(self) -> tuple[set[str], set[str]]:
        """Every key a passage id is cited under, and the ids' stems (built on first use:
        an answer citing only indices never needs them)."""
        if self._keys is not None:
            return self._keys
        keys: set[str] = set()
        stems: set[str] = set()
        for ident in self.ids:
            cited_as, stem = _id_info(ident)
            keys.update(cited_as)
            if len(stem) >= 3:
                stems.add(stem)
        self._keys = (keys, stems)
        return self._keys

    @property
    def stems(self) -> set[str]:
        """Stems of the passages' ids (what an id-shaped token must start with)."""
        return self._index[1]

    def names_passage(self, value: str) -> bool:
        """``value`` (an id, path or URL) is cited under a key of some passage id; with an
        anchor (``refunds.md#returns``, ``https://…/faq#shipping``), when what it anchors
        in does (a chunk after "#" stays part of the id: ``refunds.md#7`` and
        ``refunds#chunk-3`` name chunks, which the context may not hold)."""
        keys = self._index[0]
        if not _keys(value).isdisjoint(keys):
            return True
        base, anchored, anchor = value.partition("#")
        return bool(
            anchored and base and anchor and _CHUNK.fullmatch(anchor) is None
            and not _keys(base).isdisjoint(keys)
        )  # fmt: skip

    def is_id(self, value: str) -> bool:
        """``value`` names a passage id as written (case, path and extension aside), not by
        another spelling of its number ("doc2" is not doc-2 here)."""
        keys = self._index[0]
        return any(k in keys for k in _keys(value) if "folded:" not in k)

    def shaped_like_id(self, value: str) -> bool:
        """``value`` has a passage id's shape: the same letters and separators, other
        digits ("kb-3301" beside kb-1042); an id without letters or digits has none."""
        shape = _DIGIT_RUNS.sub("#", value.lower())
        return (
            "#" in shape
            and any(c.isalpha() for c in shape)
            and any(_DIGIT_RUNS.sub("#", i.lower()) == shape for i in self.ids)
        )

    def index(self, i: int, word: str = "") -> None:
        """The answer cites passage number ``i``, written after ``word`` ("Doc 7") if any: a
        number beyond the passages that, with its word, spells a passage id ("doc-7") cites
        that passage."""
        if word and not 1 <= i <= self.n_passages:
            key = (word.lower(), i)
            if key not in self._spelled:
                self._spelled[key] = self._spelled_id(*key)
            named = self._spelled[key]
            if named is not None:
                self._add("id", named)
                return
        self._add("index", str(i))

    def _spelled_id(self, word: str, i: int) -> str | None:
        """The passage id that ``word`` and number ``i`` spell ("doc-7", "doc_7", "doc7",
        "document-7"), if one does."""
        for w in _ALIASES.get(word.rstrip("s"), (word,)):
            for sep in ("-", "_", "", " ", ":", "#", "."):
                spelled = f"{w}{sep}{i}"
                for ident in self.ids:
                    if ident.lower() == spelled:
                        return ident
        return None

    def ident(self, value: str) -> None:
        """The answer cites the id ``value``, an anchor in it set aside."""
        value = value.strip().strip(" .,;*_\"'`<>")
        if "#" in value:  # "refunds.md#returns" cites refunds.md (a chunk, "#7", stays)
            base, _, anchor = value.partition("#")
            plain = base and anchor and _CHUNK.fullmatch(anchor) is None
            if plain and _keys(value).isdisjoint(self._index[0]):  # (not an id as written)
                value = base
        if value:
            self._add("id", value)

    def title(self, value: str) -> None:
        """The answer cites a source by the title or label ``value`` (valid if it names one)."""
        self._add("title", value.strip())

    def valid(self, kind: str, value: str) -> bool | None:
        """True or False; None for a title that may name a passage (it cannot be told)."""
        if kind == "title":
            return None if self._may_be_titled(value) else False
        if kind == "index":
            # 1-based as the prompt numbers them; a passage whose id is the number ("7") is
            # named by it
            return 1 <= int(value) <= self.n_passages or self.names_passage(value)
        return self.names_passage(value)

    def _may_be_titled(self, title: str) -> bool:
        """A title ("Returns policy") may name a passage when it names an id, shares a
        distinctive word with one ("shipping policy page" and ``shipping-policy``), or is
        written in a passage (its heading); "internal wiki" beside ``refunds-2024`` and a
        text that never says it names none of them."""
        low = title.lower().strip()
        if len(low.split()) > 6 or low.endswith((".", "!", "?")) or self.names_passage(title):
            return True  # a sentence (a footnote's note) is not a source's name
        words = {w.rstrip("s") for w in _WORDS.findall(low)} - _GENERIC_WORDS
        named = {w.rstrip("s") for i in self.ids for w in _WORDS.findall(i.lower())}
        if not words.isdisjoint(named):
            return True
        return any(low in t.lower() for t in self.texts)

    def looks_like_id(self, token: str) -> bool:
        """A bare token is an id when it is a known one, carries a digit or an id separator,
        or shares its first word with a known id ("refunds-2023" next to "refunds-2024")."""
        spaced = " " in token or "\t" in token
        if not spaced and ID_SHAPE.search(token):
            return any(c.isalnum() for c in token)  # checked before the (costlier) id index
        if self.names_passage(token):
            return True
        if spaced or not any(c.isalnum() for c in token):
            return False
        return stem(token.lower()) in self.stems


@functools.lru_cache(maxsize=8192)
def _id_info(ident: str) -> tuple[frozenset[str], str]:
    """The keys a passage id is cited under and its stem; cached, since a knowledge base's
    ids recur across traces."""
    return _keys(ident, cited=False), stem(ident.strip().lower())


_STEM_END = re.compile(r"[-_./:#\s]")
_WORDS = re.compile(r"[^\W\d_]{3,}")
# Words of a title that say nothing about which source it is.
_GENERIC_WORDS = frozenset(
    "the our your my own page document doc file source site website web online article "
    "section entry link note".split()
)
# The words a marker puts before a number, and the other spellings ids use for them.
_ALIASES = {
    "doc": ("doc", "document"), "document": ("doc", "document"),
    "source": ("source", "src"), "src": ("source", "src"),
    "ref": ("ref", "reference"), "reference": ("ref", "reference"),
}  # fmt: skip
ID_SHAPE = re.compile(r"[\d\-_.:/#]")


def stem(ident: str) -> str:
    """The first word of an id ("refunds" of "refunds-2024", "help" of a help-centre URL)."""
    scheme = ident.find("://")
    if scheme >= 0:
        ident = ident[scheme + 3 :].removeprefix("www.")
    end = _STEM_END.search(ident)
    return ident[: end.start()] if end else ident
