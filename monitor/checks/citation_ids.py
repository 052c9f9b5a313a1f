"""What a citation can name: the passages' indices and ids (``Citations``), with the keys an
id is matched by (case, path segments, extensions) and the stem that tells an id-shaped token
naming a passage from one that does not."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from monitor.checks.lazy import lazy

ID_CHARS = frozenset("-_.:/#")


@functools.lru_cache(maxsize=4096)
def _keys(ident: str, cited: bool = True) -> frozenset[str]:
    """The spellings under which a citation and a passage id meet: the id itself, its last
    path segment (for paths and URLs), and its name without extension, tagged so that a
    name without extension meets one with ("faq" and "faq.md") while two different
    extensions do not ("pricing.pdf" is not "pricing.md"). ``cited`` tags the side."""
    low = ident.strip().lower().rstrip("/")
    name = low.rsplit("/", 1)[1] if "/" in low else low
    dot = name.rfind(".")
    ext = name[dot + 1 :] if dot > 0 else ""
    has_ext = 0 < len(ext) <= 5 and ext.isalnum() and not ext.isdigit()
    stem = name[:dot] if has_ext else name
    # a citation without extension looks for ids with one, and the other way round
    tag = "with-ext:" if has_ext != cited else "no-ext:"
    keys = {low, name, tag + stem}
    keys.discard("")
    return frozenset(keys)


@dataclass
class Citations:
    """Ids cited by an answer, in order of first appearance, and which of them are invalid."""

    n_passages: int
    ids: list[str]  # the passages' doc and chunk ids
    zero_based: bool = False
    found: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)

    @lazy
    def _index(self) -> tuple[set[str], set[str]]:
        """Every key a passage id is cited under, and the ids' stems (built on first use:
        an answer citing only indices never needs them)."""
        keys: set[str] = set()
        stems: set[str] = set()
        for ident in self.ids:
            cited_as, stem = _id_info(ident)
            keys.update(cited_as)
            if len(stem) >= 3:
                stems.add(stem)
        return keys, stems

    @property
    def stems(self) -> set[str]:
        """Stems of the passages' ids (what an id-shaped token must start with)."""
        return self._index[1]

    def names_passage(self, value: str) -> bool:
        """``value`` (an id, path or URL) is cited under a key of some passage id."""
        return not _keys(value).isdisjoint(self._index[0])

    def index(self, i: int) -> None:
        """The answer cites passage number ``i``."""
        self.found.append(("index", str(i)))

    def ident(self, value: str) -> None:
        """The answer cites the id ``value``."""
        value = value.strip().strip(" .,;*_\"'`<>")
        if value:
            self.found.append(("id", value))

    def title(self, value: str) -> None:
        """The answer cites a source by the title or label ``value`` (valid if it names one)."""
        self.found.append(("title", value.strip()))

    def valid(self, kind: str, value: str) -> bool | None:
        """True or False; None for a title, which names no id."""
        if kind == "title":
            return None
        if kind == "index":
            i = int(value)
            return 0 <= i < self.n_passages if self.zero_based else 1 <= i <= self.n_passages
        return self.names_passage(value)

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
ID_SHAPE = re.compile(r"[\d\-_.:/#]")


def stem(ident: str) -> str:
    """The first word of an id ("refunds" of "refunds-2024", "help" of a help-centre URL)."""
    scheme = ident.find("://")
    if scheme >= 0:
        ident = ident[scheme + 3 :].removeprefix("www.")
    end = _STEM_END.search(ident)
    return ident[: end.start()] if end else ident
