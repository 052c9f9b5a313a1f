"""Span shapes outside the corpus stacks' happy paths, built with the real SDK and encoder:
nested retrievers (DSPy's ``Retrieve`` around its client), hybrid retrieval fused before
the prompt, the passages packed twice into one model call, agent tool retrieval whose
result is plain text, and a workflow root whose input and output are object reprs."""

from __future__ import annotations

import json

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from monitor.ingest.conversion import convert
from tests import otel_spans
from tests.otel_spans import ANSWER, PASSAGES, QUESTION

OI = "openinference.span.kind"


def _one(exporter) -> object:  # type: ignore[no-untyped-def]
    made = list(exporter.get_finished_spans())
    (trace,) = convert([encode_spans(made).SerializeToString()], "otlp_proto").traces
    return trace


def _documents(span, docs: list[dict[str, str]]) -> None:  # type: ignore[no-untyped-def]
    for i, d in enumerate(docs):
        for key, value in d.items():
            span.set_attribute(f"retrieval.documents.{i}.document.{key}", value)


def test_a_retriever_that_re_emits_its_childs_documents_is_collapsed() -> None:
    """DSPy: ``Retrieve`` (no ids) wraps the ColBERTv2 client (ids): each passage once,
    with the inner span's ids, never ``doc-1`` invented for the outer copy."""
    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.dspy")
    with tracer.start_as_current_span("Predict") as root:
        root.set_attribute(OI, "CHAIN")
        root.set_attribute("input.value", json.dumps({"question": QUESTION}))
        with tracer.start_as_current_span("Retrieve.forward") as outer:
            outer.set_attribute(OI, "RETRIEVER")
            _documents(outer, [{"content": t} for t in PASSAGES])
            with tracer.start_as_current_span("ColBERTv2.__call__") as inner:
                inner.set_attribute(OI, "RETRIEVER")
                _documents(inner, [{"id": f"pid-{i}", "content": t}
                                   for i, t in enumerate(PASSAGES)])  # fmt: skip
        root.set_attribute("output.value", ANSWER)
    trace = _one(exporter)
    assert [d.doc_id for d in trace.retrieved] == ["pid-0", "pid-1"]
    assert [(p.doc_id, p.text) for p in trace.context] == [("pid-0", PASSAGES[0]),
                                                           ("pid-1", PASSAGES[1])]  # fmt: skip
    assert "ragmon.ids_unresolved" not in trace.attributes


def test_a_fusion_span_gives_the_fused_list_and_ids_follow_the_text() -> None:
    """Two retrievers under a fusion retriever: the retrieved list is the fused one (its
    order, its ids); a reranker output without ids takes them from the text, whitespace
    aside; a passage whose text no document has stays unknown and is counted."""
    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.llama_index")
    with tracer.start_as_current_span("query") as root:
        root.set_attribute(OI, "CHAIN")
        root.set_attribute("input.value", QUESTION)
        with tracer.start_as_current_span("QueryFusionRetriever") as fused:
            fused.set_attribute(OI, "RETRIEVER")
            with tracer.start_as_current_span("bm25") as a:
                a.set_attribute(OI, "RETRIEVER")
                _documents(a, [{"id": "policy-0", "content": PASSAGES[0]}])
            with tracer.start_as_current_span("vector") as b:
                b.set_attribute(OI, "RETRIEVER")
                _documents(b, [{"id": "policy-1", "content": PASSAGES[1]},
                               {"id": "policy-0", "content": PASSAGES[0]}])  # fmt: skip
            _documents(fused, [{"id": "policy-1", "content": PASSAGES[1]},
                               {"id": "policy-0", "content": PASSAGES[0]}])  # fmt: skip
        with tracer.start_as_current_span("rerank") as r:
            r.set_attribute(OI, "RERANKER")
            for i, text in enumerate([PASSAGES[0].replace(" ", "  "), "An unretrieved note."]):
                r.set_attribute(f"reranker.output_documents.{i}.document.content", text)
        root.set_attribute("output.value", ANSWER)
    trace = _one(exporter)
    assert [d.doc_id for d in trace.retrieved] == ["policy-1", "policy-0"]
    assert [p.doc_id for p in trace.context] == ["policy-0", None]
    assert trace.attributes["ragmon.ids_unresolved"] == 1


