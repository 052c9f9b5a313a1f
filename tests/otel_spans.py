"""RAG traces made with the real OpenTelemetry SDK in each convention's layout, and the
native ``ragmon.trace/v1`` record each one must map to.

Shared by the unit tests, the Kafka integration test and ``bench/otlp.py``. Every builder
returns ``(spans, native)``: finished SDK spans (encode them with the real OTLP encoder) and
the dict a native producer would have written for the same request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

from monitor.core.model import AGENT_ATTRIBUTE, AGENT_INPUTS

QUESTION = "How long do I have to ask for a refund?"
PASSAGES = [
    "Refunds are accepted within 30 days of purchase with a receipt.",
    "Sale items are final and cannot be returned.",
]
IDS = ["policy-0", "policy-1"]
ANSWER = "You can ask for a refund within 30 days [1]."
MODEL = "gpt-4o-mini"

Built = tuple[list[ReadableSpan], dict[str, Any]]


def sdk_tracer(scope: str, service: str = "support-bot") -> tuple[Tracer, InMemorySpanExporter]:
    """A tracer of a fresh SDK provider for ``service``, and the exporter holding its spans."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer(scope), exporter


def native(trace_id: int, passages: list[str] = PASSAGES, ids: list[str] = IDS,
           scores: list[float | None] | None = None, answer: str = ANSWER,
           model: str | None = MODEL, question: str = QUESTION,
           packed_ids: list[str | None] | None = None, packed: list[str] | None = None,
           service: str = "support-bot",
           data_source: str | None = None, model_calls: int = 1) -> dict[str, Any]:  # fmt: skip
    """The native record equivalent to a built trace (``data_source``: the retrieval's
    gen_ai.data_source.id, kept as the trace attribute the span mapping writes; and what
    the trace's pipeline did, as the span mapping writes it: ``model_calls`` model calls, one
    retrieval, no tool)."""
    scores = scores or [None] * len(ids)
    packed_ids = packed_ids or list(ids)
    packed = packed or passages
    return {
        "trace_id": f"{trace_id:032x}",
        "app": service,
        "query": question,
        "retrieved": [{"doc_id": i, "score": s, "rank": r}
                      for r, (i, s) in enumerate(zip(ids, scores, strict=True), 1)],
        "context": [{"doc_id": i, "text": t} for i, t in zip(packed_ids, packed, strict=True)],
        "answer": answer,
        "model": model,
        "attributes": {
            **({"gen_ai.data_source.id": data_source} if data_source else {}),
            AGENT_ATTRIBUTE: "no_tools",
            **dict(zip(AGENT_INPUTS.values(), (model_calls, 0, 1, 0, 0, 0, 0), strict=True)),
        },
    }  # fmt: skip


def _timed(spans: list[ReadableSpan], expected: dict[str, Any]) -> Built:
    """The spans and their native record, which carries the trace's time as the span mapping
    reads it (the root span's end): a native producer writes when the request happened."""
    root = next(s for s in spans if s.parent is None)
    if root.end_time is not None:
        when = datetime.fromtimestamp(root.end_time / 1e9, UTC)
        expected = {**expected, "timestamp": when.isoformat().replace("+00:00", "Z")}
    return spans, expected


def numbered_prompt(passages: list[str] = PASSAGES) -> str:
    """The packed context as a RAG app formats it into the prompt: ``[n] passage``."""
    return "\n".join(f"[{i}] {p}" for i, p in enumerate(passages, 1))


def openinference_langchain(service: str = "support-bot", reranked: bool = False,
                            redacted: bool = False, with_answer: bool = True,
                            scope: str = "openinference.instrumentation.langchain",
                            passages: list[str] = PASSAGES) -> Built:  # fmt: skip
    """LangChain layout: question as root input JSON, ids only in the metadata JSON,
    an optional LlamaIndex-style reranker whose output is the packed context."""
    tracer, exporter = sdk_tracer(scope, service)
    with tracer.start_as_current_span("RunnableSequence") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", json.dumps({"question": QUESTION}))
        with tracer.start_as_current_span("VectorStoreRetriever") as r:
            r.set_attribute("openinference.span.kind", "RETRIEVER")
            r.set_attribute("input.value", QUESTION)
            for i, text in enumerate(passages):
                r.set_attribute(f"retrieval.documents.{i}.document.content",
                                "__REDACTED__" if redacted else text)  # fmt: skip
                r.set_attribute(f"retrieval.documents.{i}.document.metadata",
                                json.dumps({"doc_id": f"policy-{i}"}))  # fmt: skip
        if reranked:
            with tracer.start_as_current_span("rerank") as rr:
                rr.set_attribute("openinference.span.kind", "RERANKER")
                rr.set_attribute("reranker.output_documents.0.document.id", "policy-0")
                rr.set_attribute("reranker.output_documents.0.document.content", passages[0])
                rr.set_attribute("reranker.output_documents.0.document.score", 0.9)
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            llm.set_attribute("llm.model_name", MODEL)
            llm.set_attribute("llm.output_messages.0.message.content", ANSWER)
        if with_answer:
            root.set_attribute("output.value", ANSWER)
    spans = list(exporter.get_finished_spans())
    ids = [f"policy-{i}" for i in range(len(passages))]
    expected = native(root.get_span_context().trace_id, passages, ids, service=service,
                      packed_ids=ids[:1] if reranked else None,
                      packed=passages[:1] if reranked else None)  # fmt: skip
    return _timed(spans, expected)


