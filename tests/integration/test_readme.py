"""The README's quick-start commands and the examples' commands, run as written from a
copy of the repository layout, so the docs and the code cannot drift apart."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def sh_blocks(path: Path) -> list[list[str]]:
    """The command lines of each ```sh block (comments and blank lines dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    out = []
    for block in blocks:
        lines = [line.split("  #")[0].strip() for line in block.splitlines()]
        out.append([line for line in lines if line and not line.startswith("#")])
    return out


def quick_start() -> list[str]:
    """The block under "## Commands" that starts by activating the virtualenv."""
    for block in sh_blocks(ROOT / "README.md"):
        if block and block[0].startswith(". .venv/bin/activate"):
            return block[1:]
    raise AssertionError("README has no quick-start block starting with '. .venv/bin/activate'")


def examples() -> list[str]:
    (block,) = sh_blocks(ROOT / "examples" / "README.md")
    return block


@pytest.mark.parametrize("command", [*quick_start(), *examples()])
def test_documented_command_runs_as_written(command: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if "traces.jsonl" in command and "examples/" not in command:
        # commands that read what an earlier line of the block wrote
        (tmp_path / "traces.jsonl").write_bytes((ROOT / "examples" / "traces.jsonl").read_bytes())
    result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, f"{command}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr
