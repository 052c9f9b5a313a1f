"""``ProcessBatches``: batch mode's provider calls in a child process.

Creating a batch builds every request and has the SDK encode and upload them (about 60 µs of
CPU a request in ragmon's process, ``bench/judge.py``); collecting one reads and validates
every answer. In the daemon's process that work competes with the checks for the GIL, as
the online judge's does (``monitor.judge.process``). Here the batch thread sends each call
to a spawned child that holds the provider's SDK client: the requests go as their traces'
JSON text (as the outbox holds them), outcomes come back as verdicts or failure kinds.

One call at a time (the batch thread is the only caller). A child that dies, or does not
answer within ``call_timeout``, fails the call with ``JudgeError`` (killed first, so no late
answer is read as the next call's) and the next call starts a new one: the batch cycle logs
the failure and tries again, and a create that may have reached the provider is found by
the stage's reconciliation, as after a crash. The child exits with its parent.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import structlog

from monitor.core.errors import JudgeError
from monitor.judge.batch import BatchApi, InProcess, Outcome, Request, batch_api
from monitor.judge.process import Factory, exit_with_parent

ApiFactory = Callable[..., BatchApi]  # top-level, picklable: builds the batch API in the child


def provider_api(judge: Factory, kwargs: Mapping[str, object], discount: float) -> BatchApi:
    """The batch API of the judge ``judge(**kwargs)`` (a ``ProcessBatches`` factory)."""
    return batch_api(judge(**kwargs), discount)


# Where the requests are among a call's arguments: submit(requests, key),
# outcomes(provider_id, requests).
_REQUESTS_AT = {"submit": 0, "outcomes": 1}


def _child(
    factory: ApiFactory, kwargs: Mapping[str, object], conn: Connection, parent: int
) -> None:
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    calls = InProcess(factory(**kwargs))
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError):  # the parent closed its end, or died
            return
        try:
            at = _REQUESTS_AT.get(method)
            if at is not None:  # requests travel as (id, trace text)
                requests = [Request(i, {"trace": text}) for i, text in args[at]]
                args = (*args[:at], requests, *args[at + 1 :])
            result: Any = getattr(calls, method)(*args)
        except JudgeError as exc:
            answer: tuple[str, Any, str] = ("error", exc.kind, str(exc)[:500])
        except Exception as exc:  # the API down, a bug: the parent raises it as a JudgeError
            answer = ("error", type(exc).__name__, str(exc)[:500])
        else:
            answer = ("ok", result, "")
        try:
            conn.send(answer)
        except OSError:  # the parent is gone (killed): nobody to answer, no traceback
            return


class ProcessBatches:
    """``Batches`` whose provider calls run in a child process (see module doc)."""

    def __init__(self, factory: ApiFactory, kwargs: Mapping[str, object],
                 call_timeout: float = 600.0) -> None:  # fmt: skip
        """``factory(**kwargs)`` builds the provider's ``BatchApi`` in the child (top-level,
        picklable: e.g. ``provider_api``)."""
        self._factory = factory
        self._kwargs = kwargs
        self._call_timeout = call_timeout
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._closed = False
        self.restarts = -1
        self.log = structlog.get_logger("ragmon.judge.batch")

    def submit(self, requests: list[Request], key: str) -> str:
        """Create the batch in the child."""
        return str(self._call("submit", ([(r.id, r.text()) for r in requests], key)))

    def ended(self, provider_id: str) -> bool:
        """Whether the batch ended (asked by the child)."""
        return bool(self._call("ended", (provider_id,)))

    def outcomes(self, provider_id: str, requests: list[Request]) -> list[tuple[str, Outcome]]:
        """The outcomes the child read."""
        out: list[tuple[str, Outcome]] = self._call(
            "outcomes", (provider_id, [(r.id, r.text()) for r in requests])
        )
        return out

    def created_since(self, since: float, key: str, count: int) -> list[str]:
        """The provider's batches created since ``since`` (listed by the child)."""
        return [str(p) for p in self._call("created_since", (since, key, count))]

    def close(self) -> None:
        """Stop the child: at once when a call is running (a slow upload, a stalled download:
        the stop must not wait for it; the call fails as ``worker_died`` and a create cut
        short is adopted after the restart), else after it read the closed pipe. No call
        starts a child after this."""
        self._closed = True
        if self._lock.acquire(timeout=0.1):
            try:
                self._stop_child()
            finally:
                self._lock.release()
        elif (proc := self._proc) is not None:
            proc.kill()

    def _call(self, method: str, args: tuple[Any, ...]) -> Any:
        with self._lock:
            if self._closed:
                raise JudgeError("closed", "the batch process was shut down")
            conn = self._ensure_child()
            try:
                conn.send((method, args))
                answer = self._answer(method, conn)
            except (EOFError, OSError):  # the pipe broke: the child died
                answer = None
            if answer is None:
                code = self._proc.exitcode if self._proc is not None else None
                self._stop_child(wait=0)
                raise JudgeError("worker_died", f"batch process exit code {code}")
        status, value, message = answer
        if status == "error":
            raise JudgeError(str(value), str(message))
        return value

    def _answer(self, method: str, conn: Connection) -> Any:
        """The child's answer, or None when it died first. Lock held."""
        deadline = time.monotonic() + self._call_timeout
        while not conn.poll(0.5):
            if self._proc is None or not self._proc.is_alive():
                return None
            if time.monotonic() > deadline:
                self._stop_child(wait=0)  # a late answer must not meet the next call
                raise JudgeError("timeout", f"no answer from the batch process in "
                                 f"{self._call_timeout} s ({method})")  # fmt: skip
        return conn.recv()

    def _ensure_child(self) -> Connection:
        """Start the child (again, if it died); its end of the pipe. Lock held."""
        if self._proc is not None and self._proc.is_alive() and self._conn is not None:
            return self._conn
        ours, theirs = self._ctx.Pipe()
        self._proc = self._ctx.Process(
            target=_child,
            args=(self._factory, self._kwargs, theirs, os.getpid()),
            name="ragmon-judge-batch",
            daemon=True,
        )
        self._proc.start()
        theirs.close()
        self._conn = ours
        self.restarts += 1
        if self.restarts:
            self.log.warning("batch_process_restarted", restarts=self.restarts)
        return ours

    def _stop_child(self, wait: float = 10.0) -> None:
        """Close the pipe and end the child: killed unless it exits within ``wait`` seconds
        (it ends its current call first). Lock held."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            self._proc.join(timeout=wait)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(timeout=5)
            self._proc = None