def openinference_llamaindex() -> Built:
    """LlamaIndex layout: nested duplicate RETRIEVER spans with ids and scores, an LLM
    reranker whose LLM call comes first, and no root output (answer from the last LLM)."""
    tracer, exporter = sdk_tracer("openinference.instrumentation.llama_index")

    def documents(span: Any, prefix: str) -> None:
        for i, (doc_id, text) in enumerate(zip(IDS, PASSAGES, strict=True)):
            span.set_attribute(f"{prefix}.{i}.document.id", doc_id)
            span.set_attribute(f"{prefix}.{i}.document.content", text)
            span.set_attribute(f"{prefix}.{i}.document.score", (0.8, 0.7)[i])

    with tracer.start_as_current_span("RetrieverQueryEngine.query") as root:
        root.set_attribute("openinference.span.kind", "CHAIN")
        root.set_attribute("input.value", QUESTION)
        with tracer.start_as_current_span("BaseRetriever.retrieve") as outer:
            outer.set_attribute("openinference.span.kind", "RETRIEVER")
            documents(outer, "retrieval.documents")
            with tracer.start_as_current_span("VectorIndexRetriever.retrieve") as inner:
                inner.set_attribute("openinference.span.kind", "RETRIEVER")
                documents(inner, "retrieval.documents")
        with tracer.start_as_current_span("LLMRerank.postprocess_nodes") as rr:
            rr.set_attribute("openinference.span.kind", "RERANKER")
            with tracer.start_as_current_span("OpenAI.chat") as judge_llm:
                judge_llm.set_attribute("openinference.span.kind", "LLM")
                judge_llm.set_attribute(
                    "llm.output_messages.0.message.content", "Doc: 1, Relevance: 9"
                )
            documents(rr, "reranker.output_documents")
        with tracer.start_as_current_span("OpenAI.chat") as llm:
            llm.set_attribute("openinference.span.kind", "LLM")
            llm.set_attribute("llm.model_name", MODEL)
            llm.set_attribute("llm.output_messages.0.message.content", ANSWER)
    return _timed(
        list(exporter.get_finished_spans()),
        native(
            root.get_span_context().trace_id,
            scores=[0.8, 0.7],
            model_calls=2,  # the reranker's too
        ),
    )


def genai_current(content: bool = True) -> Built:
    """OTel GenAI ≥ 1.37: a retrieval span with ids and scores only, the passages inside
    the chat span's input messages as ``[n]`` lines, JSON-string message attributes.
    ``content=False``: the instrumentation did not capture message content."""
    tracer, exporter = sdk_tracer("opentelemetry.instrumentation.genai")
    with tracer.start_as_current_span("answer_question") as root:
        with tracer.start_as_current_span("retrieval policies") as r:
            r.set_attribute("gen_ai.operation.name", "retrieval")
            r.set_attribute("gen_ai.data_source.id", "policies")
            r.set_attribute("gen_ai.retrieval.query.text", QUESTION)
            docs = [{"id": i, "score": s} for i, s in zip(IDS, (0.91, 0.42), strict=True)]
            r.set_attribute("gen_ai.retrieval.documents", json.dumps(docs))
        with tracer.start_as_current_span(f"chat {MODEL}") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.provider.name", "openai")
            chat.set_attribute("gen_ai.request.model", MODEL)
            if content:
                system = [{"type": "text", "content": "Answer from the context. Cite [n]."}]
                chat.set_attribute("gen_ai.system_instructions", json.dumps(system))
                user = f"Context:\n{numbered_prompt()}\n\nQuestion: {QUESTION}"
                chat.set_attribute("gen_ai.input.messages", json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": user}]}]))  # fmt: skip
                chat.set_attribute("gen_ai.output.messages", json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}],
                      "finish_reason": "stop"}]))  # fmt: skip
    return _timed(
        list(exporter.get_finished_spans()),
        native(
            root.get_span_context().trace_id,
            scores=[0.91, 0.42],
            data_source="policies",
            packed_ids=[None, None],  # ids and scores only: which passage is which is not said
        ),
    )


