"""The import contracts (`lint-imports`, [tool.importlinter] in pyproject.toml) cover every
module: a planted import against the architecture in a copy of the tree breaks the build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _tree(tmp: Path) -> Path:
    for part in ("monitor", "sinks"):
        shutil.copytree(
            ROOT / part, tmp / part, ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def _plant(path: Path, line: str) -> None:
    text = path.read_text()
    head, sep, rest = text.partition("from __future__ import annotations\n")
    assert sep, f"{path} has no future import to plant after"
    path.write_text(head + sep + line + "\n" + rest)


def test_the_copied_tree_keeps_every_contract(tmp_path: Path) -> None:
    """The copy itself is clean, so a failure below is the planted import's."""
    result = _lint(_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        # a core module (in no layer of its own) reaching the settings
        ("monitor/core/heap.py", "from monitor import config", "the core imports nothing"),
        # the metrics reaching the pipeline
        ("monitor/telemetry/labels.py", "import monitor.pipeline", "the metrics read only"),
        # the checkpoint reaching a sink
        ("monitor/checkpoint.py", "import sinks.jsonl", "the checkpoint knows"),
        # a check doing I/O through the log writer
        ("monitor/checks/refusal.py", "import monitor.core.logwriter", "pure"),
    ],
)
def test_a_planted_import_breaks_its_contract(
    tmp_path: Path, module: str, planted: str, contract: str
) -> None:
    """Each contract fails the build on an import its rule forbids, naming the contract."""
    tree = _tree(tmp_path)
    _plant(tree / module, planted)
    result = _lint(tree)
    assert result.returncode != 0
    assert contract in result.stdout


def test_a_check_may_share_the_pure_pii_rules(tmp_path: Path) -> None:
    """The PII patterns are pure text rules: a check may import them."""
    tree = _tree(tmp_path)
    _plant(tree / "monitor/checks/refusal.py", "import monitor.core.pii  # noqa: F401")
    result = _lint(tree)
    assert result.returncode == 0, result.stdout
