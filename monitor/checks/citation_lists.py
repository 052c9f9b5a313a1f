"""Reference lists, footnote and label definitions, and the parts of a marker: what a
"Sources:" line, a "[^1]: x" definition or one element of "[1, Source 2, doc: x]" cites.
Used by ``monitor.checks.citation_markers``."""

from __future__ import annotations

import re

from monitor.checks.citation_ids import ID_SHAPE, Citations

FOOTNOTE_DEF = re.compile(r"(?m)^[ \t]*\[\^([^\]\n]{1,40})\]:[ \t]*(.+)$")
LABEL_DEF = re.compile(r"(?m)^[ \t]*\[([^\^\]\n][^\]\n]{0,39})\]:[ \t]*(.+)$")
# A superscript footnote's definition line ("¹ refunds-2024", "²: faq.md", "³. https://…")
SUPERSCRIPT_DEF = re.compile(r"(?m)^[ \t]*([¹²³⁴⁵⁶⁷⁸⁹⁰]{1,3})[ \t]*[:.)]?[ \t]*(\S[^\n]*)$")
_LIST_HEADER = re.compile(
    r"(?im)^[ \t#*_>]*(?:sources?|references?|citations?|cited(?: sources)?|bibliography|"
    r"fuentes|quellen|références)[ \t*_]*(?::[ \t*_]*(?P<rest>.*)|[ \t*_]*)$"
)
_LIST_ENTRY = re.compile(
    r"^[ \t]*(?:[-*•][ \t]*|\d{1,3}[.)][ \t]+)?(?:\[(\^?[^\]\n]{1,40})\][ \t:]*)?(.*)$"
)
# Labels, not citations, unless they name a passage or the ids have their form: a quarter, a
# half or a fiscal year ("[Q3]", "[H2]", "[FY24]"), a standard or format with a dotted number
# ("[H.264]"), a figure with a unit, size or factor glued ("[4K]", "[1080p]", "[8GB]",
# "[12V]", "[2x]", "[x2]"), a product, format or standard in capitals ("[PS5]", "[MP4]",
# "[SHA-256]", "[USB-C]", "[B2B]", "[IPv6]"; not a citation's word, "[KB-15]", "[S4]"), a
# fraction ("[1/2]"), a choice ("[Y/n]", "[yes/no]"), "[N/A]", a placeholder
# ("[YOUR_API_KEY]", a date or time format: "[DD/MM/YYYY]", "[HH:MM]"), a key ("[F5]",
# "[Alt+F4]"), an ordinal ("[1st]"), an age ("[18+]"), a character class ("[A-Z]",
# "[a-z0-9]"), an IPv6 address ("[::1]"), a time zone ("[GMT+1]"), a locale ("[en-US]"), a
# pre-release version ("[1.2.3-beta]") and a standard named by its body
_FORMAT_PART = r"(?:D{1,2}|M{1,4}|Y{2,4}|H{1,2}|S{1,2})"  # "DD", "MM", "YYYY", "HH", "SS"
LABEL = re.compile(
    r"(?:[QH][1-4]|FY)(?:[ '’]?\d{2,4})?|[A-Za-z]{1,3}\.\d{2,4}"
    r"|\d{1,4}(?:\.\d)?(?:[kKpPG]|GB|MB|TB|KB|fps|Hz|MP|px|mm|cm|km|kg|ml|[xX×VWD]|FA|mAh|Wh)"
    r"|(?!(?:KB|DOC|SRC|REF|IDS?|SEC)-?\d)[A-Z]{2,5}(?:\d{1,4}|-(?:\d{1,3}|[A-Z]))[a-z]?"
    r"|\d{1,2}/\d{1,2}|[Nn]/[Aa]|[A-Z]+(?:_[A-Z]+)+|[x×]\d{1,3}(?:\.\d)?|F\d{1,2}|[A-Z]\d[A-Z]"
    r"|IPv[46]|(?:[A-Za-z]{1,3}|yes|no)/(?:[A-Za-z]{1,3}|yes|no)|\w+(?:\+\w+)+"
    r"|\d{1,3}(?:st|nd|rd|th|\+)|(?=[^\]]*[A-Za-z])(?:[A-Za-z0-9]-[A-Za-z0-9])+"
    r"|[0-9A-Fa-f:]*::[0-9A-Fa-f:]*|(?:GMT|UTC)[+−-]\d{1,2}(?::?\d\d)?|[a-z]{2}[-_][A-Z]{2}"
    r"|\d+(?:\.\d+)+-[A-Za-z]+\.?\d*"
    rf"|{_FORMAT_PART}(?:[/.:-]{_FORMAT_PART}){{1,2}}"
    # a standard named by its body, any number of digits ("[ISO-9001]", "[ISO 27001:2022]",
    # "[RFC 9110]", "[IEEE-754]", "[EN 1090-1]"), where "[JIRA-1234]" is an id's shape
    r"|(?:ISO|IEC|IEEE|ANSI|ASTM|DIN|EN|BS|RFC|ECMA|ETSI|NIST|ITU-T)(?:/IEC)?[- ]?\d{2,6}"
    r"(?:[-:.]\d{1,4})*",
)
URL = re.compile(r"https?://[^\s)\]>\"'`]+")
SPLIT = re.compile(r"[ \t]*[,;][ \t]*|[ \t]+(?:and|&)[ \t]+")
_LIST_SPLIT = re.compile(r"[ \t]*[,;][ \t]*")

