"""What the daemon's log shows of the libraries' warnings."""

from __future__ import annotations

import inspect
import logging

import kafka.coordinator.base
import pytest
import structlog
from kafka import errors

from monitor.core import log


def test_a_fresh_groups_coordinator_lookup_is_not_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """kafka-python's coordinator_dead warning, with the arguments it passes, for the two
    answers of a fresh group's start stays out of the log; another reason still shows."""
    source = inspect.getsource(kafka.coordinator.base.BaseCoordinator.coordinator_dead)
    message = "Marking the coordinator dead (node %s) for group %s: %s."
    assert message in source  # the library still says it this way
    root = logging.getLogger()
    saved = root.handlers[:], root.level, structlog.get_config()
    try:
        log.configure("info", "json")
        logger = logging.getLogger("kafka.coordinator.base")
        logger.warning(message, 1, "g", errors.NotCoordinatorError())
        logger.warning(message, 1, "g", errors.CoordinatorNotAvailableError())
        assert capsys.readouterr().err == ""
        logger.warning(message, 1, "g", errors.RequestTimedOutError())
        assert "RequestTimedOutError" in capsys.readouterr().err
        log.configure("info", "json")  # configured twice: still one filter
        assert len(logger.filters) == 1
    finally:
        root.handlers, root.level = saved[0], saved[1]
        structlog.configure(**saved[2])  # not left writing to this test's captured stderr
