"""What the conventions share: outcome names, the mapped result, and the helpers that read
attribute values (JSON or text, messages, documents and their ids).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from monitor.core.model import RagTrace
from monitor.ingest.otlp import Span

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
    """What a convention made of a trace's spans: the trace, or why there is none."""

    trace: RagTrace | None
    convention: str  # one of OUTCOMES
    redacted: bool = False
    # passages and retrieved documents whose id the spans do not tell (never guessed)
    unresolved_ids: int = 0


@dataclass
class _Doc:
    id: str | None  # the source document's id; None: the spans do not say
    text: str | None = None
    score: float | None = None
    chunk: str | None = None  # the chunk's (node's) own id, where it differs from ``id``


class ToolCall(NamedTuple):
    """One tool call: its tool's name, its arguments as JSON in one spelling (None: not
    recorded), whether it failed, and the seconds it took (None: not recorded)."""

    name: str
    arguments: str | None
    failed: bool
    seconds: float | None = None


class Said(NamedTuple):
    """What an agent did to answer as its messages tell it, where no span does (Haystack's
    Agent records neither model calls nor tool calls as spans): this turn's model calls, the
    steps among them that asked for tools, and the tool calls in order."""

    model_calls: int
    steps: int
    calls: list[ToolCall]


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
    retrieval_calls: int = 0  # retrieval spans, or tool results read as passages
    through_tools: bool = False  # the passages are tool results (an agent's search tool)
    said: Said | None = None  # the agent's work from its messages, where no span tells it
    # tool spans whose result the answering request marks as an error (AutoGen's is_error)
    failed_tools: frozenset[str] = frozenset()


# --- shared helpers ---------------------------------------------------------------------


def _loads(value: object) -> object:
    """A JSON string decoded (span attributes carry structured values as JSON strings)."""
    if isinstance(value, str) and value[:1] in ("[", "{", '"'):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _text(value: object) -> str:
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


def _question_key(value: Mapping[str, object], depth: int = 0) -> str:
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


def _first_string(value: object) -> str:
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


def _answer_value(value: object) -> str:
    """The answer in an output value; a streamed response's placeholder
    (``<generator object>``) is no answer."""
    value = _loads(value)
    if isinstance(value, dict):
        for key in ("answer", "output", "outputs", "result", "response", "content", "text", "raw"):
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


def _messages(value: object) -> list[tuple[str, str]]:
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


def _indexed(attrs: Mapping[str, object], prefix: str, inner: str = "") -> list[dict[str, object]]:
    """Flattened lists back into dicts: ``prefix.{i}.{inner}{key}`` → ``[{key: value}]``
    in index order (OpenInference's and OpenLLMetry's indexed-attribute layout)."""
    found: dict[int, dict[str, object]] = {}
    head = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        index, _, rest = key[len(head) :].partition(".")
        if index.isdecimal() and rest.startswith(inner):  # ("¹" is a digit, no int)
            found.setdefault(int(index), {})[rest[len(inner) :]] = value
    return [found[i] for i in sorted(found)]


def _flat_messages(
    attrs: Mapping[str, object], prefix: str, inner: str = ""
) -> list[tuple[str, str]]:
    """(role, text) of ``prefix.{i}.{inner}role`` / ``...content`` attributes."""
    return [(str(m.get("role", "user")), _text(m.get("content")))
            for m in _indexed(attrs, prefix, inner) if "content" in m]  # fmt: skip


# Bedrock Knowledge Bases name the source document by its URI (the chunk is document.id).
_META_KEYS = ("doc_id", "document_id", "ref_doc_id", "id", "source", "file_name",
              "x-amz-bedrock-kb-source-uri")  # fmt: skip
# A metadata JSON's id keys with plain string values, read without decoding the whole object.
_META_PAIR = re.compile(
    r'"(doc_id|document_id|ref_doc_id|id|source|file_name|x-amz-bedrock-kb-source-uri)"'
    r'\s*:\s*"([^"\\]+)"'
)


def _meta_id(meta: object) -> str | None:
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


