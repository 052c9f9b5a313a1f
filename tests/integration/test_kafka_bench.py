"""bench/kafka_e2e.py runs against the real broker: on a small topic every part of it (the
bare loop, ragmon in process with its per-stage split, one and two worker processes,
`ragmon run` with one and with two workers) ends
and prints its row. It once broke for weeks unnoticed (it handed the pipeline a decoder the
sessions' stage could not ask at a rebalance); its figures are not asserted here, only that
it still measures what it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.integration.kafka_support import bootstrap

ROOT = Path(__file__).resolve().parents[2]


def test_the_end_to_end_bench_runs_every_part() -> None:
    done = subprocess.run(
        [sys.executable, "bench/kafka_e2e.py", "--bootstrap", bootstrap(), "--records", "300",
         "--passes", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for row in ("(a) bare kafka-python consumer loop", "(b) ragmon end to end",
                "split of one pass", "decode", "checks", "sinks: write", "pipeline (the rest)",
                "(c) ragmon, one worker process", "(c) ragmon, two worker processes",
                "(d) ragmon run (one process)", "(d) ragmon run --workers 2"):  # fmt: skip
        assert row in out, out
