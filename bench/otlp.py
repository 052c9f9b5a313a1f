"""Throughput of OTLP decode + assembly + mapping, next to the bare protobuf parse.

Run: ``make bench`` (or ``python bench/otlp.py --traces 5000``). The traces are 4-span
OpenInference traces (root CHAIN, RETRIEVER with 5 passages, PROMPT, LLM whose input holds
the packed passages again, some also as template variables) made with the real
OpenTelemetry SDK from the benchmark corpus, one ``ExportTraceServiceRequest`` per trace
as ``kafkaexporter`` writes them with ``partition_traces_by_id``. Measured on one core,
best of ``--repeats``:

* bare parse: ``ExportTraceServiceRequest.FromString`` of every message (the floor);
* ragmon: ``OtlpAssembler.feed`` of every message, with a clock advancing 1 ms per message
  and a 50 ms quiet period so traces leave through ``due()`` as in the daemon, then the
  mapping to ``RagTrace`` (validated).

Not a test: the figures are printed, not asserted. Target: >= 5,000 traces/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bench.checks import pin_one_core, rate
from bench.corpus import bench_traces
from monitor.core.model import RagTrace
from monitor.ingest.assembly import AssemblyLimits, OtlpAssembler
from monitor.sources import SourcePosition, SourceRecord


def messages(n: int) -> list[bytes]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-bot"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("openinference.instrumentation.langchain")
    out = []
    for trace in bench_traces(n):
        exporter.clear()
        passages = [p.text for p in trace.context]
        with tracer.start_as_current_span("RunnableSequence") as root:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", trace.query)
            with tracer.start_as_current_span("VectorStoreRetriever") as r:
                r.set_attribute("openinference.span.kind", "RETRIEVER")
                r.set_attribute("input.value", trace.query)
                for i, p in enumerate(trace.context):
                    r.set_attribute(f"retrieval.documents.{i}.document.content", p.text)
                    r.set_attribute(f"retrieval.documents.{i}.document.id", p.doc_id)
                    r.set_attribute(f"retrieval.documents.{i}.document.score", 0.9 - i / 10)
            with tracer.start_as_current_span("ChatPromptTemplate") as prompt:
                prompt.set_attribute("openinference.span.kind", "PROMPT")
                prompt.set_attribute("input.value", json.dumps({"question": trace.query}))
            with tracer.start_as_current_span("ChatOpenAI") as llm:
                llm.set_attribute("openinference.span.kind", "LLM")
                llm.set_attribute("llm.model_name", "gpt-4o-mini")
                variables = {"context": "\n".join(passages[:3]), "question": trace.query}
                llm.set_attribute("llm.prompt_template.variables", json.dumps(variables))
                llm.set_attribute("llm.input_messages.0.message.role", "system")
                llm.set_attribute("llm.input_messages.0.message.content", "\n".join(passages))
                llm.set_attribute("llm.input_messages.1.message.role", "user")
                llm.set_attribute("llm.input_messages.1.message.content", trace.query)
                llm.set_attribute("llm.output_messages.0.message.content", trace.answer)
            root.set_attribute("output.value", trace.answer)
        out.append(encode_spans(list(exporter.get_finished_spans())).SerializeToString())
    return out


def bare(msgs: list[bytes]) -> None:
    for m in msgs:
        ExportTraceServiceRequest.FromString(m)


def assembled(msgs: list[bytes]) -> int:
    now = [0.0]
    asm = OtlpAssembler(limits=AssemblyLimits(quiet_seconds=0.05), clock=lambda: now[0])
    done = 0
    for i, m in enumerate(msgs):
        now[0] += 0.001
        ready, _ = asm.feed(SourceRecord(SourcePosition("otlp_spans", 0, i), m))
        done += sum(isinstance(d.item, RagTrace) for d in ready)
        done += sum(isinstance(d.item, RagTrace) for d in asm.due())
    done += sum(isinstance(d.item, RagTrace) for d in asm.due(flush=True))
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pin_one_core()

    msgs = messages(args.traces)
    assert assembled(msgs) == len(msgs), "every trace must be mapped"
    size = statistics.mean(len(m) for m in msgs)
    base = rate(lambda: bare(msgs), len(msgs), args.repeats)
    ours = rate(lambda: assembled(msgs), len(msgs), args.repeats)
    print(f"{len(msgs)} traces, 4 spans, 5 passages, {size / 1024:.1f} KiB per message (proto)")
    print(f"bare protobuf parse           {base:10,.0f} traces/s")
    print(f"decode + assembly + mapping   {ours:10,.0f} traces/s   ({ours / base:.2f}x of bare)")
    print(f"target >= 5,000 traces/s: {'met' if ours >= 5000 else 'NOT met'}")


if __name__ == "__main__":
    main()
