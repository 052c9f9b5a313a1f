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


def test_two_first_starts_fetch_the_jars_once_and_never_see_half_a_cache(tmp_path: Path) -> None:
    """Two `kafka-up` at once on an empty jar cache: the second waits for the first's fetch
    (a lock), the fetch lands whole (a scratch directory renamed into place), and Maven runs
    once. The fake `mvn` is slow, so without the lock both would fetch into one directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "mvn-calls"
    mvn = bin_dir / "mvn"
    mvn.write_text(
        "#!/bin/sh\n"
        f'echo x >> "{calls}"\n'
        'for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#*=}";; esac; done\n'
        'mkdir -p "$out" && sleep 2 && echo jar > "$out/kafka.jar"\n'
    )
    mvn.chmod(0o755)
    cache = tmp_path / "cache" / "kafka"
    runs = []
    for n in (1, 2):
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
               "LOCAL_KAFKA_CACHE": str(cache), "LOCAL_KAFKA_DIR": str(tmp_path / f"k{n}"),
               "LOCAL_KAFKA_PORT": str(29980 + 2 * n), "LOCAL_KAFKA_WAIT": "1"}  # fmt: skip
        runs.append(subprocess.Popen(["bash", str(ROOT / "deploy/kafka/kafka-up.sh")], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True))  # fmt: skip
    for run in runs:  # the fake jars start no broker: both end once past the fetch
        run.communicate(timeout=120)
    assert calls.read_text().count("x") == 1
    assert (cache / ".complete").exists() and (cache / "lib" / "kafka.jar").read_text() == "jar\n"
    assert [p.name for p in cache.parent.iterdir() if ".fetch." in p.name] == []
