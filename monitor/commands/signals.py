"""Stop signals (SIGTERM, SIGINT) acted on away from the signal handler.

A Python signal handler runs on the main thread between two of that thread's bytecodes,
wherever it is: inside the log writer's lock (``core.logwriter``), inside an Event's
condition, inside ``threading``'s own lock while it starts a thread. A handler that takes
such a lock waits for its own thread for good. ``ragmon run --workers`` hung that way on an
Event (its supervisor polled ``stop.wait``; 6fa02c2); a handler that logs hangs the same way
when the signal lands in the middle of a log line, and one that starts the watchdog's timer
when it lands while the main thread starts a thread.

So the handler here takes no lock. The interpreter's own C-level handler writes the signal's
number to a socket (``signal.set_wakeup_fd``: "the signal number is written as a single byte
into the fd", from C, before any Python code runs), and a thread of this module reads it and
does the rest there: sets the stop event, then ``on_stop`` (log, start the watchdog). On that
thread a lock the main thread holds is only waited for. The Python-level handler, which must
exist or the signal's default action applies, only counts: a second SIGINT may exit at once
through ``os._exit``, which takes no lock either.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
EXIT_INTERRUPTED = 130  # a shell's status for a process ended by SIGINT


class StopOnSignal:
    """SIGTERM or SIGINT set ``stop`` and call ``on_stop(signal name)`` once, from a thread
    of its own. ``second_sigint_exits``: a second SIGINT ends the process at once (status
    130). ``install`` and ``close`` are the main thread's (``signal`` allows no other)."""

    def __init__(
        self,
        stop: threading.Event,
        on_stop: Callable[[str], None] = lambda name: None,
        *,
        second_sigint_exits: bool = False,
    ) -> None:
        self.stop = stop
        self.on_stop = on_stop
        self.second_sigint_exits = second_sigint_exits
        self._received = 0  # written by the handler only (the main thread)
        self._reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)  # set_wakeup_fd requires a non-blocking fd
        self._previous: dict[int, object] = {}
        self._previous_fd: int | None = None  # None: not installed
        self._thread = threading.Thread(target=self._watch, name="ragmon-signals", daemon=True)

    def install(self) -> StopOnSignal:
        """Take SIGTERM and SIGINT (from the main thread); returns itself."""
        self._thread.start()
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno())
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def close(self) -> None:
        """Give the signals back to the handlers before ``install`` and end the thread."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()
        if self._previous_fd is not None:
            signal.set_wakeup_fd(self._previous_fd)
            self._previous_fd = None
        self._writer.close()  # the reader sees the end: the thread returns
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self._reader.close()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        # No lock in here (the module's docstring): a count and, at most, os._exit.
        self._received += 1
        if self.second_sigint_exits and signum == signal.SIGINT and self._received > 1:
            os._exit(EXIT_INTERRUPTED)

    def _watch(self) -> None:
        stopped = False
        while True:
            try:
                data = self._reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if stopped or signum not in STOP_SIGNALS:
                    continue
                stopped = True
                self.stop.set()
                self.on_stop(signal.Signals(signum).name)
