"""The golden-row segment sink under kill -9: no torn rows, no duplicate rows."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from monitor.golden.stored import TMP_PREFIX, load_rows, segments

WRITER = """
import sys
from pathlib import Path
from monitor.sources import demo
from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, RagTrace
from sinks.golden import GoldenRowSink

sink = GoldenRowSink(Path(sys.argv[1]), segment_max_bytes=4096)
sink.start()
suite = CheckSuite()
i = int(sys.argv[2])
while True:
    trace = RagTrace.from_data(demo.generate(i % 3000))
    sink.write(Evaluation(trace=trace, checks=suite(trace)))
    sink.flush()  # one atomic segment rewrite per trace: many chances to be killed mid-write
    i += 1
"""


def test_kill_during_writes_leaves_only_whole_rows(tmp_path: Path) -> None:
    """Five kill -9s at random moments; every segment line is a whole row, no segment has
    an id twice, a restarted sink cleans up and reloads every row."""
    rng = random.Random(3)
    for trial in range(5):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(trial * 500)])
        time.sleep(rng.uniform(1.0, 2.5))
        proc.kill()
        proc.wait(timeout=10)
        files = segments(tmp_path, "golden")
        assert files, "nothing was written"
        for path in files:
            ids = []
            for line in path.read_text().splitlines():
                row = json.loads(line)  # a torn row would not parse
                assert row["ragmon"]["status"] == "needs_review"
                ids.append(row["id"])
            assert len(ids) == len(set(ids)), f"duplicate row in {path.name}"
    rows = load_rows(tmp_path)
    assert rows
    # A restart removes half-written temporary files and continues from the rows on disk.
    from sinks.golden import GoldenRowSink

    sink = GoldenRowSink(tmp_path)
    sink.start()
    assert not list(tmp_path.glob(f"{TMP_PREFIX}*"))
    assert set(sink._rows) == set(rows)
