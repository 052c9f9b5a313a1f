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

import json
import re
from dataclasses import dataclass, field
from typing import Any

from monitor.ingest.otlp import Span
from monitor.model import RagTrace

REDACTED = "__REDACTED__"

# Bounded labels of ragmon_otlp_traces_total{convention=...}.
OPENINFERENCE = "openinference"
OTEL_GENAI = "otel_genai"
OTEL_GENAI_LEGACY = "otel_genai_legacy"
OPENLLMETRY = "openllmetry"
UNRECOGNISED = "unrecognised"
CONTENT_MISSING = "content_missing"
OWN = "own"
# spans of a trace re-read after a restart while the rest of it was finished before: no
# root span, no model call, read before this process's first commit of their partition
REPLAY_FRAGMENT = "replay_fragment"
MAPPING_FAILED = "mapping_failed"  # the mapping raised (a bug of ours): a dead letter
CONVENTIONS = (OPENINFERENCE, OTEL_GENAI, OTEL_GENAI_LEGACY, OPENLLMETRY)
OUTCOMES = (*CONVENTIONS, UNRECOGNISED, CONTENT_MISSING, OWN, REPLAY_FRAGMENT, MAPPING_FAILED)


@dataclass
class Mapped:
    trace: RagTrace | None
    convention: str  # one of OUTCOMES
    redacted: bool = False


@dataclass
class _Doc:
    id: str | None
    text: str | None = None
    score: float | None = None


@dataclass
class _Shape:
    """What a convention yields before it becomes a RagTrace."""

    convention: str
    question: str = ""
    answer: str = ""
    retrieved: list[_Doc] = field(default_factory=list)
    packed: list[_Doc] | None = None  # None: take the packed context from the prompt
    prompt: list[str] = field(default_factory=list)  # system/user texts of the answering call
    model: str | None = None


# --- shared helpers ---------------------------------------------------------------------


def _loads(value: Any) -> Any:
    """A JSON string decoded (span attributes carry structured values as JSON strings)."""
    if isinstance(value, str) and value[:1] in ("[", "{", '"'):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _text(value: Any) -> str:
    """Text of a message content, a parts list or a plain value."""
    value = _loads(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(p) for p in value) if t)
    if isinstance(value, dict):
        if value.get("type") not in (None, "text", "output_text", "input_text"):
            return ""
        for key in ("content", "text", "parts"):
            if key in value:
                return _text(value[key])
    return ""


# Keys that name a call, not its input ({"kwargs": {"name": "RunnableSequence"}}).
_NOT_INPUT = frozenset({"name", "run_type", "type", "id", "tags", "metadata", "lc"})


_QUESTION_KEYS = ("question", "query", "input", "user_input", "q", "query_str")


def _question_key(value: dict[str, Any], depth: int = 0) -> str:
    """A question under a question-like key, here or in nested objects (Haystack's
    ``{"data": {"retriever": {"query": ...}}}``)."""
    for key in _QUESTION_KEYS:
        if isinstance(value.get(key), str):
            return str(value[key])
    if depth < 3:
        for v in value.values():
            v = _loads(v)
            if isinstance(v, dict):
                found = _question_key(v, depth + 1)
                if found:
                    return found
    return ""


