"""Every topic the daemon reads or writes is checked at start against the real broker: the
missing ones are named in one line, with the setting that names each, and the daemon exits 2
(it used to start, log "Topic ... not found in cluster metadata" about ten times a second and
exit 1 after some 36 s with a traceback)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.integration.kafka_support import Daemon, bootstrap, create_topic


def _ended(daemon: Daemon, timeout: float) -> tuple[int, list[str], float]:
    assert daemon.proc is not None
    t0 = time.monotonic()
    daemon.proc.wait(timeout=timeout)
    took = time.monotonic() - t0
    daemon._reap(5)
    lines = [x for x in daemon.stderr[-1].splitlines() if x.strip()]
    return daemon.proc.returncode, lines, took


def test_missing_output_topics_are_named_in_one_line_at_start(tmp_path: Path) -> None:
    """The source topic exists; the dead-letter topic, golden.topic and sessions.topic do
    not: one line names the three with their settings, exit 2, within seconds."""
    topic = create_topic(1)
    daemon = Daemon(tmp_path, topic, "g-missing-out",
                    RAGMON_OUTPUT__DEAD_LETTERS_TOPIC="no-such-dlq",
                    RAGMON_GOLDEN__TOPIC="no-such-golden",
                    RAGMON_SESSIONS__TOPIC="no-such-turns",
                    RAGMON_SESSIONS__LATENESS_SECONDS="60").start()  # fmt: skip
    code, lines, took = _ended(daemon, 60)
    print(f"\nmissing output topics: exit {code} in {took:.1f} s")
    said = [x for x in lines if not x.startswith("{")]
    assert (code, said) == (2, [
        "ragmon run: topic(s) no-such-turns (sessions.topic), no-such-dlq "
        "(output.dead_letters_topic), no-such-golden (golden.topic) do not exist on "
        f"{bootstrap()} (ragmon does not create topics)"])  # fmt: skip
    assert not any("not found in cluster metadata" in x for x in lines)
    assert took < 15


def test_a_missing_dead_letter_topic_alone_is_named(tmp_path: Path) -> None:
    """Only the dead-letter topic is missing: it is named, exit 2, nothing consumed."""
    topic = create_topic(1)
    daemon = Daemon(tmp_path, topic, "g-missing-dlq",
                    RAGMON_OUTPUT__DEAD_LETTERS_TOPIC="no-such-dlq-2").start()  # fmt: skip
    code, lines, took = _ended(daemon, 60)
    assert code == 2
    assert lines[-1] == (
        f"ragmon run: topic(s) no-such-dlq-2 (output.dead_letters_topic) do not exist on "
        f"{bootstrap()} (ragmon does not create topics)"
    )
    assert took < 15
