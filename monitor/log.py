"""structlog set-up: JSON lines in production, readable console output on a TTY."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(level: str = "info", fmt: str = "auto") -> None:
    """Lifecycle and failures only; ragmon never logs one line per trace."""
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
    handler = logging.StreamHandler(sys.stderr)
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
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
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
