"""Every path writes each consecutive pair's follow-up line exactly once: a replay with and
without a judge (whatever order the verdicts come back in), an OTLP replay whose traces carry
a session, and a dry-run rescore."""

from __future__ import annotations

import io
import itertools
import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from monitor import registry
from monitor.commands.cli import build_parser, runner
from monitor.config import Settings
from monitor.core.model import RagTrace
from monitor.core.verdict import Verdict
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.sampler import Budget, HashSampler, SamplingRules
from monitor.judge.stage import JudgeStage
from monitor.sources import ListSource
from sinks.memory import InMemorySink

QUERIES = ["How much is the Pro plan?", "how much is the pro plan??", "let me talk to a person",
           "thanks!", "that's wrong", "Does it include SSO?"]  # fmt: skip


def conversation_records(sessions: int = 7) -> list[dict[str, Any]]:
    """``sessions`` conversations of 2-4 turns a minute apart (13 pairs for 7)."""
    base = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    out = []
    for c in range(sessions):
        for i in range(2 + c % 3):
            out.append({
                "trace_id": f"{c + 1:016x}{i + 1:016x}",
                "session_id": f"s{c}",
                "timestamp": datetime.fromtimestamp(base + c * 7 + 60 * i, UTC).isoformat(),
                "query": QUERIES[(c + i) % len(QUERIES)],
                "context": [{"doc_id": "plans", "text": "The Pro plan costs $20 a month."}],
                "answer": "The Pro plan costs $20 a month.",
            })  # fmt: skip
    return out


def pairs_of(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    by: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault(r["session_id"], []).append(r)
    return sorted((a["trace_id"], b["trace_id"]) for turns in by.values()
                  for a, b in itertools.pairwise(turns))  # fmt: skip


class LaterTurnsSlow:
    """A judge that hands back a session's first turn at once and every later turn ``delay``
    seconds after: the verdicts come back in an order of their own, after the end of input."""

    name = "heuristic"
    model = "heuristic-v1"

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.inner = HeuristicJudge()

    def judge(self, trace: RagTrace) -> Verdict:
        if not trace.trace_id.endswith("1"):
            time.sleep(self.delay)
        return self.inner.judge(trace)

    def close(self) -> None:
        """Nothing held."""


def test_every_pair_is_written_once_when_the_verdicts_come_back_after_the_end() -> None:
    records = conversation_records()
    stage = JudgeStage(LaterTurnsSlow(0.3), HashSampler(SamplingRules(1.0, 1.0)), Budget(None),
                       concurrency=2)  # fmt: skip
    sink = InMemorySink()
    pipeline = registry.build_pipeline(
        Settings(), registry.build_metrics(CollectorRegistry()),
        source=ListSource([json.dumps(r).encode() for r in records]), extra_sinks=[sink],
        judge_stage=stage, outputs=False,
    )  # fmt: skip
    pipeline.start()
    pipeline.run(threading.Event())
    pipeline.close()
    assert len(sink.evaluations) == len(records)
    got = sorted((f.turn.trace_id, f.by.trace_id) for f in sink.followups)
    assert got == pairs_of(records)  # each once


def replay(*argv: str) -> tuple[int, str]:
    args = build_parser().parse_args(["replay", "--progress", "never", *argv])
    err = io.StringIO()
    status = runner(args.command)(args, io.StringIO(), err)
    return status, err.getvalue()


def followup_lines(path: Path) -> list[tuple[str, str]]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted((x["trace_id"], x["followup"]["by"]) for x in lines if "followup" in x)


def test_a_replay_with_the_judge_on_every_trace_writes_every_pair_every_time(
    tmp_path: Path,
) -> None:
    records = conversation_records()
    src = tmp_path / "conv.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    want = pairs_of(records)
    assert len(want) == 13
    out = tmp_path / "out.jsonl"
    for _ in range(8):
        status, err = replay(str(src), "--judge", "heuristic", "--sample-rate", "1",
                             "--output-jsonl", str(out))  # fmt: skip
        assert status == 0, err
        assert followup_lines(out) == want


def otlp_conversation(turns: int) -> tuple[bytes, list[str]]:
    """One session's ``turns`` as OpenInference spans (``session.id`` on each root), one
    OTLP/protobuf request each, framed as a file: the stream and the turns' trace ids in
    order."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from tests.otel_spans import ANSWER, PASSAGES, sdk_tracer
    from tests.unit.test_otlp import proto_stream

    requests, ids = [], []
    for i in range(turns):
        tracer, exporter = sdk_tracer("openinference.instrumentation.langchain")
        with tracer.start_as_current_span("RunnableSequence") as root:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("session.id", "conv-1")
            root.set_attribute("input.value", QUERIES[i % len(QUERIES)])
            with tracer.start_as_current_span("VectorStoreRetriever") as r:
                r.set_attribute("openinference.span.kind", "RETRIEVER")
                r.set_attribute("retrieval.documents.0.document.id", "policy-0")
                r.set_attribute("retrieval.documents.0.document.content", PASSAGES[0])
            root.set_attribute("output.value", ANSWER)
        ids.append(f"{root.get_span_context().trace_id:032x}")
        requests.append(encode_spans(exporter.get_finished_spans()).SerializeToString())
    return proto_stream(*requests), ids


def test_an_otlp_replay_writes_the_follow_ups_of_its_sessions(tmp_path: Path) -> None:
    stream, ids = otlp_conversation(3)
    src = tmp_path / "spans.otlp"
    src.write_bytes(stream)
    out = tmp_path / "out.jsonl"
    status, err = replay(str(src), "--format", "otlp-proto", "--output-jsonl", str(out))
    assert status == 0, err
    assert followup_lines(out) == sorted(itertools.pairwise(ids))


class Receiver(ListSource):
    """What the OTLP/HTTP receiver is to the pipeline: never exhausted, and what it accepted
    exists only in this process (a stop must finish it)."""

    replays_unfinished = False

    @property
    def exhausted(self) -> bool:
        return False


def test_a_stop_of_the_receiver_pairs_every_turn_judged_after_it() -> None:
    """The daemon on OTLP/HTTP stops by evaluating all it accepted: the turns whose verdicts
    come back during that stop are paired too (the flush waited for nothing before)."""
    records = conversation_records()
    stage = JudgeStage(LaterTurnsSlow(0.3), HashSampler(SamplingRules(1.0, 1.0)), Budget(None),
                       concurrency=2)  # fmt: skip
    sink = InMemorySink()
    source = Receiver([json.dumps(r).encode() for r in records])
    pipeline = registry.build_pipeline(
        Settings(), registry.build_metrics(CollectorRegistry()), source=source,
        extra_sinks=[sink], judge_stage=stage, outputs=False,
    )  # fmt: skip
    pipeline.start()
    stop = threading.Event()
    pipeline.process(source.poll(100, 0))  # accepted: every trace with the judge
    stop.set()
    pipeline.run(stop)
    pipeline.close()
    assert len(sink.evaluations) == len(records)
    got = sorted((f.turn.trace_id, f.by.trace_id) for f in sink.followups)
    assert got == pairs_of(records)
