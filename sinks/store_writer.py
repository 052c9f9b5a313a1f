"""``WriterProcess``: the evaluation store written by a process of its own (docs, "The
evaluation store"), so that the store's work runs on another core, not on the pipeline's;
what the store sink (``sinks.store``) hands its work to under ``store.writer: process``.

The sink takes each evaluation as a compact record (``sinks.store_record.Captured``: its line,
texts as they are, ids), sends them in batches through a pipe (msgpack) to a writer process
it starts (a new interpreter running this module, never a fork: the daemon has threads; and
not ``multiprocessing``'s spawn, which imports the daemon's main script again), and that
process redacts the text,
makes the JSON and writes SQLite exactly as the inline ``StoreSink`` does (it runs one).
The writer reads the pipe on a thread of its own (the daemon's sends do not wait for its
work) and writes each message's rows as it comes into an open transaction
(``StoreSink.stage``), so that a flush leaves it only the last message and the COMMIT; it
runs retention and checkpoints the WAL after answering, off the daemon's wait.
``flush`` sends a mark and waits for the writer's answer after its COMMIT: flush is still
"delivered", and the offsets commit after the store's commit. The writer's death is a
``SinkError`` at the next flush (and every one after: what it had taken is lost to it, and
the source replays it) with one log line; an answer is never waited for longer than
``writer_timeout_seconds``. The writer ignores SIGINT and SIGTERM (the daemon closes it, and
it finishes what it was sent) and exits when its pipe closes: a daemon killed with kill -9
leaves no writer holding the file.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

import msgspec
import structlog

from monitor.core.errors import SinkError
from monitor.core.model import Evaluation, Followup, SessionOutcome
from monitor.core.pii import Redactor
from sinks.jsonl import made_line
from sinks.store_record import (
    Captured,
    Row,
    capture,
    decode_hook,
    encode_hook,
    followup_row,
    session_row,
)

_LOG = structlog.get_logger("ragmon.store")
_BATCH = 64  # evaluations sent to the writer in one message
_QUEUED = 64  # messages the writer has read and not yet taken, at most (~28 MB)
_EVALUATION, _FOLLOWUP, _SESSION = 0, 1, 2
_NONE, _FLUSH, _CLOSE = 0, 1, 2
# the daemon's end of the pipe may hold this much unread (the kernel doubles it, capped by
# net.core.wmem_max): the sends wait less for the writer's receiving thread to be scheduled
_SEND_BUFFER = 1 << 20
_START_SECONDS = 120.0  # the writer's start at least (a new interpreter importing ragmon)


class _Message(msgspec.Struct, array_like=True):
    """The daemon to its writer: what was taken, then what to do (nothing, flush, close).
    The daemon sends each evaluation encoded as it was taken (``_Sent``), the writer reads
    them as ``Captured``: the same bytes."""

    evaluations: list[Captured]
    followups: list[Row]
    sessions: list[Row]
    then: int = _NONE


class _Sent(msgspec.Struct, array_like=True):
    """``_Message`` as the daemon sends it: each evaluation's record encoded when it was
    taken (bytes: nothing of it is left for the garbage collector to trace or promote)."""

    evaluations: list[msgspec.Raw]
    followups: list[Row]
    sessions: list[Row]
    then: int = _NONE


class _Answer(msgspec.Struct, array_like=True):
    """The writer to the daemon, after a start, a flush or a close: the error (None: done),
    what retention deleted and the files moved aside since the last answer, its log lines."""

    error: str | None
    deleted: dict[str, int]
    moved_aside: list[str]
    logs: list[tuple[str, str, dict[str, Any]]]


class _Logs:
    """The writer's log lines, kept for its next answer: the daemon logs them as its own."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def info(self, event: str, **kw: object) -> None:
        self.lines.append(("info", event, kw))

    def warning(self, event: str, **kw: object) -> None:
        self.lines.append(("warning", event, kw))


class Writer(Protocol):
    """What the writer process runs: the inline store sink (``sinks.store.StoreSink``)."""

    log: object
    deleted: dict[str, int]
    moved_aside: list[Path]
    deferred: bool

    def start(self) -> None:
        """Open the store."""

    def take(self, c: Captured) -> None:
        """Take an evaluation's record."""

    def take_rows(self, followups: list[Row], sessions: list[Row]) -> None:
        """Take follow-up and session rows."""

    def stage(self) -> None:
        """Write what was taken into the open transaction, not committed."""

    def housekeep(self) -> None:
        """Retention when due and the WAL's checkpoint, deferred from a flush."""

    def count_damaged(self, aside: Path) -> None:
        """A damaged file moved aside: kept and counted."""

    def count_deleted(self, reason: str, deleted: int) -> None:
        """Evaluations deleted by retention: kept and counted."""

    def flush(self) -> None:
        """Commit what was taken."""

    def close(self) -> None:
        """Commit what was taken and close the store."""

    def abandon(self) -> None:
        """Close the store without committing."""


