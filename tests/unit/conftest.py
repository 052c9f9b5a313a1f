"""Unit tests run in one process without subprocess daemons: a file or socket a test leaves
open there is a bug of the test or of the code, so ResourceWarning fails the test."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):  # this hook sees every collected test
            item.add_marker(pytest.mark.filterwarnings("error::ResourceWarning"))