FILE_NAME = re.compile(
    r"(?<![\w/.-])[\w-]+\.(?:md|mdx|pdf|html?|txt|docx?|rst|csv|json|ya?ml)\b(?!#)",
    re.IGNORECASE,
)  # (not before "#": "refunds.md#returns" is one id, read with its anchor)
# A place in a passage after its id or index ("refunds-2024, §3", "1, p. 4", "kb-12 line 7")
LOCATOR = re.compile(
    r"(?:[ \t]*,[ \t]*|[ \t]+)(?:§{1,2}[ \t]?|pp?\.[ \t]?|para(?:graph)?\.?[ \t]"
    r"|sec(?:tion)?\.?[ \t]|lines?[ \t]|ch(?:apter)?\.?[ \t])\d+(?:[ \t]?[-–][ \t]?\d+)?[ \t]*$"
    r"|(?:[ \t]*,[ \t]*|[ \t]+)L\d+(?:[-–]L\d+)?[ \t]*$",
    re.IGNORECASE,
)
PREFIXED = re.compile(
    r"^(?:(?:source|src|doc|document|ref|reference|passage|context|excerpt|chunk|snippet|file"
    r"|citation|cite)s?|(?:doc|document|chunk|passage)[_ ]?id|ids?)"
    r"\.?[ \t]*(?::|#|[ \t])[ \t]*(.+)$",
    re.IGNORECASE,
)
INDEX = re.compile(r"^#?(\d{1,3})(?:[ \t]*(?:-|–|—|to)[ \t]*(\d{1,3}))?$")
# A label glued to its number ("doc1", "source_2", "passage-3", "S1", "R2"): the number is
# the passage's when there is such a passage, unless the whole is a passage id. (Not "p1":
# a page as often as a passage.)
GLUED = re.compile(
    r"^(source|src|doc|document|ref|reference|passage|context|excerpt|chunk|snippet|s|r)[-_]?"
    r"(\d{1,3})$",
    re.IGNORECASE,
)
_QUOTED_OR_PART = re.compile(r'["“]([^"”\n]+)["”]|([^,;"“]+)')
# A sources line's header ("Sources:", "*References:*"), as the code spans on it are read
SOURCES_LINE = re.compile(r"[ \t#*_>]*(?:sources?|references?|citations?)[ \t*_]*:", re.I)
_LIST_WORDS = re.compile(r"source|r[eé]f[eé]rence|citation|cited|bibliograph|fuentes|quellen")


