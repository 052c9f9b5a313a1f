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
budget of 60 calls a minute stays at most 60 for any number of workers); a file output is one
file per worker (``evaluations.jsonl`` → ``evaluations.worker-0.jsonl``, …), since appending
processes would interleave lines; the candidate golden rows are a directory per worker in
``golden.dir`` (``worker-0/``, …), which every reader of the golden dir reads as one, a row two
workers hold with the occurrences of both (``monitor.golden.stored``), while the review log
and the reviewed precision stay the golden dir's own (the parent exports the precision); a
static group member id gets the worker's index. Parts that one process must own — the review
page served by the daemon, the daemon's own probes, batch mode's outbox, conversations paired
in memory — are refused with more than one worker, as are sources a group cannot share. Each
worker is a replica of the group: what several replicas need holds (OTLP spans keyed by trace
id, ``sessions.topic`` for conversations, ``golden.topic`` keyed by row and writer, each
worker's count on a key of its own).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from prometheus_client import CollectorRegistry, Counter, Gauge
from structlog.typing import FilteringBoundLogger

from monitor import config as config_mod
from monitor.commands.server import MetricsServer
from monitor.commands.signals import StopOnSignal
from monitor.core import logwriter
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE, StartupError
from monitor.golden.stored import worker_dir
from monitor.golden.stores import WORKER_INFIX
from monitor.sources.kafka_config import KafkaSourceConfig
from sinks.store import StoreConfig

# A worker that fails this often within the window makes the parent give up (exit 1): a
# configuration or a broker that keeps failing is not fixed by restarting faster.
MAX_FAILURES = 5
FAILURE_WINDOW_SECONDS = 120.0
BACKOFF_SECONDS = (1.0, 2.0, 4.0, 8.0, 16.0)
SCRAPE_TIMEOUT_SECONDS = 2.0


def refusal(settings: config_mod.Settings, workers: int, config: Path | None = None) -> str | None:
    """Why ``settings`` (read from ``config``, if given) cannot run as ``workers``
    processes, every reason in one line, or None."""
    said = []
    if settings.source.type != "kafka":
        said.append(
            f"--workers {workers} needs source.type kafka (it is {settings.source.type}): "
            "only a consumer group shares its input among processes"
        )
    g, judge = settings.golden, settings.judge
    owned = [f"{key}: {why}" for on, key, why in (
        (g.dir is not None and g.review_port is not None, "golden.review_port",
         "one process serves the review page; run `ragmon review` beside the workers"),
        (settings.probes.endpoint is not None, "probes.endpoint",
         "every worker would send the probes"),
        (judge.backend != "none" and judge.batch.enabled, "judge.batch.enabled",
         "the outbox belongs to one process"),
        (settings.sessions.enabled and settings.sessions.topic is None, "sessions in memory",
         "the turns of a conversation would meet only on one worker; set sessions.topic "
         "(the conversations' repartition topic) or sessions.enabled false"),
    ) if on]  # fmt: skip
    if owned:
        said.append(f"--workers {workers} with {'; and with '.join(owned)}; run one worker")
    if config is not None and not config.is_file():
        said.append(f"--workers {workers} with --config {config}: each worker reads the "
                    "file again; name a regular file (not a pipe)")  # fmt: skip
    return "; also ".join(said) or None


def worker_path(path: Path, index: int) -> Path:
    """A worker's own file beside ``path``: ``a.jsonl`` → ``a.worker-0.jsonl``."""
    return path.with_name(f"{path.stem}{WORKER_INFIX}{index}{path.suffix}")


def worker_env(settings: config_mod.Settings, index: int, port: int) -> dict[str, str]:
    """The variables that make worker ``index`` one member of the group with its own
    endpoint and files (the environment beats the file)."""
    env = {"RAGMON_METRICS__HOST": "127.0.0.1", "RAGMON_METRICS__PORT": str(port)}
    out = settings.output
    for key, path in (("EVALUATIONS_JSONL", out.evaluations_jsonl),
                      ("DEAD_LETTERS_JSONL", out.dead_letters_jsonl)):  # fmt: skip
        if path is not None and str(path) != "-":
            env[f"RAGMON_OUTPUT__{key}"] = str(worker_path(path, index))
    store = settings.of(StoreConfig).path  # one writer a file: each worker its own store
    if store is not None:
        env["RAGMON_STORE__PATH"] = str(worker_path(store, index))
    golden = settings.golden.dir  # one writer a directory: each worker its own in it
    if golden is not None:
        env["RAGMON_GOLDEN__DIR"] = str(worker_dir(golden, index))
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


REPORT_BYTES = 4096  # what the parent keeps of a worker's refusals (the last bytes)


def worker_command(config: Path | None, report: int, lock: int) -> list[str]:
    """The command of a worker: ``ragmon run`` whose refusals (the one line a command says
    when it cannot start) go to the parent on file descriptor ``report`` instead of stderr,
    and whose log lines are written under the record lock on ``lock`` the parent and every
    worker share (``monitor.core.logwriter``)."""
    code = ("import os, sys\n"
            "from monitor.core.logwriter import share\n"
            "from monitor.commands.cli import main\n"
            f"share({lock})\n"
            f"sys.exit(main(stderr=os.fdopen({report}, 'w', buffering=1)))")  # fmt: skip
    command = [sys.executable, "-c", code, "run"]
    return command + (["--config", str(config)] if config is not None else [])


@dataclass
class Worker:
    """One worker process and its restart bookkeeping."""

    index: int
    process: subprocess.Popen[bytes] | None = None
    port: int = 0
    failures: list[float] = field(default_factory=list)
    due: float = 0.0  # when to start it again after a failure
    report: int | None = None  # the read end of its refusals' pipe
    said: bytes = b""  # the last REPORT_BYTES of its refusals

    def running(self) -> bool:
        """Whether its process is alive."""
        return self.process is not None and self.process.poll() is None

    def heard(self) -> str:
        """What the worker said on its report pipe so far (read now, without waiting), as
        one line: its refusal when it could not start, "" when it said nothing."""
        while self.report is not None:
            try:
                got = os.read(self.report, 65536)
            except BlockingIOError:
                break
            if not got:  # every writer closed it: the worker ended
                os.close(self.report)
                self.report = None
                break
            self.said = (self.said + got)[-REPORT_BYTES:]
        return " ".join(self.said.decode(errors="replace").split())

    def forget(self) -> None:
        """Close its report pipe (it is started again or stopped)."""
        if self.report is not None:
            os.close(self.report)
        self.report, self.said = None, b""

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
        config: Path | None,
        log: FilteringBoundLogger,
        registry: CollectorRegistry,
    ) -> None:
        self.settings = settings
        self.config = config
        self.log = log
        self.workers = [Worker(i) for i in range(count)]
        self.stop = threading.Event()
        self.refused = ""  # the refusal of the worker whose start failed, which ended the run
        # the record lock every process writing to the one stderr holds for each line
        self._lock_file = tempfile.TemporaryFile()  # noqa: SIM115 - open while workers run
        logwriter.share(self._lock_file.fileno())
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
        w.forget()
        w.port = _free_port()
        env = {**os.environ, **worker_env(self.settings, w.index, w.port)}
        read, write = os.pipe()
        os.set_blocking(read, False)
        lock = self._lock_file.fileno()
        try:
            w.process = subprocess.Popen(
                worker_command(self.config, write, lock), env=env, stdin=subprocess.DEVNULL,
                pass_fds=(write, lock), preexec_fn=_die_with_parent,
            )  # fmt: skip
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)  # the worker's copy is the only writer: its end is the pipe's
        w.report = read
        self.log.info("worker_started", worker=w.index, pid=w.process.pid, port=w.port)

    def ready(self) -> bool:
        """Every worker answers ready."""
        return all(w.get("/readyz")[0] == 200 for w in self.workers)

    def run(self) -> int:
        """Until ``stop`` is set (then every worker is stopped), a worker keeps failing
        (exit 1), or a worker could not start (exit 2, its refusal in ``refused``)."""
        for w in self.workers:
            self._start(w)
        # is_set and a sleep: this loop takes no lock a signal handler could meet
        # (``commands.signals`` sets ``stop`` from its own thread since; before, a handler
        # that set it while this loop sat in stop.wait blocked on the event's lock for good)
        while not self.stop.is_set():
            time.sleep(0.2)
            now = time.monotonic()
            for w in self.workers:
                w.heard()  # read as it comes: a worker never waits on a full pipe
                if w.process is not None and w.process.poll() is not None:
                    code = w.process.returncode
                    w.process = None
                    said = w.heard()  # to its end: the worker has closed the pipe
                    if code == EXIT_USAGE and said:
                        # it refused to start, as one process would have: the configuration
                        # or the environment, which starting it again does not change
                        self.log.error("worker_refused", worker=w.index, reason=said)
                        self.refused = said
                        self._stop_all()
                        return EXIT_USAGE
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
        for w in self.workers:
            w.forget()
        self.log.info("workers_stopped", exit_codes=[p.returncode for p in running])
        return code


