"""The component tables' shape: every source, check, sink and judge is one row of it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from monitor.config import Settings
from monitor.telemetry import Metrics

# Every source, check, sink and judge is one row of the same shape: its name, whether the
# settings turn it on, and how it is built. A component's module owns its construction
# (``from_config``) and is imported only when its row is built.

T = TypeVar("T")


@dataclass(frozen=True)
class Component(Generic[T]):
    """One row of a component table."""

    name: str
    configured: Callable[[Settings], bool]
    build: Callable[[Settings, Metrics | None], T]


def from_config(target: str) -> Callable[[Settings, Metrics | None], Any]:
    """Builds ``"module:Class"`` with its ``from_config(settings, metrics)``, importing the
    module only then (the Kafka client and the SDKs cost hundreds of milliseconds)."""

    def build(settings: Settings, metrics: Metrics | None) -> Any:
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name).from_config(settings, metrics)

    return build


def configured(
    table: Sequence[Component[T]], settings: Settings, metrics: Metrics | None
) -> list[T]:
    """Every row of ``table`` the settings turn on, built, in table order."""
    return [row.build(settings, metrics) for row in table if row.configured(settings)]
