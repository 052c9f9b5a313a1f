"""No silent omission: every check, source and sink the component packages define has its
row in the component table (``monitor.components``; a check's row is derived from
``CHECK_TYPES``, the checks' own list) — a command's own part a row of ``COMMAND``, read from
the classes its factory builds — or is one of the two test doubles named below; and every
configuration section a source or sink module defines is a row's, so the settings mount it.
Before, a check left out of ``CHECK_TYPES`` or a sink left out of its row passed every test
and silently never ran."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from monitor import components, registry
from monitor.checks import CHECK_TYPES
from monitor.core.model import ConfigSection
from monitor.sources.section import SourceSection

# Built by the tests only, never by the daemon or a command: no row, on purpose. A command's
# own parts are not listed here: they are the rows of ``components.COMMAND``.
TEST_DOUBLES = {
    "monitor.sources.files:ListSource": "the test double of every pipeline test",
    "sinks.memory:InMemorySink": "the test double of every pipeline test",
}


def _modules(package: str) -> list[ModuleType]:
    root = importlib.import_module(package)
    found = [root]
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if "._native" in info.name or info.name.endswith("_native"):
            continue  # the compiled build's extension modules
        found.append(importlib.import_module(info.name))
    return found


def _defined(modules: list[ModuleType]) -> list[tuple[str, type]]:
    """Every class defined in ``modules`` (not imported into them, not a protocol that
    declares the shape), as ``module:Class``."""
    out = []
    for module in modules:
        for name, cls in vars(module).items():
            if (inspect.isclass(cls) and cls.__module__ == module.__name__
                    and not getattr(cls, "_is_protocol", False)):  # fmt: skip
                out.append((f"{module.__name__}:{name}", cls))
    return out


def is_check(cls: type) -> bool:
    """A check's class, by the ``CheckType`` protocol's members."""
    return all(hasattr(cls, a) for a in ("name", "evidence", "options", "output", "measures"))


def is_source(cls: type) -> bool:
    """A source, by the ``Source`` protocol's own members (not its listener's)."""
    return (
        not inspect.isabstract(cls)
        and all(callable(getattr(cls, a, None)) for a in ("start", "poll", "commit", "close"))
        and isinstance(getattr(cls, "name", None), str)
        and not cls.__name__.startswith("_")
    )


def is_sink(cls: type) -> bool:
    """A sink, by the ``Sink`` protocol's members."""
    return all(callable(getattr(cls, a, None))
               for a in ("start", "write", "write_dead_letter", "flush", "close")) and (
        isinstance(getattr(cls, "name", None), str))  # fmt: skip


def missing_checks(modules: list[ModuleType]) -> list[str]:
    rows = set(CHECK_TYPES)
    return [path for path, cls in _defined(modules) if is_check(cls) and cls not in rows]


def built_by(rows: tuple[registry.Component[Any, Any], ...]) -> set[str]:
    """The ``module:Class`` each row builds: the class whose ``from_config`` its factory is
    (the row's own ``load``, which imports the component's module), or, for a factory of a
    command's part (a function ``load`` returns), the classes it holds, which ``load``
    imported for it."""
    out = set()
    for row in rows:
        factory = row.load()
        owner = getattr(factory, "__self__", None)
        held = [c.cell_contents for c in getattr(factory, "__closure__", None) or ()]
        classes = [owner] if inspect.isclass(owner) else [c for c in held if inspect.isclass(c)]
        assert classes, f"{row.name}: its factory is no class's from_config and holds no class"
        out |= {f"{cls.__module__}:{cls.__name__}" for cls in classes}
    return out


def command_parts() -> set[str]:
    """What the rows of ``components.COMMAND`` build, and the test doubles."""
    return built_by(components.COMMAND) | set(TEST_DOUBLES)


def missing_sources(modules: list[ModuleType]) -> list[str]:
    rows = built_by(registry.SOURCES) | command_parts()
    return [path for path, cls in _defined(modules) if is_source(cls) and path not in rows]