# how the writer process makes its ``Writer`` (the store sink's class): path, redactor,
# maximum age, maximum size, retention interval
Make = Callable[[Path, Redactor | None, float, int, float], Writer]


def serve(conn: Connection, make: Make, path: str, redactor: Redactor | None, max_age: float,
          max_bytes: int, interval: float) -> None:  # fmt: skip
    """The writer process: a ``StoreSink`` (``make``) fed from ``conn`` until a close or the
    pipe's end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logs = _Logs()
    sink = make(Path(path), redactor, max_age, max_bytes, interval)
    sink.log = logs
    sink.deferred = True  # retention and checkpoints after a flush's answer, off its wait
    seen_deleted = dict(sink.deleted)
    seen_aside = 0
    encode = msgspec.msgpack.Encoder().encode
    decode = msgspec.msgpack.Decoder(_Message, dec_hook=decode_hook).decode

    def answer(error: str | None) -> None:
        nonlocal seen_aside
        deleted = {k: v - seen_deleted[k] for k, v in sink.deleted.items()}
        seen_deleted.update(sink.deleted)
        aside = [str(p) for p in sink.moved_aside[seen_aside:]]
        seen_aside = len(sink.moved_aside)
        conn.send_bytes(encode(_Answer(error, deleted, aside, logs.lines)))
        logs.lines = []

    try:
        sink.start()
    except SinkError as exc:
        answer(str(exc))
        return
    answer(None)
    received = _receive(conn)
    while True:
        got = received.get()
        if got is None:  # the daemon is gone: what was not flushed is replayed
            sink.abandon()
            return
        message = decode(got)
        for c in message.evaluations:
            sink.take(c)
        sink.take_rows(message.followups, message.sessions)
        if message.then == _NONE:
            sink.stage()  # its rows written now: the flush has only the last and the COMMIT
        elif message.then == _FLUSH:
            try:
                sink.flush()
            except Exception as exc:  # said to the daemon, which raises it
                answer(str(exc) or type(exc).__name__)
                continue
            answer(None)
            sink.housekeep()  # what it deletes or logs is said in the next answer
        elif message.then == _CLOSE:
            try:
                sink.close()
            except Exception as exc:
                answer(str(exc) or type(exc).__name__)
                return
            answer(None)
            return


def _receive(conn: Connection) -> queue.Queue[bytes | None]:
    """The daemon's messages, read by a thread of their own as they come (None: the pipe's
    end): the daemon's sends never wait for the writer to finish a message's work or a
    commit, up to ``_QUEUED`` messages read and not yet written (then the pipe's buffer,
    then the send's timeout)."""
    received: queue.Queue[bytes | None] = queue.Queue(_QUEUED)

    def read() -> None:
        while True:
            try:
                received.put(conn.recv_bytes())
            except (EOFError, OSError):
                received.put(None)
                return

    threading.Thread(target=read, name="store-writer-receive", daemon=True).start()
    return received


class WriterProcess:
    """The writer process of the store at ``path`` and the daemon's end of its pipe (see the
    module); what it learns from the writer (files moved aside, rows deleted) is counted by
    ``sink`` as its own (``count_damaged``, ``count_deleted``)."""

    def __init__(
        self,
        sink: Writer,
        args: tuple[Make, str, Redactor | None, float, int, float],
        timeout_seconds: float,
    ) -> None:
        self.path = args[1]
        self._redactor = args[2]
        self._args = args
        self._timeout = timeout_seconds
        self._conn: Connection | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._message = _Sent([], [], [])
        self._encode = msgspec.msgpack.Encoder(enc_hook=encode_hook).encode
        self._decode = msgspec.msgpack.Decoder(_Answer).decode
        self._failed: str | None = None  # why the writer is gone (every flush raises it)
        self._sink = sink

    @property
    def writer_pid(self) -> int | None:
        """The writer process's id (None before start)."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start the writer and wait for it to open the store (``SinkError`` when it cannot)."""
        mine, theirs = socket.socketpair()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "sinks.store_writer", str(theirs.fileno())],
                stdin=subprocess.PIPE, pass_fds=(theirs.fileno(),), env=env,
            )  # fmt: skip
        except OSError as exc:
            mine.close()
            raise SinkError(f"store {self.path}: cannot start its writer process: {exc}") from None
        finally:
            theirs.close()  # the writer's end lives in the writer only: its EOF is our exit
        assert process.stdin is not None
        with process.stdin:
            process.stdin.write(pickle.dumps(self._args))
        conn = Connection(mine.detach())
        _send_timeout(conn, self._timeout)
        self._conn, self._process = conn, process
        self._wait("start", max(self._timeout, _START_SECONDS))

    # --- taking lines

    def write(self, evaluation: Evaluation) -> None:
        """Take the evaluation (its text as it is: the writer redacts it; or the line, question
        and answer another sink made of it, redacted). When the writer is gone, nothing: the
        next flush raises."""
        if self._failed is not None:
            return
        # the line a sink before made (the JSONL sink's), redacted as the writer would, is
        # taken as it is, not made again; else the line as it is, which the writer redacts.
        # Encoded now: a record kept as objects until its batch is sent (its line's dicts)
        # outlived the young generation and cost the daemon full garbage collections
        made = made_line(evaluation, self._redactor)
        record = self._encode(capture(evaluation, time.time(), made))
        self._message.evaluations.append(msgspec.Raw(record))
        if len(self._message.evaluations) >= _BATCH:
            with contextlib.suppress(SinkError):  # said once in the log; the flush raises it
                self._send(_NONE)

    def write_followup(self, followup: Followup) -> None:
        """Take the follow-up line (ids and signals: no text of the turns)."""
        self._message.followups.append(followup_row(followup, time.time()))

    def write_session(self, outcome: SessionOutcome) -> None:
        """Take the session's outcome line (ids and counts: no text of the turns)."""
        self._message.sessions.append(session_row(outcome, time.time()))

    # --- delivering

    def flush(self) -> None:
        """Send what is left and wait until the writer has committed it (``SinkError`` when
        it cannot, when it is gone, or after ``timeout_seconds``)."""
        self._send(_FLUSH)
        self._wait("flush")

    def close(self) -> None:
        """Send what is left, have the writer commit it and close the file, and wait for it
        to exit."""
        if self._process is None:
            return
        try:
            if self._failed is None:
                self._send(_CLOSE)
                self._wait("close")
        finally:
            self._stop()

    def _send(self, then: int) -> None:
        if self._failed is not None:
            raise SinkError(self._failed)
        message, self._message = self._message, _Sent([], [], [])
        message.then = then
        try:
            self._connection().send_bytes(self._encode(message))
        except BlockingIOError:  # the writer has not read for the timeout (the socket's)
            self._fail(f"the store's writer process did not read for {self._timeout:g} s")
        except OSError as exc:  # the writer is gone
            self._fail(f"the store's writer process is gone ({exc})")

    def _wait(self, what: str, seconds: float | None = None) -> None:
        """The writer's answer to the last start, flush or close, within the timeout."""
        if self._failed is not None:
            raise SinkError(self._failed)
        conn, process = self._connection(), self._process
        assert process is not None
        seconds = self._timeout if seconds is None else seconds
        deadline = time.monotonic() + seconds
        while not conn.poll(0.2):
            if process.poll() is not None and not conn.poll():
                self._fail(f"the store's writer process exited (code {process.returncode}) "
                           f"before its {what}")  # fmt: skip
            if time.monotonic() > deadline:
                self._fail(f"the store's writer process did not answer its {what} within "
                           f"{seconds:g} s")  # fmt: skip
        try:
            answer = self._decode(conn.recv_bytes())
        except (EOFError, OSError):
            self._fail(f"the store's writer process exited (code {process.poll()}) "
                       f"before its {what}")  # fmt: skip
        for level, event, kw in answer.logs:
            getattr(_LOG, level)(event, **kw)
        for reason, n in answer.deleted.items():
            self._sink.count_deleted(reason, n)
        for aside in answer.moved_aside:
            self._sink.count_damaged(Path(aside))
        if answer.error is not None:
            raise SinkError(answer.error if answer.error.startswith("store") else
                            f"store {self.path}: {answer.error}")  # fmt: skip

    def _fail(self, why: str) -> None:
        """The writer is gone or stuck: one log line, stopped, and every flush raises."""
        self._failed = f"store {self.path}: {why}; what it had not committed is replayed"
        _LOG.error("store_writer_failed", path=str(self.path), reason=why,
                   hint="the flush fails; the source replays what was not committed")  # fmt: skip
        self._stop(wait=0)
        raise SinkError(self._failed)

    def _stop(self, wait: float = 10) -> None:
        """Close the pipe (the writer's EOF: it exits) and wait ``wait`` seconds for it, then
        kill it (a stuck writer must not keep the file)."""
        if self._conn is not None:
            self._conn.close()
        process = self._process
        if process is not None:
            try:
                process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def _connection(self) -> Connection:
        if self._conn is None:
            raise SinkError(f"store {self.path}: written before start")
        return self._conn


def _send_timeout(conn: Connection, seconds: float) -> None:
    """A send on ``conn`` (a socket pair's end) fails with ``BlockingIOError`` when the other
    end has read nothing for ``seconds`` (SO_SNDTIMEO): a writer that stopped reading does
    not hang the pipeline's write; and its buffer is ``_SEND_BUFFER``."""
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:  # the option is the socket's
        whole = int(seconds)
        value = struct.pack("ll", whole, int((seconds - whole) * 1e6))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)


if __name__ == "__main__":  # the writer process: its end of the pipe, then what to make
    serve(Connection(int(sys.argv[1])), *pickle.load(sys.stdin.buffer))
    # the file is closed, what it was sent committed (or left to the replay): the
    # interpreter's teardown, which the daemon's close would wait for (0.1-0.3 s on a loaded
    # machine), is skipped
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
