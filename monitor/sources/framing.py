"""How an OTLP file is framed, read front to back: one OTLP/JSON request per line, or 4-byte
big-endian length-prefixed protobuf requests (what the Collector's file exporter writes);
and which of these, or native JSONL, a file's first bytes look like. A file source hands on
the messages as records; decoding them into spans is the ingest wing's."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import BinaryIO


def spelled_format(text: object) -> object:
    """A record format as a person may write it, in its one documented spelling (the
    config's, the Collector's kafkaexporter's): ``otlp-json``, ``OTLP_JSON`` and
    ``otlp_json`` are ``otlp_json``. Anything but text is returned as it is."""
    return text.strip().lower().replace("-", "_") if isinstance(text, str) else text


def read_messages(data: bytes, fmt: str) -> Iterator[bytes]:
    """Messages of an OTLP file held in memory (``stream_messages``)."""
    return stream_messages(io.BytesIO(data), fmt)


def stream_messages(stream: BinaryIO, fmt: str) -> Iterator[bytes]:
    """Messages of an OTLP stream, read front to back: one JSON request per line
    (``otlp-json``), or 4-byte big-endian length prefixed protobuf requests. A truncated tail
    is yielded as it is: it will not decode, and is reported."""
    if fmt == "otlp-json":
        for line in stream:
            if line.strip():
                yield line.rstrip(b"\r\n")
        return
    while prefix := stream.read(4):
        if len(prefix) < 4:
            yield prefix
            return
        size = int.from_bytes(prefix, "big")
        body = stream.read(size)
        yield body
        if len(body) < size:
            return


def plain_text(head: bytes) -> bool:
    """The first bytes are text of no format ragmon reads: UTF-8 with no control character
    but whitespace, not JSON (a length prefix of protobuf would start with a zero byte
    unless its message is 16 MiB or more)."""
    text = head.lstrip()
    if not text or text[:1] in (b"{", b"["):
        return False
    try:
        decoded = text.decode()
    except UnicodeDecodeError as exc:
        if exc.start < len(text) - 3:  # not only a character cut at the end of the head
            return False
        decoded = text[: exc.start].decode()
    return all(c.isprintable() or c.isspace() for c in decoded)


def sniff_format(head: bytes) -> str | None:
    """``native``, ``otlp-json`` or ``otlp-proto`` from a file's first bytes (``Input.head``);
    None when they are nothing but whitespace. JSON lines that name ``resourceSpans`` are
    OTLP/JSON; other JSON lines are native records; anything else is taken for
    length-prefixed protobuf (which then decodes or is reported record by record)."""
    text = head.lstrip()
    if not text:
        return None
    if text[:1] not in (b"{", b"["):
        return "otlp-proto"
    first = text.split(b"\n", 1)[0]
    return "otlp-json" if b'"resourceSpans"' in first or b'"resource_spans"' in first else "native"