def missing_sinks(modules: list[ModuleType]) -> list[str]:
    rows = built_by(registry.SINKS) | command_parts()
    return [path for path, cls in _defined(modules) if is_sink(cls) and path not in rows]


def missing_sections(modules: list[ModuleType]) -> list[str]:
    """Configuration sections a component module defines that no row mounts or builds from:
    settings that would never reach their component (the shared ones are the core's)."""
    rows = {c for row in components.TABLE for c in (row.section, row.config)}
    return [path for path, cls in _defined(modules)
            if issubclass(cls, ConfigSection) and cls is not SourceSection
            and cls not in rows]  # fmt: skip


def test_every_check_source_and_sink_has_its_row() -> None:
    checks = missing_checks(_modules("monitor.checks"))
    sources = missing_sources(_modules("monitor.sources"))
    sinks = missing_sinks(_modules("sinks"))
    assert (checks, sources, sinks) == ([], [], [])


def test_every_section_of_a_source_or_sink_module_is_a_rows() -> None:
    assert missing_sections([*_modules("monitor.sources"), *_modules("sinks")]) == []


def test_a_section_without_a_row_is_found(tmp_path: Path) -> None:
    """A source's section whose author wrote no row (so no setting would reach it) is found."""
    package = tmp_path / "forgot_section"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "extra.py").write_text(
        "from monitor.sources.section import SourceSection\n"
        "class ForgottenConfig(SourceSection):\n    kind = 'forgotten'\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        assert missing_sections(_modules(package.name)) == [f"{package.name}.extra:ForgottenConfig"]
    finally:
        sys.path.remove(str(tmp_path))


def test_every_named_exception_still_exists() -> None:
    """The test doubles name classes that exist (a rename would otherwise leave a stale
    exception and hide the renamed class's missing row)."""
    for path in TEST_DOUBLES:
        module, _, name = path.partition(":")
        assert inspect.isclass(getattr(importlib.import_module(module), name, None)), path


def test_the_command_rows_name_their_parts() -> None:
    """Read from ``COMMAND``'s factories: each command's own source and sink."""
    assert {"monitor.sources.files:JsonlSource", "monitor.sources.files:OtlpFileSource",
            "monitor.sources.history:KafkaWindow", "sinks.summary:SummarySink",
            "sinks.openmetrics:OpenMetricsHistorySink", "sinks.tap:TapSink",
            "monitor.judge.estimate:JudgeEstimate"} <= built_by(components.COMMAND)  # fmt: skip


def test_a_command_part_without_a_row_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command's sink whose ``COMMAND`` row is gone (as if never written) is found."""
    modules = _modules("sinks")
    before = missing_sinks(modules)
    kept = tuple(row for row in components.COMMAND if row.name != "summary")
    monkeypatch.setattr(components, "COMMAND", kept)
    assert sorted(set(missing_sinks(modules)) - set(before)) == ["sinks.summary:SummarySink"]


@pytest.mark.parametrize("kind", ["check", "source", "sink"])
def test_a_component_without_a_row_is_found(kind: str, tmp_path: Path) -> None:
    """The walk finds a new component whose author forgot the row (a package written here
    with one check, one source or one sink in the shape of the real ones)."""
    body = {
        "check": "from monitor.checks.context import EmptyContext\n"
                 "class Forgotten(EmptyContext):\n    name = 'forgotten'\n",
        "source": "from monitor.sources.demo import DemoSource\n"
                  "class Forgotten(DemoSource):\n    name = 'forgotten'\n",
        "sink": "from sinks.memory import InMemorySink\n"
                "class Forgotten(InMemorySink):\n    name = 'forgotten'\n",
    }[kind]  # fmt: skip
    package = tmp_path / f"forgot_{kind}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "extra.py").write_text(body)
    sys.path.insert(0, str(tmp_path))
    try:
        modules = _modules(package.name)
        found = {"check": missing_checks, "source": missing_sources, "sink": missing_sinks}[kind]
        assert found(modules) == [f"{package.name}.extra:Forgotten"]
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith(package.name)]:
            del sys.modules[name]
