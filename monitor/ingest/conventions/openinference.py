"""OpenInference (Arize; the LangChain, LlamaIndex and Haystack instrumentations): the
shape of a trace from its CHAIN, RETRIEVER, RERANKER and LLM spans.
"""

from __future__ import annotations

from monitor.ingest.conventions.core import (
    OPENINFERENCE,
    _answer_value,
    _doc,
    _first_string,
    _flat_messages,
    _indexed,
    _Shape,
    _text,
    _unique,
)
from monitor.ingest.conventions.packing import _packed, _positions
from monitor.ingest.otlp import Span

# --- OpenInference ----------------------------------------------------------------------


def _openinference(spans: list[Span], root: Span) -> _Shape | None:
    retrievers = [s for s in spans if s.kind == "RETRIEVER"]
    rerankers = [s for s in spans if s.kind == "RERANKER"]
    llms = [s for s in spans if s.kind == "LLM"]
    if not retrievers and not rerankers:
        return None
    shape = _Shape(OPENINFERENCE)
    shape.retrieved = _unique(
        [
            _doc(d)
            for r in retrievers
            for d in _indexed(r.attributes, "retrieval.documents", "document.")
        ]
    )
    if rerankers:
        packed = _indexed(rerankers[-1].attributes, "reranker.output_documents", "document.")
        shape.packed = [_doc(d) for d in packed]
    elif shape.retrieved:
        shape.packed = shape.retrieved
    elif retrievers:
        shape.packed = []  # the retriever ran and returned nothing
    if llms:
        messages = _flat_messages(llms[-1].attributes, "llm.input_messages", "message.")
        shape.prompt = [text for role, text in messages if role != "assistant"]
    if shape.retrieved and all(d.text for d in shape.retrieved):
        # the last model call's messages first: that is where the passages usually are
        found = _positions("\n".join(shape.prompt), shape.retrieved) if shape.prompt else []
        if found and llms[-1].start >= max(r.end for r in retrievers):
            shape.packed = [shape.retrieved[n] for _, n in found]
        else:
            shape.packed = _packed(spans, retrievers, shape.retrieved, shape.packed)
    first = (retrievers or rerankers)[0].attributes
    shape.question = _first_string(root.attributes.get("input.value")) or _first_string(
        first.get("input.value") or first.get("reranker.query")
    )
    answer = _answer_value(root.attributes.get("output.value"))
    for llm in sorted(llms, key=lambda s: s.end, reverse=True):
        if answer:
            break
        a = llm.attributes  # the last model call that says what it answered
        answer = _text(a.get("llm.output_messages.0.message.content")) or _answer_value(
            a.get("output.value")
        )
    shape.answer = answer
    shape.model = next((str(s.attributes["llm.model_name"]) for s in reversed(llms)
                        if s.attributes.get("llm.model_name")), None)  # fmt: skip
    return shape
