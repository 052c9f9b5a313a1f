"""How a replay note rides in a Kafka commit's metadata (``KafkaSource`` writes and reads
it): the note's bits packed, compressed and kept under the broker's metadata limit, and the
notes of the format before read back."""

from __future__ import annotations

import base64
import zlib

from monitor.sources.base import ReplayNote

# A replay note in a commit's metadata: "ragmon/2 <start> <read_end> <bits> <data>", data the
# note's bits (one per trace of each record from start: 1 unfinished) packed and compressed
# (zlib, base64), or "-" without bits. Kafka's broker setting offset.metadata.max.bytes: "The
# maximum size for a metadata entry associated with an offset commit" (default 4096); a note
# is kept under it, cut short when its bits do not fit (the traces past its last bit are
# then news, perhaps seen before), and under half as much again each time a broker refuses
# it. Notes of ragmon/1 ("ragmon/1 <read_end> <keys>": the unfinished traces' 32-bit keys
# as base64 of 4 bytes each, or "*") are read, never written.
NOTE_PREFIX = "ragmon/2 "
NOTE_PREFIX_V1 = "ragmon/1 "
MAX_NOTE_BYTES = 4000
MIN_NOTE_BYTES = 64  # below this a broker takes no note: commits go without
MAX_NOTE_BITS = 1 << 24


def encode_note(note: ReplayNote | None, limit: int = MAX_NOTE_BYTES) -> str:
    """A note as commit metadata of at most ``limit`` bytes ("" without one, or when not
    even a note without bits fits): as many of its bits as fit."""
    if note is None:
        return ""
    head = f"{NOTE_PREFIX}{note.start} {note.read_end} "
    bits = note.bits[:MAX_NOTE_BITS]

    def said(n: int) -> str:
        if n == 0:
            return head + "0 -"
        packed = int(bits[:n], 2).to_bytes((n + 7) // 8, "big")
        return f"{head}{n} {base64.b64encode(zlib.compress(packed, 9)).decode('ascii')}"

    whole = said(len(bits))
    if len(whole) <= limit:
        return whole
    if len(said(0)) > limit:
        return ""
    low, high = 0, len(bits)  # the most bits that fit: said(low) fits, said(high + 1) not
    while low < high:
        mid = (low + high + 1) // 2
        if len(said(mid)) <= limit:
            low = mid
        else:
            high = mid - 1
    return said(low)


def decode_note(metadata: str | None) -> ReplayNote | None:
    """A note read back from commit metadata; None for anything else (an empty string,
    another tool's metadata, a malformed note)."""
    if not metadata:
        return None
    if metadata.startswith(NOTE_PREFIX_V1):
        return _decode_v1(metadata[len(NOTE_PREFIX_V1) :])
    if not metadata.startswith(NOTE_PREFIX):
        return None
    parts = metadata[len(NOTE_PREFIX) :].split(" ")
    if len(parts) != 4 or not all(p.isdecimal() for p in parts[:3]):
        return None
    start, end, n = (int(p) for p in parts[:3])
    if n == 0:
        return ReplayNote(end, start=start) if parts[3] == "-" else None
    if n > MAX_NOTE_BITS:
        return None
    try:
        inflate = zlib.decompressobj()
        packed = inflate.decompress(base64.b64decode(parts[3], validate=True), (n + 7) // 8 + 1)
    except (ValueError, zlib.error):
        return None
    value = int.from_bytes(packed, "big")
    if len(packed) != (n + 7) // 8 or value >> n:
        return None
    return ReplayNote(end, start=start, bits=format(value, f"0{n}b"))


def _decode_v1(rest: str) -> ReplayNote | None:
    """A note of ragmon/1: its keys, or none known ("*": every trace below its end is news,
    perhaps seen before)."""
    parts = rest.split(" ")
    if len(parts) != 2 or not parts[0].isdecimal():
        return None
    if parts[1] == "*":
        return ReplayNote(int(parts[0]))
    try:
        packed = base64.b64decode(parts[1], validate=True)
    except ValueError:
        return None
    if len(packed) % 4:
        return None
    keys = frozenset(int.from_bytes(packed[i : i + 4], "big") for i in range(0, len(packed), 4))
    return ReplayNote(int(parts[0]), keys)
