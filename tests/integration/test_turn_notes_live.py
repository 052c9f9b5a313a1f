"""Replay notes of the conversations' repartition topic on the real broker (issue 70.4,
70.5): a group that ended cleanly (SIGTERM, every pair's line written) is started again, its
two replicas joining one after the other (a rebalance during the catch-up), over one turns
partition holding thousands of open sessions. No line may be written again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.integration.kafka_support import Daemon, create_topic, wait_until
from tests.integration.test_sessions import (
    LATENESS,
    Traffic,
    conversations,
    expected_pairs,
    followups,
)

pytestmark = pytest.mark.integration


def test_a_group_started_again_over_thousands_of_open_sessions_writes_no_line_twice(
    tmp_path: Path,
) -> None:
    """2,000 conversations over four trace partitions, their turns through a turns topic of
    one partition: when the group stops (SIGTERM), every session's last turn is still held
    (the 30-minute window), ~2,000 on the one partition. Before, a note named at most ~747
    turns (then every re-read turn was paired again) and named the turns a replica re-read
    and held only to order the others (a rebalance during the catch-up committed them as
    unfinished): the restarted group wrote lines again."""
    traces, turns = create_topic(4), create_topic(1)
    group = "g-turn-notes"
    env = {"RAGMON_SESSIONS__TOPIC": turns, "RAGMON_SESSIONS__LATENESS_SECONDS": LATENESS,
           "RAGMON_JUDGE__BACKEND": "none"}  # fmt: skip
    convs = conversations(7)
    want = expected_pairs(convs)
    one = Daemon(tmp_path, traces, group, name="one", **env).start()
    two = Daemon(tmp_path, traces, group, name="two", **env).start()
    daemons = [one, two]
    try:
        wait_until(lambda: one.assigned() and two.assigned(), 60, "both replicas assigned")
        traffic = Traffic(traces, convs, seconds=12, seed=7)
        traffic.start()
        assert traffic.done.wait(120)
        wait_until(lambda: set(followups(daemons)[0]) >= want, 180, "every pair's line")
        time.sleep(2)
        first, _ = followups(daemons)
        assert len(first) == len(set(first)) == len(want)
        for daemon in daemons:
            daemon.terminate()
        stopped = time.monotonic()  # every turn arrived before this
        one.start()  # the group again: one replica, then a second during its catch-up
        wait_until(one.assigned, 60, "the first replica assigned")
        time.sleep(1)
        two.start()
        wait_until(two.assigned, 60, "the second replica assigned")
        # A pair paired again holds two turns that arrived before the stop: it is final once
        # the clock of the turns' partition is LATENESS past the stop, which it is when the
        # owner has caught up, within seconds of the last rebalance. Wait for both, with
        # 10 s to spare on each (the restarts above took part of the first already).
        settled = max(stopped + float(LATENESS), time.monotonic()) + 10
        time.sleep(settled - time.monotonic())
    finally:
        for daemon in daemons:
            if daemon.alive():
                daemon.terminate()
    got, torn = followups(daemons)
    again = len(got) - len(set(got))
    print(f"\nturn notes: {len(convs)} conversations, {len(want)} pairs, "
          f"{len(want - set(got))} missed, {again} lines written again, {torn} torn")  # fmt: skip
    assert (want - set(got), set(got) - want, again) == (set(), set(), 0)
