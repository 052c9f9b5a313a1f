"""Ragas and DeepEval, run from their own virtualenv, loading ragmon's exports."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("RAGMON_EXPORT_LIBS_PYTHON", ROOT / ".venv-export-libs/bin/python"))


def load(*files: tuple[str, Path]) -> list[dict[str, Any]]:
    """What the real libraries parse from each file, in one process (each library is
    imported once: ~15 s): ``load(("ragas", p1), ("deepeval", p2))`` gives one
    ``{"library", "sample_type", "samples", ...}`` per file."""
    if not PYTHON.exists():
        raise AssertionError(f"{PYTHON} not found: `make export-libs` installs Ragas and DeepEval")
    out = subprocess.run(
        [str(PYTHON), str(Path(__file__).with_name("load.py")),
         *(f"{kind}={path}" for kind, path in files)],
        capture_output=True, text=True, timeout=300,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    loaded: list[dict[str, Any]] = json.loads(out.stdout)
    assert len(loaded) == len(files)
    return loaded
