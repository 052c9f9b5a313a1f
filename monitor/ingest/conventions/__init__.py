"""One trace's spans → ``RagTrace``, for the three span conventions RAG apps emit.

* **OpenInference** (Arize; LangChain and LlamaIndex instrumentations): question = root
  ``input.value`` (JSON → ``question``/``query``/``input``), retrieved = RETRIEVER
  ``retrieval.documents.{i}.document.*`` (nested duplicate retrievers collapse), packed
  context = the last RERANKER's ``reranker.output_documents.*`` or else the retrieved
  documents, answer = root ``output.value`` or else the last LLM span's first output message.
* **OTel GenAI**, current generation (≥ 1.37: ``gen_ai.provider.name``,
  ``gen_ai.input.messages`` / ``gen_ai.output.messages``, retrieval spans with
  ``gen_ai.retrieval.query.text`` and ``gen_ai.retrieval.documents``) and the older one
  (≤ 1.36: ``gen_ai.system``, ``gen_ai.prompt`` / ``gen_ai.completion`` attributes or
  events). Retrieval documents carry ids and scores only, so the packed passages are taken
  from the answering model's prompt (system instructions and user messages), split at
  ``[n]`` markers when the prompt numbers them.
* **OpenLLMetry** (Traceloop): ``traceloop.entity.input`` / ``output`` of the workflow span,
  LLM messages in the old flattened ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``
  form or the new message JSON, vector-store results as ``db.query.result`` /
  ``db.search.result`` span events.

A trace needs a retrieval step (retriever, reranker, retrieval operation, vector-store span
or results) and an answer to be a RAG trace; otherwise it is ``unrecognised``. A trace whose
answer or context text was not captured (content capture off) is ``content_missing``: it has
the shape but ragmon will not invent the text, and evaluating it would raise false
empty-context alarms. Content hidden by the producer (``__REDACTED__``, dropped attributes)
is flagged with ``ragmon.content_redacted`` so the judge skips the trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from monitor.core.model import RagTrace
from monitor.core.record import MIN_SAMPLE_RATE
from monitor.ingest.conventions.agent import agent_work
from monitor.ingest.conventions.core import (
    CONTENT_MISSING,
    CONVENTIONS,
    MAPPING_FAILED,
    OPENINFERENCE,
    OPENLLMETRY,
    OTEL_GENAI,
    OTEL_GENAI_LEGACY,
    OUTCOMES,
    OWN,
    REDACTED,
    REPLAY_FRAGMENT,
    UNRECOGNISED,
    Mapped,
    _root,
    _Shape,
)
from monitor.ingest.conventions.genai import (
    _LEGACY_EVENTS,
    _RESULT_EVENTS,
    _genai_like,
    has_model_call,
)
from monitor.ingest.conventions.openinference import _openinference
from monitor.ingest.conventions.packing import _from_prompt, _golden_id
from monitor.ingest.otlp import Span

DATA_SOURCE = "gen_ai.data_source.id"  # semantic conventions: the data source a retrieval read


# What sets a trace's release and route, first found wins, on the root span then on its
# resource (docs, "Route, release and time of OTel traces"); the timestamp is the root
# span's end.
RELEASE_KEYS = ("ragmon.release", "service.version")
ROUTE_KEYS = ("ragmon.route", "http.route")
# kept as trace attributes: the deployment environment
_KEPT = ("deployment.environment.name",)
# The conversation a trace is one turn of, first found wins: on the root span, its resource,
# then any span of the trace (OpenInference sets it on every span of a session's traces,
# frameworks often only on the agent's span).
SESSION_KEYS = (
    "session.id",  # OpenInference semantic conventions
    "gen_ai.conversation.id",  # OTel GenAI semantic conventions
    "traceloop.association.properties.session_id",  # OpenLLMetry association properties
    "langfuse.session.id",  # Langfuse's OTel attribute
)


def session_id(spans: list[Span], root: Span) -> str | None:
    """The session the trace belongs to, where a span or its resource names one (at most
    256 characters, as the native record's field; a longer one is cut there)."""
    for span in (root, *spans):
        for where in (span.attributes, span.resource):
            for key in SESSION_KEYS:
                value = where.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    value = str(value)
                if isinstance(value, str) and value.strip():
                    return value.strip()[:256]
    return None


def _first_str(root: Span, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for where in (root.attributes, root.resource):
            value = where.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()[:200]
    return None


def _convention(spans: list[Span]) -> str | None:
    keys = {k for s in spans for k in s.attributes}
    if "openinference.span.kind" in keys:
        return OPENINFERENCE
    if (
        any(k.startswith("traceloop.") for k in keys)
        or "gen_ai.prompt.0.content" in keys
        or any(e.name in _RESULT_EVENTS for s in spans for e in s.events)
    ):
        return OPENLLMETRY
    current = ("gen_ai.provider.name", "gen_ai.input.messages", "gen_ai.output.messages",
               "gen_ai.retrieval.documents", "gen_ai.retrieval.query.text")  # fmt: skip
    if any(k in keys for k in current):
        return OTEL_GENAI
    if any(k.startswith("gen_ai.") for k in keys) or any(
        e.name in _LEGACY_EVENTS for s in spans for e in s.events
    ):
        return OTEL_GENAI_LEGACY
    return None


_MAX_THRESHOLD = 1 << 56  # OTEP 235: thresholds and randomness are 56-bit


def sample_rate(root: Span) -> float | None:
    """The probability with which the trace was kept upstream, where the root span says it:

    * OpenTelemetry's consistent probability sampling (OTEP 235; the spec's "TraceState:
      Probability Sampling"): ``tracestate`` member ``ot``, sub-key ``th``, the rejection
      threshold as 1 to 14 hex digits padded with trailing zeros to 56 bits; the probability
      is ``1 - th / 2**56`` (``th:0``: every trace kept);
    * the ``SampleRate`` attribute (Honeycomb's convention, also on the resource): kept one
      in N, so ``1 / N``.

    ``sampling.priority`` (OpenTracing) is a keep-or-drop hint, not a probability: not read.
    None when nothing says (every rate then counts the trace once, as before) or what it
    says is malformed (a ``SampleRate`` below 1 or above 2**56, the largest weight the
    thresholds express)."""
    for member in root.trace_state.split(","):
        key, _, value = member.strip().partition("=")
        if key != "ot":
            continue
        for field in value.split(";"):
            name, _, th = field.partition(":")
            if name != "th":
                continue
            if not 1 <= len(th) <= 14 or any(c not in "0123456789abcdef" for c in th):
                return None
            threshold = int(th.ljust(14, "0"), 16)
            return (_MAX_THRESHOLD - threshold) / _MAX_THRESHOLD
    n = root.attributes.get("SampleRate", root.resource.get("SampleRate"))
    if isinstance(n, int | float) and not isinstance(n, bool) and 1 <= n <= 1 / MIN_SAMPLE_RATE:
        return 1.0 / float(n)  # (past 2**56, infinity among them: the records' floor)
    return None


def map_spans(spans: list[Span], extra: Mapping[str, object] | None = None) -> Mapped:
    """One trace's spans → RagTrace (with the recognised convention), or why not.
    ``extra`` attributes are added to the trace (the assembler marks incomplete ones)."""
    if not spans:
        return Mapped(None, UNRECOGNISED)
    spans = sorted(spans, key=lambda s: s.start)
    root = _root(spans)
    convention = _convention(spans)
    shape: _Shape | None = None
    if convention == OPENINFERENCE:
        shape = _openinference(spans, root)
    elif convention is not None:
        shape = _genai_like(spans, root, convention)
    if shape is None:
        return Mapped(None, UNRECOGNISED)
    packed = shape.packed
    # ids without text (content capture on the prompt only): the passages are in the prompt;
    # an empty list is a retrieval that returned nothing, which stays empty
    from_prompt = packed is None or (bool(packed) and not any(d.text for d in packed))
    if from_prompt:
        packed = _from_prompt(shape.prompt, shape.retrieved, shape.question)
    assert packed is not None
    # Documents without text (ids only, content capture off) or no answer: the shape is
    # there, the text is not. A retrieval that returned nothing is a real empty context.
    listed = bool(shape.retrieved or shape.packed)
    if not shape.answer.strip() or (listed and not any(d.text for d in packed)):
        return Mapped(None, CONTENT_MISSING)
    # an id the spans do not tell stays unknown (never the n-th document, never invented)
    # (a document both retrieved and packed counts once)
    unknown = [d for d in (*packed, *shape.retrieved) if d.id is None]
    unresolved = len({d.text if d.text else id(d) for d in unknown})
    texts = [shape.question, shape.answer, *(d.text or "" for d in packed)]
    redacted = any(REDACTED in t for t in texts) or any(s.dropped_attributes for s in spans)
    attributes: dict[str, Any] = {
        "ragmon.convention": shape.convention,
        "ragmon.root_span_id": root.span_id,
    }
    if from_prompt:
        attributes["ragmon.context_from"] = "prompt"
    if redacted:
        attributes["ragmon.content_redacted"] = True
    if unresolved:
        attributes["ragmon.ids_unresolved"] = unresolved
    # the data sources the retrievals read (OTel GenAI), for the data-source segment
    sources = sorted(
        {v for s in spans if isinstance(v := s.attributes.get(DATA_SOURCE), str) and v}
    )
    if sources:
        attributes[DATA_SOURCE] = sources[0] if len(sources) == 1 else sources
    kept = {k: v for k in _KEPT if isinstance(v := root.attributes.get(k, root.resource.get(k)),
                                              str | int | float | bool)}  # fmt: skip
    attributes.update(kept)
    attributes.update(agent_work(spans, shape.retrieval_calls, shape.through_tools, shape.said,
                                 shape.failed_tools))  # fmt: skip
    session = session_id(spans, root)
    if session is not None and root.start:  # a conversation's turns: ordered by their start
        attributes["ragmon.started"] = root.start / 1e9
    attributes.update(extra or {})
    record = {
        "trace_id": root.trace_id,
        "timestamp": datetime.fromtimestamp(root.end / 1e9, UTC) if root.end else None,
        "release": _first_str(root, RELEASE_KEYS),
        "route": _first_str(root, ROUTE_KEYS),
        "app": root.service,
        "query": shape.question,
        "retrieved": [
            {"doc_id": d.id, "chunk_id": d.chunk, "score": d.score, "rank": i}
            for i, d in enumerate(shape.retrieved, 1)
            if d.id is not None
        ],
        "context": [{"doc_id": d.id, "chunk_id": d.chunk, "text": d.text or ""} for d in packed],
        "answer": shape.answer,
        "model": shape.model,
        "attributes": attributes,
        "golden_id": _golden_id(root, spans),
        "sample_rate": sample_rate(root),
        "session_id": session,
    }
    # The decoders have checked the ids; a record that still fails validation is a mapping
    # bug, which the assembler turns into a dead letter (mapping_failed).
    return Mapped(RagTrace.from_data(record), shape.convention, redacted, unresolved)


__all__ = [
    "CONTENT_MISSING", "CONVENTIONS", "MAPPING_FAILED", "OPENINFERENCE", "OPENLLMETRY",
    "OTEL_GENAI", "OTEL_GENAI_LEGACY", "OUTCOMES", "OWN", "REPLAY_FRAGMENT", "UNRECOGNISED",
    "Mapped", "has_model_call", "map_spans",
]  # fmt: skip
