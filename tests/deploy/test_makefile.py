"""The Makefile as a new user meets it: `make run` on a clean clone."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_first_make_run_says_it_is_installing_before_anything_else(tmp_path: Path) -> None:
    """With no virtualenv yet, the first thing `make run` prints is what it is doing and for
    how long (the install is otherwise a minute of silence); a dry run shows the order."""
    venv = tmp_path / "venv"
    done = subprocess.run(["make", "-n", "-C", str(ROOT), "run", f"VENV={venv}"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [x for x in done.stdout.splitlines() if not x.startswith("make")]
    assert lines[0].startswith('echo "installing ragmon and its dependencies'), lines[:3]
    assert not venv.exists()