def test_passages_packed_twice_keep_the_order_of_one_copy() -> None:
    """Bedrock-style: the reranked passages sit in the system text and again in the user
    message; the order is one copy's (the reranker's), not retrieval order read across the
    two copies."""
    tracer, exporter = otel_spans.sdk_tracer("opentelemetry.instrumentation.botocore")
    reranked = f"[1] {PASSAGES[1]}\n[2] {PASSAGES[0]}"
    with tracer.start_as_current_span("rag") as root:
        root.set_attribute("input.value", QUESTION)
        with tracer.start_as_current_span("retrieve") as r:
            r.set_attribute("gen_ai.operation.name", "retrieval")
            docs = [{"id": i, "content": t} for i, t in zip(otel_spans.IDS, PASSAGES, strict=True)]
            r.set_attribute("gen_ai.retrieval.documents", json.dumps(docs))
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.system_instructions", json.dumps(
                [{"type": "text", "content": f"Context:\n{reranked}"}]))  # fmt: skip
            chat.set_attribute("gen_ai.input.messages", json.dumps([{"role": "user", "parts": [
                {"type": "text", "content": f"{reranked}\n\nQuestion: {QUESTION}"}]}]))  # fmt: skip
            chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant",
                "parts": [{"type": "text", "content": ANSWER}]}]))  # fmt: skip
    trace = _one(exporter)
    assert [p.doc_id for p in trace.context] == ["policy-1", "policy-0"]


def test_a_tool_result_in_plain_text_is_one_passage_with_an_unknown_id() -> None:
    """An agent's retrieval tool that returns text: the packed context is that text (what
    the model saw), its id unknown and counted; a tool result the answering call was not
    given is not context."""
    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.openai_agents")
    result = "\n".join(PASSAGES)
    with tracer.start_as_current_span("Agent workflow") as root:
        root.set_attribute(OI, "AGENT")
        with tracer.start_as_current_span("generation") as first:
            first.set_attribute(OI, "LLM")
            first.set_attribute("llm.input_messages.0.message.role", "user")
            first.set_attribute("llm.input_messages.0.message.content", QUESTION)
        for name, output in (("search", result), ("clock", "12:00")):
            with tracer.start_as_current_span(name) as tool:
                tool.set_attribute(OI, "TOOL")
                tool.set_attribute("output.value", output)
        with tracer.start_as_current_span("generation") as last:
            last.set_attribute(OI, "LLM")
            for i, (role, text) in enumerate([("user", QUESTION), ("tool", result)]):
                last.set_attribute(f"llm.input_messages.{i}.message.role", role)
                last.set_attribute(f"llm.input_messages.{i}.message.content", text)
            last.set_attribute("llm.output_messages.0.message.content", ANSWER)
    trace = _one(exporter)
    assert (trace.query, trace.answer) == (QUESTION, ANSWER)
    assert [(p.doc_id, p.text) for p in trace.context] == [(None, result)]
    assert trace.retrieved == [] and trace.attributes["ragmon.ids_unresolved"] == 1


def test_a_workflow_root_with_object_reprs_is_read_through() -> None:
    """A Workflow root whose input is ``StartEvent()`` and output a repr cut short: the
    question is the retriever's input, the answer the answering model call's output."""
    tracer, exporter = otel_spans.sdk_tracer("openinference.instrumentation.llama_index")
    with tracer.start_as_current_span("Flow.run") as root:
        root.set_attribute(OI, "CHAIN")
        root.set_attribute("input.value", "StartEvent()")
        with tracer.start_as_current_span("retrieve") as r:
            r.set_attribute(OI, "RETRIEVER")
            r.set_attribute("input.value", QUESTION)
            _documents(r, [{"id": i, "content": t}
                           for i, t in zip(otel_spans.IDS, PASSAGES, strict=True)])  # fmt: skip
        with tracer.start_as_current_span("llm") as llm:
            llm.set_attribute(OI, "LLM")
            llm.set_attribute("llm.output_messages.0.message.content", ANSWER)
        root.set_attribute("output.value", f"StopEvent(result=Response(response='{ANSWER[:20]}")
    trace = _one(exporter)
    assert (trace.query, trace.answer) == (QUESTION, ANSWER)
