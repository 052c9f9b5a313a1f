"""`ragmon run` on its embedded default (demo traffic): metrics, health, shutdown."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from monitor.sources import demo
from tests.integration.conftest import RAGMON, clean_env, free_port


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def start(port: int, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*RAGMON, "run", *args],
        env=clean_env(RAGMON_METRICS__PORT=str(port), RAGMON_METRICS__HOST="127.0.0.1", **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(port: int, timeout: float = 30.0) -> None:
    """Until /readyz answers 200 (the daemon is up and consuming)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if fetch(f"http://127.0.0.1:{port}/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"not ready within {timeout} s")


def flagged_total(body: str) -> float:
    total = 0.0
    for family in text_string_to_metric_families(body):
        if family.name == "ragmon_check_results":
            total += sum(
                s.value
                for s in family.samples
                if s.name.endswith("_total") and s.labels["result"] == "flagged"
            )
    return total


def test_run_serves_nonzero_check_counters_within_ten_seconds() -> None:
    """With no config the daemon evaluates demo traffic and /metrics shows it in < 10 s."""
    port = free_port()
    proc = start(port)
    try:
        deadline = time.monotonic() + 10
        body = ""
        while time.monotonic() < deadline:
            try:
                status, body = fetch(f"http://127.0.0.1:{port}/metrics")
                if status == 200 and flagged_total(body) > 0:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert flagged_total(body) > 0, "no flagged check results within 10 s"
        assert "ragmon_traces_total{" in body
        assert fetch(f"http://127.0.0.1:{port}/healthz")[0] == 200
        assert fetch(f"http://127.0.0.1:{port}/readyz")[0] == 200
        assert fetch(f"http://127.0.0.1:{port}/nope")[0] == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    events = [json.loads(line)["event"] for line in stderr.splitlines() if line.startswith("{")]
    # the demo says it turned on the heuristic judge (judge.backend unset), then starts
    assert events[:2] == ["demo_heuristic_judge", "started"] and events[-1] == "stopped"


def test_sigterm_stops_within_budget_and_writes_everything(tmp_path: Path) -> None:
    """SIGTERM ends the daemon quickly; every trace it counted is in the evaluations file."""
    port = free_port()
    out = tmp_path / "evals.jsonl"
    proc = start(port, RAGMON_OUTPUT__EVALUATIONS_JSONL=str(out),
                 RAGMON_SOURCE__DEMO__RATE_PER_SECOND="500")  # fmt: skip
    wait_ready(port)  # a loaded machine can take seconds to import; SIGTERM a running daemon
    time.sleep(1)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 5
    assert proc.returncode == 0, stderr
    stopped = next(json.loads(x) for x in stderr.splitlines() if '"stopped"' in x)
    lines = out.read_text().splitlines()
    assert len(lines) == stopped["traces"] > 0
    assert all(json.loads(x)["checks"] for x in lines)  # no torn line


def test_finite_demo_source_ends_the_run(tmp_path: Path) -> None:
    """With a limit the demo source is exhausted and the daemon exits 0 by itself."""
    port = free_port()
    proc = start(port, RAGMON_SOURCE__DEMO__LIMIT="50", RAGMON_SOURCE__DEMO__RATE_PER_SECOND="1000")
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert '"traces": 50' in stderr


def test_bad_config_fails_fast_with_a_message(tmp_path: Path) -> None:
    """A bad key exits 2 at once, naming the key, without starting anything."""
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text("source:\n  type: kafak\n")
    proc = start(free_port(), "--config", str(cfg))
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "source.type" in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("RAGMON_SOURCE__OTLP_HTTP__PORT", "cannot listen for OTLP/HTTP on 127.0.0.1:{port}"),
        ("RAGMON_SOURCE__OTLP_HTTP__TLS_CERT_FILE", "cannot load the OTLP/HTTP TLS certificate"),
    ],
)
def test_otlp_receiver_startup_failures_are_one_line_and_exit_2(setting: str, message: str) -> None:
    """The OTLP/HTTP port taken, or its certificate missing: one line, exit 2, no traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"RAGMON_SOURCE__TYPE": "otlp_http", "RAGMON_SOURCE__OTLP_HTTP__PORT": str(port)}
        if setting.endswith("TLS_CERT_FILE"):
            env.update(RAGMON_SOURCE__OTLP_HTTP__PORT="0",
                       RAGMON_SOURCE__OTLP_HTTP__TLS_CERT_FILE="/nonexistent/cert.pem",
                       RAGMON_SOURCE__OTLP_HTTP__TLS_KEY_FILE="/nonexistent/key.pem")  # fmt: skip
        proc = start(free_port(), **env)
        _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2, stderr
    assert message.format(port=port) in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RAGMON_SOURCE__TYPE": "jsonl", "RAGMON_SOURCE__JSONL__PATHS": '["/nonexistent.jsonl"]'},
         "cannot start the jsonl source: No such file or directory: /nonexistent.jsonl"),
        ({"RAGMON_SOURCE__TYPE": "jsonl", "RAGMON_SOURCE__JSONL__PATHS": '["/"]'},
         "cannot start the jsonl source: Is a directory: /"),
        ({"RAGMON_OUTPUT__EVALUATIONS_JSONL": "/proc/ragmon-none/e.jsonl"},
         "cannot start the jsonl sink: No such file or directory: /proc/ragmon-none"),
        ({"RAGMON_GOLDEN__DIR": "/proc/ragmon-none/golden"},
         "cannot start the golden_rows sink: No such file or directory: /proc/ragmon-none"),
        ({"RAGMON_JUDGE__CACHE_FILE": "/proc/ragmon-none/cache"},
         "cannot set up the pipeline: No such file or directory: /proc/ragmon-none"),
        ({"RAGMON_SOURCE__TYPE": "otlp_http", "RAGMON_SOURCE__OTLP_HTTP__HOST": "0.0.0.0"},
         "source.otlp_http.host is 0.0.0.0, beyond this machine, without bearer_token"),
    ],
)  # fmt: skip
def test_file_startup_failures_are_one_line_and_exit_2(env: dict[str, str], message: str) -> None:
    """Each file ragmon must open at start: one line naming it, exit 2, nothing logged as
    started."""
    proc = start(free_port(), **env)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2, stderr
    assert "ragmon run: " in stderr and message in stderr
    assert "Traceback" not in stderr and '"started"' not in stderr


def test_a_jsonl_source_is_read_once_and_the_daemon_says_it_exits(tmp_path: Path) -> None:
    """source.type jsonl does not follow its file: at its end the daemon logs why it
    stops and exits 0."""
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(5)))
    proc = start(free_port(), RAGMON_SOURCE__TYPE="jsonl",
                 RAGMON_SOURCE__JSONL__PATHS=json.dumps([str(src)]))  # fmt: skip
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    (line,) = [json.loads(x) for x in stderr.splitlines() if "source_exhausted" in x]
    assert line["traces"] == 5 and "read once" in line["hint"]


def test_port_in_use_is_a_clear_error() -> None:
    """A metrics port that is taken is reported, not a traceback."""
    port = free_port()
    first = start(port)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if fetch(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        second = start(port)
        _, stderr = second.communicate(timeout=30)
        assert second.returncode == 2
        assert f"cannot listen on 127.0.0.1:{port}" in stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)


def test_run_exports_review_precision_from_the_golden_dir(tmp_path: Path) -> None:
    """With golden.dir set, /metrics carries each check's reviewed precision, re-read when a
    reviewer appends a decision while the daemon runs."""
    from monitor.golden import review

    golden = tmp_path / "golden"
    row = {
        "id": "r1",
        "retrieved_context_ids": [],
        "ragmon": {"reason": "refusal", "route": "billing"},
    }
    review.decide(review.ReviewLog(golden), row, "accept", "ana", reference="x")
    port = free_port()
    proc = start(port, RAGMON_GOLDEN__DIR=str(golden))
    try:
        wait_ready(port)
        body = fetch(f"http://127.0.0.1:{port}/metrics")[1]
        assert (
            'ragmon_check_review_precision{bound="estimate",check="refusal",route="billing"} 1.0'
            in body
        )
        row2 = {**row, "id": "r2"}
        review.decide(review.ReviewLog(golden), row2, "reject", "bo", reason="check_wrong")
        body = fetch(f"http://127.0.0.1:{port}/metrics")[1]
        assert (
            'ragmon_check_review_precision{bound="estimate",check="refusal",route="billing"} 0.5'
            in body
        )
        assert 'ragmon_check_reviews{check="refusal",label="wrong",route="billing"} 1.0' in body
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_run_serves_the_review_page_on_its_own_port(tmp_path: Path) -> None:
    port, page = free_port(), free_port()
    proc = start(port, RAGMON_GOLDEN__DIR=str(tmp_path), RAGMON_GOLDEN__REVIEW_PORT=str(page))
    try:
        wait_ready(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{page}/?state=any", timeout=5) as resp:
            assert resp.status == 200
            assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
            assert "candidate rows" in resp.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize(("env", "message"), [
    ({"RAGMON_GOLDEN__REVIEW_PORT": "0"}, "review_port needs dir"),
    ({"RAGMON_GOLDEN__REVIEW_PORT": "0", "RAGMON_GOLDEN__DIR": "{tmp}",
      "RAGMON_GOLDEN__REVIEW_HOST": "0.0.0.0"}, "RAGMON_REVIEW_TOKEN"),
])  # fmt: skip
def test_review_page_misconfiguration_is_one_line_and_exit_2(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    proc = start(free_port(), **{k: v.format(tmp=tmp_path) for k, v in env.items()})
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and message in stderr, stderr
    assert len(stderr.strip().splitlines()) <= 2  # a config error: the origin, then the key


def test_run_serves_the_review_page_beyond_loopback_with_the_token(tmp_path: Path) -> None:
    """RAGMON_REVIEW_TOKEN in the environment is the review page's token (it used to stop
    the config loader): the page binds beyond loopback and asks for it."""
    port, page = free_port(), free_port()
    proc = start(port, RAGMON_GOLDEN__DIR=str(tmp_path), RAGMON_GOLDEN__REVIEW_PORT=str(page),
                 RAGMON_GOLDEN__REVIEW_HOST="0.0.0.0", RAGMON_REVIEW_TOKEN="s3cret")  # fmt: skip
    try:
        wait_ready(port)
        url = f"http://127.0.0.1:{page}/metrics"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=5)
        assert refused.value.code == 401
        request = urllib.request.Request(url, headers={"Authorization": "bearer s3cret"})
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert resp.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_review_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        proc = start(
            free_port(), RAGMON_GOLDEN__DIR=str(tmp_path), RAGMON_GOLDEN__REVIEW_PORT=str(busy)
        )
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "golden.review_port" in stderr and "in use" in stderr, stderr
