"""The packed context when a trace lists documents without their text: the passages as
they appear in the answering model's prompt; and the golden id a probe trace carries.
"""

from __future__ import annotations

import re
from typing import Any

from monitor.ingest.conventions.core import _Doc, _loads
from monitor.ingest.otlp import Span

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