def _first_string(value: Any) -> str:
    """Question from a string, or from a JSON object/args list holding it: LangChain's
    ``{"inputs": ...}``, LlamaIndex's ``{"str_or_query_bundle": ...}`` / ``{"query_str":
    ...}``, OpenInference's ``{"question": ...}``."""
    value = _loads(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        keyed = _question_key(value)
        if keyed:
            return keyed
        for key in ("inputs", "str_or_query_bundle", "query_bundle", "query", "input", "args",
                    "kwargs"):  # fmt: skip
            if key in value:
                found = _first_string(value[key])
                if found:
                    return found
        return next((v for k, v in value.items() if isinstance(v, str) and k not in _NOT_INPUT),
                    "")  # fmt: skip
    if isinstance(value, list):
        return next((s for s in (_first_string(v) for v in value) if s), "")
    return ""


def _answer_value(value: Any) -> str:
    """The answer in an output value; a streamed response's placeholder
    (``<generator object>``) is no answer."""
    value = _loads(value)
    if isinstance(value, dict):
        for key in ("answer", "output", "outputs", "result", "response", "content", "text"):
            if isinstance(value.get(key), str):
                return _answer_value(value[key])
        return ""
    if not isinstance(value, str) or value.startswith("<generator object"):
        return ""
    return value


_QUESTION_LABEL = re.compile(r"(?im)^\s*(?:question|query|user question)\s*:\s*")


def _question_from_prompt(text: str) -> str:
    """The question inside a templated user message ("...Question: <q>"), else the text."""
    parts = _QUESTION_LABEL.split(text)
    return parts[-1].strip() if len(parts) > 1 else text.strip()


def _messages(value: Any) -> list[tuple[str, str]]:
    """(role, text) of a messages value: the ≥1.37 ``[{role, parts}]`` JSON, the older
    ``[{role, content}]`` JSON, or a plain string (a user message)."""
    value = _loads(value)
    if isinstance(value, str):
        return [("user", value)] if value else []
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        value = [value]
    if isinstance(value, list):
        for m in value:
            if isinstance(m, dict):
                body = m.get("parts", m.get("content", m.get("message")))
                if isinstance(body, dict) and "content" in body:  # gen_ai.choice {message}
                    out.append((str(body.get("role", m.get("role", "assistant"))), _text(body)))
                    continue
                out.append((str(m.get("role", "user")), _text(body)))
    return out


def _indexed(attrs: dict[str, Any], prefix: str, inner: str = "") -> list[dict[str, Any]]:
    """Flattened lists back into dicts: ``prefix.{i}.{inner}{key}`` → ``[{key: value}]``
    in index order (OpenInference's and OpenLLMetry's indexed-attribute layout)."""
    found: dict[int, dict[str, Any]] = {}
    head = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        index, _, rest = key[len(head) :].partition(".")
        if index.isdigit() and rest.startswith(inner):
            found.setdefault(int(index), {})[rest[len(inner) :]] = value
    return [found[i] for i in sorted(found)]


def _flat_messages(attrs: dict[str, Any], prefix: str, inner: str = "") -> list[tuple[str, str]]:
    """(role, text) of ``prefix.{i}.{inner}role`` / ``...content`` attributes."""
    return [(str(m.get("role", "user")), _text(m.get("content")))
            for m in _indexed(attrs, prefix, inner) if "content" in m]  # fmt: skip


_META_KEYS = ("doc_id", "document_id", "ref_doc_id", "id", "source", "file_name")
# A metadata JSON's id keys with plain string values, read without decoding the whole object.
_META_PAIR = re.compile(r'"(doc_id|document_id|ref_doc_id|id|source|file_name)"\s*:\s*"([^"\\]+)"')


def _meta_id(meta: Any) -> str | None:
    """The source document id in a metadata object (or its JSON), by key priority."""
    if isinstance(meta, str):
        pairs: dict[str, str] = dict(reversed(_META_PAIR.findall(meta)))  # first one wins
        if pairs:
            return next(pairs[k] for k in _META_KEYS if k in pairs)
        if not any(f'"{k}"' in meta for k in _META_KEYS):
            return None  # metadata without an id key: not worth decoding
    meta = _loads(meta)
    if isinstance(meta, dict):
        for key in _META_KEYS:
            if meta.get(key):
                return str(meta[key])
    return None


def _source_id(relationships: Any) -> str | None:
    """LlamaIndex's source document of a node: ``relationships["1"]`` (SOURCE)."""
    relationships = _loads(relationships)
    if isinstance(relationships, dict):
        source = relationships.get("1") or relationships.get("SOURCE")
        if isinstance(source, dict) and source.get("node_id"):
            return str(source["node_id"])
    return None


def _score(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _doc(d: dict[str, Any]) -> _Doc:
    """A document dict of any convention (``id``/``content``/``text``/``metadata``...). The
    id is the source document's when the producer says which it is (metadata, LlamaIndex
    relationships), else the document's or chunk's own id; a LlamaIndex ``NodeWithScore``
    (``{"node": {...}, "score": s}``) is read through to its node."""
    if isinstance(d.get("node"), dict):
        inner = _doc(d["node"])
        return _Doc(inner.id, inner.text, _score(d.get("score")))
    doc_id = (
        _meta_id(d.get("metadata"))
        or _source_id(d.get("relationships"))
        or d.get("doc_id")
        or d.get("document_id")
        or d.get("id")
        or d.get("id_")
    )
    text = next(
        (
            d[k]
            for k in ("content", "text", "page_content", "document")
            if isinstance(d.get(k), str)
        ),
        None,
    )
    return _Doc(str(doc_id) if doc_id else None, text, _score(d.get("score")))


def _unique(docs: list[_Doc]) -> list[_Doc]:
    """Drop repeats (LlamaIndex nests duplicate retriever spans)."""
    seen: set[tuple[str | None, str | None]] = set()
    out = []
    for d in docs:
        key = (d.id, d.text)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _root(spans: list[Span]) -> Span:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id or s.parent_span_id not in ids]
    return min(roots or spans, key=lambda s: s.start)


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


# --- OTel GenAI and OpenLLMetry ---------------------------------------------------------

_INFERENCE_OPS = frozenset({"chat", "text_completion", "generate_content", "completion"})


def _is_inference(s: Span) -> bool:
    a = s.attributes
    op = a.get("gen_ai.operation.name")
    if op is not None:
        return isinstance(op, str) and op in _INFERENCE_OPS
    return any(
        k in a
        for k in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt",
                  "gen_ai.completion", "gen_ai.prompt.0.content", "gen_ai.completion.0.content",
                  "llm.request.type")
    ) or any(e.name in _LEGACY_EVENTS for e in s.events)  # fmt: skip


