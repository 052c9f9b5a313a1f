"""``ragmon run --workers N``: N daemons of one Kafka consumer group under one parent.

The parent starts each worker as ``ragmon run`` with the same configuration (a process of
its own: the checks are Python, so one process uses one core), restarts a worker that dies,
with backoff, and stops every worker on SIGTERM. It serves the one ``/metrics``,
``/healthz`` and ``/readyz`` of the machine:

* ``/metrics``: its own series (``ragmon_workers``, ``ragmon_worker_restarts_total``) and
  every worker's, read from the worker's own endpoint on loopback at each scrape and labelled
  ``worker="<i>"``. Not summed: a gauge or an info series summed over workers would be wrong,
  and a worker that restarts starts its counters again, which Prometheus reads as the reset
  of that worker's series only (as it does for a replica's). Aggregate with ``sum without
  (worker)`` as across replicas. Nothing is counted twice: each worker's series appear once,
  from the worker that runs now.
* ``/readyz``: ready when every worker answers ready.

What the workers share and what they do not: the Kafka group shares the partitions; the
judge's budget is already the group's (each member takes its partition share of it, so a
budget of 60 calls a minute stays at most 60 for any number of workers); a file output is one file
per worker (``evaluations.jsonl`` → ``evaluations.worker-0.jsonl``, …), since appending
processes would interleave lines; a static group member id gets the worker's index. Parts that
one process must own — the golden directory and its review page, the daemon's own probes,
batch mode's outbox, conversations paired in memory — are refused with more than one worker,
as are sources a group cannot share. Each worker is a replica of the group: what several
replicas need holds (OTLP spans keyed by trace id, ``sessions.topic`` for conversations).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from prometheus_client import CollectorRegistry, Counter, Gauge
from structlog.typing import FilteringBoundLogger

from monitor import config as config_mod
from monitor.commands.server import MetricsServer
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from monitor.sources.kafka_config import KafkaSourceConfig

# A worker that fails this often within the window makes the parent give up (exit 1): a
# configuration or a broker that keeps failing is not fixed by restarting faster.
MAX_FAILURES = 5
FAILURE_WINDOW_SECONDS = 120.0
BACKOFF_SECONDS = (1.0, 2.0, 4.0, 8.0, 16.0)
SCRAPE_TIMEOUT_SECONDS = 2.0


def refusal(settings: config_mod.Settings, workers: int, config: Path | None = None) -> str | None:
    """Why ``settings`` (read from ``config``, if given) cannot run as ``workers``
    processes, or None."""
    if settings.source.type != "kafka":
        return (
            f"--workers {workers} needs source.type kafka (it is {settings.source.type}): "
            "only a consumer group shares its input among processes"
        )
    g, judge = settings.golden, settings.judge
    for on, key, why in (
        (g.dir is not None, "golden.dir", "one process writes the rows and the review log; "
         "use golden.topic"),
        (settings.probes.endpoint is not None, "probes.endpoint",
         "every worker would send the probes"),
        (judge.backend != "none" and judge.batch.enabled, "judge.batch.enabled",
         "the outbox belongs to one process"),
        (settings.sessions.enabled and settings.sessions.topic is None, "sessions in memory",
         "the turns of a conversation would meet only on one worker; set sessions.topic "
         "(the conversations' repartition topic) or sessions.enabled false"),
    ):  # fmt: skip
        if on:
            return f"--workers {workers} with {key}: {why}; run one worker"
    if config is not None and not config.is_file():
        return (f"--workers {workers} with --config {config}: each worker reads the file "
                "again; name a regular file (not a pipe)")  # fmt: skip
    return None


def worker_path(path: Path, index: int) -> Path:
    """A worker's own file beside ``path``: ``a.jsonl`` → ``a.worker-0.jsonl``."""
    return path.with_name(f"{path.stem}.worker-{index}{path.suffix}")


