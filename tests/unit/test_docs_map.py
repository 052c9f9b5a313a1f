"""The documentation's maps match what they map: the home page links every page of the site's
navigation, and the development page's tree names every package of the code."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import yaml
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def test_the_home_page_links_every_page_of_the_navigation() -> None:
    """A page in the site's menu that the home page's list leaves out is a page a newcomer
    reading the home page does not find (Conversations was one)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = {p for p in _nav_pages(config["nav"]) if p != "index.md"}
    linked = set(re.findall(r"\]\(([^)#]+\.md)", (ROOT / "docs/index.md").read_text()))
    assert pages - linked == set()


def test_the_development_tree_names_every_package() -> None:
    """Each package under monitor/ (and each top-level folder of the repository that holds
    code) stands in the tree of docs/development.md."""
    text = (ROOT / "docs/development.md").read_text()
    tree = text[text.index("```\nmonitor/") : text.index("```", text.index("```\nmonitor/") + 3)]
    packages = sorted(p.name for p in (ROOT / "monitor").iterdir() if (p / "__init__.py").exists())
    missing = [p for p in packages if not re.search(rf"^\s+{p}/", tree, re.M)]
    assert missing == []
    for folder in ("sinks", "tests", "deploy", "bench", "dashboards"):
        assert re.search(rf"^{folder}/", tree, re.M), folder


def _titles() -> set[str]:
    """Every page's menu title and every heading of the docs, as a reader would quote them
    (a heading's words before its colon too: "What moved, and why: `ragmon explain`")."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    titles: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                titles.add(str(key))
                walk(value)

    walk(config["nav"])
    for page in (ROOT / "docs").glob("*.md"):
        for heading in re.findall(r"^#+ (.+)$", _prose(page.read_text()), re.M):
            titles.add(heading)
            titles.add(heading.split(":")[0])
    return {t.strip().lower() for t in titles if len(t.strip()) > 3}


def _prose(text: str) -> str:
    """The page without its code blocks and inline code."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def test_a_cross_reference_is_a_link_not_a_quoted_title() -> None:
    """A section named by its quoted title ("see \\"Shadow runs\\" below") points nowhere the
    strict build can check; as a link (with its anchor) it does."""
    titles = _titles()
    quoted = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for title in re.findall(r"(?<!=)[\"“]([^\"”\n]{4,80})[\"”]", _prose(page.read_text())):
            # a title as a reader names it (capitalised); a quoted field name is not one
            if title[0].isupper() and title.strip().lower() in titles:
                quoted.append(f"{page.name}: {title}")
    assert quoted == []


