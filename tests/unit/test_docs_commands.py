"""The commands page lists every command and every option of each (the walker found
``eval-retrieval --only-retrieved``, ``compare --judge``, ``review --tls-*`` and ``probe
--timeout/--header`` in no row): each command of the parser has a row, and each option, in
one of its spellings, stands in that row."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from monitor.commands.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Each command that runs (``golden review``), with its parser."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield words, parser
        return
    for name, sub in subs[0].choices.items():
        yield from _commands(sub, (*words, name))


def _row(words: tuple[str, ...], rows: list[str]) -> str | None:
    """The row of a command: its usage cell names it (``golden stats\\|precision`` names
    both)."""
    for row in rows:
        usage = row.split("`")[1].split()[1:]  # after "ragmon"
        named = [w.split("\\|") for w in usage[: len(words)]]
        if len(named) == len(words) and all(w in n for w, n in zip(words, named, strict=True)):
            return row
    return None


def test_every_command_and_option_is_on_the_commands_page() -> None:
    rows = [x for x in (ROOT / "docs/commands.md").read_text().splitlines()
            if x.startswith("| `ragmon ")]  # fmt: skip
    missing = []
    for words, parser in _commands(build_parser()):
        row = _row(words, rows)
        if row is None:
            missing.append(f"ragmon {' '.join(words)}: no row")
            continue
        for action in parser._actions:
            spellings = [o for o in action.option_strings if o not in ("-h", "--help")]
            if spellings and not any(re.search(rf"{re.escape(o)}(?![\w-])", row)
                                     for o in spellings):  # fmt: skip
                missing.append(f"ragmon {' '.join(words)}: {spellings[-1]}")
    assert missing == []
