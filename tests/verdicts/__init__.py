"""The verdict guard: a fixed corpus whose evaluation lines are stored in ``stored/``, one
file per check (``check-<name>.jsonl``: trace key -> that check's result), one for the
judge's member (``judge.jsonl``), one for the segments (``segments.jsonl``; the measured
inputs are not kept), one for the risk (``risk.jsonl``) and one for the rest of the line
(``trace.jsonl``).

A change made for speed or structure must not change what ragmon concludes about a trace; a
change made on purpose shows in the diff of the files it touches, in the same commit
(regenerate with ``make verdicts``, which first prints per check how many results flipped
each way). A new check adds its own file and leaves the others as they are; each check must
be flagged (a score: scored) on some stored trace, or the guard protects nothing of it. The
corpus (about 13,000 traces):

* the benchmark traces (``bench.corpus``: the demo's labelled failure modes in five-passage
  contexts), 10,000 of them;
* 2,000 plain demo traces from another seed;
* every case of the labelled check files (``tests/quality``: real-world text with hard
  negatives) as a native trace;
* every OTLP corpus file (spans from real instrumentation), in both encodings;
* each check's own fixture (``tests/checks``), kept in that check's file only (keys
  ``fixture-<check>/...``): a new check's fixture adds to no other part.

Everything runs through the real pipeline built by the registry with the heuristic judge
at the default sampling, so decoding, assembly, checks, sampling and judge are all covered.
Each file holds each distinct result once (``{"result": n, "line": {...}}``) and then one
``{"trace": key, "result": n}`` per trace, so it stays small and a changed verdict shows as
a few changed lines.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from bench.corpus import bench_records
from monitor import registry
from monitor.config import Settings
from monitor.sources import ListSource, demo, framing
from sinks.memory import InMemorySink
from tests import checks as check_fixtures
from tests import otel_corpus
from tests.quality import load_cases

HERE = Path(__file__).resolve().parent
STORED = HERE / "stored"
BENCH_TRACES = 10_000
DEMO_TRACES = 2_000


def _case_record(kind: str, n: int, case: Any) -> bytes:
    context = [{"doc_id": d, "text": t} for d, t in case.passages()]
    record = {
        "trace_id": hashlib.md5(f"{kind}-{n}".encode()).hexdigest(),
        "query": case.query or "What does the documentation say?",
        "context": context,
        "retrieved": [{"doc_id": d} for d, _ in case.passages()],
        "answer": case.answer,
    }
    return json.dumps(record, ensure_ascii=False).encode()


def native_records() -> Iterator[tuple[str, bytes]]:
    """(key prefix, record) of every native trace in the corpus."""
    for record in bench_records(BENCH_TRACES):
        yield "bench", record
    for i in range(DEMO_TRACES):
        yield "demo", demo.generate_bytes(i, seed=11)
    for kind in ("numbers", "refusal", "citation"):
        for n, case in enumerate(load_cases(kind)):
            yield kind, _case_record(kind, n, case)


def _evaluate(values: list[bytes], fmt: str, memo_bytes: int | None) -> list[dict[str, Any]]:
    settings = Settings()
    if memo_bytes is not None:
        checks = settings.checks.model_copy(update={"memo_bytes": memo_bytes})
        settings = settings.model_copy(update={"checks": checks})
    # A queue that holds the whole corpus: on a loaded machine the judge workers can fall
    # behind the check path, and a "queue_full" skip is back-pressure, not a verdict.
    judge = settings.judge.model_copy(update={"backend": "heuristic", "max_queue": 1_000_000})
    settings = settings.model_copy(update={"judge": judge})
    metrics = registry.build_metrics(CollectorRegistry())
    memory = InMemorySink()
    pipeline = registry.build_pipeline(
        settings,
        metrics,
        source=ListSource(values),
        extra_sinks=[memory],
        decoder=registry.build_decoder(settings, metrics, fmt=fmt),
    )
    pipeline.start()
    try:
        pipeline.run(threading.Event())
    finally:
        pipeline.close()
    if memory.dead_letters:
        raise AssertionError(f"corpus record rejected: {memory.dead_letters[0].detail}")
    return [e.to_line() for e in memory.evaluations]


def evaluate(memo_bytes: int | None = None) -> dict[str, dict[str, Any]]:
    """trace key -> evaluation line, for the whole corpus, as the code evaluates it now
    (``memo_bytes``: the passage memo's cap, when not the default; 0 turns it off)."""
    out: dict[str, dict[str, Any]] = {}
    records = list(native_records())
    prefix = {json.loads(r)["trace_id"]: p for p, r in records}
    if len(prefix) != len(records):
        raise AssertionError("two corpus traces share a trace id")
    for line in _evaluate([r for _, r in records], "native", memo_bytes):
        out[f"{prefix[line['trace_id']]}/{line['trace_id']}"] = line
    for stack in otel_corpus.STACKS:
        for fmt, suffix in otel_corpus.FORMATS.items():
            data = (otel_corpus.HERE / f"{stack}{suffix}").read_bytes()
            values = list(framing.read_messages(data, fmt))
            for line in _evaluate(values, fmt.replace("-", "_"), memo_bytes):
                out[f"{stack}{suffix}/{line['trace_id']}"] = line
    for name in check_fixtures.names():
        for line in _evaluate(check_fixtures.records(name), "native", memo_bytes):
            out[f"{FIXTURE}{name}/{line['trace_id']}"] = line
    return out


FIXTURE = "fixture-"  # the key prefix of a check's own fixture: stored in its part only


def canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def split(line: dict[str, Any]) -> dict[str, Any]:
    """An evaluation line in the parts stored apart: ``check-<name>`` per check, ``judge``,
    ``segments`` and ``trace`` (the rest, without the trace id)."""
    # (the evaluator versions hold ragmon's version: not kept, or every release rewrites them)
    own = ("trace_id", "checks", "judge", "segments", "inputs", "evaluators", "risk")
    rest = {k: v for k, v in line.items() if k not in own}
    out: dict[str, Any] = {f"check-{n}": r for n, r in (line.get("checks") or {}).items()}
    out["judge"] = line.get("judge")
    out["segments"] = line.get("segments")  # (the inputs are arithmetic on the trace: not kept)
    out["risk"] = line.get("risk")  # a file of its own: a new evaluator adds one, rewrites none
    out["trace"] = rest
    return out


def dumps(values: dict[str, Any]) -> str:
    """The stored form of one part: distinct values first (numbered in order of first use),
    then one line per trace key, keys sorted."""
    results: dict[str, int] = {}
    traces = []
    for key in sorted(values):
        text = canonical(values[key])
        n = results.setdefault(text, len(results) + 1)
        traces.append(json.dumps({"trace": key, "result": n}))
    head = [f'{{"result": {n}, "line": {text}}}' for text, n in results.items()]
    return "\n".join(head + traces) + "\n"


def loads(text: str) -> dict[str, str]:
    """trace key -> canonical value, from one part's stored form."""
    results: dict[int, str] = {}
    out: dict[str, str] = {}
    for raw in text.splitlines():
        row = json.loads(raw)
        if "line" in row:
            results[row["result"]] = canonical(row["line"])
        else:
            out[row["trace"]] = results[row["result"]]
    return out


def stored() -> dict[str, dict[str, str]]:
    """part -> trace key -> canonical value, as stored."""
    return {p.stem: loads(p.read_text(encoding="utf-8")) for p in sorted(STORED.glob("*.jsonl"))}


def by_part(lines: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """part -> trace key -> value, of evaluation lines by trace key."""
    out: dict[str, dict[str, Any]] = {}
    for key, line in lines.items():
        parts = split(line)
        if key.startswith(FIXTURE):  # a check's fixture: that check's part only
            own = f"check-{key[len(FIXTURE) :].partition('/')[0]}"
            parts = {own: parts[own]}
        for part, value in parts.items():
            out.setdefault(part, {})[key] = value
    return out


def canonical_parts(parts: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """part -> trace key -> canonical value, of ``by_part``'s values."""
    return {part: {k: canonical(v) for k, v in values.items()} for part, values in parts.items()}


def current(memo_bytes: int | None = None) -> dict[str, dict[str, str]]:
    """part -> trace key -> canonical value, evaluated now."""
    return canonical_parts(by_part(evaluate(memo_bytes)))


def changes(was: dict[str, dict[str, str]], now: dict[str, dict[str, str]]) -> list[str]:
    """What changed, per part, for people: a check's flips each way (flagged / passed / not
    applicable), its other changes (evidence, score), the judge's verdict flips; traces new
    or gone."""
    lines = []
    for part in sorted(was.keys() | now.keys()):
        a, b = was.get(part, {}), now.get(part, {})
        flips: dict[str, int] = {}
        for key in a.keys() & b.keys():
            if a[key] == b[key]:
                continue
            va, vb = json.loads(a[key]), json.loads(b[key])
            kind = _state(part, va) + " -> " + _state(part, vb)
            if _state(part, va) == _state(part, vb):
                kind = "same outcome, other detail"
            flips[kind] = flips.get(kind, 0) + 1
        new, gone = len(b.keys() - a.keys()), len(a.keys() - b.keys())
        if flips or new or gone:
            said = [f"{n} {k}" for k, n in sorted(flips.items())]
            said += [f"{new} new"] * bool(new) + [f"{gone} gone"] * bool(gone)
            lines.append(f"{part}: " + ", ".join(said))
    return lines


def _state(part: str, value: Any) -> str:
    if not isinstance(value, dict):
        return "none"
    if part == "judge":
        return str(value.get("verdict") or value.get("skipped") or "none")
    if part.startswith("check-"):
        if not value.get("applicable", True):
            return "not_applicable"
        return "flagged" if value.get("flagged") else "passed"
    return "line"


def main() -> None:
    """Regenerate the stored parts; first say what changed."""
    was = stored() if STORED.is_dir() else {}
    parts = by_part(evaluate())
    for line in changes(was, canonical_parts(parts)) or ["nothing changed"]:
        print(line)
    STORED.mkdir(exist_ok=True)
    for part, values in parts.items():
        (STORED / f"{part}.jsonl").write_text(dumps(values), encoding="utf-8")
    for old in STORED.glob("*.jsonl"):
        if old.stem not in parts:
            old.unlink()
