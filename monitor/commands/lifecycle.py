"""The daemon's lifecycle: signal handlers, the shutdown watchdog, closing its parts."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Protocol

from structlog.typing import FilteringBoundLogger

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
) -> None:
    """First SIGTERM/SIGINT: stop polling, finish, commit, exit within ``budget`` seconds.
    A second SIGINT exits at once."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            if signum == signal.SIGINT:
                os._exit(130)
            return
        stop.set()
        log.info("stopping", signal=signal.Signals(signum).name, budget_seconds=budget)
        _start_watchdog(budget, log)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def _start_watchdog(budget: float, log: FilteringBoundLogger) -> None:
    """Exit the process (status 1) if it is still running ``budget`` seconds from now."""
    watchdog = threading.Timer(budget, _overrun, args=(log,))
    watchdog.daemon = True
    watchdog.start()


def _overrun(log: FilteringBoundLogger) -> None:
    log.error("shutdown_budget_exceeded")
    os._exit(EXIT_FAIL)
