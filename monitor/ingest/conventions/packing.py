"""The packed context when a trace lists documents without their text: the passages as
they appear in the answering model's prompt; and the golden id a probe trace carries.
"""

from __future__ import annotations

import bisect
import re

from monitor.ingest.conventions.core import _Doc, _fill_ids, _loads
from monitor.ingest.otlp import Span

# --- packing and the RagTrace -----------------------------------------------------------

# Where a span holds the text it was given: its input, and the messages of a model call.
_INPUT_KEYS = ("input.value", "traceloop.entity.input", "gen_ai.input.messages",
               "gen_ai.system_instructions", "gen_ai.prompt")  # fmt: skip
_INPUT_PREFIXES = ("llm.input_messages.", "llm.prompts.", "gen_ai.prompt.")


def _strings(value: object, out: list[str], depth: int = 0) -> None:
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


def _decoded_each(raw: list[str]) -> list[str]:
    """The strings inside each of a span's (JSON-encoded) input values, one per value (each
    message's copy of the passages kept apart)."""
    out = []
    for value in raw:
        found: list[str] = []
        _strings(value, found)
        out.append("\n".join(found))
    return out


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


def _positions_in(copies: list[str], docs: list[_Doc]) -> list[tuple[int, int]]:
    """``_positions`` over the texts a model was given, joined; when one text alone holds
    every document found (the passages packed twice, as system text and again as a message,
    with a reranker between), the order is that copy's, never one read across two copies."""
    found = _positions("\n".join(copies), docs)
    if len(copies) > 1 and len(found) > 1:
        starts, at = [], 0  # where each copy begins in the joined text
        for copy in copies:
            starts.append(at)
            at += len(copy) + 1
        if len({bisect.bisect_right(starts, i) for i, _ in found}) == 1:
            return found  # all in one copy already
        for copy in copies:
            alone = _positions(copy, docs)
            if len(alone) == len(found):
                return alone
    return found


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
        found = _positions_in(raw, retrieved)
        if len(found) < sum(1 for p in probes if p in joined):
            found = _positions_in(_decoded_each(raw), retrieved)  # some text is escaped
        if found:
            return [retrieved[n] for _, n in found]
    return default if default is not None else retrieved


_MARKER = re.compile(r"(?m)^[ \t]*\[(\d{1,3})\][ \t]*")
_TAIL = re.compile(r"\n\s*\n\s*(?:question|query|user question|answer)\s*:", re.IGNORECASE)


def _from_prompt(prompt: list[str], retrieved: list[_Doc], question: str) -> list[_Doc]:
    """Passages inside the prompt (without a message that is just the question): split at
    line-leading ``[n]`` markers, else the whole prompt as one passage. A passage's id is
    known only when a retrieved document has its text; the n-th passage is not taken for
    the n-th retrieved document (after a cutoff, a reranker or a fusion it is not)."""
    texts = [p for p in prompt if p.strip() != question.strip()]
    if len(texts) > 1 and any(_MARKER.search(t) for t in texts):
        # numbered passages sit in one message; the others (the question) are not context
        return [
            d for t in texts if _MARKER.search(t) for d in _from_prompt([t], retrieved, question)
        ]
    text = "\n\n".join(texts)
    marks = list(_MARKER.finditer(text))
    if not marks:
        return _fill_ids([_Doc(None, text)], retrieved) if text.strip() else []
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end() : end]
        if i + 1 == len(marks):
            tail = _TAIL.search(body)
            body = body[: tail.start()] if tail else body
        out.append(_Doc(None, body.strip()))
    return _fill_ids(out, retrieved)


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
