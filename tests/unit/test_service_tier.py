"""The service tier runs on two cores (deploy/run-tests.sh): a test that stops the broker every
other test shares must be marked ``exclusive``, so that it runs alone after the rest. This
finds, in the modules of the service tier, every test that stops or restarts the broker
(``broker_down``/``broker_up`` of kafka_support, or the broker's stop script), directly or
through a function of its own module, and says which is not marked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
TIERS = ("integration", "deploy", "browser")
STOPPERS = frozenset({"broker_down", "broker_up"})
STOP_SCRIPT = "kafka-down.sh"


def _stops(node: ast.AST) -> set[str]:
    """The names a function's body calls, and ``STOP_SCRIPT`` when it names the script."""
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
            found.add(inner.func.id)
        elif (
            isinstance(inner, ast.Constant)
            and isinstance(inner.value, str)
            and STOP_SCRIPT in inner.value
        ):
            found.add(STOP_SCRIPT)
    return found


def _marked_exclusive(decorators: list[ast.expr]) -> bool:
    return any("exclusive" in ast.unparse(d) for d in decorators)


def unmarked(source: str) -> list[str]:
    """The test functions of a module's ``source`` that stop the broker, directly or through
    the module's own functions, without the ``exclusive`` marker (on the test or the module)."""
    tree = ast.parse(source)
    functions = {
        n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    module_marked = any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
        and "exclusive" in ast.unparse(n.value)
        for n in tree.body
    )
    calls = {name: _stops(f) for name, f in functions.items()}
    stopping = {name for name, c in calls.items() if c & (STOPPERS | {STOP_SCRIPT})}
    while True:  # through the module's own helpers
        more = {name for name, c in calls.items() if c & stopping} - stopping
        if not more:
            break
        stopping |= more
    return sorted(
        name
        for name in stopping
        if name.startswith("test")
        and not module_marked
        and not _marked_exclusive(functions[name].decorator_list)
    )


def service_modules() -> list[Path]:
    return sorted(p for tier in TIERS for p in (TESTS / tier).rglob("test_*.py"))


@pytest.mark.parametrize("path", service_modules(), ids=lambda p: str(p.relative_to(TESTS)))
def test_every_test_that_stops_the_broker_runs_alone(path: Path) -> None:
    assert unmarked(path.read_text(encoding="utf-8")) == []


def test_the_broker_outage_test_is_found_and_marked() -> None:
    """The one test known to stop the broker is seen as one (the search finds it)."""
    source = (TESTS / "integration" / "test_kafka.py").read_text(encoding="utf-8")
    assert "test_broker_outage_recovers_without_restart" not in unmarked(source)
    unmarked_source = source.replace("@pytest.mark.exclusive", "")
    assert "test_broker_outage_recovers_without_restart" in unmarked(unmarked_source)


def test_a_helper_that_stops_the_broker_makes_its_callers_exclusive() -> None:
    source = (
        "def outage():\n    broker_down()\n\n"
        "def test_a():\n    outage()\n\n"
        "@pytest.mark.exclusive\ndef test_b():\n    outage()\n\n"
        "def test_c():\n    subprocess.run(['bash', 'deploy/kafka/kafka-down.sh'])\n\n"
        "def test_d():\n    pass\n"
    )
    assert unmarked(source) == ["test_a", "test_c"]
    assert unmarked("pytestmark = pytest.mark.exclusive\n" + source) == []