def worker_env(settings: config_mod.Settings, index: int, port: int) -> dict[str, str]:
    """The variables that make worker ``index`` one member of the group with its own
    endpoint and files (the environment beats the file)."""
    env = {"RAGMON_METRICS__HOST": "127.0.0.1", "RAGMON_METRICS__PORT": str(port)}
    out = settings.output
    for key, path in (("EVALUATIONS_JSONL", out.evaluations_jsonl),
                      ("DEAD_LETTERS_JSONL", out.dead_letters_jsonl)):  # fmt: skip
        if path is not None and str(path) != "-":
            env[f"RAGMON_OUTPUT__{key}"] = str(worker_path(path, index))
    member = settings.of(KafkaSourceConfig).group_instance_id
    if member is not None:
        env["RAGMON_SOURCE__KAFKA__GROUP_INSTANCE_ID"] = f"{member}-{index}"
    return env


_PR_SET_PDEATHSIG = 1  # prctl(2)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, before exec
    """Linux: the worker gets SIGTERM when the parent dies, even by SIGKILL (prctl
    PR_SET_PDEATHSIG), and drains as on any SIGTERM: no worker outlives its parent and goes
    on consuming beside the workers of a parent started again."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the parent's stop only
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Worker:
    """One worker process and its restart bookkeeping."""

    index: int
    process: subprocess.Popen[bytes] | None = None
    port: int = 0
    failures: list[float] = field(default_factory=list)
    due: float = 0.0  # when to start it again after a failure

    def running(self) -> bool:
        """Whether its process is alive."""
        return self.process is not None and self.process.poll() is None

    def get(self, path: str) -> tuple[int, bytes]:
        """An endpoint of the worker (status, body); 0 when it does not answer."""
        if not self.running():
            return 0, b""
        url = f"http://127.0.0.1:{self.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_SECONDS) as response:
                return int(response.status), response.read()
        except OSError as exc:  # refused while starting, 503 when not ready
            return int(getattr(exc, "code", 0) or 0), b""


def merged(expositions: list[tuple[str, bytes]]) -> bytes:
    """The workers' expositions (text format 0.0.4) as one: each family's ``# HELP`` and
    ``# TYPE`` once, then every worker's samples of it, each labelled ``worker``. Read as
    text, line by line (the samples are not parsed and printed again: a tenth of the time
    prometheus_client's parser takes on the segment series)."""
    families: dict[bytes, tuple[list[bytes], list[bytes]]] = {}
    for worker, text in expositions:
        label = b'worker="' + worker.encode() + b'"'
        head: list[bytes] | None = None
        samples: list[bytes] = []
        for line in text.splitlines():
            if line.startswith(b"# HELP "):
                name = line.split(b" ", 3)[2]
                head, samples = families.setdefault(name, ([], []))
                if not head:
                    head.append(line)
            elif line.startswith(b"# TYPE "):
                if head is not None and len(head) == 1:
                    head.append(line)
            elif line and not line.startswith(b"#"):
                brace, space = line.find(b"{"), line.find(b" ")
                if brace != -1 and brace < space:
                    inside = b"," if line[brace + 1 : brace + 2] != b"}" else b""
                    samples.append(line[: brace + 1] + label + inside + line[brace + 1 :])
                else:
                    samples.append(line[:space] + b"{" + label + b"}" + line[space:])
    out = []
    for head, samples in families.values():
        out.extend(head)
        out.extend(samples)
    return b"\n".join(out) + b"\n" if out else b""


class Supervisor:
    """Starts, watches, restarts and stops the workers."""

    def __init__(
        self,
        settings: config_mod.Settings,
        count: int,
        command: list[str],
        log: FilteringBoundLogger,
        registry: CollectorRegistry,
    ) -> None:
        self.settings = settings
        self.command = command
        self.log = log
        self.workers = [Worker(i) for i in range(count)]
        self.stop = threading.Event()
        Gauge("ragmon_workers", "Worker processes configured (ragmon run --workers).",
              registry=registry).set(count)  # fmt: skip
        self.restarts = Counter(
            "ragmon_worker_restarts",
            "Worker processes started again after one ended unasked (crash, kill, exit).",
            ["worker"],
            registry=registry,
        )
        self.up = Gauge("ragmon_workers_up", "Worker processes running.", registry=registry)
        self.up.set_function(lambda: sum(w.running() for w in self.workers))

    def exposition(self) -> bytes:
        """Every running worker's series, labelled with its index, read now (the workers
        asked at once: a scrape waits for the slowest, not for their sum)."""
        workers = list(self.workers)
        with ThreadPoolExecutor(max_workers=len(workers)) as pool:
            got = list(pool.map(lambda w: w.get("/metrics"), workers))
        return merged([(str(w.index), body)
                       for w, (status, body) in zip(workers, got, strict=True)
                       if status == 200])  # fmt: skip

    def _start(self, w: Worker) -> None:
        w.port = _free_port()
        env = {**os.environ, **worker_env(self.settings, w.index, w.port)}
        w.process = subprocess.Popen(
            self.command, env=env, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent
        )
        self.log.info("worker_started", worker=w.index, pid=w.process.pid, port=w.port)

    def ready(self) -> bool:
        """Every worker answers ready."""
        return all(w.get("/readyz")[0] == 200 for w in self.workers)

    def run(self) -> int:
        """Until ``stop`` is set (then every worker is stopped) or a worker keeps failing."""
        for w in self.workers:
            self._start(w)
        while not self.stop.wait(0.2):
            now = time.monotonic()
            for w in self.workers:
                if w.process is not None and w.process.poll() is not None:
                    code = w.process.returncode
                    w.process = None
                    w.failures = [t for t in w.failures if now - t < FAILURE_WINDOW_SECONDS]
                    w.failures.append(now)
                    delay = BACKOFF_SECONDS[min(len(w.failures), len(BACKOFF_SECONDS)) - 1]
                    self.log.warning("worker_ended", worker=w.index, exit_code=code,
                                     restart_in_seconds=delay)  # fmt: skip
                    if len(w.failures) >= MAX_FAILURES:
                        self.log.error("worker_keeps_failing", worker=w.index,
                                       failures=len(w.failures),
                                       window_seconds=FAILURE_WINDOW_SECONDS)  # fmt: skip
                        self._stop_all()
                        return EXIT_FAIL
                    w.due = now + delay
                elif w.process is None and now >= w.due:
                    self.restarts.labels(str(w.index)).inc()
                    self._start(w)
        return self._stop_all()

    def _stop_all(self) -> int:
        """SIGTERM to every worker; each has ``shutdown_timeout_seconds`` to drain and commit,
        then it is killed. 0 when every worker stopped cleanly."""
        running = [w.process for w in self.workers if w.process is not None]
        for p in running:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.settings.shutdown_timeout_seconds
        code = EXIT_OK
        for p in running:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.returncode != 0:
                code = EXIT_FAIL
        self.log.info("workers_stopped", exit_codes=[p.returncode for p in running])
        return code


def run_workers(
    settings: config_mod.Settings, count: int, config: Path | None, log: FilteringBoundLogger
) -> int:
    """``ragmon run --workers count``: the parent, until SIGTERM or a worker keeps failing."""
    command = [sys.executable, "-c", "from monitor.commands.cli import main; main()", "run"]
    if config is not None:
        command += ["--config", str(config)]
    registry = CollectorRegistry()
    supervisor = Supervisor(settings, count, command, log, registry)
    m = settings.metrics
    try:
        server = MetricsServer(
            registry, m.host, m.port, ready=supervisor.ready, more=supervisor.exposition
        )
    except OSError as exc:
        log.error("cannot_listen", where=f"{m.host}:{m.port}", error=exc.strerror)
        return EXIT_USAGE

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not supervisor.stop.is_set():
            log.info("stopping", signal=signal.Signals(signum).name,
                     budget_seconds=settings.shutdown_timeout_seconds)  # fmt: skip
        supervisor.stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    log.info("workers_starting", workers=count,
             metrics=f"http://{m.host}:{server.port}/metrics")  # fmt: skip
    try:
        return supervisor.run()
    finally:
        server.close()
