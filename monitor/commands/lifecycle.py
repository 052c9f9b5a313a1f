"""The daemon's lifecycle: signal handlers, the shutdown watchdog, closing its parts."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol

from structlog.typing import FilteringBoundLogger

from monitor.commands.signals import StopOnSignal
from monitor.core.errors import EXIT_FAIL


class _Closes(Protocol):
    def close(self) -> None: ...


class Part(_Closes, Protocol):
    """A part the daemon starts once the pipeline runs (the review page, its own probes)
    and closes at the end."""

    def start(self) -> None:
        """Start it (after the pipeline has started)."""


def _close_all(parts: Sequence[_Closes]) -> None:
    for part in parts:
        part.close()


def _install_signal_handlers(
    stop: threading.Event, budget: float, log: FilteringBoundLogger
) -> StopOnSignal:
    """First SIGTERM/SIGINT: stop polling, finish, commit, exit within ``budget`` seconds.
    A second SIGINT exits at once. Acted on off the handler (``commands.signals``: a
    handler that logs can wait on the log writer's lock its own thread holds)."""

    def on_stop(name: str) -> None:
        log.info("stopping", signal=name, budget_seconds=budget)
        _start_watchdog(budget, log)

    return StopOnSignal(stop, on_stop, second_sigint_exits=True).install()


def _start_watchdog(budget: float, log: FilteringBoundLogger) -> None:
    """Exit the process (status 1) if it is still running ``budget`` seconds from now."""
    watchdog = threading.Timer(budget, _overrun, args=(log,))
    watchdog.daemon = True
    watchdog.start()


def _overrun(log: FilteringBoundLogger) -> None:
    log.error("shutdown_budget_exceeded")
    os._exit(EXIT_FAIL)