def _source_parts(rest: str, cites: Citations) -> list[str]:
    """The sources a "Sources: a, b and c" line names: split at commas and semicolons (not
    inside quotes: "Admin Guide, Chapter 7" is one title), and at "and" only between ids
    ("refunds-2024 and fees", not "Returns and exchanges")."""
    parts: list[str] = []
    chunks: list[tuple[str, bool]] = [(c, False) for c in _LIST_SPLIT.split(rest)]
    if '"' in rest or "“" in rest:  # (a quoted title whole, the rest split)
        found = ((m.group(1), m.group(2)) for m in _QUOTED_OR_PART.finditer(rest))
        chunks = [(q or c.strip(), q is not None) for q, c in found if q or c.strip()]
    for chunk, quoted in chunks:
        if quoted:
            parts.append(chunk)
            continue
        pieces = SPLIT.split(chunk)
        ids = all(ID_SHAPE.search(p) or cites.names_passage(p) for p in pieces if p.strip())
        parts.extend(pieces if ids else [chunk])
    return parts


def blank_named_label(m: re.Match[str]) -> str:
    """A "[note 1]: target" line blanked (its label was read); "[1]: url" kept as it was."""
    return m.group(0) if m.group(1).strip().isdecimal() else " " * len(m.group(0))


def definitions(text: str, lower: str, cites: Citations) -> dict[str, str]:
    """Footnote definitions and reference-list entries: label -> target. Entries without a
    label are cited directly; the block's lines are blanked from further parsing by the
    caller only for footnote definitions (list lines hold no other markers)."""
    labels: dict[str, str] = {}
    if "[^" in text:
        for m in FOOTNOTE_DEF.finditer(text):
            labels["^" + m.group(1).strip().lower()] = m.group(2).strip()
    if "]:" in text:  # "[note 1]: refunds-2024" (a numeric label stays a passage index)
        for m in LABEL_DEF.finditer(text):
            if not m.group(1).strip().isdecimal():
                labels[m.group(1).strip().lower()] = m.group(2).strip()
    if not text.isascii():  # "¹ refunds-2024": what every "¹" of the text cites
        for m in SUPERSCRIPT_DEF.finditer(text):
            labels["sup:" + m.group(1)] = m.group(2).strip()
    if _LIST_WORDS.search(lower) is None:
        return labels
    for m in _LIST_HEADER.finditer(text):
        rest = (m.group("rest") or "").strip()
        if rest:
            # "Sources: a.md, b.md"; bracket markers on the line are read as brackets.
            if "[" not in rest and "【" not in rest:
                for part in _source_parts(rest, cites):
                    if part.strip(" .*_`\"'"):
                        cite_target(part.strip(" .*_`\"'"), cites)
            continue
        for line in _list_block(text, m.end()):
            em = _LIST_ENTRY.match(line)
            if em is None:
                continue
            label, target = em.group(1), _PREFIX_WORD.sub("", em.group(2).strip(" .*_`\"'"))
            if label and target:
                labels[label.strip().lower()] = target
                cite_target(target, cites)
            elif target:
                cite_target(target, cites)
    return labels


_PREFIX_WORD = re.compile(r"^(?:source|doc|document|passage)[ \t]*:[ \t]*", re.IGNORECASE)
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[-*•]|\d{1,3}[.)]|\[)")


def _list_block(text: str, start: int) -> list[str]:
    """The list lines right after a reference-list header (blank lines before them skipped)."""
    lines: list[str] = []
    for line in text[start:].splitlines()[1:]:
        if not line.strip():
            if lines:
                break
            continue
        if _BLOCK_LINE.match(line) is None:
            break
        lines.append(line)
    return lines


def cite_target(target: str, cites: Citations) -> None:
    """A reference-list target: an index ("Source 2", "2"), a URL or an id (first token)."""
    target = _PREFIX_WORD.sub("", target)
    url = URL.search(target)
    if url:
        cites.ident(url.group(0).rstrip(".,;:!?"))
        return
    idx = INDEX.match(target)
    pre = PREFIXED.match(target)
    if idx or (pre and INDEX.match(pre.group(1).strip())):
        cite_part(target, cites)
        return
    token = target.split()[0] if target.split() else ""
    # "returns-2024 — Returns policy" cites its first token; a title ("Returns policy",
    # "Shipping policy" beside shipping-policy) is judged as a title (see Citations.valid).
    if cites.names_passage(token) or (
        (ID_SHAPE.search(token) or len(target.split()) == 1) and cites.looks_like_id(token)
    ):
        cites.ident(token)
    else:
        cites.title(target)


