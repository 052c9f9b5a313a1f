"""Helpers for tests that run ragmon as a separate process."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

RAGMON = [sys.executable, "-m", "monitor.commands.cli"]
CONSOLE_SCRIPT = Path(sys.executable).with_name("ragmon")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn from a thread on a free loopback port: yields its base URL
    once it is up, and stops the server after."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise AssertionError("the local ASGI server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def prometheus_server(config: Path, data: Path, *flags: str) -> Iterator[str]:
    """A real Prometheus (Debian's package, installed by ``make test``) with ``config`` and
    its TSDB in ``data``, ready; yields its URL and stops it after."""
    import shutil
    import urllib.request

    binary = shutil.which("prometheus")
    if binary is None or shutil.which("promtool") is None:
        pytest.fail("prometheus not found: `make test` installs Debian's prometheus package")
    port = free_port()
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.tsdb.path={data}",
         f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn", *flags],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "prometheus never became ready"
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus any RAGMON_* the developer has set, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env.update(extra)
    return env


def ragmon(*args: str, stdin: bytes | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RAGMON, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(**env),
    )


@pytest.fixture
def port() -> int:
    return free_port()


@dataclass
class OtlpHttpDaemon:
    """`ragmon run` with the OTLP/HTTP receiver, both ports on loopback."""

    proc: subprocess.Popen[bytes]
    port: int
    metrics_port: int

    @property
    def url(self) -> str:
        """Where to POST traces."""
        return f"http://127.0.0.1:{self.port}/v1/traces"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def start_otlp_http_daemon(log: Path, **settings: str) -> OtlpHttpDaemon:
    """Start it with extra ``RAGMON_*`` settings; its stderr goes to ``log``."""
    port, metrics_port = free_port(), free_port()
    env = clean_env(
        RAGMON_SOURCE__TYPE="otlp_http",
        RAGMON_SOURCE__OTLP_HTTP__HOST="127.0.0.1",
        RAGMON_SOURCE__OTLP_HTTP__PORT=str(port),
        RAGMON_METRICS__HOST="127.0.0.1",
        RAGMON_METRICS__PORT=str(metrics_port),
        **settings,
    )
    with log.open("w") as err:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([*RAGMON, "run"], env=env, stdout=subprocess.DEVNULL, stderr=err)
    return OtlpHttpDaemon(proc, port, metrics_port)


def candidate_rows(tmp: Path, traces: int = 300) -> tuple[Path, list[dict[str, Any]]]:
    """Demo traces replayed into a golden directory: the directory and its candidate rows."""
    import json

    from monitor.sources import demo

    src = tmp / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(traces)))
    golden = tmp / "golden"
    done = ragmon("replay", str(src), "--golden-dir", str(golden))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for p in sorted(golden.glob("golden-*.jsonl"))
            for x in p.read_text().splitlines()]  # fmt: skip
    return golden, rows