def _source_id(relationships: object) -> str | None:
    """LlamaIndex's source document of a node: ``relationships["1"]`` (SOURCE)."""
    relationships = _loads(relationships)
    if isinstance(relationships, dict):
        source = relationships.get("1") or relationships.get("SOURCE")
        if isinstance(source, dict) and source.get("node_id"):
            return str(source["node_id"])
    return None


def _score(value: object) -> float | None:
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


def _doc(d: Mapping[str, object]) -> _Doc:
    """A document dict of any convention (``id``/``content``/``text``/``metadata``...). The
    id is the source document's when the producer says which it is (metadata, LlamaIndex
    relationships), else the document's or chunk's own id; the chunk id is the chunk's own id
    (or a ``chunk_id``) where it differs from the document's. A LlamaIndex ``NodeWithScore``
    (``{"node": {...}, "score": s}``) is read through to its node."""
    node = d.get("node")
    if isinstance(node, dict):
        inner = _doc(node)
        return _Doc(inner.id, inner.text, _score(d.get("score")), inner.chunk)
    own = d.get("id") or d.get("id_")
    source = (
        _meta_id(d.get("metadata"))
        or _source_id(d.get("relationships"))
        or d.get("doc_id")
        or d.get("document_id")
    )
    doc_id = source or own
    chunk = d.get("chunk_id") or _meta_key(d.get("metadata"), "chunk_id")
    if not chunk and source and own and str(own) != str(source):
        chunk = own
    text = next(
        (
            v
            for k in ("content", "text", "page_content", "document", "long_text")
            if isinstance(v := d.get(k), str)
        ),
        None,
    )
    return _Doc(str(doc_id) if doc_id else None, text, _score(d.get("score")),
                str(chunk) if chunk else None)  # fmt: skip


def _meta_key(meta: object, key: str) -> str | None:
    """One plain value of a metadata object (or its JSON)."""
    if isinstance(meta, str) and f'"{key}"' not in meta:
        return None
    meta = _loads(meta)
    value = meta.get(key) if isinstance(meta, dict) else None
    return str(value) if isinstance(value, str | int) and value != "" else None


def _norm(text: str) -> str:
    return " ".join(text.split())


def _fill_ids(docs: list[_Doc], known: list[_Doc]) -> list[_Doc]:
    """Documents without an id get the id (and chunk id) of the known document with the same
    text, exact or with whitespace normalised; where no text, or more than one id, matches,
    the id stays unknown. Never by position."""
    by_text: dict[str, set[tuple[str, str | None]]] = {}
    for k in known:
        if k.id and k.text:
            for key in {k.text, _norm(k.text)}:
                by_text.setdefault(key, set()).add((k.id, k.chunk))
    out = []
    for d in docs:
        if d.id is None and d.text:
            found = by_text.get(d.text) or by_text.get(_norm(d.text)) or set()
            ids = {doc_id for doc_id, _ in found}
            if len(ids) == 1:
                chunks = {chunk for _, chunk in found}
                chunk = next(iter(chunks)) if len(chunks) == 1 else None
                d = _Doc(ids.pop(), d.text, d.score, d.chunk or chunk)
        out.append(d)
    return out


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


_REPR = re.compile(r"^\s*(?:[A-Z]\w*\(|<[\w.]+ object at )")


def _is_repr(text: str) -> bool:
    """A Python object's repr (``StartEvent()``, ``Response(response='...``, ``<x object at
    0x...>``), which an instrumentation records when a workflow's input or output is an
    object: not a question, not an answer."""
    return bool(_REPR.match(text))


def _outermost(spans: list[Span]) -> list[Span]:
    """The spans of ``spans`` whose parent is not one of them: one call however many spans
    of its kind wrap it (a retriever around its inner retrieval, LlamaIndex's predict around
    complete)."""
    within = {s.span_id for s in spans}
    return [s for s in spans if s.parent_span_id not in within]


def _root(spans: list[Span]) -> Span:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id or s.parent_span_id not in ids]
    return min(roots or spans, key=lambda s: s.start)
