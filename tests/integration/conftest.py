"""Helpers for tests that run ragmon as a separate process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

RAGMON = [sys.executable, "-m", "monitor.cli"]
CONSOLE_SCRIPT = Path(sys.executable).with_name("ragmon")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus any RAGMON_* the developer has set, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env.update(extra)
    return env


def ragmon(*args: str, stdin: bytes | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RAGMON, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(**env),
    )


@pytest.fixture
def port() -> int:
    return free_port()
