"""Decoding a native record: the candidates for the trace type, measured side by side.

Run: ``python bench/decode.py --traces 5000``. On the benchmark corpus (~5.8 KB native
records, ``bench.corpus``; one core; CPU time; best of ``--repeats``, the rows timed in turn
inside each repeat) it prints µs a record for:

* ``json.loads`` of the bytes (a parse into dicts, no validation): the baseline;
* pydantic's ``validate_json`` of the record's schema (``core.record.TraceRecord``: what
  decoding was before msgspec), and of a ``TypedDict`` of the same fields (pydantic-core's
  JSON validation without model instances);
* msgspec into the trace itself (``RagTrace.from_json``: what ragmon runs), and the whole
  native decoder around it (``NativeDecoder``: the size check, the dead-letter paths);
* orjson's parse, for scale, when it is installed (not a dependency).

Not a test: the figures are reported, not asserted (the target is ≤ 6 µs a record).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from bench.checks import pin_one_core, timings
from bench.corpus import bench_records
from monitor.core.model import RagTrace
from monitor.core.record import TraceRecord
from monitor.ingest.native import NativeDecoder
from monitor.sources import SourcePosition, SourceRecord


class _Doc(TypedDict, total=False):
    doc_id: str
    chunk_id: str | None
    score: float | None
    rank: int | None


class _Passage(TypedDict, total=False):
    doc_id: str | None
    chunk_id: str | None
    text: str
    data_source: str | None
    timestamp: datetime | None


@with_config(ConfigDict(strict=True))
class _Trace(TypedDict, total=False):
    trace_id: str
    schema: Literal["ragmon.trace/v1"] | None
    timestamp: datetime | None
    app: str | None
    route: str | None
    release: str | None
    query: str
    retrieved: list[_Doc]
    context: list[_Passage]
    answer: str
    model: str | None
    attributes: dict[str, Any]
    golden_id: str | None
    session_id: str | None
    sample_rate: float | None


def candidates(records: list[bytes]) -> dict[str, Callable[[bytes], object]]:
    """Name -> a function of one record's bytes."""
    typed = TypeAdapter(_Trace)
    native = NativeDecoder()
    out: dict[str, Callable[[bytes], object]] = {
        "json.loads (baseline)": json.loads,
        "pydantic validate_json, the schema's model": TraceRecord.model_validate_json,
        "pydantic validate_json, a TypedDict": typed.validate_json,
        "msgspec into the trace (RagTrace.from_json)": RagTrace.from_json,
        "the native decoder (NativeDecoder)": lambda raw: native(
            SourceRecord(SourcePosition("bench", 0, 0), raw)
        ),
    }
    try:
        import orjson

        out["orjson.loads (for scale)"] = orjson.loads
    except ImportError:
        pass
    # the records are all traces: no row is timed on a dead letter's path
    assert all(isinstance(RagTrace.from_json(r), RagTrace) for r in records)
    return out


def _each(decode: Callable[[bytes], object], records: list[bytes]) -> Callable[[], None]:
    def run() -> None:
        for raw in records:
            decode(raw)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    pin_one_core()
    records = bench_records(args.traces)
    runs = {name: (_each(decode, records), None) for name, decode in candidates(records).items()}
    best = {name: min(ts) for name, ts in timings(runs, args.repeats, time.process_time).items()}
    size = sum(map(len, records)) / len(records)
    print(f"{len(records)} native records of {size / 1024:.1f} KB; best of {args.repeats}, "
          "one core, CPU time")  # fmt: skip
    base = best["json.loads (baseline)"]
    for name, seconds in best.items():
        us = seconds / len(records) * 1e6
        print(f"  {name:<48} {us:6.2f} µs  {seconds / base:5.2f}x json.loads")


if __name__ == "__main__":
    main()
