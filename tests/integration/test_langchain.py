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
    return run_chain_for(QUESTION, answer)


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


def test_probes_through_an_instrumented_application_over_otlp(tmp_path: Path) -> None:
    """`ragmon probe` asks a LangChain application (OpenInference instrumentation, the OTel
    SDK exporting OTLP/HTTP to ragmon, OpenTelemetry's BaggageSpanProcessor copying the
    probe's baggage to the spans); ragmon assembles the spans, reads ragmon.golden_id and
    scores each probe. Stages and recall equal what the test computes from the
    application's own retriever."""
    import urllib.request

    from opentelemetry import context as otel_context
    from opentelemetry import propagate
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.processor.baggage import ALLOW_ALL_BAGGAGE_KEYS, BaggageSpanProcessor
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from monitor.golden import review
    from tests.integration.conftest import serve_asgi, start_otlp_http_daemon
    from tests.integration.kafka_support import wait_until

    probes = {  # id -> (question, gold document, reference, the fake model's answer)
        "g-refund": (QUESTION, "refunds", "Within 30 days.", "You can ask within 30 days [1]."),
        "g-sale": ("Can sale items be refunded?", "sale", "No, sale items are final.",
                   "No: sale items are final [1]."),
        "g-ship": ("How long is delivery?", "shipping", "3 to 5 business days.",
                   "I cannot find that in the documentation."),
    }  # fmt: skip
    items = [
        {"schema": "ragmon.golden/v1", "id": k, "query": q, "reference": ref,
         "gold_docs": [{"id": gold, "grade": 3}], "expected": "answer"}
        for k, (q, gold, ref, _) in probes.items()
    ]  # fmt: skip
    review.publish(items, tmp_path / "set")
    daemon = start_otlp_http_daemon(
        tmp_path / "daemon.log", RAGMON_GOLDEN__SET_PATH=str(tmp_path / "set"),
        RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="0.5",
    )  # fmt: skip
    provider = TracerProvider()
    provider.add_span_processor(BaggageSpanProcessor(ALLOW_ALL_BAGGAGE_KEYS))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=daemon.url)))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    answers = {q: a for q, _, _, a in probes.values()}

    async def ask(request: Request) -> JSONResponse:
        question = (await request.json())["question"]
        token = otel_context.attach(propagate.extract(dict(request.headers)))
        try:
            return JSONResponse({"answer": run_chain_for(question, answers[question])})
        finally:
            otel_context.detach(token)

    app = Starlette(routes=[Route("/ask", ask, methods=["POST"])])
    try:
        with serve_asgi(app) as url:
            out = run_probes(tmp_path, f"{url}/ask")
        assert out.returncode == 0 and "probes sent 3, answered 3" in out.stderr, out.stderr

        def metric_lines() -> list[str]:
            body = urllib.request.urlopen(daemon.metrics_url, timeout=5).read().decode()
            return [line for line in body.splitlines() if line.startswith("ragmon_probe_")]

        def scored() -> float:
            counts = [x for x in metric_lines() if x.startswith("ragmon_probe_traces_total{")]
            return sum(float(x.split()[-1]) for x in counts)

        wait_until(lambda: scored() >= 3, 60, "probes scored")
        lines = metric_lines()
        # what the application's own retriever returns for each probe
        retriever = KeywordRetriever(docs=POLICIES)
        expected_stages: dict[str, float] = {}
        recall = 0.0
        for question, gold, _, _ in probes.values():
            got = [d.metadata["doc_id"] for d in retriever.invoke(question)]
            stage = "retrieval_miss" if gold not in got else "ok"
            expected_stages[stage] = expected_stages.get(stage, 0) + 1
            recall += float(gold in got)
        stages: dict[str, float] = {}
        for line in lines:
            if line.startswith("ragmon_probe_traces_total{"):
                stage = line.split('stage="')[1].split('"')[0]
                stages[stage] = stages.get(stage, 0) + float(line.split()[-1])
        assert stages == expected_stages and "retrieval_miss" in stages
        recall_sum = [line for line in lines if line.startswith("ragmon_probe_retrieval_sum{")
                      and 'metric="recall"' in line and 'depth="retrieved"' in line]  # fmt: skip
        assert sum(float(x.split()[-1]) for x in recall_sum) == recall
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
        daemon.stop()


def run_probes(tmp_path: Path, endpoint: str) -> Any:
    """``ragmon probe`` over the golden set in tmp_path/set, one request body per question."""
    template = tmp_path / "body.json"
    template.write_text('{"question": "{query}"}')
    return ragmon("probe", "--golden", str(tmp_path / "set"), "--endpoint", endpoint,
                  "--request-template", str(template), "--rate", "20")  # fmt: skip


def run_chain_for(question: str, answer: str) -> str:
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
    return str(chain.invoke(question))
