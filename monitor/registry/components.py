"""The component tables' shape: every source, check, sink and judge is one row of it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from monitor.config import Settings
from monitor.telemetry import Metrics

# Every source, check, sink and judge is one row of the same shape, in the OpenTelemetry
# Collector's: its kind and name, the class of its own configuration, how that configuration
# is read from the settings (None: the settings leave it off — the rule that turns a
# component on is written once, here), and its factory, which builds it from that object
# alone. The table is the only place that reads ``Settings`` for a component: no source,
# sink or judge module imports the settings module. A component's factory is fetched only
# when its row is built (``load``); a module imported with the table (one that defines its
# configuration object beside its class) keeps its SDK's import inside the class, so a
# component that is off costs no SDK import (``tests/unit/test_imports.py``).

Kind = Literal["check", "source", "sink", "judge"]
C = TypeVar("C")
T = TypeVar("T")

# A factory: the component from its configuration (and the daemon's metrics, when it counts)
Make = Callable[[C, Metrics | None], T]


@dataclass(frozen=True)
class Component(Generic[C, T]):
    """One row of a component table."""

    kind: Kind
    name: str
    config: type[C]  # the class of the component's own configuration
    read: Callable[[Settings], C | None]  # that configuration in the settings; None: off
    load: Callable[[], Make[C, T]]  # the factory, its module imported only now
    # A sink that writes outside this process (files, topics, a collector): the daemon's
    # outputs, which a command run with the daemon's config must leave alone (``replay`` and
    # ``rescore`` write only where their own options say). Unless a row says otherwise, it
    # does: a new sink is kept out of commands until its row says it is safe.
    writes_outside: bool = True

    def build(self, settings: Settings, metrics: Metrics | None) -> T | None:
        """The component as ``settings`` configure it, or None when they leave it off."""
        config = self.read(settings)
        return None if config is None else self.load()(config, metrics)


def configured(
    table: Sequence[Component[Any, T]], settings: Settings, metrics: Metrics | None
) -> list[T]:
    """Every component of ``table`` the settings turn on, built, in table order."""
    return [made for row in table if (made := row.build(settings, metrics)) is not None]
