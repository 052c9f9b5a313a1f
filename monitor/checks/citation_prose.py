"""Citations written in parentheses and in the prose: "(source: x)", "(refunds-2024)", a
markdown link's address, "according to passage 2", a passage id written in a sentence (see
``monitor.checks.citation`` for what counts); ``citation_markers.find_citations`` reads them
beside the brackets, footnotes and reference lists."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from monitor.checks.citation_ids import ID_CHARS, ID_SHAPE, Citations, stem
from monitor.checks.citation_lists import (
    FILE_NAME,
    INDEX,
    LOCATOR,
    PREFIXED,
    SPLIT,
    URL,
    cite_part,
)
from monitor.checks.text import textual_references

_EXPLICIT_CUES = frozenset("source sources src ref refs reference references citing".split())
_PAREN = re.compile(
    r"[(（](?:(?P<cue>sources?|src|refs?|references?|see|cf\.?|per|via|from|citing|cited in)"
    r"\b\.?[ \t]*:?[ \t]*)?(?P<inner>[^()（）\n]{1,80})[)）]",
    re.IGNORECASE,
)  # (full-width ones too, as Chinese and Japanese write them: "（faq-admin）")
_BRACKETED = re.compile(r"\[[^\[\]\n]*\]")
# A word with an id's shape in prose: letters, a separator, digits ("warranty-2024")
_ID_WORD = re.compile(r"(?<![\w/.#-])[a-z][a-z]{2,}(?:[-_][a-z]+)*[-_]\d+(?![\w-]|\.\w)")
# An id that is words joined by hyphens ("net-metering"): in prose written otherwise
# ("Net-metering credits roll over") it is the words, not the passage cited
_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")


def parentheses(text: str, cites: Citations) -> None:
    """Citations in parentheses: "(source: x)", "(see refunds-2024, fees)", "(refunds-2024)",
    a document's file name, a markdown link's address (see the module)."""
    for m in _PAREN.finditer(text):
        cites.at = m.start()
        if m.start() and text[m.start() - 1] == "]" and URL.match(m.group("inner")):
            # a markdown link's address: cited when it names a passage, or when it is on a
            # passage's site but names none of them (an invalid one); another site's is a
            # pointer for the reader ("[python.org](https://www.python.org/downloads/)")
            url = m.group("inner").strip()
            if cites.names_passage(url) or _on_passage_site(url, cites):
                cites.ident(url)
            continue
        # "(see [1])": the bracket is read as a bracket; what is left of the parentheses
        inner = _BRACKETED.sub(" ", m.group("inner")).strip(" \t,;")
        if "§" in inner or "." in inner or " " in inner:
            inner = LOCATOR.sub("", inner) or inner  # "(refunds-2024, §3)": the passage
        if not inner:
            continue
        if m.group("cue"):
            parts = [p for p in SPLIT.split(inner) if p]
            if all(PREFIXED.match(p) or INDEX.match(p) or cites.looks_like_id(p) for p in parts):
                for part in parts:
                    cite_part(part, cites)
            elif m.group("cue").lower() in _EXPLICIT_CUES and URL.match(inner) is None:
                cites.title(inner)  # "(Source: internal wiki)": a source named by its title
            continue
        # "(refunds-2024)", "(refunds-2024, fees)" cite when every part names a passage or
        # has a passage id's shape ("(refunds-2023)" next to "refunds-2024").
        parts = [p.strip() for p in SPLIT.split(inner) if p.strip()]
        if parts and all(_id_in_parentheses(p, cites) for p in parts):
            for part in parts:
                cites.ident(part)


def _on_passage_site(url: str, cites: Citations) -> bool:
    """Whether ``url`` is on the site (scheme and host) of a passage id that is a URL."""
    host = urlsplit(url).netloc.lower()
    return bool(host) and any(
        urlsplit(i).netloc.lower() == host for i in cites.ids if i.startswith(("http:", "https:"))
    )


def _id_in_parentheses(part: str, cites: Citations) -> bool:
    if cites.names_passage(part):
        return True  # (with spaces too: "(Quarterly Report Q3.pdf)")
    if " " in part or INDEX.match(part):
        return False
    if FILE_NAME.fullmatch(part):
        return True  # a document's file name ("(relocation_policy.pdf)"): a source named
    if not any(c in ID_CHARS for c in part):
        return False
    # a passage id's stem ("refunds-2023" beside refunds-2024), or, for a short one, its
    # shape ("kb-3301" beside kb-1042: letters, separator, digits)
    return stem(part.lower()) in cites.stems or cites.shaped_like_id(part)


def mentioned_ids(lower: str, text: str, cites: Citations) -> None:
    """Passage ids written in the prose ("see returns-2023"): only ids with a digit or an id
    separator, so that a plain-word id ("fees") is not read into every sentence; and words
    with a passage id's stem and shape, other digits ("warranty-2024" beside warranty-2025:
    cited, invalid)."""
    if cites.ids and any(c.isdigit() for c in lower):
        for m in _ID_WORD.finditer(lower):
            word = m.group(0)
            shaped = stem(word) in cites.stems and cites.shaped_like_id(word)
            if shaped and not cites.names_passage(word):
                cites.at = m.start()
                cites.ident(text[m.start() : m.end()])
    absent: tuple[str, ...] = ()
    for ident in cites.ids:
        key = ident.lower()
        if absent and key.startswith(absent):
            continue  # "kb-12#0" cannot be in a text that lacks "kb-12"
        i = lower.find(key)
        if i < 0:
            absent += (key,)
            continue
        if ID_SHAPE.search(key) is None:
            continue
        while i >= 0:
            j = i + len(key)
            before = lower[i - 1] if i else " "
            after = lower[j] if j < len(lower) else " "
            bounded = not (before.isalnum() or before in "-_/#[(") and not (
                after.isalnum() or after in "-_/#])"
            )
            # (a compound of words written otherwise is prose: "Net-metering credits")
            if bounded and (_COMPOUND.fullmatch(key) is None or text[i:j] == ident):
                cites.at = i
                cites.ident(text[i:j])
                break
            i = lower.find(key, i + 1)


def textual(text: str, cites: Citations) -> None:
    """ "according to passage 2", "(see Document 3)", "sources 1 and 3"."""
    for ref in textual_references(text):
        cites.at = ref.start
        for n in ref.numbers:
            cites.index(n, ref.word)
