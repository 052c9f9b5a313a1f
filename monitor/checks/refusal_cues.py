"""Refusal patterns as data: one TOML file per language in ``languages/``, loaded once.

A file gives the language's patterns grouped by what they say (``no_knowledge``,
``context_lacks``, ``cannot_help``) and the gates in front of them, which keep the check cheap:

* ``words`` (whole words, for languages written with spaces) or ``cues`` (substrings, for
  the others): the language's patterns run only when the lower-cased answer contains one;
* a pattern's own ``cues``: that pattern runs only when one of them occurs (English);
* ``[absence]``: the compositional rule (``absence_pattern``), placed where a pattern says
  ``absence = true`` or else run last, and then only when the answer contains one of ``nouns``.

A regular expression is a string or a list of strings joined without separator, and
``{:name}`` in it stands for the ``[fragments]`` entry ``name``. Every match of a pattern
contains one of its gate cues; a test proves the gates change no outcome. Adding a language is
adding a file: English runs first, then the others in the order of their codes.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import NamedTuple

KINDS = frozenset({"no_knowledge", "context_lacks", "cannot_help"})
_FLAGS = re.IGNORECASE | re.MULTILINE
_CLAUSE = r"[^.!?;。！？；\n]"
_FRAGMENT = re.compile(r"\{:(\w+)\}")


class Pattern(NamedTuple):
    """One refusal pattern; ``cues`` (None: no gate of its own) as for the language's gate."""

    kind: str
    regex: re.Pattern[str]
    cues: frozenset[str] | None = None


class Language(NamedTuple):
    """A language's refusal patterns and the gate in front of them: the patterns run only when
    the answer contains one of ``words`` (whole words) or one of ``cues`` (substrings); with
    neither, every pattern is gated by its own cues."""

    code: str
    words: frozenset[str]
    cues: tuple[str, ...]
    patterns: tuple[Pattern, ...]
    absence: re.Pattern[str] | None = None  # run last, see ``absence_pattern``
    nouns: tuple[str, ...] = ()  # one of them occurs in every match of ``absence``

    def search(self, text: str, hits: set[str] | None) -> tuple[str, str] | None:
        """(kind, phrase) of the earliest match, or None. ``hits`` are the cues found in the
        answer (``None``: run every pattern, the reference the gates are tested against)."""
        if hits is None:
            return earliest(text, self._all())
        if (self.words or self.cues) and hits.isdisjoint(self.words) and hits.isdisjoint(self.cues):
            return None
        patterns = [
            (p.kind, p.regex)
            for p in self.patterns
            if p.cues is None or not p.cues.isdisjoint(hits)
        ]
        if self.absence is not None and not hits.isdisjoint(self.nouns):
            patterns.append(("context_lacks", self.absence))
        return earliest(text, patterns)

    def _all(self) -> list[tuple[str, re.Pattern[str]]]:
        every = [(p.kind, p.regex) for p in self.patterns]
        return every if self.absence is None else [*every, ("context_lacks", self.absence)]

    def gate_cues(self) -> tuple[list[str], list[str]]:
        """(substring cues, whole-word cues) that the cue index must find for this language."""
        own = [c for p in self.patterns if p.cues is not None for c in p.cues]
        return [*self.cues, *self.nouns, *own], list(self.words)


def earliest(text: str, patterns: Iterable[tuple[str, re.Pattern[str]]]) -> tuple[str, str] | None:
    """(kind, matched phrase) of the match of ``patterns`` that starts first in ``text``."""
    best: re.Match[str] | None = None
    best_kind = ""
    for kind, pattern in patterns:
        m = pattern.search(text)
        if m is not None and (best is None or m.start() < best.start()):
            best, best_kind = m, kind
    return None if best is None else (best_kind, best.group(0).strip())


def absence_pattern(absent: str, info: str, where: str) -> str:
    """An absence predicate ("is not mentioned", "no consta", "未提供") in the same clause as
    an information noun ("the information", "la respuesta") or a place in the sources ("in the
    documents", "资料中"): the compositional form of "the sources do not say", which fixed
    phrases cannot enumerate. A bare absence ("shipping is not available") names neither and
    stays an answer."""
    near = rf"(?:{info}|{where})"
    return rf"{near}{_CLAUSE}{{0,50}}?(?:{absent})|(?:{absent}){_CLAUSE}{{0,50}}?{near}"


class CueFileError(ValueError):
    """A language file that does not describe a valid language (raised at import)."""


def parse_language(doc: Mapping[str, object], source: str = "<data>") -> Language:
    """The ``Language`` a parsed TOML document describes; ``CueFileError`` naming ``source``
    and the field when it is not valid."""
    try:
        return _parse(doc)
    except (KeyError, TypeError, ValueError, re.error) as exc:
        raise CueFileError(f"{source}: {type(exc).__name__}: {exc}") from exc


def _parse(doc: Mapping[str, object]) -> Language:
    fragments = {k: _regex(v, {}) for k, v in _table(doc, "fragments").items()}
    absence_doc = _table(doc, "absence")
    absence = None
    if absence_doc:
        absence = absence_pattern(
            *(_regex(absence_doc[k], fragments) for k in ("absent", "info", "where"))
        )
    placed = False
    patterns: list[Pattern] = []
    raw_patterns = doc.get("patterns", [])
    if not isinstance(raw_patterns, list) or not raw_patterns:
        raise ValueError("patterns: expected a non-empty array of tables")
    for i, entry in enumerate(raw_patterns):
        kind = entry["kind"]
        if kind not in KINDS:
            raise ValueError(f"patterns[{i}].kind: {kind!r} is not one of {sorted(KINDS)}")
        if entry.get("absence"):
            if absence is None:
                raise ValueError(f"patterns[{i}]: absence = true without an [absence] table")
            text, placed = absence, True
        else:
            text = _regex(entry["regex"], fragments)
        cues = entry.get("cues")
        patterns.append(
            Pattern(
                kind, re.compile(text, _FLAGS), None if cues is None else frozenset(_strings(cues))
            )
        )
    return Language(
        code=str(doc["code"]),
        words=frozenset(_strings(doc.get("words", []))),
        cues=tuple(_strings(doc.get("cues", []))),
        patterns=tuple(patterns),
        absence=None if absence is None or placed else re.compile(absence, _FLAGS),
        nouns=tuple(_strings(doc.get("nouns", []))),
    )


def _table(doc: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = doc.get(key, {})
    if not isinstance(value, Mapping):
        raise TypeError(f"{key}: expected a table")
    return value


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected an array of strings, got {value!r}")
    return value


def _regex(value: object, fragments: Mapping[str, str]) -> str:
    text = value if isinstance(value, str) else "".join(_strings(value))
    return _FRAGMENT.sub(lambda m: fragments[m.group(1)], text)


@cache
def languages() -> tuple[Language, ...]:
    """Every language file, English first, then by code; each parsed and compiled once."""
    folder = resources.files(__package__).joinpath("languages")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml"))
    names.sort(key=lambda n: n != "en.toml")
    loaded = []
    for name in names:
        doc = tomllib.loads(folder.joinpath(name).read_text(encoding="utf-8"))
        language = parse_language(doc, f"languages/{name}")
        if f"{language.code}.toml" != name:
            raise CueFileError(
                f"languages/{name}: code {language.code!r} does not match the file name"
            )
        loaded.append(language)
    return tuple(loaded)
