"""``Outbox``: the durable log of batch-mode judge requests and of the batches that carry them.

One append-only JSONL file (``<judge.batch.dir>/outbox.jsonl``). Each step of a request's
life is one line, written before it is acted on or after it happened:

* ``request`` ``{id, trace, weight, usd}``: a sampled trace to judge. Appended without fsync;
  ``sync`` (the pipeline's checkpoint, before offsets are committed) makes them durable, so
  no committed trace's request is lost and an uncommitted one is read again from the source
  (the same id: it is not added twice).
* ``submit`` ``{batch, ids, at}``: a batch is about to be created (fsync'd before the call);
* ``submitted`` ``{batch, provider}``: the provider's id of the batch (fsync'd after it);
* ``written`` ``{batch}``: every result's line was flushed by the sinks.

A cut last line (power lost, a full disk, a kill during a large write) is cut off when the
log is opened, so that the next line starts on a line of its own instead of being glued to
it and lost; it was never fsync'd, so nothing it said was acted on (a request is read again
from the source, a batch's create was not called yet, a ``submitted`` batch is looked up by
its key, a ``written`` batch is written again). Other unreadable lines are counted and
skipped. When every batch is written, the
file is compacted (a new file, renamed over the old) to the requests still waiting and one
``judged`` line with the ids of the last ``REMEMBERED`` judged requests: a record read again
after they were judged (its offset commit was lost) is not judged a second time.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Required, TypedDict, cast

import structlog

LOG_NAME = "outbox.jsonl"
# Appends are buffered until the next checkpoint's sync (or this much): with the default 8 KiB
# nearly every ~5 KB request was a write system call on the check path.
_BUFFER = 1 << 20
REMEMBERED = 100_000


class RequestEntry(TypedDict):
    """What a request line carries besides its id and trace."""

    weight: float  # the sampling weight (1/p)
    usd: float  # the estimated price, held in the budget
    at: float  # when it was added (Unix seconds): a batch is due ``max_wait_seconds`` later


class RequestLine(TypedDict, total=False):
    """A ``request`` line: ``id``, the entry, and the trace (JSON text as appended, an object
    when read back); ``held`` keeps the trace object in this process (never written)."""

    t: str
    id: str
    trace: Required[str | dict[str, Any]]
    weight: float
    usd: float
    at: float
    held: object


@dataclass
class BatchState:
    """A batch as the log knows it."""

    batch: str
    ids: list[str]
    at: float
    provider: str | None = None
    written: bool = False


@dataclass
class OutboxState:
    """What the log holds: requests by id (in order) and batches by local id."""

    requests: dict[str, RequestLine] = field(default_factory=dict)
    batches: dict[str, BatchState] = field(default_factory=dict)
    judged: dict[str, None] = field(default_factory=dict)  # ids, in order (a bounded set)
    bad_lines: int = 0


class Outbox:
    """The log, its state in memory, and the one lock both are changed under."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / LOG_NAME
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self.state = OutboxState()
        self._taken: set[str] = set()  # request ids in some batch
        self.log = structlog.get_logger("ragmon.judge.batch")

    def open(self) -> None:
        """Read the log (a missing one is empty) and open it for appending."""
        self.directory.mkdir(parents=True, exist_ok=True)
        cut = cut_torn_tail(self.path)
        if cut:
            self.log.warning("outbox_torn_tail_cut", bytes=cut)
        self.state = read(self.path)
        self._taken = {i for b in self.state.batches.values() for i in b.ids}
        if self.state.bad_lines:
            self.log.warning("outbox_lines_skipped", lines=self.state.bad_lines)
        self._file = self.path.open("a", encoding="utf-8", buffering=_BUFFER)

    def close(self) -> None:
        """Make everything durable and close the file."""
        with self._lock:
            if self._file is not None:
                self._sync_locked()
                self._file.close()
                self._file = None

    # --- requests ---------------------------------------------------------------------------

    def add(
        self, request_id: str, entry: RequestEntry, trace_json: str, held: object = None
    ) -> bool:
        """Append a request, its trace as JSON text (durable at the next ``sync``); False
        when the id is known. ``held``: the trace object, kept in memory for this process."""
        with self._lock:
            if request_id in self.state.requests or request_id in self.state.judged:
                return False
            record = {"t": "request", "id": request_id, **entry}
            head = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
            line = {**record, "trace": trace_json, "held": held}
            self.state.requests[request_id] = cast(RequestLine, line)  # the keys above
            if self._file is None:
                raise RuntimeError("the outbox is not open")
            self._file.write(f'{head[:-1]},"trace":{trace_json}}}\n')  # the trace as it is
            return True

    def pending(self) -> list[str]:
        """Request ids in no batch yet, oldest first."""
        with self._lock:
            return [i for i in self.state.requests if i not in self._taken]

    def pending_count(self) -> int:
        """How many requests are in no batch yet."""
        with self._lock:
            return len(self.state.requests) - len(self._taken)

    def get(self, request_id: str) -> RequestLine | None:
        """The ``request`` line of ``request_id``, or None when the log holds none."""
        with self._lock:
            return self.state.requests.get(request_id)

    def sync(self) -> None:
        """Flush and fsync what was appended (the fsync outside the lock: appends go on)."""
        with self._lock:
            fd = self._flushed()
        self._fsync(fd)

    # --- batches ----------------------------------------------------------------------------

    def submitting(self, batch: str, ids: list[str], at: float) -> BatchState:
        """The intent to create ``batch`` of ``ids``, durable before the call."""
        state = BatchState(batch, list(ids), at)
        with self._lock:
            self.state.batches[batch] = state
            self._taken.update(state.ids)
            self._write({"t": "submit", "batch": batch, "ids": state.ids, "at": at})
            fd = self._flushed()
        self._fsync(fd)
        return state

    def submitted(self, batch: str, provider: str) -> None:
        """The provider created ``batch`` as ``provider``."""
        with self._lock:
            self.state.batches[batch].provider = provider
            self._write({"t": "submitted", "batch": batch, "provider": provider})
            fd = self._flushed()
        self._fsync(fd)

    def written(self, batch: str) -> None:
        """Every result of ``batch`` is in the sinks; compacts the log when nothing is open."""
        with self._lock:
            self.state.batches[batch].written = True
            self._write({"t": "written", "batch": batch})
            self._sync_locked()
            if all(b.written for b in self.state.batches.values()):
                self._compact_locked()

    def open_batches(self) -> list[BatchState]:
        """Batches whose results are not written yet, oldest first."""
        with self._lock:
            return [b for b in self.state.batches.values() if not b.written]

    # --- the file ---------------------------------------------------------------------------

    def _write(self, record: dict[str, object]) -> None:
        if self._file is None:
            raise RuntimeError("the outbox is not open")
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def _flushed(self) -> int | None:
        """Flush the file (under the lock); a duplicate of its descriptor to fsync after the
        lock is released (a compaction may close the file meanwhile), or None."""
        if self._file is None:
            return None
        self._file.flush()
        return os.dup(self._file.fileno())

    @staticmethod
    def _fsync(fd: int | None) -> None:
        if fd is not None:
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def _sync_locked(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())

    def _compact_locked(self) -> None:
        """Keep only the requests in no batch: every batch is written."""
        taken = {i for b in self.state.batches.values() for i in b.ids}
        keep = {i: r for i, r in self.state.requests.items() if i not in taken}
        judged = list(self.state.judged) + [i for b in self.state.batches.values() for i in b.ids]
        judged = judged[-REMEMBERED:]
        tmp = self.path.with_suffix(".compact")
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(json.dumps({"t": "judged", "ids": judged}) + "\n")
            for record in keep.values():
                trace = record["trace"]
                if isinstance(trace, str):  # as appended: JSON text
                    trace = json.loads(trace)
                line = {k: v for k, v in record.items() if k != "held"} | {"trace": trace}
                fh.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        if self._file is not None:
            self._file.close()
        os.replace(tmp, self.path)
        self._file = self.path.open("a", encoding="utf-8", buffering=_BUFFER)
        self.state = OutboxState(requests=keep, judged=dict.fromkeys(judged))
        self._taken = set()