def preflight(settings: config_mod.Settings) -> str | None:
    """What the parent checks before it starts any worker, as each worker's start would
    (the cluster reached within ``kafka.bootstrap_timeout_seconds``, the topics there): the
    reason it cannot start, or None. A worker would otherwise fail the same way N times."""
    from monitor import registry
    from monitor.sources.kafka import KafkaSource

    source = registry.build_source(settings)
    if not isinstance(source, KafkaSource):  # refused before (refusal): kafka only
        return None
    try:
        source.check()
    except StartupError as exc:
        return str(exc)
    return None


def run_workers(
    settings: config_mod.Settings,
    count: int,
    config: Path | None,
    log: FilteringBoundLogger,
    stderr: TextIO,
) -> int:
    """``ragmon run --workers count``: the parent, until SIGTERM, a worker that keeps
    failing (1) or one that cannot start (2, its one line on ``stderr``)."""
    why = preflight(settings)
    if why is not None:
        print(f"ragmon run: {why}", file=stderr)
        return EXIT_USAGE
    from monitor import registry as components

    registry = CollectorRegistry()
    components.watch_reviews(settings, registry)  # the golden dir's, once (not a worker's)
    supervisor = Supervisor(settings, count, config, log, registry)
    m = settings.metrics
    try:
        server = MetricsServer(
            registry, m.host, m.port, ready=supervisor.ready, more=supervisor.exposition
        )
    except OSError as exc:
        print(f"ragmon run: cannot listen on {m.host}:{m.port}: {exc.strerror}", file=stderr)
        return EXIT_USAGE

    def on_stop(name: str) -> None:  # off the handler: commands.signals says why
        log.info("stopping", signal=name, budget_seconds=settings.shutdown_timeout_seconds)

    signals = StopOnSignal(supervisor.stop, on_stop).install()
    server.start()
    log.info("workers_starting", workers=count,
             metrics=f"http://{m.host}:{server.port}/metrics")  # fmt: skip
    try:
        code = supervisor.run()
    finally:
        server.close()
        signals.close()
    if supervisor.refused:
        logwriter.write_line(stderr, supervisor.refused)
    return code
