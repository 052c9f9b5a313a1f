"""The README's quick-start commands and the examples' commands, run as written from a
copy of the repository layout, so the docs and the code cannot drift apart."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def sh_blocks(path: Path) -> list[list[str]]:
    """The command lines of each ```sh block (comments and blank lines dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    out = []
    for block in blocks:
        lines = [line.split("  #")[0].strip() for line in block.splitlines()]
        out.append([line for line in lines if line and not line.startswith("#")])
    return out


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def documented(prefix: str) -> list[str]:
    """The command block that starts with ``prefix``, wherever the README and the docs pages
    hold it; where several do, they must agree (one block, shown in two places)."""
    found = [block for path in DOCS for block in sh_blocks(path)
             if block and block[0].startswith(prefix)]  # fmt: skip
    assert found, f"no documented block starts with {prefix!r} (README.md, docs/)"
    assert all(b == found[0] for b in found), f"the blocks that start with {prefix!r} differ"
    return found[0]


def quick_start() -> list[str]:
    """The five-minute block that starts by activating the virtualenv."""
    return documented(". .venv/bin/activate")[1:]


def examples() -> list[str]:
    (block,) = sh_blocks(ROOT / "examples" / "README.md")
    return block


@pytest.mark.parametrize("command", [*quick_start(), *examples()])
def test_documented_command_runs_as_written(command: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if "traces.jsonl" in command and "examples/" not in command:
        # commands that read what an earlier line of the block wrote
        (tmp_path / "traces.jsonl").write_bytes((ROOT / "examples" / "traces.jsonl").read_bytes())
    result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, f"{command}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr


def test_first_steps_run_in_order(tmp_path: Path) -> None:
    """Every command block of docs/first-steps.md, in the page's order, as written, from a
    folder holding the examples: each exits 0 without a traceback (the blocks a reader runs
    by hand; the daemon and the review server are shown as text)."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    commands = [c for block in sh_blocks(ROOT / "docs" / "first-steps.md") for c in block]
    assert len(commands) >= 6
    for command in commands:
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=180)  # fmt: skip
        assert result.returncode == 0, f"{command}\n{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr
    assert (tmp_path / "golden").is_dir() and any((tmp_path / "golden").glob("*.jsonl"))


def kafka_quick_start() -> list[str]:
    """The Kafka block of the README and of "Consuming from Kafka" (`make kafka-up` first)."""
    return documented("make kafka-up")


def test_the_readme_is_a_front_page_whose_links_resolve() -> None:
    """README.md stays a front page (the rest is the docs site, whose own links `make docs`
    checks with warnings as errors): at most 300 lines, and every relative link in it names
    a file that exists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [x for x in links if not re.match(r"[a-z]+://", x)]
    assert local, "the README links to no page of the docs"
    missing = [x for x in local if not (ROOT / x).exists()]
    assert not missing, missing


@pytest.mark.integration
def test_kafka_quick_start_runs_as_written_on_a_non_default_port(tmp_path: Path) -> None:
    """The test broker listens on LOCAL_KAFKA_PORT (not 9092): the README's daemon and
    producer lines, as written, find it through that variable alone and the daemon
    evaluates what the producer sent. (`make kafka-up` itself is what started the broker.)"""
    import json

    from tests.integration.conftest import free_port
    from tests.integration.kafka_support import bootstrap, wait_until

    port = bootstrap().rsplit(":", 1)[1]  # the test broker (deploy/run-tests.sh: 19092)
    assert port != "9092"
    block = kafka_quick_start()
    run_line = next(line for line in block if line.startswith("ragmon run"))
    produce_line = next(line for line in block if "produce.py" in line)
    shutil.copytree(ROOT / "deploy", tmp_path / "deploy")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["LOCAL_KAFKA_PORT"] = port  # as a user who moved the broker has it set
    env["RAGMON_METRICS__PORT"] = str(free_port())  # 9464 may be taken on this machine
    env["RAGMON_LOG__FORMAT"] = "json"
    log = (tmp_path / "daemon.log").open("w")
    daemon = subprocess.Popen(["bash", "-c", f"exec {run_line.rstrip('&').strip()}"],
                              cwd=tmp_path, env=env, stderr=log)  # fmt: skip
    try:
        produced = subprocess.run(["bash", "-o", "pipefail", "-c", produce_line], cwd=tmp_path,
                                  env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert produced.returncode == 0, produced.stderr
        assert f"1000 records sent to rag_traces at 127.0.0.1:{port}" in produced.stderr
        evaluations = tmp_path / "var" / "evaluations.jsonl"

        def evaluated() -> int:
            return len(evaluations.read_text().splitlines()) if evaluations.exists() else 0

        wait_until(lambda: evaluated() >= 1000, 90, "the produced traces evaluated")
        assert daemon.poll() is None
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
    assert daemon.returncode == 0, (tmp_path / "daemon.log").read_text()[-2000:]
    first = json.loads((tmp_path / "var" / "evaluations.jsonl").read_text().splitlines()[0])
    assert "checks" in first