def genai_legacy() -> Built:
    """OTel GenAI ≤ 1.36: ``gen_ai.system``, prompt and completion as span events
    (``gen_ai.content.prompt`` / ``gen_ai.content.completion``), a vector-store span."""
    tracer, exporter = sdk_tracer("opentelemetry.instrumentation.openai")
    with tracer.start_as_current_span("rag") as root:
        with tracer.start_as_current_span("chroma.query") as r:
            r.set_attribute("db.system", "chroma")
            r.set_attribute("db.vector.query.top_k", 2)
        with tracer.start_as_current_span(f"chat {MODEL}") as chat:
            chat.set_attribute("gen_ai.system", "openai")
            chat.set_attribute("gen_ai.request.model", MODEL)
            prompt = [{"role": "system", "content": "Context:\n" + numbered_prompt()},
                      {"role": "user", "content": QUESTION}]  # fmt: skip
            chat.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)})
            chat.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
                [{"role": "assistant", "content": ANSWER}])})  # fmt: skip
    return _timed(
        list(exporter.get_finished_spans()),
        native(root.get_span_context().trace_id, ids=[], packed_ids=[None, None]),
    )


def openllmetry_old() -> Built:
    """OpenLLMetry before semconv-ai 0.5: a workflow span with entity input/output JSON,
    Chroma results as ``db.query.result`` events, flattened ``gen_ai.prompt.{i}.*``."""
    tracer, exporter = sdk_tracer("traceloop.sdk")
    with tracer.start_as_current_span("rag_pipeline.workflow") as root:
        root.set_attribute("traceloop.span.kind", "workflow")
        root.set_attribute("traceloop.workflow.name", "rag_pipeline")
        root.set_attribute("traceloop.entity.input", json.dumps({"args": [QUESTION], "kwargs": {}}))
        with tracer.start_as_current_span("chroma.query") as r:
            r.set_attribute("db.system", "chroma")
            for i, (doc_id, text) in enumerate(zip(IDS, PASSAGES, strict=True)):
                r.add_event("db.query.result", {"db.query.result.id": doc_id,
                                                "db.query.result.document": text,
                                                "db.query.result.distance": 0.1 + i})  # fmt: skip
        with tracer.start_as_current_span("openai.chat") as chat:
            chat.set_attribute("llm.request.type", "chat")
            chat.set_attribute("gen_ai.system", "OpenAI")
            chat.set_attribute("gen_ai.request.model", MODEL)
            chat.set_attribute("gen_ai.prompt.0.role", "system")
            chat.set_attribute("gen_ai.prompt.0.content", numbered_prompt())
            chat.set_attribute("gen_ai.prompt.1.role", "user")
            chat.set_attribute("gen_ai.prompt.1.content", QUESTION)
            chat.set_attribute("gen_ai.completion.0.role", "assistant")
            chat.set_attribute("gen_ai.completion.0.content", ANSWER)
        root.set_attribute("traceloop.entity.output", json.dumps(ANSWER))
    return _timed(list(exporter.get_finished_spans()), native(root.get_span_context().trace_id))


def openllmetry_new() -> Built:
    """OpenLLMetry semconv-ai 0.5 (its LangChain instrumentation): the context in
    ``gen_ai.system_instructions``, messages as JSON, a plain chain labelled invoke_agent,
    the retriever a task span without documents."""
    tracer, exporter = sdk_tracer("opentelemetry.instrumentation.langchain")
    with tracer.start_as_current_span("RunnableSequence.workflow") as root:
        root.set_attribute("traceloop.span.kind", "workflow")
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("traceloop.entity.input", json.dumps({"inputs": {"question": QUESTION}}))
        with tracer.start_as_current_span("VectorStoreRetriever.task") as r:
            r.set_attribute("traceloop.span.kind", "task")
            r.set_attribute("traceloop.entity.name", "VectorStoreRetriever")
        with tracer.start_as_current_span("ChatAnthropic.chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.system", "anthropic")
            chat.set_attribute("gen_ai.request.model", "claude-haiku-5-5")
            system = [{"type": "text", "content": "Use this context:\n" + numbered_prompt()}]
            chat.set_attribute("gen_ai.system_instructions", json.dumps(system))
            chat.set_attribute("gen_ai.input.messages", json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]))  # fmt: skip
            chat.set_attribute("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}],
                  "finish_reason": "stop"}]))  # fmt: skip
        root.set_attribute("traceloop.entity.output", json.dumps({"outputs": ANSWER}))
    expected = native(root.get_span_context().trace_id, ids=[], model="claude-haiku-5-5",
                      packed_ids=[None, None])  # fmt: skip
    return _timed(list(exporter.get_finished_spans()), expected)


CONVENTIONS: dict[str, Callable[[], Built]] = {
    "openinference": openinference_langchain,
    "openinference_llamaindex": openinference_llamaindex,
    "otel_genai": genai_current,
    "otel_genai_legacy": genai_legacy,
    "openllmetry": openllmetry_old,
    "openllmetry_new": openllmetry_new,
}
