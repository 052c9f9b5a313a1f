"""Log lines stay whole when several processes write them to one stream at once (the
workers of ``run --workers`` and their parent share its stderr)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

# Each child logs LINES events of about 20 KB (past a pipe's 4 KB atomic write) through the
# daemon's logging set-up, structlog's and the standard library's, on a stderr it shares.
CHILD = """
import logging, sys, structlog
from monitor.core import log, logwriter
logwriter.share({lock})
log.configure("info", "json")
logger = structlog.get_logger("ragmon")
for i in range({lines}):
    logger.info("event", worker={worker}, i=i, pad="x" * 20000)
    logging.getLogger("kafka").warning("library %s %s %s", {worker}, i, "y" * 20000)
"""
WORKERS, LINES = 8, 40


def test_many_processes_logging_at_once_write_whole_lines() -> None:
    """Eight processes writing 80 lines each to one pipe at once, unbuffered as in the
    image: every line read back is one JSON object, and none is missing."""
    with tempfile.TemporaryFile() as lock:
        fd = lock.fileno()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        read, write = os.pipe()
        children = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD.format(lock=fd, lines=LINES, worker=w)],
                stdout=subprocess.DEVNULL,
                stderr=write,
                pass_fds=(fd,),
                env=env,
            )
            for w in range(WORKERS)
        ]
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            text = pipe.read()
        assert [c.wait(60) for c in children] == [0] * WORKERS
    lines = text.splitlines()
    seen = set()
    for line in lines:
        event = json.loads(line)  # a glued or torn line does not parse
        seen.add((event.get("worker"), event.get("i"), event["event"][:30]))
    assert len(lines) == 2 * WORKERS * LINES
    assert len(seen) == 2 * WORKERS * LINES