def has_model_call(spans: list[Span]) -> bool:
    """Some span of these is a model call (OpenInference LLM, or a GenAI inference span)."""
    return any(s.kind == "LLM" or _is_inference(s) for s in spans)


_LEGACY_EVENTS = frozenset({
    "gen_ai.content.prompt", "gen_ai.content.completion", "gen_ai.system.message",
    "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice",
})  # fmt: skip
_RESULT_EVENTS = {"db.query.result": "db.query.result.", "db.search.result": "db.search.result."}


def _prompt_and_answer(s: Span) -> tuple[list[tuple[str, str]], str, str]:
    """(input messages, system instructions, answer) of an inference span, any generation."""
    a = s.attributes
    system = _text(a.get("gen_ai.system_instructions"))
    inputs = _messages(a.get("gen_ai.input.messages")) or _messages(a.get("gen_ai.prompt"))
    inputs = inputs or _flat_messages(a, "gen_ai.prompt")
    outputs = _messages(a.get("gen_ai.output.messages")) or _messages(a.get("gen_ai.completion"))
    outputs = outputs or _flat_messages(a, "gen_ai.completion")
    for e in s.events:  # ≤ 1.36 content events
        ea = e.attributes
        if e.name == "gen_ai.content.prompt":
            inputs = inputs or _messages(ea.get("gen_ai.prompt"))
        elif e.name == "gen_ai.content.completion":
            outputs = outputs or _messages(ea.get("gen_ai.completion"))
        elif e.name in ("gen_ai.system.message", "gen_ai.user.message", "gen_ai.tool.message"):
            inputs.append((e.name.split(".")[1], _text(ea.get("content"))))
        elif e.name == "gen_ai.choice":
            outputs = outputs or _messages(ea.get("message") or ea.get("content"))
    answer = next((t for role, t in outputs if role != "tool" and t), "")
    return inputs, system, answer


def _result_events(s: Span) -> list[_Doc]:
    docs = []
    for e in s.events:
        head = _RESULT_EVENTS.get(e.name)
        if head is None:
            continue
        a = e.attributes
        meta_id = _meta_id(a.get(head + "metadata"))
        doc_id = a.get(head + "id") or meta_id
        text = a.get(head + "document") or a.get(head + "entity")
        docs.append(_Doc(str(doc_id) if doc_id else None, _text(text) or None,
                         _score(a.get(head + "score"))))  # fmt: skip
    return docs


def _entity_docs(value: Any) -> list[_Doc]:
    """Documents in an OpenLLMetry task's entity output: LangChain's ``{"documents": [...]}``
    or LlamaIndex's list of ``NodeWithScore`` JSON strings."""
    value = _loads(value)
    if isinstance(value, dict):
        value = value.get("documents", value.get("nodes"))
    if not isinstance(value, list):
        return []
    docs = []
    for item in value:
        item = _loads(item)
        if isinstance(item, dict) and ("node" in item or "page_content" in item or "text" in item):
            docs.append(_doc(item))
    return docs


_RETRIEVAL_OPS = frozenset({"retrieval", "retrieve", "vector_db_retrieve"})


def _retriever_name(a: dict[str, Any]) -> bool:
    """An OpenLLMetry task named after a retriever class ("BM25Retriever.task"), not the
    query engine around it ("RetrieverQueryEngine.task")."""
    name = str(a.get("traceloop.entity.name", "")).lower()
    return "retriev" in name and "engine" not in name


def _is_retrieval(s: Span) -> bool:
    a = s.attributes
    op = a.get("gen_ai.operation.name")
    return (
        (isinstance(op, str) and op in _RETRIEVAL_OPS)
        or "gen_ai.retrieval.documents" in a
        or "db.vector.query.top_k" in a
        or any(e.name in _RESULT_EVENTS for e in s.events)
        or (a.get("traceloop.span.kind") == "task" and _retriever_name(a))
    )  # fmt: skip


