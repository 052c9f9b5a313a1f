"""The installed ragmon version (a metric label, ``--version``)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def ragmon_version() -> str:
    """The installed ragmon version (from the package metadata)."""
    try:
        return version("ragmon")
    except PackageNotFoundError:
        return "0+unknown"
