"""Generate the OTLP corpus: real RAG pipelines under real instrumentation, offline.

Each stack runs in its own process (two instrumentations of one framework in one process
would wrap each other). A stack is a framework (LlamaIndex, LangChain, Haystack) with one
instrumentation package (OpenInference or OpenLLMetry), or a hand-written RAG function
around the openai client (traceloop-sdk; opentelemetry-instrumentation-openai-v2 with content
capture on and off) calling a local server that speaks the Chat Completions API; a keyword
(or Haystack's BM25) retriever over a small help centre; and a fake LLM that answers
deterministically. For every query the
ground truth is taken from the pipeline itself — the query string, what the retriever
returned, the nodes/documents that reached the answering prompt after postprocessors and
rerankers, the answer returned — never from the spans.

Written next to this file, per stack: ``<stack>.otlp`` (length-prefixed protobuf export
requests), ``<stack>.otlp.jsonl`` (the same requests as OTLP/JSON, hex ids, one per line) and
``<stack>.truth.jsonl`` (one ground-truth object per trace).

Run: ``make otel-corpus`` (a venv from ``requirements.txt``), or
``python tests/otel_corpus/generate.py [--stack NAME]`` in an environment that has them.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# stack -> the requirements file of the environment it runs in (packages that cannot share
# one environment: traceloop-sdk pins another opentelemetry-sdk than the others)
STACKS = {
    "llamaindex-openinference": "requirements.txt",
    "llamaindex-openllmetry": "requirements.txt",
    "langchain-openinference": "requirements.txt",
    "langchain-openllmetry": "requirements.txt",
    "langgraph-openinference": "requirements-langgraph.txt",
    "openai-traceloop": "requirements-traceloop.txt",
    "openai-genai": "requirements-openai-v2.txt",
    "openai-genai-nocontent": "requirements-openai-v2.txt",
    "openai-genai-tools": "requirements-openai-v2.txt",
    "haystack-openinference": "requirements-haystack.txt",
    "haystack-hybrid-openinference": "requirements-haystack.txt",
    "openai-agents-openinference": "requirements-agents.txt",
    "dspy-openinference": "requirements-dspy.txt",
    "bedrock-openinference": "requirements-bedrock.txt",
    "google-genai": "requirements-google-genai.txt",
    "google-genai-events": "requirements-google-genai.txt",
    "smolagents-openinference": "requirements-smolagents.txt",
    "pydantic-ai-genai": "requirements-pydantic-ai.txt",
    "strands-genai-events": "requirements-strands.txt",
    "langgraph-react-openinference": "requirements-langgraph.txt",
    "langgraph-retriever-openinference": "requirements-langgraph.txt",
    "langgraph-hybrid-openinference": "requirements-langgraph.txt",
    "google-adk-genai": "requirements-google-adk.txt",
    "google-adk-nocontent": "requirements-google-adk.txt",
}

# A help centre: doc id -> text. Two versions of one policy make the reranker matter.
KB = {
    "refunds-2024": "Refunds are issued within 14 days of receiving the returned item.",
    "refunds-2019": "Refunds were issued within 30 days of receiving the returned item.",
    "shipping-policy": "Standard shipping takes 3-5 business days; express takes 1-2.",
    "restocking-fees": "A restocking fee of $25 applies to opened electronics returns.",
    "gift-cards": "Gift cards cannot be refunded or exchanged for cash.",
    "warranty": "Electronics carry a 2-year limited warranty against defects.",
}
STOP = frozenset("a an the of to do does is are how what when for on in my i can it".split())

# (case, query, answer the fake LLM gives). The pipeline variant is part of the case name.
CASES = [  # one case per line
    ("plain", "how many days do refunds take", "Refunds take 14 days [1]."),
    ("cutoff", "how long does standard shipping take", "Standard shipping takes 3-5 business days [1]."),
    ("rerank", "how many days until refunds are issued", "Refunds are issued within 14 days [1]."),
    ("empty", "do you sell telescopes", "I don't know."),
    ("refusal", "is there a fee for opened electronics", "I'm sorry, I can't find that in the documents."),
    ("citations", "refunds and restocking fee for electronics", "Refunds take 14 days [1]; a $25 fee applies [2]."),
    ("async", "what warranty do electronics carry", "A 2-year warranty [1]."),
    ("stream", "can gift cards be refunded", "No, gift cards cannot be refunded [1]."),
    ("concurrent-a", "how long does express shipping take", "Express takes 1-2 days [1]."),
    ("concurrent-b", "restocking fee for opened electronics", "The fee is $25 [1]."),
]  # fmt: skip


# LlamaIndex only: its LLM reranker asks the (fake) model to rank the passages first; a
# Workflow run (the root's input is a StartEvent, its output a StopEvent); a fusion
# retriever (reciprocal rank fusion of two retrievers, nested retriever spans); a chat
# engine's second turn (the model first rewrites the follow-up as a standalone question,
# which is what is retrieved for).
LLM_RERANK = ("llm-rerank", "when are refunds issued", "Refunds are issued within 14 days [1].")
WORKFLOW = ("workflow", "what warranty covers electronics", "A 2-year limited warranty [1].")
FUSION = ("fusion", "refunds returned item days", "Refunds are issued within 14 days [1].")
CHAT = ("chat", "and how long until they refund it", "Refunds are issued within 14 days [1].")
CHAT_HISTORY = (
    ("user", "I sent my headphones back on Monday."),
    ("assistant", "Thanks, the return is on its way. What would you like to know?"),
)
STANDALONE = "how long do refunds take after a return"  # the condensed follow-up
# two chunks of one document, both retrieved and packed: one doc id, two chunk ids
CHUNKS_CASE = (
    "chunks",
    "how do I send back an opened laptop",
    "Pack it in its original box [1] and drop it at a carrier [2].",
)
GUIDE = (
    "Pack an opened laptop in its original box with every cable, charger and manual that "
    "came with it, and seal the box with tape. Print the prepaid return label from your "
    "order page, stick it on the box and drop the parcel at any carrier point near you."
)
LLAMAINDEX_ONLY = (LLM_RERANK, WORKFLOW, FUSION, CHAT, CHUNKS_CASE)
KB_BY_TEXT = {text: doc_id for doc_id, text in KB.items()}


def serve(handler: type[Any], path: str = "") -> str:
    """A local threaded HTTP server for ``handler`` (a fake provider); its base URL."""
    from http.server import ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def event_stream(handler: Any) -> None:
    """Begin a 200 answer of server-sent events (the chunks follow as ``data:`` lines)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()


def _reply_json(handler: Any, payload: dict[str, Any]) -> None:
    """Answer a fake server's request with ``payload`` as JSON (200)."""
    data = json.dumps(payload).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def keyword_scores(query: str) -> list[tuple[str, float]]:
    """(doc id, score) of every document sharing a content word with the query, best first."""
    words = {w.strip("?.,") for w in query.lower().split()} - STOP
    out = []
    for doc_id, text in KB.items():
        overlap = len(words & {w.strip("?.,;$") for w in text.lower().split()})
        if overlap:
            out.append((doc_id, round(overlap / (len(words) or 1), 4)))
    return sorted(out, key=lambda x: (-x[1], x[0]))[:4]


def rerank(doc_ids: list[str]) -> list[str]:
    """The keyword reranker: current policies before superseded ones ("-2019")."""
    return sorted(doc_ids, key=lambda d: d.endswith("-2019"))


# --- exporting ---------------------------------------------------------------------------


class Recorder:
    """Collects finished spans and the ground truth, writes both once per stack."""

    provider: Any

    def __init__(self, stack: str) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        self.stack = stack
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": stack}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.truth: list[dict[str, Any]] = []
        self.batches: list[list[Any]] = []

    def cut(self, split: bool = False) -> None:
        """The spans finished so far become one export request (two when ``split``: the
        trace split across exports, as a batch processor under load does)."""
        spans = list(self.exporter.get_finished_spans())
        self.exporter.clear()
        if split and len(spans) > 1:
            half = len(spans) // 2
            self.batches += [spans[:half], spans[half:]]
        elif spans:
            self.batches.append(spans)

    def write(self) -> None:
        from google.protobuf.json_format import MessageToDict
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        requests = [encode_spans(batch) for batch in self.batches]
        proto = b"".join(len(b).to_bytes(4, "big") + b
                         for b in (r.SerializeToString() for r in requests))  # fmt: skip
        (HERE / f"{self.stack}.otlp").write_bytes(proto)
        with (HERE / f"{self.stack}.otlp.jsonl").open("w", encoding="utf-8") as out:
            for request in requests:
                doc = MessageToDict(request)
                for rs in doc.get("resourceSpans", []):
                    for ss in rs.get("scopeSpans", []):
                        for s in ss.get("spans", []):
                            for key in ("traceId", "spanId", "parentSpanId"):
                                if s.get(key):
                                    s[key] = base64.b64decode(s[key]).hex()
                out.write(json.dumps(doc, sort_keys=True) + "\n")
        with (HERE / f"{self.stack}.truth.jsonl").open("w", encoding="utf-8") as out:
            for row in sorted(self.truth, key=lambda r: r["case"]):
                out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def current_trace_id(exporter: Any, before: set[int]) -> str:
    """The trace id of the spans finished since ``before`` (one trace per query)."""
    ids = {s.context.trace_id for s in exporter.get_finished_spans()} - before
    if len(ids) != 1:
        raise RuntimeError(f"expected one new trace, got {len(ids)}")
    return f"{ids.pop():032x}"


# --- LlamaIndex ----------------------------------------------------------------------------