def _genai_like(spans: list[Span], root: Span, convention: str) -> _Shape | None:
    retrievals = [s for s in spans if _is_retrieval(s)]
    inferences = [s for s in spans if _is_inference(s)]
    if not retrievals:
        return None
    shape = _Shape(convention)
    docs: list[_Doc] = []
    returned_nothing = False
    for r in retrievals:
        listed = _loads(r.attributes.get("gen_ai.retrieval.documents"))
        if isinstance(listed, list):
            docs.extend(_doc(d) for d in listed if isinstance(d, dict))
            returned_nothing = returned_nothing or not listed
        docs.extend(_result_events(r))
        if "traceloop.entity.output" in r.attributes:
            entity = _entity_docs(r.attributes["traceloop.entity.output"])
            docs.extend(entity)
            returned_nothing = returned_nothing or not entity
        if not shape.question:
            a = r.attributes
            shape.question = _first_string(
                a.get("gen_ai.retrieval.query.text") or a.get("db.query.text") or ""
            )
    shape.retrieved = _unique(docs)
    if shape.retrieved and all(d.text for d in shape.retrieved):
        shape.packed = _packed(spans, retrievals, shape.retrieved)
    elif returned_nothing and not shape.retrieved:
        shape.packed = []  # the retriever ran and returned nothing
    ra = root.attributes
    shape.question = (
        _first_string(ra.get("traceloop.entity.input"))
        or _first_string(ra.get("input.value"))
        or shape.question
    )
    shape.answer = _answer_value(ra.get("traceloop.entity.output"))
    if inferences:
        answering = max(inferences, key=lambda s: s.end)
        inputs, system, answer = _prompt_and_answer(answering)
        shape.answer = shape.answer or answer
        shape.prompt = [t for t in (system, *(t for role, t in inputs if role != "assistant")) if t]
        users = [t for role, t in inputs if role == "user" and t]
        if not shape.question and users:
            shape.question = _question_from_prompt(users[-1])
        a = answering.attributes
        model = a.get("gen_ai.response.model") or a.get("gen_ai.request.model")
        shape.model = str(model) if model else None
    return shape


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


# --- packing and the RagTrace -----------------------------------------------------------

# Where a span holds the text it was given: its input, and the messages of a model call.
_INPUT_KEYS = ("input.value", "traceloop.entity.input", "gen_ai.input.messages",
               "gen_ai.system_instructions", "gen_ai.prompt")  # fmt: skip
_INPUT_PREFIXES = ("llm.input_messages.", "llm.prompts.", "gen_ai.prompt.")


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    """Every string inside a (JSON-encoded, possibly nested) value."""
    value = _loads(value)
    if isinstance(value, str):
        out.append(value)
    elif depth < 8 and isinstance(value, dict):
        for v in value.values():
            _strings(v, out, depth + 1)
    elif depth < 8 and isinstance(value, list):
        for v in value:
            _strings(v, out, depth + 1)


def _raw_input(s: Span) -> list[str]:
    return [
        v
        for k, v in s.attributes.items()
        if (k in _INPUT_KEYS or k.startswith(_INPUT_PREFIXES)) and isinstance(v, str)
    ]


def _decoded(raw: list[str]) -> str:
    """The strings inside a span's (JSON-encoded) input values."""
    found: list[str] = []
    for value in raw:
        _strings(value, found)
    return "\n".join(found)


