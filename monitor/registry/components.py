"""The component tables' shape: every source, check, sink and judge is one row of it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from monitor.config import Settings
from monitor.telemetry import Metrics

# Every source, check, sink and judge is one row of the same shape: its name and how it is
# built, or None when the settings leave it off. The rule that turns a component on is
# written once, where it is built: a check's in its row (``checks.enabled``), a source's in
# its row (``source.type`` names its section), a sink's in its ``from_config`` (which knows
# its section and returns None without it). A component's module owns its construction and
# is imported only when its row is built; a module whose component is often off keeps its
# SDK's import behind the rule (``tests/unit/test_imports.py``).

T = TypeVar("T")

Build = Callable[[Settings, Metrics | None], T | None]


@dataclass(frozen=True)
class Component(Generic[T]):
    """One row of a component table: ``build`` returns the component, or None when the
    settings leave it off."""

    name: str
    build: Build[T]
    # A sink that writes outside this process (files, topics, a collector): the daemon's
    # outputs, which a command run with the daemon's config must leave alone (``replay`` and
    # ``rescore`` write only where their own options say). Unless a row says otherwise, it
    # does: a new sink is kept out of commands until its row says it is safe.
    writes_outside: bool = True


def from_config(target: str) -> Build[T]:
    """Builds ``"module:Class"`` with its ``from_config(settings, metrics)`` (the table's
    kind of component, or None when the settings leave it off), importing the module only
    then."""

    def build(settings: Settings, metrics: Metrics | None) -> T | None:
        module, _, name = target.partition(":")
        cls = getattr(importlib.import_module(module), name)
        return cast("T | None", cls.from_config(settings, metrics))

    return build


def configured(
    table: Sequence[Component[T]], settings: Settings, metrics: Metrics | None
) -> list[T]:
    """Every component of ``table`` the settings turn on, built, in table order."""
    return [made for row in table if (made := row.build(settings, metrics)) is not None]
