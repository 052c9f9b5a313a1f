"""structlog set-up: JSON lines in production, readable console output on a TTY."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

import structlog

from monitor.core.logwriter import LineHandler, LineLoggerFactory

_level = ["info"]  # as configured last (``held_logs`` shows what it held at debug)


def configure(level: str = "info", fmt: str = "auto") -> None:
    """Lifecycle and failures only; ragmon never logs one line per trace."""
    _level[0] = level
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.types.Processor = (
        structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer()
    )
    # Libraries (kafka-python, the anthropic SDK) log through the standard library: render
    # their warnings the same way, on the same stream.
    formatter = structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
    )
    handler = LineHandler(sys.stderr)  # each line one whole write (core.logwriter)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    # kafka-python's IO loop warns whenever a task waited >100 ms; with CPU-bound checks on
    # the main thread that is GIL scheduling, not a fault, and it would flood the log.
    logging.getLogger("kafka.net.selector").setLevel(logging.ERROR)
    coordinator = logging.getLogger("kafka.coordinator.base")
    if not any(isinstance(f, _CoordinatorMoved) for f in coordinator.filters):
        coordinator.addFilter(_CoordinatorMoved())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=LineLoggerFactory(),  # the stderr of the moment of each line
        cache_logger_on_first_use=False,
    )


class _CoordinatorMoved(logging.Filter):
    """kafka-python warns "Marking the coordinator dead" whenever a broker answers
    NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE: at every fresh group's start (the offsets
    topic is still being created or loaded) and when a coordinator moves. It asks again at
    once; a coordinator that stays away shows as not ready (``/readyz``) and in the source
    metrics. Those two are dropped; any other reason still warns."""

    EXPECTED = frozenset({"NotCoordinatorError", "CoordinatorNotAvailableError"})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or not str(record.msg).startswith(
            "Marking the coordinator dead"
        ):
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(type(a).__name__ in self.EXPECTED for a in args)


class _Held(logging.Filter):
    """Keeps the records of ``library`` (and its children) instead of letting them through;
    the others pass (``held_logs``)."""

    def __init__(self, library: str, limit: int = 200) -> None:
        super().__init__()
        self.library = library
        self.records: list[logging.LogRecord] = []
        self.limit = limit

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        if name != self.library and not name.startswith(self.library + "."):
            return True
        if len(self.records) < self.limit:
            self.records.append(record)
        return False


@contextlib.contextmanager
def held_logs(library: str) -> Iterator[None]:
    """While a client of ``library`` connects (kafka-python retrying an unreachable broker
    logs a dozen lines a second), its log lines are held back: a start that fails says its
    one-line reason alone, a start that succeeds drops them (each retry was the library's
    business). With the log level at debug they are written after all. The filter sits on
    the handler, so lines of the library's own threads are held too."""
    held = _Held(library)
    handlers = logging.getLogger().handlers
    for handler in handlers:
        handler.addFilter(held)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(held)
        if _level[0] == "debug":
            for record in held.records:
                for handler in handlers:
                    handler.handle(record)


class CheckErrors:
    """Logs a check that raised (a bug of ragmon's: ``CheckSuite``'s ``on_error``) once per
    check and exception type, with its traceback; every one is counted in
    ``ragmon_check_errors_total``, so a check that raises on every trace is one log line,
    not one a trace."""

    def __init__(self, event: str = "check_failed") -> None:
        self.event = event
        self.seen: set[tuple[str, str]] = set()

    def __call__(self, check: str, exc: Exception) -> None:
        """Log that ``check`` raised ``exc``, unless it raised this type before."""
        key = (check, type(exc).__name__)
        if key in self.seen:
            return
        self.seen.add(key)
        structlog.get_logger("ragmon.checks").error(
            self.event, check=check, error=f"{key[1]}: {exc}"[:200], exc_info=exc
        )
