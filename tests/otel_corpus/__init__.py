"""The OTLP corpus: spans from real instrumentation packages (see ``generate.py``) and the
ground truth taken from the pipelines that produced them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from monitor.core.model import RagTrace
from monitor.ingest import conversion
from monitor.sources import framing

HERE = Path(__file__).resolve().parent
# The agent frameworks: retrieval only through a search tool, one case per tool output format
# (JSON, a JSON object of results, numbered text, "Document n:" blocks, free text, an empty
# list, "No passages found."), two searches in one turn (citations), two in one request
# (parallel tool calls), the same search twice (repeat) and a conversation of two turns.
AGENT_STACKS = (
    "smolagents-openinference",
    "pydantic-ai-genai",
    "strands-genai-events",
    "langgraph-react-openinference",
    "langgraph-retriever-openinference",
    "google-adk-genai",
    "google-adk-nocontent",
)
STACKS = (
    "llamaindex-openinference",
    "llamaindex-openllmetry",
    "langchain-openinference",
    "langchain-openllmetry",
    "langgraph-openinference",
    "langgraph-hybrid-openinference",
    "openai-traceloop",
    "openai-genai",
    "openai-genai-nocontent",
    "openai-genai-tools",
    "haystack-openinference",
    "haystack-hybrid-openinference",
    "openai-agents-openinference",
    "dspy-openinference",
    "bedrock-openinference",
    "google-genai",
    "google-genai-events",
    *AGENT_STACKS,
)
AGENT_CASES = {
    "json",
    "numbered",
    "free-text",
    "citations",
    "parallel",
    "repeat",
    "nothing",
    "empty",
    "turn-1",
    "turn-2",
}
FORMATS = {"otlp-proto": ".otlp", "otlp-json": ".otlp.jsonl"}


def truth(stack: str, where: Path = HERE) -> dict[str, dict[str, Any]]:
    """trace id -> ground truth row of one stack (``where``: another corpus's directory)."""
    rows = (json.loads(line) for line in (where / f"{stack}.truth.jsonl").read_text().splitlines())
    return {r["trace_id"]: r for r in rows}


def converted(stack: str, fmt: str, where: Path = HERE) -> dict[str, RagTrace]:
    """trace id -> what ragmon understood from the stack's file in ``fmt``."""
    data = (where / f"{stack}{FORMATS[fmt]}").read_bytes()
    result = conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_"))
    return {t.trace_id: t for t in result.traces}


def differences(expected: dict[str, Any], got: RagTrace | None) -> list[str]:
    """What ragmon got wrong about one trace (empty: exactly right)."""
    if got is None:
        return ["not mapped"]
    out = []
    if got.query != expected["query"]:
        out.append(f"query {got.query!r}")
    if got.answer.strip() != expected["answer"].strip():
        out.append(f"answer {got.answer!r}")
    # chunk ids where the pipeline has them (LlamaIndex nodes): the spans carry them too
    chunks = all("chunk_id" in c for c in expected["context"])
    context = [(p.doc_id, p.chunk_id if chunks else None, p.text.strip()) for p in got.context]
    want = [(c["doc_id"], c.get("chunk_id"), c["text"].strip()) for c in expected["context"]]
    if context != want:
        out.append(f"context {context}")
    retrieved = [d.doc_id for d in got.retrieved]
    if retrieved != expected["retrieved"]:
        out.append(f"retrieved {retrieved}")
    if "session_id" in expected and got.session_id != expected["session_id"]:
        out.append(f"session {got.session_id!r}")  # a conversation's turns, where the app names it
    return out
