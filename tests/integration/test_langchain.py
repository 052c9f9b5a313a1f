"""A real instrumentation library end to end: a LangChain RAG chain (in-memory retriever,
fake chat model) instrumented with ``openinference-instrumentation-langchain``; its spans,
encoded with the real OTLP encoder, go through ``ragmon convert`` and ``ragmon replay``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.integration.conftest import ragmon

pytestmark = pytest.mark.integration

POLICIES = [
    Document("Refunds are accepted within 30 days of purchase.", metadata={"doc_id": "refunds"}),
    Document("Sale items are final and cannot be refunded.", metadata={"doc_id": "sale"}),
    Document("Shipping takes 3 to 5 business days.", metadata={"doc_id": "shipping"}),
]
QUESTION = "How long do I have to ask for a refund?"


class KeywordRetriever(BaseRetriever):
    """In-memory retriever: documents ranked by word stems (5-letter prefixes) shared with
    the query."""

    docs: list[Document]
    k: int = 2

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        def stems(text: str) -> set[str]:
            return {w.strip("?.,")[:5] for w in text.lower().split() if len(w) > 3}

        words = stems(query)
        ranked = sorted(self.docs, key=lambda d: -len(words & stems(d.page_content)))
        return ranked[: self.k]


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield spans
    finally:
        instrumentor.uninstrument()


def run_chain(answer: str) -> str:
    def numbered(docs: list[Document]) -> str:
        return "\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(docs, 1))

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer only from the context. Cite [n].\n{context}"), ("human", "{question}")]
    )
    chain: Any = (
        {"context": KeywordRetriever(docs=POLICIES) | numbered, "question": RunnablePassthrough()}
        | prompt
        | FakeListChatModel(responses=[answer])
        | StrOutputParser()
    )
    return str(chain.invoke(QUESTION))


def test_langchain_chain_is_understood_and_checked(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    faithful = run_chain("You can ask within 30 days of purchase [1].")
    first = list(exporter.get_finished_spans())
    exporter.clear()
    run_chain("You can ask within 45 days [3].")  # a wrong number and a citation to nothing
    second = list(exporter.get_finished_spans())
    stream = tmp_path / "spans.otlp"
    stream.write_bytes(
        b"".join(
            len(m).to_bytes(4, "big") + m
            for m in (encode_spans(s).SerializeToString() for s in (first, second))
        )
    )

    converted = tmp_path / "traces.jsonl"
    done = ragmon("convert", "--from", "otlp-proto", str(stream), "--output-jsonl", str(converted))
    assert done.returncode == 0, done.stderr
    good, bad = [json.loads(line) for line in converted.read_text().splitlines()]
    assert good["query"] == QUESTION and good["answer"] == faithful
    assert [p["doc_id"] for p in good["context"]] == ["refunds", "sale"]  # from the metadata
    assert good["context"][0]["text"] == POLICIES[0].page_content
    assert good["attributes"]["ragmon.convention"] == "openinference"

    evals = tmp_path / "evals.jsonl"
    done = ragmon("replay", "--format", "otlp-proto", str(stream), "--judge", "none",
                  "--output-jsonl", str(evals))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 openinference" in done.stderr
    lines = {json.loads(x)["trace_id"]: json.loads(x) for x in evals.read_text().splitlines()}
    ok, wrong = lines[good["trace_id"]]["checks"], lines[bad["trace_id"]]["checks"]
    assert not ok["unsupported_numbers"]["flagged"] and not ok["citation"]["flagged"]
    assert wrong["unsupported_numbers"]["flagged"] and wrong["citation"]["flagged"]
