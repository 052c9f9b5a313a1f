"""The local broker scripts, as a user without ragmon's virtualenv meets them."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_kafka_up_without_kafka_python_says_so_at_once(tmp_path: Path) -> None:
    """Run with a Python that cannot import kafka-python, the script says what is missing
    in one line and exits 1 at once, instead of waiting out its readiness timeout."""
    bare = tmp_path / "python"
    bare.write_text('#!/bin/sh\nexec python3 -S "$@"\n')  # -S: no site-packages
    bare.chmod(0o755)
    env = {**os.environ, "PYTHON": str(bare), "LOCAL_KAFKA_DIR": str(tmp_path / "kafka"),
           "LOCAL_KAFKA_PORT": "29999"}  # fmt: skip
    t0 = time.monotonic()
    done = subprocess.run(["bash", str(ROOT / "deploy/kafka/kafka-up.sh")], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1 and time.monotonic() - t0 < 10
    (line,) = done.stderr.strip().splitlines()
    assert "cannot import kafka-python" in line


def test_produce_script_without_a_broker_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "LOCAL_KAFKA_PORT": "29998"}
    done = subprocess.run(["python", str(ROOT / "deploy/kafka/produce.py"), "t"], input="{}\n",
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1 and "no broker at 127.0.0.1:29998" in done.stderr
    assert "Traceback" not in done.stderr
