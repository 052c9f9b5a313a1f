"""A judge in a child process, so its HTTP and JSON work does not share the check path's GIL.

The anthropic SDK spends a few milliseconds of CPU per call (request building, httpx, JSON,
response models). In the daemon's process that CPU competes with the checks through the
GIL: with 5 % of traces judged the check path slowed by 10-35 % (``bench/judge.py``).
``ProcessJudge`` runs the real judge in a spawned child with its own threads; the parent
sends a trace as JSON and gets a verdict (or the error's kind) back, so the judge stage's
breaker, pause, budget and metrics work unchanged.

If the child dies, every call in flight fails with ``JudgeError("worker_died")`` (the
breaker counts it) and the next call starts a new child. If the parent is killed, the child
notices within a second and exits.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from typing import TYPE_CHECKING

import structlog

from monitor.core.errors import JudgeConfigError, JudgeError
from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict

if TYPE_CHECKING:
    from monitor.judge.stage import Judge

Factory = Callable[..., "Judge"]  # top-level, picklable: builds the judge in the child
Result = tuple[str, str, str]  # status, then a verdict JSON or an error kind and message
Request = tuple[int, str]  # call id, the trace as JSON
Answer = tuple[int, str, str, str]  # call id, then a Result


def exit_with_parent(parent: int) -> None:
    """The parent was killed (kill -9 leaves no chance to stop us): exit too."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _child(factory: Factory, kwargs: Mapping[str, object], requests: Queue[Request | None],
           results: Queue[Answer],
           threads: int, parent: int) -> None:  # fmt: skip
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    judge = factory(**kwargs)

    def run(call_id: int, raw: str) -> None:
        try:
            verdict = judge.judge(RagTrace.from_json(raw))
        except JudgeConfigError as exc:
            results.put((call_id, "config", exc.kind, str(exc)[:500]))
        except JudgeError as exc:
            results.put((call_id, "error", exc.kind, str(exc)[:500]))
        except Exception as exc:  # a judge bug: reported, the child goes on
            # the traceback travels too: the parent logs the first one (judge_crashed)
            results.put((call_id, "crash", type(exc).__name__, traceback.format_exc()[-4000:]))
        else:
            results.put((call_id, "ok", verdict.model_dump_json(), ""))

    with ThreadPoolExecutor(threads, thread_name_prefix="ragmon-judge-child") as pool:
        while True:
            item = requests.get()
            if item is None:
                return
            pool.submit(run, *item)


class ProcessJudge:
    """A ``Judge`` whose calls run in a child process (see module doc)."""

    def __init__(
        self,
        factory: Factory,
        kwargs: Mapping[str, object],
        name: str,
        model: str,
        threads: int = 4,
        call_timeout: float = 600.0,
    ) -> None:
        self.name = name
        self.model = model
        self._factory = factory
        self._kwargs = kwargs
        self._threads = threads
        self._call_timeout = call_timeout
        self._ctx = multiprocessing.get_context("spawn")
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._pending: dict[int, Future[Result]] = {}
        self._proc: BaseProcess | None = None
        self._closed = False
        self.restarts = -1
        self.log = structlog.get_logger("ragmon.judge")

    def _ensure_child(self) -> None:
        """Start the child (again, if it died). Called with the lock held."""
        if self._proc is not None and self._proc.is_alive():
            return
        self._requests: Queue[Request | None] = self._ctx.Queue()
        self._results: Queue[Answer] = self._ctx.Queue()
        self._proc = self._ctx.Process(
            target=_child,
            args=(
                self._factory,
                self._kwargs,
                self._requests,
                self._results,
                self._threads,
                os.getpid(),
            ),
            name="ragmon-judge",
            daemon=True,
        )
        self._proc.start()
        self._pending = {}  # calls of this child; the old reader fails the old child's calls
        self.restarts += 1
        if self.restarts:
            self.log.warning("judge_process_restarted", restarts=self.restarts)
        reader = threading.Thread(
            target=self._read, args=(self._proc, self._results, self._pending), daemon=True,
            name="ragmon-judge-reader",
        )  # fmt: skip
        reader.start()

    def _read(self, proc: BaseProcess, results: Queue[Answer],
              pending: dict[int, Future[Result]]) -> None:  # fmt: skip
        """Resolve this child's calls as results arrive; fail them all if it dies."""
        while True:
            try:
                call_id, status, a, b = results.get(timeout=0.5)
            except queue.Empty:
                if proc.is_alive():
                    continue
                with self._lock:
                    lost = list(pending.values())
                    pending.clear()
                for fut in lost:
                    fut.set_result(("died", "worker_died", f"exit code {proc.exitcode}"))
                return
            except (EOFError, OSError):
                return
            with self._lock:
                done = pending.pop(call_id, None)
            if done is not None:
                done.set_result((status, a, b))

    def judge(self, trace: RagTrace) -> Verdict:
        """The verdict from the judge in the child process (restarted when it died)."""
        fut: Future[Result] = Future()
        with self._lock:
            if self._closed:
                raise JudgeError("closed", "the judge process was shut down")
            self._ensure_child()
            call_id = next(self._ids)
            pending = self._pending
            pending[call_id] = fut
            requests = self._requests
        requests.put((call_id, trace.to_json()))
        try:
            status, a, b = fut.result(timeout=self._call_timeout)
        except FutureTimeout:
            with self._lock:
                pending.pop(call_id, None)
            raise JudgeError(
                "timeout", f"no answer from the judge process in {self._call_timeout} s"
            ) from None
        if status == "ok":
            return Verdict.model_validate_json(a)
        if status == "config":
            raise JudgeConfigError(a, b)
        if status in ("error", "died"):
            raise JudgeError(a, b)
        raise JudgeError("internal", f"judge process: {a}: {b}")

    def close(self) -> None:
        """Stop the child process."""
        with self._lock:
            self._closed = True
            proc = self._proc
        if proc is not None and proc.is_alive():
            self._requests.put(None)
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
