"""What every command shares: the configuration, output files, the published golden set."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from monitor import config as config_mod
from monitor.errors import ConfigError, describe
from monitor.golden import review

if TYPE_CHECKING:
    from monitor.golden.probes import LoadedSet


_SHOWN_ERRORS = 10  # bad rows reported one by one; the rest are counted


def _settings(args: argparse.Namespace, command: str, stderr: TextIO) -> config_mod.Settings | None:
    """The configuration of ``--config`` plus the environment, or None after saying why."""
    try:
        return config_mod.load(args.config)
    except ConfigError as exc:
        print(f"ragmon {command}: {exc}", file=stderr)
        return None


def _writable(path: Path, command: str, stderr: TextIO) -> bool:
    """Whether ``path`` can be an output file: not a directory, and its parent directories
    exist or were created now (every command's output files behave alike). False after
    saying why on stderr."""
    if path.is_dir():
        print(f"ragmon {command}: {path} is a directory; give a file name", file=stderr)
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"ragmon {command}: cannot create {path.parent}: {describe(exc)}", file=stderr)
        return False
    return True


def _open_output(
    path: Path, command: str, stderr: TextIO, mode: Literal["w", "a"] = "w"
) -> TextIO | None:
    """The output file opened (overwritten unless ``mode`` is "a"), or None after saying
    on stderr why it cannot be."""
    if not _writable(path, command, stderr):
        return None
    try:
        return path.open(mode, encoding="utf-8")
    except OSError as exc:
        print(f"ragmon {command}: cannot write {path}: {describe(exc)}", file=stderr)
        return None


@contextlib.contextmanager
def _output(path: Path | None, stdout: TextIO) -> Iterator[TextIO]:
    """The file at ``path`` (closed after), or stdout."""
    if path is None:
        yield stdout
        return
    with path.open("w", encoding="utf-8") as out:
        yield out


def _golden_set(path: Path, command: str, stderr: TextIO) -> LoadedSet | None:
    """A published golden set, or None after saying why on stderr."""
    from monitor.golden.probes import load_set

    try:
        return load_set(path)
    except (OSError, ValueError, review.ReviewError) as exc:
        detail = describe(exc) if isinstance(exc, OSError) else str(exc)
        print(f"ragmon {command}: {detail}", file=stderr)
        return None
