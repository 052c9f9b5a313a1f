"""The Dockerfile's build and run steps, replayed without a Docker engine: only the files the
Dockerfile copies are used to build and install the package, the installed console script
starts the daemon, and the HEALTHCHECK command succeeds against it.

This catches what a static look at the Dockerfile cannot: a module imported at run time
that is not copied into the image, a packaging gap in pyproject, a broken entry point."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.conftest import clean_env, free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()

pytestmark = pytest.mark.integration


def copied_paths() -> list[tuple[str, str]]:
    """(source, where it lands) of the build stage's COPY lines (not COPY --from): into a
    directory (``./``, or several sources) a file keeps its base name, as Docker does."""
    out: list[tuple[str, str]] = []
    for line in DOCKERFILE.splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            *sources, dest = line.split()[1:]
            into_dir = dest.endswith("/") or len(sources) > 1
            out.extend((s, str(Path(dest) / Path(s).name) if into_dir else dest) for s in sources)
    return out


def healthcheck_command(port: int) -> list[str]:
    cmd = re.search(r'CMD python -c "(.+)"', DOCKERFILE)
    assert cmd, "HEALTHCHECK runs python -c"
    return [sys.executable, "-c", cmd.group(1).replace("9464", str(port))]


def test_image_build_and_run_steps(tmp_path: Path) -> None:
    context = tmp_path / "src"
    context.mkdir()
    for rel, dest in copied_paths():
        src = ROOT / rel
        if src.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "_native")  # a dev tree's build
            shutil.copytree(src, context / dest, ignore=ignore)
        else:
            shutil.copy(src, context / dest)
    target = tmp_path / "install"
    # as the Dockerfile's `pip install .`, without re-downloading the dependencies the test
    # environment already has
    built = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-cache-dir", "--quiet",
         f"--target={target}", str(context)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert (target / "monitor" / "commands" / "cli.py").exists() and (target / "sinks").is_dir()
    assert (target / "monitor" / "golden" / "templates" / "review" / "row.html").exists()
    assert not (target / "monitor" / "checks" / "_native").exists()  # never in the wheel
    # as the Dockerfile's compile step: the checks compiled where the package is installed
    assert "compile.py --mode require --root" in DOCKERFILE
    compiled = subprocess.run(
        [sys.executable, str(context / "compile.py"), "--mode", "require", "--root", str(target)],
        capture_output=True, text=True, timeout=600, env=clean_env(PYTHONPATH=str(target)),
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr

    port = free_port()
    env = clean_env(
        PYTHONPATH=str(target),
        RAGMON_METRICS__HOST="127.0.0.1",
        RAGMON_METRICS__PORT=str(port),
        RAGMON_LOG__FORMAT="json",
    )
    # the console script the image's ENTRYPOINT runs, from the installed copy only
    script = "import sys; from monitor.commands.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "run"], env=env, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            check = subprocess.run(healthcheck_command(port), capture_output=True, timeout=10)
            if check.returncode == 0:
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "HEALTHCHECK never passed"
            time.sleep(0.3)
        imported = subprocess.run(
            [sys.executable, "-c",
             "import monitor.commands.cli, sinks; print(monitor.commands.cli.__file__); "
             "from monitor.checks import native, context; print(native.BUILD, context.__file__)"],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        cli, checks = imported.stdout.strip().splitlines()
        assert cli.startswith(str(target)), imported.stdout
        build, module = checks.split(" ", 1)
        assert build == "compiled" and module.endswith(".so"), imported.stdout
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0  # SIGTERM: a clean stop
