"""What every command shares: the configuration, output files, the published golden set."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from monitor import config as config_mod
from monitor.core.errors import ConfigError, describe
from monitor.golden import review

if TYPE_CHECKING:
    from monitor.golden.probes import LoadedSet


_SHOWN_ERRORS = 10  # bad rows reported one by one; the rest are counted


def _settings(
    args: argparse.Namespace, command: str, stderr: TextIO, deprecations: bool = True
) -> config_mod.Settings | None:
    """The configuration of ``--config`` plus the environment, or None after saying why;
    each deprecated key is a ``warning:`` line unless ``deprecations`` is off (the daemon
    logs them itself)."""
    try:
        settings = config_mod.load(args.config)
    except ConfigError as exc:
        print(f"ragmon {command}: {exc}", file=stderr)
        return None
    if deprecations:
        for line in settings.judge.deprecated:
            print(f"ragmon {command}: warning: {line}", file=stderr)
    return settings


STDOUT = "-"  # an output path of "-" is standard output, for every command


def is_stdout(path: Path | None) -> bool:
    """Whether the output path ``path`` names standard output (``-``)."""
    return path is not None and str(path) == STDOUT


def _writable(path: Path, command: str, stderr: TextIO) -> bool:
    """Whether ``path`` can be an output file, checked before any work is done (a paid judge
    pass must not end in a file that cannot be written): ``-`` (stdout), or not a directory,
    its parent directories exist or were created now, and the file opens for writing (a file
    made by the check is removed again; FIFOs and devices are not opened). False after
    saying why on stderr."""
    if is_stdout(path):
        return True
    if path.is_dir():
        print(f"ragmon {command}: {path} is a directory; give a file name", file=stderr)
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"ragmon {command}: cannot create {path.parent}: {describe(exc)}", file=stderr)
        return False
    existed = path.exists()
    if existed and not path.is_file():
        return True  # a FIFO or a device (/dev/null, /dev/stdout): opened when written
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        print(f"ragmon {command}: cannot write {path}: {describe(exc)}", file=stderr)
        return False
    if not existed:
        path.unlink(missing_ok=True)
    return True


def _open_output(
    path: Path, command: str, stderr: TextIO, mode: Literal["w", "a"] = "w",
    stdout: TextIO | None = None,
) -> TextIO | None:  # fmt: skip
    """The output file opened (overwritten unless ``mode`` is "a"; ``stdout`` for ``-``),
    or None after saying on stderr why it cannot be."""
    if is_stdout(path) and stdout is not None:
        return stdout
    if not _writable(path, command, stderr):
        return None
    try:
        return path.open(mode, encoding="utf-8")
    except OSError as exc:
        print(f"ragmon {command}: cannot write {path}: {describe(exc)}", file=stderr)
        return None


@contextlib.contextmanager
def _output(path: Path | None, stdout: TextIO) -> Iterator[TextIO]:
    """The file at ``path`` (closed after), or stdout (no path, or ``-``)."""
    if path is None or is_stdout(path):
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