def _find(text: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """``text.find(needle)`` by a short prefix and a ``startswith`` check: ``str.find`` with
    a 1 KB needle pays a setup proportional to the needle, every time."""
    head = needle[:32]
    stop = len(text) if end is None else end
    i = text.find(head, start, stop)
    while i >= 0:
        if text.startswith(needle, i):
            return i
        i = text.find(head, i + 1, stop)
    return -1


def _positions(text: str, docs: list[_Doc]) -> list[tuple[int, int]]:
    """(position in ``text``, index) of every document whose text ``text`` contains. Each
    search starts where the previous document ended (prompts keep retrieval order more often
    than not, and the text is then scanned about once), and falls back to the whole text."""
    out = []
    pos = 0
    for n, d in enumerate(docs):
        if not d.text:
            continue
        i = _find(text, d.text, pos)
        if i < 0 and pos:
            i = _find(text, d.text, 0, pos + len(d.text))
        if i >= 0:
            out.append((i, n))
            pos = max(pos, i + len(d.text))
    return sorted(out)


_JSON_SAFE = re.compile(r"[A-Za-z0-9 ,.;:!?()$%&+=/-]{12,}")


def _probe(text: str) -> str:
    """A piece of ``text`` spelled the same raw and JSON-encoded (no quotes, escapes or
    non-ASCII), to test a span's raw attributes before decoding them."""
    m = _JSON_SAFE.search(text[:200])
    return m.group(0)[:24] if m else text[:12]


def _packed(spans: list[Span], retrievals: list[Span], retrieved: list[_Doc],
            default: list[_Doc] | None = None) -> list[_Doc] | None:  # fmt: skip
    """The retrieved documents that reached the answering step, in prompt order: those whose
    text is in the input of the last span, after retrieval, that was given any of them (the
    model call, after every filter, postprocessor and reranker). ``default`` when no later
    span holds a retrieved text (the instrumentation did not capture the prompt)."""
    after = max(r.end for r in retrievals)
    probes = [_probe(d.text) for d in retrieved if d.text]
    # latest first (``spans`` are in start order): only the span found is decoded, and not
    # even that one when every retrieved text it holds is spelled the same raw (no escapes)
    for s in reversed(spans):
        if s.start < after:
            break
        if s in retrievals:
            continue
        raw = _raw_input(s)
        if not any(p in v for v in raw for p in probes):
            continue
        joined = "\n".join(raw)
        found = _positions(joined, retrieved)
        if len(found) < sum(1 for p in probes if p in joined):
            found = _positions(_decoded(raw), retrieved)  # some text is escaped in the JSON
        if found:
            return [retrieved[n] for _, n in found]
    return default if default is not None else retrieved


_MARKER = re.compile(r"(?m)^[ \t]*\[(\d{1,3})\][ \t]*")
_TAIL = re.compile(r"\n\s*\n\s*(?:question|query|user question|answer)\s*:", re.IGNORECASE)


def _from_prompt(prompt: list[str], retrieved: list[_Doc], question: str) -> list[_Doc]:
    """Passages inside the prompt (without a message that is just the question): split at
    line-leading ``[n]`` markers (the id is the n-th retrieved document's when there is
    one), else the whole prompt as one passage."""
    texts = [p for p in prompt if p.strip() != question.strip()]
    if len(texts) > 1 and any(_MARKER.search(t) for t in texts):
        # numbered passages sit in one message; the others (the question) are not context
        return [
            d for t in texts if _MARKER.search(t) for d in _from_prompt([t], retrieved, question)
        ]
    text = "\n\n".join(texts)
    marks = list(_MARKER.finditer(text))
    if not marks:
        return [_Doc("prompt", text)] if text.strip() else []
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end() : end]
        if i + 1 == len(marks):
            tail = _TAIL.search(body)
            body = body[: tail.start()] if tail else body
        n = int(m.group(1))
        # The n-th passage is the n-th retrieved document only when the packer kept them
        # all; after a cutoff or a reranker the prompt does not say which it is.
        doc_id = retrieved[n - 1].id if len(marks) == len(retrieved) else None
        out.append(_Doc(doc_id or f"[{n}]", body.strip()))
    return out


GOLDEN_ID = "ragmon.golden_id"


def _golden_id(root: Span, spans: list[Span]) -> str | None:
    """The golden probe id (``ragmon probe`` sends it as W3C baggage; the application, or
    OpenTelemetry's BaggageSpanProcessor, copies it to a span attribute): the root's, else
    the first span's that has one."""
    for span in (root, *spans):
        value = span.attributes.get(GOLDEN_ID)
        if isinstance(value, str) and value:
            return value
    return None


def map_spans(spans: list[Span], extra: dict[str, Any] | None = None) -> Mapped:
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
    attributes.update(extra or {})
    record = {
        "trace_id": root.trace_id,
        "app": root.service,
        "query": shape.question,
        "retrieved": [
            {"doc_id": d.id or f"doc-{i}", "score": d.score, "rank": i}
            for i, d in enumerate(shape.retrieved, 1)
        ],
        "context": [
            {"doc_id": d.id or f"doc-{i}", "text": d.text or ""} for i, d in enumerate(packed, 1)
        ],
        "answer": shape.answer,
        "model": shape.model,
        "attributes": attributes,
        "golden_id": _golden_id(root, spans),
    }
    # The decoders have checked the ids; a record that still fails validation is a mapping
    # bug, which the assembler turns into a dead letter (mapping_failed).
    return Mapped(RagTrace.model_validate(record), shape.convention, redacted)
