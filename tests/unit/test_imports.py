"""Import weight: the core does not load the SDKs of optional parts."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("anthropic", "kafka", "opentelemetry.exporter", "opentelemetry.sdk")


@pytest.mark.parametrize(
    "module",
    ["monitor.pipeline", "monitor.registry", "monitor.commands.cli", "monitor.commands.dispatch"],
)
def test_importing_the_core_loads_no_optional_sdk(module: str) -> None:
    """Each SDK is imported where its part is built (fresh interpreter: nothing cached)."""
    code = (
        f"import sys, {module}\n"
        f"print(' '.join(m for m in {HEAVY!r} "
        "if any(k == m or k.startswith(m + '.') for k in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"


def test_the_command_line_parses_before_it_imports_the_pipeline() -> None:
    """`ragmon --version` and `--help` import neither the pipeline nor pydantic."""
    code = (
        "import sys, monitor.commands.cli\n"
        "print(sorted(m for m in ('monitor.pipeline', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_parsed_command_has_one_runner() -> None:
    """The parser (light, ``monitor.commands.cli``) and the runner table
    (``monitor.commands.dispatch.COMMANDS``) name the same commands."""
    import argparse

    from monitor.commands.cli import build_parser
    from monitor.commands.dispatch import COMMANDS

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(COMMANDS)
