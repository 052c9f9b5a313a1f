"""Offline conversion of OTLP files: every trace of a finite list of messages assembled and
mapped at once (``ragmon convert``, ``ragmon replay`` of span files, the corpus tests)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from monitor.core.model import DeadLetter, RagTrace
from monitor.ingest.assembly import COMPLETE, EMPTY, LATE, OtlpAssembler
from monitor.ingest.decoder import Decoded
from monitor.sources import SourcePosition, SourceRecord


@dataclass
class Conversion:
    """What a conversion gave: the traces, how many per convention, the bad messages."""

    traces: list[RagTrace] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # convention -> traces
    # (index, reason, detail, raw)
    bad_messages: list[tuple[int, str, str, bytes]] = field(default_factory=list)

    def count(self, name: str) -> int:
        """Traces of convention ``name``."""
        return self.counts.get(name, 0)


def convert(messages: Iterable[bytes], fmt: str) -> Conversion:
    """Assemble and map every trace of a finite list of messages (all spans present)."""
    assembler = OtlpAssembler(fmt)
    out = Conversion()
    items: list[Decoded] = []
    for i, raw in enumerate(messages, 1):
        ready, _ = assembler.feed(SourceRecord(SourcePosition("otlp", 0, i), raw))
        items.extend(ready)
    items.extend(assembler.due(flush=True))
    for d in items:
        if isinstance(d.item, DeadLetter):
            out.bad_messages.append((d.item.offset, d.item.reason, d.item.detail, d.item.raw))
        elif isinstance(d.item, RagTrace):  # the assembler makes no follow-ups
            out.traces.append(d.item)
    out.counts, _ = by_convention(assembler.counts)
    return out


def by_convention(counts: dict[tuple[str, str], int]) -> tuple[dict[str, int], int]:
    """Traces per convention (late span groups left out), and how many were incomplete."""
    by: dict[str, int] = {}
    incomplete = 0
    for (convention, outcome), n in counts.items():
        if outcome in (LATE, EMPTY):  # not traces
            continue
        by[convention] = by.get(convention, 0) + n
        if outcome != COMPLETE:
            incomplete += n
    return by, incomplete
