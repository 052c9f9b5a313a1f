"""Every exception ragmon raises on purpose, in one module that imports nothing.

Startup problems (``StartupError`` and its kinds) end a command with one line on stderr and
exit status 2; the message is written for the person who runs ragmon and names what to fix.
Errors met while running (a judge call that failed, a record that is not OTLP) carry a
bounded ``kind``/``reason`` that becomes a metric label.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2  # process exit statuses


class StartupError(Exception):
    """ragmon cannot start as configured; the message is for people (one line)."""


class ConfigError(StartupError):
    """Configuration that ragmon refuses to start with."""


class SourceError(StartupError):
    """The source cannot start (unreachable broker, missing topic, port in use)."""


class SinkError(StartupError):
    """A sink could not persist what it was given (or could not start)."""


class SinkClosed(Exception):
    """A sink was written to or flushed after ``close`` (a bug in the caller)."""


class SinkFailure(Exception):
    """A sink could not flush after the configured attempts; nothing was committed."""


class JudgeError(Exception):
    """A judgement failed; ``kind`` is a bounded metric label."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class JudgeConfigError(JudgeError):
    """A request the API rejects whatever the trace (401, 403, 404, 400 on the model...)."""


class OtlpDecodeError(Exception):
    """Input that is not OTLP traces; ``reason`` is a bounded label."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def describe(exc: OSError) -> str:
    """An OS error for people: ``No such file or directory: /x/y`` rather than
    ``[Errno 2] No such file or directory: '/x/y'``."""
    what = exc.strerror or str(exc)
    return f"{what}: {exc.filename}" if exc.filename is not None else what