def test_the_configuration_table_has_a_row_for_every_section() -> None:
    """Each section of the settings (and each sub-section of the judge) has a row in the
    configuration page's table: sessions, shadow, probes, the judge's sampling mode and batch
    mode were missing."""
    from monitor.config import Settings

    table = [
        line.split("|")[1]
        for line in (ROOT / "docs/configuration.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    shown = set(Settings().model_dump())
    keys = {k for k in shown if k != "shutdown_timeout_seconds"}
    keys |= {"judge.sampling.by", "judge.batch.", "judge.jury.", "sessions.topic"}
    keys |= {"sessions.outcomes", "shadow.share", "probes.endpoint"}

    def covered(key: str, cell: str) -> bool:
        # a row names a key in full, or after its section's first key ("`a.b` / `c`")
        prefix, _, last = key.rstrip(".").rpartition(".")
        return f"`{key}" in cell or bool(prefix and f"`{prefix}." in cell and f"`{last}`" in cell)

    missing = [k for k in sorted(keys) if not any(covered(k, cell) for cell in table)]
    assert missing == []


def _headings() -> set[str]:
    return {
        h.strip().lower()
        for page in (ROOT / "docs").glob("*.md")
        for h in re.findall(r"^#+ (.+)$", _prose(page.read_text()), re.M)
    }


def test_a_section_named_after_see_is_a_link() -> None:
    """`see Security`, `see "The cascade"`, `see "across replicas" below`: a section or page
    named after "see" by its title, or by a quoted part of its heading, and not linked,
    points nowhere the strict build checks (the walker found thirteen)."""
    titles, headings = _titles(), _headings()
    unlinked = []
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    see = r"\bsee\s+(?:also\s+)?(?:the\s+)?([\"“][^\"”\n]{3,80}[\"”]|[A-Z][^\n]{0,80})"
    for page in pages:
        for m in re.finditer(see, _prose(page.read_text())):
            named = m.group(1)
            if named[0] in '"“':
                quoted = named[1:-1].strip().lower()
                if quoted in titles or (len(quoted) >= 6 and any(quoted in h for h in headings)):
                    unlinked.append(f"{page.name}: see {named}")
                continue
            low = named.lower()
            for title in titles:
                if low.startswith(title) and not low[len(title) : len(title) + 1].isalnum():
                    unlinked.append(f"{page.name}: see {named[: len(title)]}")
                    break
    assert unlinked == []


def test_a_link_to_another_page_is_not_said_to_be_below() -> None:
    """A link to another page said to be below ("[Shadow runs](shadow.md) below"): another
    page is not below; only an anchor of the same page is."""
    wrong = [
        f"{page.name}: {m.group(0)}"
        for page in sorted((ROOT / "docs").glob("*.md"))
        for m in re.finditer(r"\]\([^#)][^)]*\)\s+(?:below|above)\b", _prose(page.read_text()))
    ]
    assert wrong == []


def test_the_readme_lists_every_page_a_newcomer_reads() -> None:
    """README's "Where to go next" links every page of the site's menu but the home page and
    the generated reference (first steps and the evaluation store were missing)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = {p for p in _nav_pages(config["nav"]) if p != "index.md" and "/" not in p}
    text = (ROOT / "README.md").read_text()
    where = text[text.index("## Where to go next") :]
    linked = set(re.findall(r"\]\(docs/([^)#]+\.md)", where))
    assert sorted(pages - linked) == []


def _keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every leaf key of a settings model (``judge.sampling.base_rate``), sections walked."""
    out = []
    for name, field in model.model_fields.items():
        sections = [t for t in (field.annotation, *typing.get_args(field.annotation))
                    if isinstance(t, type) and issubclass(t, BaseModel)]  # fmt: skip
        if sections:
            out += _keys(sections[0], f"{prefix}{name}.")
        else:
            out.append(f"{prefix}{name}")
    return out


def _named_in(cell: str) -> list[str]:
    """The keys a table row's first cell names: ``a.b`` in full, and each ``c`` after it
    (``a.b`` / ``c``: ``a.c``); ``*`` and ``<type>`` as wildcards."""
    out: list[str] = []
    prefix = ""
    for name in re.findall(r"`([^`]+)`", cell):
        if "." in name:
            prefix = name.rpartition(".")[0] + "."
            out.append(name)
        else:  # after a dotted key, a key of its section; first, a top-level key
            out.append(prefix + name)
    return out


def test_the_configuration_table_has_a_row_for_every_key() -> None:
    """Every key of the settings (not only every section) is in the configuration page's
    table, by its own name, under a section a row names as a whole (``shadow.judge``: the
    judge's settings), or by a wildcard (``kafka.sasl_*``, ``source.<type>.…``); the walker
    found golden.set_path, the judge's breaker and drain, the Kafka client's timeouts and
    others in no row."""
    from monitor.config import Settings

    table = [
        line.split("|")[1]
        for line in (ROOT / "docs/configuration.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    named = [n for cell in table for n in _named_in(cell)]
    patterns = [
        re.compile(re.escape(n).replace(r"\*", "[^.]*").replace("<type>", "[^.]+") + r"(\..*)?$")
        for n in named
    ]
    missing = [k for k in _keys(Settings) if not any(p.match(k) for p in patterns)]
    assert missing == []
