"""Log lines written whole, however many threads and processes share the stream.

``print(line, file=sys.stderr)`` writes the line and its newline in two calls, and with
``PYTHONUNBUFFERED`` (set in the image) each call is a write of its own: two processes that
share the stream (the workers of ``run --workers`` and their parent) then glue one line onto
another (``…}{"signal": …}``), and a pipe keeps only writes of up to ``PIPE_BUF`` bytes
(4,096 on Linux) whole even when each line is one call. So each line here is one write of
the line and its newline, under a lock every writer holds: a thread lock within the process
and, once ``share`` has named one, a POSIX record lock (``fcntl.lockf``) on a file the parent
shares with its workers — such locks belong to a process, so the processes that inherited the
one file still exclude one another, and a process that dies lets go of its lock.
"""

from __future__ import annotations

import fcntl
import logging
import sys
import threading
from typing import TextIO

_thread_lock = threading.Lock()
_shared: list[int] = []  # the file descriptor locked across processes, once shared


def share(fd: int) -> None:
    """From now on every line is written under a record lock on ``fd`` too (a file the
    processes writing to one stream all hold open)."""
    _shared[:] = [fd]


def write_line(stream: TextIO, line: str) -> None:
    """``line`` and a newline to ``stream`` as one write, flushed, under the writers' lock."""
    with _thread_lock:
        fd = _shared[0] if _shared else None
        if fd is not None:
            fcntl.lockf(fd, fcntl.LOCK_EX)
        try:
            stream.write(line + "\n")
            stream.flush()
        finally:
            if fd is not None:
                fcntl.lockf(fd, fcntl.LOCK_UN)


class LineLogger:
    """structlog's logger: each rendered event one whole line on ``stream`` (``None``: the
    standard error of the moment the line is written, as ``print`` finds it — a stream taken
    once at configuration would outlive a replaced ``sys.stderr``, as in a test's capture)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def msg(self, message: str) -> None:
        """Write ``message`` as one line."""
        write_line(self.stream if self.stream is not None else sys.stderr, message)

    log = debug = info = warn = warning = msg
    fatal = failure = err = error = critical = exception = msg


class LineLoggerFactory:
    """structlog's logger factory of ``LineLogger`` on one stream."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def __call__(self, *args: object) -> LineLogger:
        """A logger on the stream (structlog passes the logger's name: one stream for all)."""
        return LineLogger(self.stream)


class LineHandler(logging.StreamHandler[TextIO]):
    """The standard library's handler (for kafka-python's and the SDKs' records): each
    formatted record one whole line, as structlog's."""

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` as one line; a failed write is logging's to report."""
        try:
            write_line(self.stream, self.format(record))
        except Exception:  # logging's own rule: a failed emit is reported, never raised
            self.handleError(record)