def llamaindex(stack: str) -> None:
    rec = Recorder(stack)
    if stack.endswith("openinference"):
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
    else:
        from opentelemetry.instrumentation.llamaindex import (  # type: ignore[no-redef]
            LlamaIndexInstrumentor,
        )
    LlamaIndexInstrumentor().instrument(tracer_provider=rec.provider)

    from llama_index.core import Document, Settings
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.postprocessor import LLMRerank, SimilarityPostprocessor
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers import get_response_synthesizer
    from llama_index.core.retrievers import BaseRetriever, QueryFusionRetriever
    from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
    from llama_index.core.schema import NodeWithScore, QueryBundle
    from llama_index.core.workflow import Event, StartEvent, StopEvent, Workflow, step

    # The document id also in the metadata, as loaders put a file name there; kept out of
    # the text the model sees.
    documents = [
        Document(id_=doc_id, text=text, metadata={"doc_id": doc_id},
                 excluded_llm_metadata_keys=["doc_id"], excluded_embed_metadata_keys=["doc_id"])
        for doc_id, text in KB.items()
    ]  # fmt: skip
    nodes = SentenceSplitter(chunk_size=256).get_nodes_from_documents(documents)
    by_doc = {n.ref_doc_id: n for n in nodes}
    seen: dict[str, list[str]] = {}  # query -> doc ids the retriever returned

    class KeywordRetriever(BaseRetriever):
        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            scored = keyword_scores(query_bundle.query_str)
            seen[query_bundle.query_str] = [d for d, _ in scored]
            return [NodeWithScore(node=by_doc[d], score=s) for d, s in scored]

    guide = Document(id_="returns-guide", text=GUIDE, metadata={"doc_id": "returns-guide"},
                     excluded_llm_metadata_keys=["doc_id"],
                     excluded_embed_metadata_keys=["doc_id"])  # fmt: skip
    guide_nodes = SentenceSplitter(chunk_size=40, chunk_overlap=0).get_nodes_from_documents([guide])
    assert len(guide_nodes) == 2, len(guide_nodes)

    class GuideRetriever(BaseRetriever):
        """Both chunks of the returns guide, first chunk first."""

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            seen[query_bundle.query_str] = ["returns-guide", "returns-guide"]
            return [NodeWithScore(node=n, score=0.9 - 0.1 * i) for i, n in enumerate(guide_nodes)]

    class ReversedRetriever(BaseRetriever):
        """A second retriever for fusion: the keyword matches in the other order."""

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            scored = keyword_scores(query_bundle.query_str)[::-1]
            return [NodeWithScore(node=by_doc[d], score=s) for d, s in scored]

    class KeywordReranker(BaseNodePostprocessor):
        def _postprocess_nodes(
            self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
        ) -> list[NodeWithScore]:
            order = rerank([n.node.ref_doc_id or "" for n in nodes])
            return sorted(nodes, key=lambda n: order.index(n.node.ref_doc_id or ""))[:2]

    answers = {q: a for _, q, a in [*LLAMAINDEX_ONLY, *CASES]}

    class FakeLLM(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fake-help-llm")

        def _answer(self, prompt: str) -> str:
            if "Standalone question:" in prompt:  # a chat engine condensing the follow-up
                return STANDALONE
            if "Relevance" in prompt and "Document 1:" in prompt:  # LLMRerank's choice prompt
                texts = re.findall(r"Document (\d+):\n(.*?)(?:\n\n|$)", prompt, re.S)
                ids = {KB_BY_TEXT.get(t.strip(), ""): n for n, t in texts}
                ranked = rerank([i for i in ids if i])
                return "\n".join(f"Doc: {ids[i]}, Relevance: {9 - k}" for k, i in enumerate(ranked))
            return next((a for q, a in answers.items() if q in prompt), "I don't know.")

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
            return CompletionResponse(text=self._answer(prompt))

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            text, sofar = self._answer(prompt), ""
            for word in text.split(" "):
                delta = (" " if sofar else "") + word
                sofar += delta
                yield CompletionResponse(text=sofar, delta=delta)

    Settings.llm = FakeLLM()

    def engine(case: str, streaming: bool = False) -> Any:
        post: list[Any] = []
        if case == "llm-rerank":  # the reranker's LLM call comes before the answer's
            post = [LLMRerank(llm=FakeLLM(), top_n=2, choice_batch_size=5)]
        elif case == "cutoff":
            post = [SimilarityPostprocessor(similarity_cutoff=0.5)]
        elif case in ("rerank", "citations"):
            post = [KeywordReranker()]
        retriever: BaseRetriever = GuideRetriever() if case == "chunks" else KeywordRetriever()
        if case == "fusion":
            retriever = QueryFusionRetriever(
                [KeywordRetriever(), ReversedRetriever()], llm=FakeLLM(), num_queries=1,
                mode=FUSION_MODES.RECIPROCAL_RANK, use_async=False, similarity_top_k=3,
            )  # fmt: skip
        return RetrieverQueryEngine.from_args(
            retriever, llm=FakeLLM(), node_postprocessors=post, streaming=streaming
        )

    class Retrieved(Event):
        query: str
        nodes: list[NodeWithScore]

    class RagFlow(Workflow):
        """Retrieve, then synthesize: two steps of a LlamaIndex Workflow."""

        @step
        async def retrieve(self, ev: StartEvent) -> Retrieved:
            return Retrieved(query=ev.query, nodes=KeywordRetriever().retrieve(ev.query))

        @step
        async def synthesize(self, ev: Retrieved) -> StopEvent:
            synth = get_response_synthesizer(llm=FakeLLM())
            return StopEvent(result=await synth.asynthesize(ev.query, nodes=ev.nodes))

    def ask(case: str, query: str) -> Any:
        if case == "chat":
            from llama_index.core.chat_engine import CondensePlusContextChatEngine
            from llama_index.core.llms import ChatMessage

            history = [ChatMessage(role=r, content=c) for r, c in CHAT_HISTORY]
            chat = CondensePlusContextChatEngine.from_defaults(
                KeywordRetriever(), llm=FakeLLM(), chat_history=history
            )
            return chat.chat(query)
        if case == "workflow":

            async def flow() -> Any:
                return await RagFlow(timeout=30).run(query=query)

            return asyncio.run(flow())
        if case == "async":
            return asyncio.run(engine(case).aquery(query))
        if case == "stream":
            response = engine(case, streaming=True).query(query)
            "".join(response.response_gen)
            return response
        return engine(case).query(query)

    def truth(case: str, query: str, response: Any, trace_id: str) -> dict[str, Any]:
        packed = [n.node for n in response.source_nodes]
        # a streamed response was consumed by ``ask``: its answer is what the model streamed
        answer = answers[query] if case == "stream" else str(response.response)
        # a fusion step's retrieved list is the fused one (what the fusion retriever returned)
        retrieved = [n.ref_doc_id for n in packed] if case == "fusion" else seen.get(query, [])
        if case == "chat":  # retrieved for the condensed question, asked as the follow-up
            retrieved = seen.get(STANDALONE, [])
        return {
            "case": case, "trace_id": trace_id, "query": query, "answer": answer,
            "retrieved": retrieved,
            "context": [{"doc_id": n.ref_doc_id, "chunk_id": n.node_id, "text": n.get_content()}
                        for n in packed],
        }  # fmt: skip

    # LLMRerank first: OpenLLMetry leaves a streamed query's context attached, so whatever
    # this thread runs after the streaming case joins that trace (the concurrent cases run
    # in threads).
    run_cases(rec, [*LLAMAINDEX_ONLY, *CASES], ask, truth)


Ask = Callable[[str, str], Any]  # (case, query) -> what the pipeline returned
Truth = Callable[[str, str, Any, str], dict[str, Any]]  # (case, query, result, trace id) -> row


def run_cases(rec: Recorder, cases: list[tuple[str, str, str]], ask: Ask, truth: Truth) -> None:
    """Every case through ``ask``, one trace each (``citations`` split across two exports),
    then the concurrent ones together; writes the stack's files."""
    for case, query, _ in cases:
        if case.startswith("concurrent"):
            continue
        before = {s.context.trace_id for s in rec.exporter.get_finished_spans()}
        result = ask(case, query)
        rec.truth.append(truth(case, query, result, current_trace_id(rec.exporter, before)))
        rec.cut(split=case == "citations")
    run_concurrently(rec, [c for c in cases if c[0].startswith("concurrent")],
                     lambda q: ask("plain", q), truth)  # fmt: skip
    rec.write()


def run_concurrently(rec: Recorder, cases: list[tuple[str, str, str]],
                     ask: Callable[[str], Any], truth: Truth) -> None:  # fmt: skip
    """Queries in threads at once, so that their spans interleave in one export."""
    before = {s.context.trace_id for s in rec.exporter.get_finished_spans()}
    results: dict[str, Any] = {}
    threads = [threading.Thread(target=lambda q=q: results.__setitem__(q, ask(q)))
               for _, q, _ in cases]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    by_query: dict[str, str] = {}
    for s in rec.exporter.get_finished_spans():
        if s.context.trace_id in before:
            continue
        blob = json.dumps({k: str(v) for k, v in (s.attributes or {}).items()})
        for _, query, _ in cases:
            if query in blob:
                by_query.setdefault(query, f"{s.context.trace_id:032x}")
    for case, query, _ in cases:
        rec.truth.append(truth(case, query, results[query], by_query[query]))
    rec.cut()


# --- LangChain -----------------------------------------------------------------------------


class LangChainKit:
    """What the LangChain and LangGraph stacks share: the help centre as ``Document``s, a
    keyword retriever (noting what each query retrieved), the prompt, and the ground truth
    of a trace from what was retrieved and packed (``packed``: query -> documents)."""

    def __init__(self) -> None:
        from langchain_core.documents import Document
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.retrievers import BaseRetriever

        docs = {d: Document(page_content=t, metadata={"doc_id": d}, id=d) for d, t in KB.items()}
        self.seen: dict[str, list[str]] = {}
        self.packed: dict[str, list[Any]] = {}
        seen = self.seen

        class KeywordRetriever(BaseRetriever):
            def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
                scored = keyword_scores(query)
                seen[query] = [d for d, _ in scored]
                return [docs[d] for d, _ in scored]

        self.retriever = KeywordRetriever
        self.prompt = ChatPromptTemplate.from_messages([
            ("system", "Answer only from the context and cite passages as [n].\n\n{context}"),
            ("human", "{question}"),
        ])  # fmt: skip

    def truth(self, case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        return {
            "case": case, "trace_id": trace_id, "query": query, "answer": answer,
            "retrieved": self.seen.get(query, []),
            "context": [{"doc_id": d.metadata["doc_id"], "text": d.page_content}
                        for d in self.packed.get(query, [])],
        }  # fmt: skip


def langchain(stack: str) -> None:
    rec = Recorder(stack)
    if stack.endswith("openinference"):
        from openinference.instrumentation.langchain import LangChainInstrumentor
    else:
        from opentelemetry.instrumentation.langchain import (  # type: ignore[no-redef]
            LangchainInstrumentor as LangChainInstrumentor,
        )
    LangChainInstrumentor().instrument(tracer_provider=rec.provider)

    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    kit = LangChainKit()
    packed, prompt, KeywordRetriever = kit.packed, kit.prompt, kit.retriever

    def chain(case: str, query: str, answer: str) -> Any:
        def select(found: list[Document]) -> list[Document]:
            if case == "cutoff":
                found = found[:1]  # a score cutoff keeps the best document only
            elif case in ("rerank", "citations"):
                order = rerank([d.metadata["doc_id"] for d in found])
                found = sorted(found, key=lambda d: order.index(d.metadata["doc_id"]))[:2]
            packed[query] = found
            return found

        def numbered(found: list[Document]) -> str:
            return "\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(found, 1))

        return (
            {"context": KeywordRetriever() | RunnableLambda(select) | RunnableLambda(numbered),
             "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser()
        )  # fmt: skip

    answers = {q: a for _, q, a in CASES}

    def ask(case: str, query: str) -> str:
        runnable = chain(case, query, answers[query])
        if case == "async":
            return str(asyncio.run(runnable.ainvoke(query)))
        if case == "stream":
            return "".join(runnable.stream(query))
        return str(runnable.invoke(query))

    run_cases(rec, CASES, ask, kit.truth)


def langgraph(stack: str) -> None:
    """A LangGraph graph (retrieve, pack, generate nodes over a typed state) under the
    OpenInference LangChain instrumentation: the root span is the graph's, its input the
    initial state and its output the final state (question, documents and answer)."""
    from typing import TypedDict

    from openinference.instrumentation.langchain import LangChainInstrumentor

    rec = Recorder(stack)
    LangChainInstrumentor().instrument(tracer_provider=rec.provider)

    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langgraph.graph import END, START, StateGraph

    kit = LangChainKit()
    packed, prompt, KeywordRetriever = kit.packed, kit.prompt, kit.retriever
    answers = {q: a for _, q, a in CASES}

    # the functional form: LangGraph reads the annotations at run time (no string forms)
    State = TypedDict(  # noqa: UP013
        "State",
        {"question": str, "case": str, "documents": list[Document], "answer": str},
        total=False,
    )

    hybrid = stack.startswith("langgraph-hybrid")
    fused_for: dict[str, list[str]] = {}

    class NewestFirst(KeywordRetriever):  # type: ignore[misc,valid-type]
        """A second retriever: the same matches, the newest policy first (ids descending)."""

        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
            found = super()._get_relevant_documents(query, run_manager=run_manager)
            return sorted(found, key=lambda d: d.metadata["doc_id"], reverse=True)

    def retrieve(state: State) -> State:
        first = KeywordRetriever().invoke(state["question"])
        if not hybrid:
            return {"documents": first}
        # hybrid: reciprocal rank fusion (k = 60) of the two lists, inside the node
        second = NewestFirst().invoke(state["question"])
        score: dict[str, float] = {}
        by_id = {d.metadata["doc_id"]: d for d in [*first, *second]}
        for found in (first, second):
            for rank, d in enumerate(found, 1):
                score[d.metadata["doc_id"]] = score.get(d.metadata["doc_id"], 0) + 1 / (60 + rank)
        fused = sorted(score, key=lambda i: -score[i])
        fused_for[state["question"]] = fused
        return {"documents": [by_id[i] for i in fused]}

    def pack(state: State) -> State:
        found, case = state["documents"], state["case"]
        if case == "cutoff":
            found = found[:1]
        elif case in ("rerank", "citations"):
            order = rerank([d.metadata["doc_id"] for d in found])
            found = sorted(found, key=lambda d: order.index(d.metadata["doc_id"]))[:2]
        packed[state["question"]] = found
        return {"documents": found}

    def generate(state: State) -> State:
        context = "\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(state["documents"], 1))
        model = FakeListChatModel(responses=[answers[state["question"]]])
        chain = prompt | model | StrOutputParser()
        return {"answer": chain.invoke({"context": context, "question": state["question"]})}

    graph = StateGraph(State)
    for name, node in (("retrieve", retrieve), ("pack", pack), ("generate", generate)):
        graph.add_node(name, node)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "pack")
    graph.add_edge("pack", "generate")
    graph.add_edge("generate", END)
    app = graph.compile()

    def ask(case: str, query: str) -> str:
        state: State = {"question": query, "case": case}
        if case == "async":
            return str(asyncio.run(app.ainvoke(state))["answer"])
        if case == "stream":
            last: dict[str, Any] = {}
            for values in app.stream(state, stream_mode="values"):
                last = values
            return str(last["answer"])
        return str(app.invoke(state)["answer"])

    def truth(case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        row = kit.truth(case, query, answer, trace_id)
        if hybrid:  # the retrieval step's result: the fused list
            row["retrieved"] = fused_for.get(query, [])
        return row

    run_cases(rec, CASES, ask, truth)


# --- the openai client (traceloop-sdk; opentelemetry-instrumentation-openai-v2) ----------


def fake_openai(answers: dict[str, str]) -> str:
    """A local server speaking the Chat Completions API (JSON and server-sent events),
    answering each question with ``answers``; returns its base URL."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            question = body["messages"][-1]["content"]
            text = answers.get(question, "I don't know.")
            base = {"id": "chatcmpl-corpus", "created": 0, "model": body["model"]}
            if not body.get("stream"):
                payload = {
                    **base,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59},
                }
                _reply_json(self, payload)
                return
            event_stream(self)
            words = text.split(" ")
            for i, word in enumerate(words):
                delta = {"role": "assistant", "content": (" " if i else "") + word}
                chunk = {
                    **base,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            end = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
            self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())

    return serve(Handler, "/v1")


def select(case: str, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the app packs: a score cutoff keeps the best document, the reranker two."""
    if case == "cutoff":
        return found[:1]
    if case in ("rerank", "citations"):
        order = rerank([d["id"] for d in found])
        return sorted(found, key=lambda d: order.index(d["id"]))[:2]
    return found


def genai_retrieval(tracer: Any, query: str, seen: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The keyword retriever of the hand-written apps, noting what ``query`` retrieved in
    ``seen``, with the GenAI semantic conventions' retrieval span (ids and scores only)."""
    found = [{"id": d, "text": KB[d], "score": s} for d, s in keyword_scores(query)]
    seen[query] = [d["id"] for d in found]
    if tracer is not None:
        attrs = {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "help-kb",
                 "gen_ai.retrieval.query.text": query,
                 "gen_ai.retrieval.documents": json.dumps(
                     [{"id": d["id"], "score": d["score"]} for d in found])}  # fmt: skip
        with tracer.start_as_current_span("retrieval help-kb", attributes=attrs):
            pass
    return found


def packed_truth(seen: dict[str, list[str]], packed_for: dict[str, list[dict[str, Any]]]) -> Truth:
    """The ground truth of the hand-written apps: what each query retrieved and packed."""

    def truth(case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        return {"case": case, "trace_id": trace_id, "query": query, "answer": answer,
                "retrieved": seen.get(query, []),
                "context": [{"doc_id": d["id"], "text": d["text"]}
                            for d in packed_for.get(query, [])]}  # fmt: skip

    return truth


def openai_client(stack: str) -> None:
    """A hand-written RAG function around the openai client: a keyword retriever, the
    packed passages as ``[n]`` lines in the system message, one chat completion."""
    import os

    rec = Recorder(stack)
    answers = {q: a for _, q, a in CASES}
    base_url = fake_openai(answers)
    if stack == "openai-traceloop":
        from traceloop.sdk import Traceloop
        from traceloop.sdk.decorators import task, workflow

        Traceloop.init(app_name=stack, exporter=rec.exporter, disable_batch=True,
                       telemetry_enabled=False)  # fmt: skip
        rec.provider = None  # Traceloop owns the provider and sends to rec.exporter
    else:
        if stack == "openai-genai":
            os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"
            os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=rec.provider)

        def task(name: str) -> Callable[[Any], Any]:  # type: ignore[no-redef]
            return lambda f: f

        workflow = task  # type: ignore[assignment]

    import openai
    from opentelemetry import trace

    tracer = (rec.provider or trace.get_tracer_provider()).get_tracer("corpus.app")
    client = openai.OpenAI(base_url=base_url, api_key="corpus")
    aclient = openai.AsyncOpenAI(base_url=base_url, api_key="corpus")
    seen: dict[str, list[str]] = {}
    packed_for: dict[str, list[dict[str, Any]]] = {}

    @task(name="retrieve")
    def retrieve(query: str) -> list[dict[str, Any]]:
        # traceloop's own @task span is its retrieval span; the others emit the conventions'
        return genai_retrieval(None if stack == "openai-traceloop" else tracer, query, seen)

    case_of = {q: c for c, q, _ in CASES}  # the app's configuration per question

    def messages(query: str) -> list[dict[str, str]]:
        packed = select(case_of[query], retrieve(query))
        packed_for[query] = packed
        context = "\n".join(f"[{i}] {d['text']}" for i, d in enumerate(packed, 1))
        system = f"Answer only from the context and cite passages as [n].\n\n{context}"
        return [{"role": "system", "content": system}, {"role": "user", "content": query}]

    @workflow(name="rag_answer")
    def rag(query: str) -> str:
        if case_of[query] == "stream":
            chunks = client.chat.completions.create(
                model="fake-gpt", stream=True, messages=messages(query)
            )  # type: ignore[arg-type]
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        done = client.chat.completions.create(model="fake-gpt", messages=messages(query))  # type: ignore[arg-type]
        return str(done.choices[0].message.content)

    @workflow(name="rag_answer")
    async def arag(query: str) -> str:
        done = await aclient.chat.completions.create(model="fake-gpt", messages=messages(query))  # type: ignore[arg-type]
        return str(done.choices[0].message.content)

    def app(case: str, query: str) -> str:
        """The app's own root span around the RAG call (the openai-v2 stacks have no
        workflow decorator)."""
        if stack == "openai-traceloop":
            return asyncio.run(arag(query)) if case == "async" else rag(query)
        with tracer.start_as_current_span("rag_answer"):
            return asyncio.run(arag(query)) if case == "async" else rag(query)

    run_cases(rec, CASES, app, packed_truth(seen, packed_for))


# --- Haystack -------------------------------------------------------------------------------


def haystack(stack: str) -> None:
    """A Haystack pipeline: the in-memory BM25 retriever, a packing component (cutoff or
    reranker, per case), the prompt builder and a fake generator component."""
    rec = Recorder(stack)
    from openinference.instrumentation.haystack import HaystackInstrumentor

    HaystackInstrumentor().instrument(tracer_provider=rec.provider)
    from haystack import Document, Pipeline
    from haystack.components.builders import PromptBuilder
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    sys.path.insert(0, str(HERE))
    from haystack_components import FakeGenerator, Packer  # type: ignore[import-not-found]

    store = InMemoryDocumentStore()
    store.write_documents([Document(id=d, content=t, meta={"doc_id": d}) for d, t in KB.items()])
    answers = {q: a for _, q, a in CASES}

    template = (
        "Answer only from the context and cite passages as [n].\n"
        "{% for d in documents %}[{{ loop.index }}] {{ d.content }}\n{% endfor %}\n"
        "Question: {{ question }}"
    )

    hybrid = stack.startswith("haystack-hybrid")
    if hybrid:  # a dense retriever beside BM25, fused by reciprocal rank (DocumentJoiner),
        # then ranked by a meta field (MetaFieldRanker: a RERANKER span)
        from haystack.components.joiners import DocumentJoiner
        from haystack.components.rankers import MetaFieldRanker
        from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever
        from haystack_components import FakeTextEmbedder, embed  # type: ignore[import-not-found]

        store = InMemoryDocumentStore()  # "rank": the help centre's own order of its pages
        store.write_documents([Document(id=d, content=t, meta={"doc_id": d, "rank": i},
                                        embedding=embed(t))
                               for i, (d, t) in enumerate(KB.items())])  # fmt: skip

    def pipeline(case: str) -> Any:
        p = Pipeline()
        p.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=3))
        p.add_component("packer", Packer(
            lambda ids: [d["id"] for d in select(case, [{"id": i} for i in ids])]))  # fmt: skip
        p.add_component("prompt", PromptBuilder(template=template,
                                                required_variables=["documents", "question"]))  # fmt: skip
        p.add_component("llm", FakeGenerator(answers))
        if hybrid:
            p.add_component("embedder", FakeTextEmbedder())
            p.add_component("dense", InMemoryEmbeddingRetriever(document_store=store, top_k=3))
            p.add_component("joiner", DocumentJoiner(join_mode="reciprocal_rank_fusion"))
            p.add_component("ranker", MetaFieldRanker(meta_field="rank", weight=1.0,
                                                      sort_order="ascending"))  # fmt: skip
            p.connect("embedder.embedding", "dense.query_embedding")
            p.connect("retriever.documents", "joiner.documents")
            p.connect("dense.documents", "joiner.documents")
            p.connect("joiner.documents", "ranker.documents")
            p.connect("ranker.documents", "packer.documents")
        else:
            p.connect("retriever.documents", "packer.documents")
        p.connect("packer.documents", "prompt.documents")
        p.connect("prompt.prompt", "llm.prompt")
        return p

    def ask(case: str, query: str) -> dict[str, Any]:
        data: dict[str, Any] = {"retriever": {"query": query}, "prompt": {"question": query}}
        keep = {"retriever", "packer"}
        if hybrid:
            data["embedder"] = {"text": query}
            keep.add("joiner")
        if case == "async":
            return dict(asyncio.run(pipeline(case).run_async(data, include_outputs_from=keep)))
        return dict(pipeline(case).run(data, include_outputs_from=keep))

    def truth(case: str, query: str, out: dict[str, Any], trace_id: str) -> dict[str, Any]:
        # hybrid: the retrieval step's result is the joiner's fused list, in its order
        found = out["joiner" if hybrid else "retriever"]["documents"]
        retrieved = [d.meta["doc_id"] for d in found]
        return {"case": case, "trace_id": trace_id, "query": query,
                "answer": out["llm"]["replies"][0],
                "retrieved": list(dict.fromkeys(retrieved)),
                "context": [{"doc_id": d.meta["doc_id"], "text": d.content}
                            for d in out["packer"]["documents"]]}  # fmt: skip

    run_cases(rec, [c for c in CASES if c[0] != "stream"], ask, truth)  # no streaming generator


# --- OpenAI Agents SDK: retrieval as a function tool ---------------------------------------


def fake_agent_model(answers: dict[str, str], searches: dict[str, list[str]] | None = None) -> str:
    """A local server speaking the Chat Completions API with tools: a request whose last
    message is the user's asks for the ``search_help`` tool with the question (or with each
    of ``searches[question]`` in turn, one call a request); a request that ends with the
    last tool result gets the answer (JSON or server-sent events)."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = body["messages"]
            question = [m["content"] for m in messages if m["role"] == "user"][-1]
            base = {"id": "chatcmpl-agent", "created": 0, "model": body["model"]}
            message: dict[str, Any]
            asks = (searches or {}).get(question, [question])
            done = len(messages) - 1 - max(i for i, m in enumerate(messages) if m["role"] == "user")
            called = sum(1 for m in messages[-done:] if m["role"] == "tool") if done else 0
            if messages[-1]["role"] == "tool" and called >= len(asks):
                message = {"role": "assistant", "content": answers.get(question, "I don't know.")}
                finish = "stop"
            else:
                asked = asks[called] if messages[-1]["role"] == "tool" else asks[0]
                call = {"id": f"call_{abs(hash(asked)) % 10**8}", "type": "function",
                        "function": {"name": "search_help",
                                     "arguments": json.dumps({"query": asked})}}  # fmt: skip
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                finish = "tool_calls"
            if not body.get("stream"):
                payload = {**base, "object": "chat.completion",
                           "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                           "usage": {"prompt_tokens": 60, "completion_tokens": 9,
                                     "total_tokens": 69}}  # fmt: skip
                _reply_json(self, payload)
                return
            event_stream(self)
            if message.get("tool_calls"):
                deltas = [{"role": "assistant", "tool_calls": [{**message["tool_calls"][0],
                                                                "index": 0}]}]  # fmt: skip
            else:
                words = message["content"].split(" ")
                deltas = [{"role": "assistant", "content": (" " if i else "") + w}
                          for i, w in enumerate(words)]  # fmt: skip
            for delta in [*deltas, {}]:
                chunk = {**base, "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": delta,
                                      "finish_reason": None if delta else finish}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

    return serve(Handler, "/v1")


def openai_agents(stack: str) -> None:
    """An agent (OpenAI Agents SDK) that retrieves through a function tool: no retriever
    span; the passages are the tool's output, returned to the model as a ``tool`` message.
    The tool returns the packed documents as JSON (id and text); the ground truth is what
    the tool returned and the answer the agent gave."""
    rec = Recorder(stack)
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    OpenAIAgentsInstrumentor().instrument(tracer_provider=rec.provider)  # exclusive
    import openai
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool

    answers = {q: a for _, q, a in CASES}
    case_of = {q: c for c, q, _ in CASES}
    returned: dict[str, list[dict[str, Any]]] = {}

    @function_tool
    def search_help(query: str) -> str:
        """Search the help centre; returns the matching passages as JSON."""
        found = [{"id": d, "text": KB[d]} for d, _ in keyword_scores(query)]
        packed = select(case_of.get(query, "plain"), found)
        returned[query] = packed
        return json.dumps(packed)

    client = openai.AsyncOpenAI(base_url=fake_agent_model(answers), api_key="corpus")
    agent = Agent(
        name="Help agent",
        instructions="Answer only from the passages search_help returns; cite them as [n].",
        model=OpenAIChatCompletionsModel(model="fake-gpt", openai_client=client),
        tools=[search_help],
    )

    async def streamed(query: str) -> str:
        result = Runner.run_streamed(agent, query)
        async for _ in result.stream_events():
            pass
        return str(result.final_output)

    def ask(case: str, query: str) -> str:
        if case == "stream":
            return asyncio.run(streamed(query))
        if case == "async":
            return str(asyncio.run(Runner.run(agent, query)).final_output)
        return str(Runner.run_sync(agent, query).final_output)

    def truth(case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        docs = returned.get(query, [])
        return {"case": case, "trace_id": trace_id, "query": query, "answer": answer,
                "retrieved": [d["id"] for d in docs],
                "context": [{"doc_id": d["id"], "text": d["text"]} for d in docs]}  # fmt: skip

    run_cases(rec, CASES, ask, truth)


# --- the openai client with OTel GenAI instrumentation, retrieving through a tool -----------

# the citations case searches twice in one turn, once per topic
TOOL_SEARCHES = {"refunds and restocking fee for electronics": ["refunds", "restocking fee"]}


def openai_genai_tools(stack: str) -> None:
    """A hand-written agent loop around the openai client (opentelemetry-instrumentation-
    openai-v2, content on the spans): the model asks for the ``search_help`` tool, the app
    runs it and sends its output back as a ``tool`` message, the model answers. No retrieval
    span: the passages are what the tool returned, numbered text blocks (``[n] text
    (doc_id: X)``) in some cases and JSON in others; the citations case searches twice. The
    ground truth is what the tool returned, in the order the model saw it."""
    import os

    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    rec = Recorder(stack)
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=rec.provider)
    import openai

    answers = {q: a for _, q, a in CASES}
    case_of = {q: c for c, q, _ in CASES}
    base_url = fake_agent_model(answers, TOOL_SEARCHES)
    client = openai.OpenAI(base_url=base_url, api_key="corpus")
    aclient = openai.AsyncOpenAI(base_url=base_url, api_key="corpus")
    tracer = rec.provider.get_tracer("corpus.app")
    tools = [{"type": "function", "function": {
        "name": "search_help", "description": "Search the help centre.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                       "required": ["query"]}}}]  # fmt: skip
    returned: dict[str, list[dict[str, Any]]] = {}  # question -> every passage the tools gave

    def search_help(question: str, query: str) -> str:
        found = [{"id": d, "text": KB[d]} for d, _ in keyword_scores(query)]
        packed = select(case_of.get(question, "plain"), found)
        returned.setdefault(question, []).extend(packed)
        if not packed:
            return "[]"
        if case_of.get(question) in ("cutoff", "async", "concurrent-a", "concurrent-b"):
            return json.dumps(packed)
        return "\n".join(f"[{i}] {d['text']} (doc_id: {d['id']})" for i, d in enumerate(packed, 1))

    def turn(question: str, reply: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "Answer from what search_help returns; cite [n]."},
            {"role": "user", "content": question},
        ]
        while True:
            message = reply(messages)
            if not message.get("tool_calls"):
                return str(message["content"])
            messages.append(message)
            for call in message["tool_calls"]:
                query = json.loads(call["function"]["arguments"])["query"]
                messages.append({"role": "tool", "tool_call_id": call["id"],
                                 "content": search_help(question, query)})  # fmt: skip

    def sync_reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
        done = client.chat.completions.create(model="fake-gpt", messages=messages, tools=tools)  # type: ignore[arg-type]
        return done.choices[0].message.model_dump(exclude_none=True)

    def stream_reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
        chunks = client.chat.completions.create(model="fake-gpt", messages=messages, tools=tools,  # type: ignore[arg-type]
                                                stream=True)  # fmt: skip
        text, calls = "", []
        for c in chunks:
            if not c.choices:
                continue
            delta = c.choices[0].delta
            text += delta.content or ""
            for t in delta.tool_calls or []:
                calls.append({"id": t.id, "type": "function", "function": {
                    "name": t.function.name, "arguments": t.function.arguments}})  # fmt: skip
        if calls:
            return {"role": "assistant", "content": None, "tool_calls": calls}
        return {"role": "assistant", "content": text}

    def async_reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
        async def once() -> dict[str, Any]:
            done = await aclient.chat.completions.create(model="fake-gpt", messages=messages,  # type: ignore[arg-type]
                                                         tools=tools)  # fmt: skip
            return done.choices[0].message.model_dump(exclude_none=True)

        return asyncio.run(once())

    def ask(case: str, query: str) -> str:
        reply = {"stream": stream_reply, "async": async_reply}.get(case, sync_reply)
        with tracer.start_as_current_span("agent_turn"):  # the app's own root span
            return turn(query, reply)

    def truth(case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        docs = returned.get(query, [])
        return {"case": case, "trace_id": trace_id, "query": query, "answer": answer,
                "retrieved": list(dict.fromkeys(d["id"] for d in docs)),
                "context": [{"doc_id": d["id"], "text": d["text"]} for d in docs]}  # fmt: skip

    run_cases(rec, CASES, ask, truth)


# --- DSPy (openinference-instrumentation-dspy) ----------------------------------------------

PIDS = {doc: pid for pid, doc in enumerate(KB, 101)}  # the ColBERT index's passage ids


def fake_colbert() -> str:
    """A local server answering as a ColBERTv2 search endpoint does (GET ?query=&k=):
    ``topk`` passages with ``text``, ``pid``, ``rank`` and ``score``; returns its URL."""
    from http.server import BaseHTTPRequestHandler
    from urllib.parse import parse_qs, urlparse

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            params = parse_qs(urlparse(self.path).query)
            query, k = params["query"][0], int(params.get("k", ["3"])[0])
            topk = [{"text": KB[d], "pid": PIDS[d], "rank": r, "score": s, "prob": 1.0}
                    for r, (d, s) in enumerate(keyword_scores(query)[:k], 1)]  # fmt: skip
            _reply_json(self, {"topk": topk, "latency": 0.001})

    return serve(Handler, "/api/search")


def fake_dspy_lm(answers: dict[str, str]) -> str:
    """A Chat Completions server answering in DSPy's chat-adapter format (``[[ ## answer ##
    ]]`` then ``[[ ## completed ## ]]``), the question found in the last user message."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            user = str(body["messages"][-1]["content"])
            asked = user.rsplit("[[ ## question ## ]]", 1)[-1]
            text = next((a for q, a in answers.items() if q in asked), "I don't know.")
            content = f"[[ ## answer ## ]]\n{text}\n\n[[ ## completed ## ]]"
            if body.get("stream"):
                event_stream(self)
                base = {"id": "chatcmpl-corpus", "object": "chat.completion.chunk",
                        "created": 0, "model": body["model"]}  # fmt: skip
                pieces = content.split(" ")
                for i, piece in enumerate(pieces):
                    delta = {"role": "assistant", "content": (" " if i else "") + piece}
                    chunk = {**base, "choices": [{"index": 0, "delta": delta,
                                                  "finish_reason": None}]}  # fmt: skip
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                end = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                return
            _reply_json(self, {
                "id": "chatcmpl-corpus", "object": "chat.completion", "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59},
            })  # fmt: skip

    return serve(Handler, "/v1")


def dspy_stack(stack: str) -> None:
    """A DSPy program: ``dspy.Retrieve`` over a ColBERTv2 client (two retriever spans, the
    outer one re-emitting the inner one's passages without ids), the app's packing, and a
    ``Predict("context, question -> answer")`` through litellm to a local server."""
    import os

    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no download
    from openinference.instrumentation.dspy import DSPyInstrumentor

    rec = Recorder(stack)
    DSPyInstrumentor().instrument(tracer_provider=rec.provider)
    import dspy

    answers = {q: a for _, q, a in CASES}
    lm = dspy.LM("openai/fake-gpt", api_base=fake_dspy_lm(answers), api_key="corpus",
                 cache=False, temperature=0.0)  # fmt: skip
    dspy.configure(lm=lm, rm=dspy.ColBERTv2(url=fake_colbert()))
    by_text = {t: d for d, t in KB.items()}
    seen: dict[str, list[str]] = {}
    packed_for: dict[str, list[str]] = {}

    class RAG(dspy.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.retrieve = dspy.Retrieve(k=5)
            self.answer = dspy.Predict("context: list[str], question -> answer")

        def pack(self, question: str, case: str) -> list[str]:
            found = self.retrieve(question).passages
            seen[question] = [by_text[t] for t in found]
            docs = [{"id": by_text[t], "text": t} for t in found]
            packed = packed_for[question] = [d["text"] for d in select(case, docs)]
            return packed

        def forward(self, question: str, case: str = "plain") -> Any:
            return self.answer(context=self.pack(question, case), question=question)

        async def aforward(self, question: str, case: str = "plain") -> Any:
            return await self.answer.acall(context=self.pack(question, case), question=question)

    program = RAG()

    def ask(case: str, query: str) -> str:
        if case == "async":
            return str(asyncio.run(program.acall(question=query, case=case)).answer)
        if case == "stream":  # a streamed program: the answer field as it arrives
            streaming = dspy.streamify(
                program, stream_listeners=[dspy.streaming.StreamListener("answer")]
            )

            async def consume() -> str:
                final = ""
                async for chunk in streaming(question=query, case=case):
                    if isinstance(chunk, dspy.Prediction):
                        final = str(chunk.answer)
                return final

            return asyncio.run(consume())
        return str(program(question=query, case=case).answer)

    def truth(case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        # ColBERT knows passages by pid only: that is the passage's id in the spans
        return {"case": case, "trace_id": trace_id, "query": query, "answer": answer,
                "retrieved": [str(PIDS[d]) for d in seen.get(query, [])],
                "context": [{"doc_id": str(PIDS[by_text[t]]), "text": t}
                            for t in packed_for.get(query, [])]}  # fmt: skip

    run_cases(rec, CASES, ask, truth)


# --- Bedrock (openinference-instrumentation-bedrock) ----------------------------------------

CHUNKS = {doc: f"chunk-{i:02d}-{doc}" for i, doc in enumerate(KB, 1)}  # a KB's chunk ids


def uri(doc: str) -> str:
    """The S3 object a Knowledge Base document was ingested from: its id there."""
    return f"s3://help-kb/{doc}.txt"


def fake_bedrock(answers: dict[str, str]) -> str:
    """A local server speaking the two Bedrock APIs a RAG app calls, as boto3 sends them: a
    Knowledge Base ``Retrieve`` (POST /knowledgebases/{id}/retrieve: ``retrievalResults`` with
    text, S3 location, score and the ``x-amz-bedrock-kb-*`` metadata) and ``Converse`` (POST
    /model/{id}/converse); returns its URL."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path.endswith("/retrieve"):
                query = body["retrievalQuery"]["text"]
                n = (
                    body.get("retrievalConfiguration", {})
                    .get("vectorSearchConfiguration", {})
                    .get("numberOfResults", 5)
                )
                results = [{
                    "content": {"type": "TEXT", "text": KB[d]},
                    "location": {"type": "S3", "s3Location": {"uri": uri(d)}},
                    "score": s,
                    "metadata": {"x-amz-bedrock-kb-source-uri": uri(d),
                                 "x-amz-bedrock-kb-chunk-id": CHUNKS[d],
                                 "x-amz-bedrock-kb-data-source-id": "HELPDS01"},
                } for d, s in keyword_scores(query)[:n]]  # fmt: skip
                _reply_json(self, {"retrievalResults": results})
                return
            question = body["messages"][-1]["content"][-1]["text"].rsplit("Question: ", 1)[-1]
            text = answers.get(question, "I don't know.")
            _reply_json(self, {
                "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
                "stopReason": "end_turn",
                "usage": {"inputTokens": 50, "outputTokens": 9, "totalTokens": 59},
                "metrics": {"latencyMs": 12},
            })  # fmt: skip

    return serve(Handler)


def bedrock(stack: str) -> None:
    """A RAG function around boto3: a Knowledge Base ``retrieve`` (a RETRIEVER span with the
    chunks), the app's own reranking (no span) and packing, the passages given to
    ``converse`` twice — in the system prompt and again in the user message, as apps that
    restate the context do — in the reranked order. No streaming case: ConverseStream
    answers in AWS's binary event-stream framing, which the local server does not speak."""
    import os

    for key, value in {"AWS_ACCESS_KEY_ID": "corpus", "AWS_SECRET_ACCESS_KEY": "corpus",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():  # fmt: skip
        os.environ[key] = value
    from openinference.instrumentation.bedrock import BedrockInstrumentor

    rec = Recorder(stack)
    BedrockInstrumentor().instrument(tracer_provider=rec.provider)
    import boto3

    url = fake_bedrock({q: a for _, q, a in CASES})
    agent = boto3.client("bedrock-agent-runtime", endpoint_url=url)
    runtime = boto3.client("bedrock-runtime", endpoint_url=url)
    tracer = rec.provider.get_tracer("corpus.app")
    case_of = {q: c for c, q, _ in CASES}
    by_text = {t: d for d, t in KB.items()}
    seen: dict[str, list[str]] = {}
    packed_for: dict[str, list[dict[str, Any]]] = {}

    def answer(query: str) -> str:
        found = agent.retrieve(knowledgeBaseId="HELPKB0001", retrievalQuery={"text": query},
            retrievalConfiguration={"vectorSearchConfiguration": {"numberOfResults": 5}},
        )["retrievalResults"]  # fmt: skip
        docs = [{"id": by_text[r["content"]["text"]], "text": r["content"]["text"]} for r in found]
        seen[query] = [d["id"] for d in docs]
        packed = packed_for[query] = select(case_of[query], docs)
        context = "\n".join(f"[{i}] {d['text']}" for i, d in enumerate(packed, 1))
        done = runtime.converse(
            modelId="anthropic.claude-fake-v1",
            system=[{"text": f"Answer only from the context and cite passages as [n].\n\n"
                             f"{context}"}],
            messages=[{"role": "user", "content": [
                {"text": f"Context:\n{context}\n\nQuestion: {query}"}]}],
            inferenceConfig={"temperature": 0.0, "maxTokens": 200},
        )  # fmt: skip
        return str(done["output"]["message"]["content"][0]["text"])

    def app(case: str, query: str) -> str:
        with tracer.start_as_current_span("rag_answer"):
            if case == "async":  # boto3 has no async client: the app runs it in a thread
                return asyncio.run(asyncio.to_thread(answer, query))
            return answer(query)

    def truth(case: str, query: str, text: str, trace_id: str) -> dict[str, Any]:
        return {"case": case, "trace_id": trace_id, "query": query, "answer": text,
                "retrieved": [uri(d) for d in seen.get(query, [])],
                "context": [{"doc_id": uri(d["id"]), "chunk_id": CHUNKS[d["id"]],
                             "text": d["text"]} for d in packed_for.get(query, [])]}  # fmt: skip

    run_cases(rec, [c for c in CASES if c[0] != "stream"], app, truth)


# --- google-genai (opentelemetry-instrumentation-google-genai) ----------------------------


def fake_gemini(answers: dict[str, str]) -> str:
    """A local server speaking the Gemini API as the google-genai SDK calls it
    (``models/{model}:generateContent``, and ``:streamGenerateContent?alt=sse`` as server-sent
    events of partial responses), answering each question with ``answers``; returns its base
    URL."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            question = body["contents"][-1]["parts"][-1]["text"]
            text = answers.get(question, "I don't know.")
            usage = {"promptTokenCount": 50, "candidatesTokenCount": 9, "totalTokenCount": 59}

            def response(part: str, done: bool) -> dict[str, Any]:
                candidate: dict[str, Any] = {
                    "content": {"role": "model", "parts": [{"text": part}]},
                    "index": 0,
                }
                if done:
                    candidate["finishReason"] = "STOP"
                return {"candidates": [candidate], "usageMetadata": usage,
                        "modelVersion": "fake-gemini", "responseId": "corpus"}  # fmt: skip

            if ":streamGenerateContent" not in self.path:
                _reply_json(self, response(text, True))
                return
            event_stream(self)
            words = text.split(" ")
            for i, word in enumerate(words):
                chunk = response((" " if i else "") + word, i == len(words) - 1)
                self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())

    return serve(Handler)


def google_genai(stack: str) -> None:
    """A hand-written RAG function around the google-genai client: the keyword retriever
    (a retrieval span of the GenAI conventions, ids and scores), the packed passages as
    ``[n]`` lines in the system instruction, one ``generate_content`` call. Content is
    captured on the spans (``google-genai``) or only in log events (``google-genai-events``,
    which ragmon does not read: nothing must be invented)."""
    import os

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = (
        "event_only" if stack.endswith("-events") else "span_only"
    )
    from google import genai
    from google.genai import types
    from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor
    from opentelemetry.sdk._logs import LoggerProvider

    rec = Recorder(stack)
    GoogleGenAiSdkInstrumentor().instrument(tracer_provider=rec.provider,
                                            logger_provider=LoggerProvider())  # fmt: skip
    answers = {q: a for _, q, a in CASES}
    client = genai.Client(api_key="corpus",
                          http_options=types.HttpOptions(base_url=fake_gemini(answers)))  # fmt: skip
    tracer = rec.provider.get_tracer("corpus.app")
    seen: dict[str, list[str]] = {}
    packed_for: dict[str, list[dict[str, Any]]] = {}
    case_of = {q: c for c, q, _ in CASES}

    def prompt(query: str) -> types.GenerateContentConfig:
        found = genai_retrieval(tracer, query, seen)
        packed = packed_for[query] = select(case_of[query], found)
        context = "\n".join(f"[{i}] {d['text']}" for i, d in enumerate(packed, 1))
        system = f"Answer only from the context and cite passages as [n].\n\n{context}"
        return types.GenerateContentConfig(system_instruction=system, temperature=0)

    def app(case: str, query: str) -> str:
        with tracer.start_as_current_span("rag_answer"):
            if case == "async":

                async def ask() -> str:
                    done = await client.aio.models.generate_content(
                        model="fake-gemini", contents=query, config=prompt(query)
                    )
                    return str(done.text)

                return asyncio.run(ask())
            if case == "stream":
                chunks = client.models.generate_content_stream(
                    model="fake-gemini", contents=query, config=prompt(query)
                )
                return "".join(c.text or "" for c in chunks)
            done = client.models.generate_content(model="fake-gemini", contents=query,
                                                  config=prompt(query))  # fmt: skip
            return str(done.text)

    run_cases(rec, CASES, app, packed_truth(seen, packed_for))


# --- agent frameworks: retrieval only through a search tool ---------------------------------

# (case, question, answer) of the agent stacks. The tool answers in the format its case
# names (AGENT_FORMATS); the model searches as AGENT_SEARCHES says (the question itself by
# default): "citations" twice in one turn, "parallel" twice in one request (parallel tool
# calls), "repeat" the same search twice; "turn-2" follows "turn-1" in one conversation,
# with its history; "nothing" gets the tool's "No passages found.".
AGENT_CASES = [  # one case per line
    ("json", "how long does standard shipping take", "Standard shipping takes 3-5 business days [1]."),
    ("numbered", "how many days do refunds take", "Refunds take 14 days [1]."),
    ("free-text", "what warranty do electronics carry", "A 2-year limited warranty."),
    ("citations", "refunds and restocking fee for electronics", "Refunds take 14 days [2]; a $25 fee applies [3]."),
    ("parallel", "what do a refund and a restocking fee come to", "Refunds take 14 days [2]; a $25 fee applies [3]."),
    ("repeat", "how fast is express delivery", "Express takes 1-2 days [1]."),
    ("nothing", "do you match competitors prices", "I don't know."),
    ("empty", "do you sell telescopes", "I don't know."),
    ("turn-1", "can gift cards be refunded", "No, gift cards cannot be refunded [1]."),
    ("turn-2", "and how long does express shipping take", "Express takes 1-2 days [1]."),
]  # fmt: skip
AGENT_FORMATS = {"json": "json", "numbered": "numbered", "free-text": "free",
                 "citations": "numbered", "parallel": "json", "repeat": "labelled",
                 "nothing": "none", "empty": "json", "turn-1": "wrapped",
                 "turn-2": "labelled"}  # fmt: skip
# question -> the model's requests before it answers, each the searches it asks for at once
AGENT_SEARCHES = {
    "refunds and restocking fee for electronics": [["refunds"], ["restocking fee"]],
    "what do a refund and a restocking fee come to": [["refunds", "restocking fee"]],
    "how fast is express delivery": [["express shipping"], ["express shipping"]],
}
SESSION = "conv-0001"  # the conversation of turn-1 and turn-2
NOTHING = "No passages found."  # what the search tool says when it finds nothing


def agent_tool_output(case: str, query: str) -> tuple[str, list[dict[str, Any]]]:
    """What the search tool returns for ``query`` in ``case``'s format, and the passages as
    the ground truth counts them (a free-text answer is one passage without an id)."""
    found = [{"id": d, "text": KB[d]} for d, _ in keyword_scores(query)][:2]
    fmt = AGENT_FORMATS[case]
    if fmt == "none":
        return NOTHING, []
    if fmt == "json":
        return json.dumps([{"doc_id": d["id"], "content": d["text"]} for d in found]), found
    if fmt == "wrapped":
        hits = [{"id": d["id"], "text": d["text"], "score": 0.9} for d in found]
        return json.dumps({"results": hits}), found
    if fmt == "numbered":
        return "\n".join(f"[{i}] {d['text']} (doc_id: {d['id']})"
                         for i, d in enumerate(found, 1)), found  # fmt: skip
    if fmt == "labelled":
        return "\n\n".join(f"Document {i}: {d['text']} (source: {d['id']})"
                           for i, d in enumerate(found, 1)), found  # fmt: skip
    text = "From the help centre: " + " ".join(d["text"] for d in found)
    return text, [{"id": None, "text": text}]


def fake_tool_agent_model(answers: dict[str, str], searches: dict[str, list[list[str]]],
                          received: dict[str, list[str]] | None = None) -> str:  # fmt: skip
    """A local server speaking the Chat Completions API (JSON and server-sent events) to an
    agent framework, whatever it sends back as the tool's result: the n-th request about a
    question (the latest message that names one of ``answers``) calls the ``search_help``
    tool once for each of ``searches[question][n]`` (in one response: parallel tool calls;
    the question itself by default); the next one answers, as text or, when the framework
    offers a ``final_answer`` tool, as its call. ``received``: question -> the texts of the
    answering request's messages but the assistant's (what the model was given)."""
    from http.server import BaseHTTPRequestHandler

    asked: dict[str, int] = {}
    lock = threading.Lock()

    def text_of(content: Any) -> str:
        if isinstance(content, list):
            return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return str(content or "")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            said = [text_of(m.get("content")) for m in body["messages"] if m["role"] == "user"]
            question = next(q for t in reversed(said) for q in answers if q in t)
            with lock:
                n = asked[question] = asked.get(question, -1) + 1
            asks = searches.get(question, [[question]])
            tools = {t["function"]["name"] for t in body.get("tools", [])}
            calls: list[tuple[str, dict[str, str]]] = []
            if n < len(asks):
                calls = [("search_help", {"query": q}) for q in asks[n]]
            else:
                if received is not None:
                    received[question] = [text_of(m.get("content")) for m in body["messages"]
                                          if m["role"] != "assistant"]  # fmt: skip
                if "final_answer" in tools:
                    calls = [("final_answer", {"answer": answers[question]})]
            message: dict[str, Any] = {"role": "assistant", "content": answers[question]}
            if calls:
                made = [{"id": f"call_{n}_{i}_{abs(hash(question)) % 10**6}", "type": "function",
                         "function": {"name": name, "arguments": json.dumps(arguments)}}
                        for i, (name, arguments) in enumerate(calls)]  # fmt: skip
                message = {"role": "assistant", "content": None, "tool_calls": made}
            finish = "tool_calls" if calls else "stop"
            base = {"id": "chatcmpl-agent", "created": 0, "model": body["model"]}
            usage = {"prompt_tokens": 60, "completion_tokens": 9, "total_tokens": 69}
            if not body.get("stream"):
                _reply_json(self, {**base, "object": "chat.completion", "usage": usage,
                                   "choices": [{"index": 0, "message": message,
                                                "finish_reason": finish}]})  # fmt: skip
                return
            event_stream(self)
            if calls:
                deltas = [{"role": "assistant", "tool_calls": [{**call, "index": i}]}
                          for i, call in enumerate(message["tool_calls"])]  # fmt: skip
            else:
                words = answers[question].split(" ")
                deltas = [{"role": "assistant", "content": (" " if i else "") + w}
                          for i, w in enumerate(words)]  # fmt: skip
            for delta in [*deltas, {}]:
                chunk = {**base, "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": delta,
                                      "finish_reason": None if delta else finish}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            last = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())

    return serve(Handler, "/v1")


class AgentTool:
    """The agent stacks' search tool: what it returned per question, in call order, and what
    the model was given when it answered (from the model server's side).

    The ground truth of a trace: ``context`` the passages of every search result the
    answering request carried (an earlier turn's too: the history), in the order the
    request has them, each passage once; ``retrieved`` the ids this turn's searches
    returned; ``tool_calls`` and ``steps`` the searches this turn ran and the requests that
    asked for them."""

    def __init__(self) -> None:
        self.returned: dict[str, list[dict[str, Any]]] = {}
        self.calls: dict[str, int] = {}  # searches per question
        self.outputs: dict[str, list[dict[str, Any]]] = {}  # a result -> its passages
        self.received: dict[str, list[str]] = {}  # filled by the model server
        self.later: dict[str, list[dict[str, Any]]] = {}  # a result -> its passages, later
        self.case = ""
        self.question = ""

    def server(self) -> str:
        """The model server of the agent stacks, reporting to this tool."""
        answers = {q: a for _, q, a in AGENT_CASES}
        return fake_tool_agent_model(answers, AGENT_SEARCHES, self.received)

    def search(self, query: str) -> str:
        raw, docs = agent_tool_output(self.case, query)
        self.note(raw, docs, docs)
        return raw

    def note(self, raw: str, docs: list[dict[str, Any]], later: list[dict[str, Any]]) -> None:
        """One search this turn: ``docs`` what it returned, ``later`` what its result ``raw``
        is to a model that reads it in a later turn (the same, unless the documents were
        joined into text: then what the turn's own spans list is not in a later trace)."""
        self.returned.setdefault(self.question, []).extend(docs)
        self.calls[self.question] = self.calls.get(self.question, 0) + 1
        self.outputs[raw] = docs
        self.later[raw] = later

    def given(self, query: str) -> list[dict[str, Any]]:
        """The passages of the search results in the answering request, in its order."""
        out: list[dict[str, Any]] = []
        for text in self.received.get(query, []):
            found = []
            for raw, passages in self.outputs.items():
                if not passages:
                    continue
                at = [i for i in (text.find(raw), text.find(json.dumps(raw)[1:-1])) if i >= 0]
                if at:
                    found.append((min(at), raw))
            for _, raw in sorted(found):
                out += [p for p in self.outputs[raw] if p not in out]
        return out

    def truth(self, case: str, query: str, answer: Any, trace_id: str) -> dict[str, Any]:
        docs = self.returned.get(query, [])
        row = {"case": case, "trace_id": trace_id, "query": query, "answer": str(answer),
               "retrieved": list(dict.fromkeys(d["id"] for d in docs if d["id"] is not None)),
               "context": [{"doc_id": d["id"], "text": d["text"]} for d in self.given(query)],
               "tool_calls": self.calls.get(query, 0),
               "steps": len(AGENT_SEARCHES.get(query, [[query]]))}  # fmt: skip
        if case.startswith("turn-"):
            row["session_id"] = SESSION
        self.outputs.update(self.later)
        self.later.clear()
        return row


def smolagents_stack(stack: str) -> None:
    """A smolagents ToolCallingAgent (openinference-instrumentation-smolagents: AGENT, TOOL,
    LLM and CHAIN spans): the model calls ``search_help``, then answers through smolagents'
    ``final_answer`` tool; the tool's result reaches the model as an "Observation". The
    conversation's second turn keeps the agent's memory (``reset=False``); its session is
    set with OpenInference's ``using_session``."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor

    SmolagentsInstrumentor().instrument(tracer_provider=rec.provider)
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    box = AgentTool()

    @tool
    def search_help(query: str) -> str:
        """Search the help centre.

        Args:
            query: what to search for
        """
        return box.search(query)

    model = OpenAIServerModel(model_id="fake-gpt", api_key="corpus", api_base=box.server())
    agent = ToolCallingAgent(tools=[search_help], model=model, max_steps=4, verbosity_level=0)

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        if not case.startswith("turn-"):
            return str(agent.run(query))
        with using_session(SESSION):
            return str(agent.run(query, reset=case == "turn-1"))

    run_cases(rec, AGENT_CASES, ask, box.truth)


def pydantic_ai_stack(stack: str) -> None:
    """A PydanticAI agent with its own OpenTelemetry instrumentation (``instrument_all``: the
    GenAI semantic conventions, messages as ``gen_ai.input.messages`` parts, the tool's
    result a ``tool_call_response`` part and the ``execute_tool`` span's
    ``gen_ai.tool.call.result``); the conversation's second turn passes the first's messages
    as its history. Streamed and async runs for two cases."""
    rec = Recorder(stack)
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    Agent.instrument_all(InstrumentationSettings(tracer_provider=rec.provider))
    box = AgentTool()
    url = box.server()
    model = OpenAIChatModel("fake-gpt", provider=OpenAIProvider(base_url=url, api_key="corpus"))
    agent = Agent(model, instructions="Answer from what search_help returns; cite [n].")

    @agent.tool_plain
    def search_help(query: str) -> str:
        """Search the help centre."""
        return box.search(query)

    history: list[Any] = []

    async def streamed(query: str) -> str:
        async with agent.run_stream(query) as run:
            return "".join([part async for part in run.stream_text(delta=True)])

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        if case == "json":
            return asyncio.run(streamed(query))
        if case == "numbered":
            return str(asyncio.run(agent.run(query)).output)
        if case.startswith("turn-"):  # the app names the conversation (the turns share it)
            result = agent.run_sync(query, message_history=history or None,
                                    conversation_id=SESSION)  # fmt: skip
        else:
            result = agent.run_sync(query)
        if case == "turn-1":
            history[:] = result.all_messages()
        return str(result.output)

    run_cases(rec, AGENT_CASES, ask, box.truth)


def strands_stack(stack: str) -> None:
    """A Strands Agents agent over the OpenAI model provider, with Strands' own OpenTelemetry
    tracing in its default mode: the GenAI conventions' content events on the spans
    (``gen_ai.user.message``, ``gen_ai.tool.message`` with Bedrock-style ``toolResult``
    blocks, ``gen_ai.choice``), no content attribute. One agent per case; the conversation's
    two turns share one agent (its messages are the history) and name their session in
    ``trace_attributes``."""
    from opentelemetry import trace

    rec = Recorder(stack)
    trace.set_tracer_provider(rec.provider)  # Strands traces through the global provider
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    box = AgentTool()

    @tool
    def search_help(query: str) -> str:
        """Search the help centre.

        Args:
            query: what to search for
        """
        return box.search(query)

    url = box.server()
    conversation: list[Any] = []

    def agent_for(case: str) -> Any:
        if case == "turn-2":
            return conversation[0]
        model = OpenAIModel(client_args={"base_url": url, "api_key": "corpus"},
                            model_id="fake-gpt")  # fmt: skip
        extra = {"trace_attributes": {"session.id": SESSION}} if case == "turn-1" else {}
        made = Agent(model=model, tools=[search_help], callback_handler=None,
                     system_prompt="Answer from what search_help returns; cite [n].", **extra)  # fmt: skip
        if case == "turn-1":
            conversation.append(made)
        return made

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        agent = agent_for(case)
        if case == "numbered":
            return str(asyncio.run(agent.invoke_async(query))).strip()
        return str(agent(query)).strip()

    run_cases(rec, AGENT_CASES, ask, box.truth)


def langgraph_react(stack: str) -> None:
    """LangGraph's prebuilt ReAct agent (``create_react_agent`` over a ``ChatOpenAI`` model and
    a ``search_help`` tool) under ``openinference-instrumentation-langchain``: the tool's
    TOOL span records its ``ToolMessage``, the model call gets the result as a ``tool``
    message; the graph's input and output are message lists. The conversation's second turn
    sends the first turn's messages with the new question; its session is set with
    OpenInference's ``using_session``."""
    import warnings

    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=rec.provider)
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    box = AgentTool()

    @tool
    def search_help(query: str) -> str:
        """Search the help centre."""
        return box.search(query)

    url = box.server()
    model = ChatOpenAI(model="fake-gpt", base_url=url, api_key="corpus")  # type: ignore[arg-type]
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0, still shipped
        warnings.simplefilter("ignore")
        agent = create_react_agent(model, [search_help],
                                   prompt="Answer from what search_help returns; cite [n].")  # fmt: skip
    history: list[Any] = []

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        state = {"messages": [*history, ("user", query)]}
        if case == "numbered":
            result = asyncio.run(agent.ainvoke(state))
        elif case.startswith("turn-"):
            with using_session(SESSION):
                result = agent.invoke(state)
            history[:] = result["messages"]
        else:
            result = agent.invoke(state)
        return str(result["messages"][-1].content)

    run_cases(rec, AGENT_CASES, ask, box.truth)


def google_adk(stack: str) -> None:
    """A Google ADK ``LlmAgent`` (a LiteLLM model on the OpenAI-compatible server, a
    ``search_help`` function tool) with ADK's own tracing, the GenAI conventions' current
    generation with content on the spans (``OTEL_SEMCONV_STABILITY_OPT_IN=
    gen_ai_latest_experimental``, ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=
    SPAN_ONLY``); ``-nocontent``: ADK's defaults, no content on any span. ADK wraps a tool's
    plain return value as ``{"result": …}``. One session per case; the conversation's two
    turns share a session named ``SESSION``."""
    import os

    if not stack.endswith("-nocontent"):
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # offline: no price list fetched
    from opentelemetry import trace

    rec = Recorder(stack)
    trace.set_tracer_provider(rec.provider)  # ADK traces through the global provider
    from google.adk.agents import LlmAgent
    from google.adk.models.lite_llm import LiteLlm
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    box = AgentTool()

    def search_help(query: str) -> str:
        """Search the help centre."""
        return box.search(query)

    url = box.server()
    agent = LlmAgent(name="help", instruction="Answer from what search_help returns; cite [n].",
                     model=LiteLlm(model="openai/fake-gpt", api_base=url, api_key="corpus"),
                     tools=[search_help])  # fmt: skip
    runner = InMemoryRunner(agent=agent, app_name="help")

    async def turn(case: str, query: str) -> str:
        sid = SESSION if case.startswith("turn-") else f"session-{case}"
        if await runner.session_service.get_session(app_name="help", user_id="u",
                                                    session_id=sid) is None:  # fmt: skip
            await runner.session_service.create_session(app_name="help", user_id="u",
                                                        session_id=sid)  # fmt: skip
        said = ""
        message = types.Content(role="user", parts=[types.Part(text=query)])
        async for event in runner.run_async(user_id="u", session_id=sid, new_message=message):
            parts = event.content.parts if event.content and event.content.parts else []
            said += "".join(p.text for p in parts if p.text)
        return said

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        return asyncio.run(turn(case, query))

    run_cases(rec, AGENT_CASES, ask, box.truth)


def langgraph_retriever(stack: str) -> None:
    """LangGraph's prebuilt ReAct agent whose search tool is a retriever (LangChain's
    ``create_retriever_tool`` over a keyword ``BaseRetriever``): the tool's run holds a
    RETRIEVER span listing the documents with their ids, and the model gets their texts
    joined as the tool message; the model searches with words of its own, not the question
    (AGENT_SEARCHES). Otherwise as ``langgraph_react``."""
    import warnings

    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=rec.provider)
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import create_retriever_tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    box = AgentTool()

    class HelpRetriever(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
            found = [] if box.case == "nothing" else [d for d, _ in keyword_scores(query)][:2]
            docs = [{"id": d, "text": KB[d]} for d in found]
            raw = "\n\n".join(d["text"] for d in docs)  # the tool's own joining
            box.note(raw, docs, [{"id": None, "text": raw}] if raw else [])
            return [Document(page_content=KB[d], metadata={"doc_id": d}) for d in found]

    search_help = create_retriever_tool(HelpRetriever(), "search_help", "Search the help centre.")
    model = ChatOpenAI(model="fake-gpt", base_url=box.server(), api_key="corpus")  # type: ignore[arg-type]
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0, still shipped
        warnings.simplefilter("ignore")
        agent = create_react_agent(model, [search_help],
                                   prompt="Answer from what search_help returns; cite [n].")  # fmt: skip
    history: list[Any] = []

    def ask(case: str, query: str) -> str:
        box.case, box.question = case, query
        state = {"messages": [*history, ("user", query)]}
        if case == "numbered":
            result = asyncio.run(agent.ainvoke(state))
        elif case.startswith("turn-"):
            with using_session(SESSION):
                result = agent.invoke(state)
            history[:] = result["messages"]
        else:
            result = agent.invoke(state)
        return str(result["messages"][-1].content)

    run_cases(rec, AGENT_CASES, ask, box.truth)


# stack name prefix -> the function that runs it (the openai client's stacks otherwise)
RUNNERS: dict[str, Callable[[str], None]] = {
    "langgraph-react": langgraph_react,  # before "langgraph": the first prefix that matches
    "langgraph-retriever": langgraph_retriever,
    "llamaindex": llamaindex, "langchain": langchain, "langgraph": langgraph,
    "haystack": haystack, "openai-agents": openai_agents, "google-genai": google_genai,
    "openai-genai-tools": openai_genai_tools,
    "dspy": dspy_stack, "bedrock": bedrock, "smolagents": smolagents_stack,
    "pydantic-ai": pydantic_ai_stack, "strands": strands_stack, "google-adk": google_adk,
}  # fmt: skip


def _run(stack: str) -> None:
    run = next((f for prefix, f in RUNNERS.items() if stack.startswith(prefix)), openai_client)
    run(stack)


def main(argv: Iterator[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack", choices=list(STACKS), help="one stack, in this process")
    parser.add_argument("--requirements", help="every stack that runs in this environment")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.stack:
        _run(args.stack)
        return
    for stack, requirements in STACKS.items():  # each in its own process
        if args.requirements and requirements != args.requirements:
            continue
        subprocess.run([sys.executable, __file__, "--stack", stack], check=True)
        print(f"{stack}: written", file=sys.stderr)


if __name__ == "__main__":
    main()