def cut_torn_tail(path: Path) -> int:
    """Truncate ``path`` after its last newline; how many bytes of a torn last line went."""
    try:
        fh = path.open("r+b")
    except FileNotFoundError:
        return 0
    with fh:
        end = fh.seek(0, os.SEEK_END)
        at = end
        while at > 0:
            start = max(0, at - 65536)
            fh.seek(start)
            chunk = fh.read(at - start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                at = start + newline + 1
                break
            at = start
        if at == end:
            return 0
        fh.truncate(at)
        fh.flush()
        os.fsync(fh.fileno())
        return end - at


def read(path: Path) -> OutboxState:
    """The state a log holds; unreadable lines (a cut last line) are counted and skipped."""
    state = OutboxState()
    if not path.exists():
        return state
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                record = json.loads(line)
                _apply(state, record)
            except (ValueError, KeyError, TypeError):
                state.bad_lines += 1
    return state


def _apply(state: OutboxState, record: dict[str, Any]) -> None:
    """One line read back (untrusted: a missing key or a wrong type is a bad line)."""
    kind = record["t"]
    if kind == "request":
        if not isinstance(record.get("trace"), str | dict):
            raise TypeError("a request line without its trace")
        state.requests.setdefault(str(record["id"]), cast(RequestLine, record))
    elif kind == "submit":
        batch = str(record["batch"])
        state.batches[batch] = BatchState(batch, [str(i) for i in record["ids"]], record["at"])
    elif kind == "submitted":
        state.batches[str(record["batch"])].provider = str(record["provider"])
    elif kind == "written":
        state.batches[str(record["batch"])].written = True
    elif kind == "judged":
        state.judged = dict.fromkeys(str(i) for i in record["ids"])
    else:
        raise ValueError(f"unknown outbox line {kind!r}")