def cite_part(part: str, cites: Citations, loose: bool = True) -> bool:
    """One element of a marker ("1", "1-3", "Source 2", "doc: x", "refunds-2024")."""
    part = part.strip()
    idx = INDEX.match(part)
    pre = PREFIXED.match(part) if idx is None else None
    word = ""
    glued = GLUED.match(part) if idx is None and pre is None else None
    if (
        glued is not None
        and 1 <= int(glued.group(2)) <= cites.n_passages
        and not cites.is_id(part)
        # a zero-padded number is an id's, not an index ("[doc-03]" beside doc-3)
        and not (glued.group(2)[0] == "0" and cites.names_passage(part))
    ):  # beyond the passages, "doc_19" is read as the id it looks like (and is invalid)
        cites.index(int(glued.group(2)), glued.group(1))
        return True
    if pre is not None:
        word = part[: pre.start(1)].strip(" \t:#")
        part = pre.group(1).strip()
        idx = INDEX.match(part)
    if idx:
        lo = int(idx.group(1))
        hi = int(idx.group(2)) if idx.group(2) else lo
        if hi < lo or hi - lo > 50:
            return False
        for i in range(lo, hi + 1):
            cites.index(i, word if lo == hi else "")
        return True
    if pre is not None and (" " in part or "\t" in part) and not cites.names_passage(part):
        cites.title(part)  # "[Source: internal wiki]": a source named, maybe not a passage
        return True
    if pre is not None or (loose and cites.looks_like_id(part)):
        cites.ident(part)
        return True
    return False


def in_url(text: str, start: int) -> bool:
    """A bracket glued to a URL ("https://example.com/page[4]"): part of the link."""
    i = start
    while i > 0 and not text[i - 1].isspace() and start - i < 200:
        i -= 1
    token = text[i:start]
    return bool(token) and ("://" in token or token.lower().startswith("www."))


_CODE_NAMES = frozenset(
    "arr array items item list data matrix row rows col cols values args argv result results "
    "df x y i j k".split()
)
# A grid of values indexed twice, the second bracket glued to the first, the clause going on
# ("grid[2][3] after loading", "board[0][7] holds"): a row and a column; one bracket after
# such a noun, or two that end the clause or come before "and", "but", may end a claim ("the
# power grid[2][3]." or "grid[2][3] and") and are read as citations.
_GRID_NAMES = frozenset(
    "grid grids board boards cells tensor tensors image images pixels weights tiles maze "
    "lattice mask masks frame frames raster rasters bitmap bitmaps heatmap heatmaps canvas "
    "canvases seats squares".split()
)
_SECOND_INDEX = re.compile(
    r"\[\d{1,3}\]\[\d{1,3}\](?:\[\d{1,3}\])*[ \t]+(?!(?:and|or|but|while|so)\b)[^\W\d_]"
)


def indexing(text: str, start: int, skipped: int) -> bool:
    """A bracket glued to a short or code-like name, or to an index just skipped."""
    if start == 0:
        return False
    if start == skipped:
        return True
    i = start
    # (a name is ASCII: Chinese or Japanese text glues its markers, "可能です[1]。")
    while i > 0 and ((text[i - 1].isascii() and text[i - 1].isalnum()) or text[i - 1] == "_"):
        i -= 1
    word = text[i:start]
    if not word:
        return False
    if text.startswith("[0]", start):
        return True  # "tiers[0]": passages are numbered from 1, so a glued [0] indexes
    return (
        len(word) <= 3
        or "_" in word
        or any(c.isdigit() for c in word)
        or word.lower() in _CODE_NAMES
        or (
            word.lower() in _GRID_NAMES
            and _SECOND_INDEX.match(text, start) is not None
            and text[max(0, i - 5) : i].lower() != "time "  # a time frame is no grid
        )
    )
