"""Import weight: the core does not load the SDKs of optional parts."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("anthropic", "kafka", "opentelemetry.exporter", "opentelemetry.sdk")


@pytest.mark.parametrize(
    "module",
    ["monitor.pipeline", "monitor.registry", "monitor.commands.cli", "monitor.commands.run"],
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


def test_the_default_sinks_load_no_optional_sdk() -> None:
    """A sink that is off costs no import: each sink's module keeps its SDK behind the rule
    that turns it on (``from_config`` returns None first)."""
    code = (
        "import sys\n"
        "from prometheus_client import CollectorRegistry\n"
        "from monitor import registry\n"
        "from monitor.config import Settings\n"
        "sinks = registry.build_sinks(Settings(), registry.build_metrics(CollectorRegistry()))\n"
        "assert [s.name for s in sinks] == ['prometheus'], sinks\n"
        f"print(' '.join(m for m in {HEAVY!r} "
        "if any(k == m or k.startswith(m + '.') for k in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the default sinks import {out.stdout.strip()}"


def test_the_command_line_parses_before_it_imports_the_pipeline() -> None:
    """`ragmon --version` and `--help` import neither the pipeline nor pydantic."""
    code = (
        "import sys, monitor.commands.cli\n"
        "print(sorted(m for m in ('monitor.pipeline', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_command_of_the_table_parses_and_runs() -> None:
    """The one command table (``monitor.commands.cli.COMMANDS``): each row adds its parser
    and names a function that exists."""
    import argparse

    from monitor.commands.cli import COMMANDS, build_parser, runner

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [c.name for c in COMMANDS]
    assert all(callable(runner(c.name)) for c in COMMANDS)


def test_no_module_imports_itself_through_others() -> None:
    """No import circle in ``monitor`` or ``sinks`` (type-checking imports included): no
    module imports one that leads back to it. Asked of grimp, the graph import-linter checks
    its contracts on."""
    import grimp

    graph = grimp.build_graph("monitor", "sinks")
    circles = sorted(
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if imported in graph.modules and graph.chain_exists(importer=imported, imported=module)
    )
    assert circles == [], circles
