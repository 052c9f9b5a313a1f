"""ragmon installed the way a user installs it — ``pip install .`` into a fresh virtualenv,
no extras — imports every one of its modules and runs every command: its ``--help`` and one
real invocation each. The dev extras bring many packages (httpx came in that way while the
runtime never declared it), so only an install without them proves the runtime's own
dependency list. uv builds the virtualenv (seconds, from its cache after the first run)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.integration.conftest import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
COMMANDS = [
    "run", "replay", "check", "demo", "schema", "convert", "calibrate", "golden", "review",
    "probe", "compare", "config", "eval-retrieval",
]  # fmt: skip


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with ragmon and its declared dependencies only; its bin dir."""
    venv = tmp_path_factory.mktemp("runtime") / "venv"
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    # A copy of the tree without the developer's build leftovers, installed non-editable.
    src = venv.parent / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "var", "build", "*.egg-info", "__pycache__", "node_modules"))  # fmt: skip
    done = subprocess.run(
        [UV, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(src)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return venv / "bin"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "PYTHON"))}
    env["PATH"] = "/usr/bin:/bin"
    return env


def run(bin_dir: Path, cwd: Path, *args: str, stdin: str | None = None,
        ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``ragmon ARGS`` from the runtime virtualenv, in ``cwd`` (never the source tree, so
    nothing is imported from it); fails the test unless the exit status is in ``ok``."""
    done = subprocess.run(
        [str(bin_dir / "ragmon"), *args], cwd=cwd, input=stdin, capture_output=True,
        text=True, timeout=120, env=_env(),
    )  # fmt: skip
    assert done.returncode in ok, f"ragmon {' '.join(args)}: {done.returncode}\n{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_runtime_install_imports_every_module(runtime: Path, tmp_path: Path) -> None:
    """Every module of ``monitor`` and ``sinks`` imports with the declared dependencies."""
    script = (
        "import importlib, pkgutil, monitor, sinks\n"
        "names = [m.name for p in (monitor, sinks)\n"
        "         for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.')]\n"
        "[importlib.import_module(n) for n in names]\n"
        "print(len(names), monitor.__file__)\n"
    )
    done = subprocess.run([str(runtime / "python"), "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, env=_env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    count, where = done.stdout.split()
    assert int(count) > 40 and "site-packages" in where


@pytest.mark.parametrize("command", COMMANDS)
def test_runtime_install_every_command_has_help(runtime: Path, tmp_path: Path,
                                                command: str) -> None:  # fmt: skip
    assert "usage: ragmon" in run(runtime, tmp_path, command, "--help").stdout


class _App(BaseHTTPRequestHandler):
    """The application a probe talks to: answers every POST."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"answer": "ok"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@contextlib.contextmanager
def _app() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _App)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/ask"
    finally:
        server.shutdown()
        server.server_close()


def test_runtime_install_runs_every_command(runtime: Path, tmp_path: Path) -> None:
    """One real invocation of each command, chained as a user would chain them."""
    w = tmp_path
    run(runtime, w, "demo", "--count", "300", "-o", "traces.jsonl")
    run(runtime, w, "demo", "--count", "40", "--with-labels", "-o", "labels.jsonl")
    one = (w / "traces.jsonl").read_text().splitlines()[0]
    assert json.loads(run(runtime, w, "check", stdin=one).stdout)["checks"]
    run(runtime, w, "schema", "trace")
    run(runtime, w, "config", "validate")
    run(runtime, w, "config", "schema")
    replay = run(runtime, w, "replay", "traces.jsonl", "--golden-dir", "golden",
                 "--output-jsonl", "evals.jsonl")  # fmt: skip
    assert "refusal" in replay.stdout
    shutil.copy(ROOT / "examples" / "langchain-openinference.otlp.jsonl", w / "spans.jsonl")
    run(runtime, w, "convert", "spans.jsonl", "--from", "otlp-json", "--output-jsonl", "c.jsonl")
    run(runtime, w, "calibrate", "--labels", "labels.jsonl", "--judge", "heuristic")
    run(runtime, w, "golden", "stats", "--dir", "golden")
    row = json.loads(next((w / "golden").glob("golden-*.jsonl")).read_text().splitlines()[0])
    doc = row["retrieved_context_ids"][0]
    run(runtime, w, "golden", "review", "--dir", "golden", "--row", row["id"], "--accept",
        "--reference", "A reference.", "--gold", f"{doc}=2", "--reviewer", "ana")  # fmt: skip
    run(runtime, w, "golden", "publish", "--dir", "golden")
    run(runtime, w, "golden", "export", "--set", "golden/set", "--format", "ragas")
    (w / "qrels.txt").write_text(f"q1 0 {doc} 2\n")
    (w / "run.txt").write_text(f"q1 Q0 {doc} 1 1.0 r\n")
    run(runtime, w, "eval-retrieval", "--qrels", "qrels.txt", "--run", "run.txt")
    (w / "template.json").write_text('{"question": "{query}"}')
    with _app() as url:
        run(runtime, w, "probe", "--golden", "golden/set", "--endpoint", url,
            "--request-template", "template.json")  # fmt: skip
    # compare: nothing answered under both releases is a clean exit 1, not a crash
    run(runtime, w, "compare", "traces.jsonl", "--golden", "golden/set", "--release", "a",
        "--release", "b", ok=(1,))  # fmt: skip
    _review_page_serves(runtime, w)
    _daemon_runs(runtime, w)


def _review_page_serves(bin_dir: Path, cwd: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([str(bin_dir / "ragmon"), "review", "--dir", "golden", "--port",
                             str(port)], cwd=cwd, env=_env(), stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        _wait_for(f"http://127.0.0.1:{port}/", proc)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _daemon_runs(bin_dir: Path, cwd: Path) -> None:
    port = free_port()
    env = {**_env(), "RAGMON_METRICS__PORT": str(port), "RAGMON_SOURCE__DEMO__LIMIT": "50"}
    proc = subprocess.Popen([str(bin_dir / "ragmon"), "run"], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert '"traces": 50' in err or "traces=50" in err, err


def _wait_for(url: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                assert resp.status == 200
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")
