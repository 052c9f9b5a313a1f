"""Input files read the way a Unix tool reads them: ``-`` is standard input; pipes, FIFOs and
process substitutions (``<(zcat f)``) are read once, front to back, never sought; gzip is told
from its magic bytes, not from the file name. The first bytes are kept (``Input.head``) so the
format can be told before the first record is read, without reading the input twice."""

from __future__ import annotations

import gzip
import io
import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO, cast

STDIN = "-"
HEAD_BYTES = 64 << 10  # enough to tell a format from (the first line of a JSONL file)
_GZIP_MAGIC = b"\x1f\x8b"


class _Counted(io.RawIOBase):
    """A raw stream that counts the bytes read from it (the progress through a file, also
    when what is read from it is decompressed)."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        n = self._raw.readinto(buffer)  # type: ignore[attr-defined]
        self.count += n or 0
        return n or 0


class _Replayed(io.RawIOBase):
    """``head`` (already read), then the rest of ``rest``: a stream from the beginning again."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(buffer)  # type: ignore[attr-defined,no-any-return]


def _read_head(stream: BinaryIO) -> tuple[bytes, str | None]:
    """Up to ``HEAD_BYTES`` from ``stream`` (fewer only at its end: a pipe's reads are
    short), and why the read stopped early when it failed (a gzip stream cut short)."""
    parts: list[bytes] = []
    got = 0
    while got < HEAD_BYTES:
        try:
            chunk = stream.read(min(4096, HEAD_BYTES - got))  # a cut loses at most this
        except (OSError, EOFError) as exc:
            return b"".join(parts), str(exc)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts), None


class Input:
    """One input, opened once: ``stream`` reads it (decompressed) from its first byte,
    ``head`` is its first bytes, ``size`` its size on disk when it is a regular file (None
    for stdin, a pipe or a FIFO), ``done`` the bytes read from disk or pipe so far.
    ``failed`` says why the input ended early when it did within its head (a short gzip
    file cut short): ``stream`` then holds what was read before."""

    def __init__(self, path: Path | str) -> None:
        self.name = "stdin" if str(path) == STDIN else str(path)
        if str(path) == STDIN:
            raw: BinaryIO = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
        else:
            if Path(path).is_dir():
                raise IsADirectoryError(21, "Is a directory", str(path))
            raw = open(path, "rb", buffering=0)  # noqa: SIM115 (closed by close())
        info = os.fstat(raw.fileno())
        self.size = info.st_size if stat.S_ISREG(info.st_mode) else None
        self._raw = raw
        self._counted = _Counted(raw)
        buffered = io.BufferedReader(self._counted, 1 << 16)
        self.compressed = buffered.peek(2)[:2] == _GZIP_MAGIC
        decoded = cast(BinaryIO, gzip.GzipFile(fileobj=buffered) if self.compressed else buffered)
        self.head, self.failed = _read_head(decoded)
        rest = cast(BinaryIO, io.BytesIO()) if self.failed else decoded  # nothing after a failure
        self.stream: BinaryIO = io.BufferedReader(_Replayed(self.head, rest), 1 << 16)

    @property
    def done(self) -> int:
        """Bytes read from the file or pipe so far (compressed bytes for a gzip file)."""
        return self._counted.count

    def close(self) -> None:
        """Close the file (standard input itself stays open: this closed a duplicate)."""
        self._raw.close()


def check_inputs(paths: list[Path]) -> str | None:
    """What is wrong with ``paths`` as inputs (one line), or None: each exists and is not a
    directory, and standard input is named at most once."""
    if sum(str(p) == STDIN for p in paths) > 1:
        return "'-' (standard input) can be read once only"
    for path in paths:
        if str(path) == STDIN:
            continue
        if path.is_dir():
            return f"is a directory: {path}"
        if not path.exists():
            return f"no such file: {path}"
    return None
