"""Generate the second blind agent corpus: the agent frameworks the field runs, under their
real instrumentation (OpenInference, or the framework's own OpenTelemetry GenAI spans),
talking to a local server that speaks the Chat Completions API as OpenAI's reference
describes it.

Written by a hand that has not read ragmon's readers (``monitor/``) and did not run ragmon on
these files: the ground truth follows the written policy (docs/opentelemetry.md, "Tool
outputs as passages" and "An agent's question, context and retrieved documents") and is
taken from what the model server RECEIVED (the answering request's messages, the history's
included, in its order) and what the search tool RETURNED, never from the spans.

Per stack, next to this file under ``open/`` (two cases of three) and ``sealed/`` (every
third case, in the order the cases run): ``<stack>.otlp`` (length-prefixed protobuf export
requests), ``<stack>.otlp.jsonl`` (OTLP/JSON, hex ids, one request per line) and
``<stack>.truth.jsonl`` (one ground-truth object per trace).

Run, each stack in its own environment (see README.md):
``python tests/otel_corpus/blind2/generate.py --stack langgraph-react-openinference``
(``BLIND2_DEBUG=<file>`` also writes each case's answering request, as the server received
it, to check the truth by hand).
"""

# ruff: noqa: E501 (the apps' tables: one document, one case per line)

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Where this machine keeps the repository, Python and the user's home: an exception's stack
# trace on a span names files below them, and a corpus file must not carry where it was made.
PLACES = (
    (f"{sys.prefix}/", "<venv>/"),
    (f"{HERE.parents[2]}/", ""),
    (f"{sys.base_prefix}/", "<python>/"),
    (f"{Path.home()}/", "~/"),
)


def _relative(text: str) -> str:
    for place, instead in PLACES:
        text = text.replace(place, instead)
    return text


def scrubbed(message: Any) -> Any:
    """``message`` (an OTLP protobuf message) with every string that names a file below the
    repository, the virtualenv, the Python installation or the home folder written relative
    to it, in place; returned."""
    for field, value in message.ListFields():
        many = (
            field.is_repeated
            if hasattr(field, "is_repeated")
            else field.label == field.LABEL_REPEATED
        )
        if field.type == field.TYPE_STRING:
            if many:
                value[:] = [_relative(v) for v in value]
            else:
                setattr(message, field.name, _relative(value))
        elif field.type == field.TYPE_MESSAGE:
            for item in value if many else [value]:
                scrubbed(item)
    return message


# --- the apps: a knowledge base each, and thirteen cases --------------------------------------

KB: dict[str, dict[str, str]] = {
    "transit": {
        "fares-adult": "A single adult fare is 2.40 EUR and is valid for 90 minutes including transfers.",
        "fares-reduced": "Children under 6 ride free; students and seniors pay the reduced fare of 1.20 EUR.",
        "bikes": "Bicycles are allowed on trams outside the weekday rush hours of 7-9 and 16-18.",
        "night-bus": "Night buses N1-N9 run every 30 minutes between 00:30 and 05:00.",
        "lost-property": "Lost items are kept at the Central Station office for 30 days.",
        "dogs": "Small dogs in a carrier travel free; larger dogs need a reduced ticket and a muzzle.",
        "airport-line": "Line A7 connects Central Station to the airport in 24 minutes, every 10 minutes.",
        "wheelchair": "All trams are low-floor; ramps on buses are deployed by the driver on request.",
        "app-tickets": "Tickets bought in the app must be activated before boarding.",
        "pass-monthly": "A monthly pass costs 49 EUR and is personal, not transferable.",
    },
    "library": {
        "loan-periods": "Books can be borrowed for 3 weeks; DVDs for 1 week.",
        "renewals": "Items can be renewed twice online unless another member has reserved them.",
        "late-fees": "Late fees are 0.20 per day per item, capped at 5.00 per item.",
        "card-signup": "A library card is free for residents; bring photo ID and proof of address.",
        "ebooks": "E-books are borrowed through the Libby app with your card number and PIN.",
        "printing": "Printing costs 0.10 per black-and-white page and 0.50 per colour page.",
        "study-rooms": "Study rooms can be booked up to 7 days ahead for 2 hours at a time.",
        "opening-hours": "The main branch opens 9-20 Monday to Friday and 10-16 on Saturday; it is closed on Sunday.",
        "lost-items": "A lost book is charged at its replacement cost plus a 3.00 processing fee.",
        "interlibrary": "Interlibrary loans take about 10 days and cost 2.00 per request.",
        "kids-card": "Children under 14 need a parent's signature to get a card.",
    },
    "appliance": {
        "descaling": "Descale the kettle monthly with a 1:1 mix of white vinegar and water, then boil plain water twice.",
        "warranty-3y": "All kettles and toasters carry a 3-year warranty; keep the receipt.",
        "error-e2": "Error E2 on the coffee machine means the water tank is not seated; reseat it firmly.",
        "error-e5": "Error E5 means the grinder is blocked; remove the beans and clean the burr.",
        "spare-parts": "Spare lids, filters and carafes are sold in the online shop.",
        "voltage": "Appliances are rated 220-240 V; do not use them with a 110 V travel converter.",
        "dishwasher": "Carafes and filters are dishwasher-safe; kettle bases are not.",
        "returns-30": "Unused products can be returned within 30 days for a full refund.",
        "repair-service": "Out-of-warranty repairs cost a flat 39 EUR plus parts.",
    },
}
URLS = {
    "transit": "https://metro.example.org/help/",
    "library": "https://hollins-library.example/faq/",
    "appliance": "https://support.kettleco.example/kb/",
}

# The thirteen kinds of case, in the order they run, and how the search tool writes its result.
KINDS: list[tuple[str, str]] = [
    ("json-list", "ids"),  # [{"id", "content"}]
    ("numbered", "bracket"),  # [1] text (doc_id: X)
    ("free-text", "free"),  # prose: one passage, id unknown
    ("parallel", "results"),  # two searches in one response, {"results": [{"source", "snippet"}]}
    ("repeat", "document"),  # the same search twice: Document 1: text (document_id=X)
    ("nothing-text", "none"),  # No passages found.
    ("empty-list", "empty"),  # []
    ("null", "null"),  # null
    ("tool-error", "error"),  # the tool raises
    # a question in another language (or with typos); {"hits": [{"url", "title", "snippet"}]}
    ("arg-differs", "hits"),
    ("turn-1", "documents"),  # {"documents": [{"id", "text", "score"}]}
    ("turn-2", "chunk"),  # 1. text (chunk_id: X); carries turn 1 as history
    ("turn-3", "source"),  # Source 1 - text (source: X); carries turns 1 and 2
]

# per app and kind: the user's question, the agent's answer, and per model request the searches
# it asks for at once, each (the model's argument, the ids the search finds)
Search = tuple[str, list[str]]
APPS: dict[str, dict[str, tuple[str, str, list[list[Search]]]]] = {
    "transit": {
        "json-list": (
            "how much is a normal ticket and how long is it valid?",
            "An adult single is 2.40 EUR and is valid for 90 minutes with transfers [1].",
            [[("adult single fare validity", ["fares-adult", "fares-reduced"])]],
        ),
        "numbered": (
            "can i take my bike on the tram",
            "Yes, except on weekdays 7-9 and 16-18 [1].",
            [[("bicycles on trams", ["bikes", "wheelchair"])]],
        ),
        "free-text": (
            "Are there buses at night?",
            "Yes: night buses N1-N9 run every 30 minutes from 00:30 to 05:00.",
            [[("night bus", [])]],
        ),
        "parallel": (
            "what does a monthly pass cost and is it cheaper for students",
            "The monthly pass is 49 EUR [1]; students pay the reduced 1.20 EUR single fare [2].",
            [
                [
                    ("monthly pass price", ["pass-monthly"]),
                    ("student reduced fare", ["fares-reduced", "fares-adult"]),
                ]
            ],
        ),
        "repeat": (
            "How long do you keep lost property??",
            "30 days, at the Central Station office [1].",
            [[("lost property", ["lost-property"])], [("lost property", ["lost-property"])]],
        ),
        "nothing-text": (
            "is there a ferry to the island",
            "I couldn't find anything about a ferry.",
            [[("ferry island", [])]],
        ),
        "empty-list": (
            "do u sell yearly passes for tourists",
            "I found no yearly tourist pass in the help pages.",
            [[("tourist yearly pass", [])]],
        ),
        "null": (
            "Can I pay with crypto on board?",
            "I have no information on that, sorry.",
            [[("cryptocurrency payment on board", [])]],
        ),
        "tool-error": (
            "is line 4 delayed right now",
            "I can't reach the live timetable right now, please try again later.",
            [[("line 4 delays", [])]],
        ),
        "arg-differs": (
            "¿Cuánto se tarda en llegar al aeropuerto desde la estación central?",
            "Unos 24 minutos con la línea A7, que pasa cada 10 minutos [1].",
            [[("airport line travel time from Central Station", ["airport-line"])]],
        ),
        "turn-1": (
            "can I bring my dog",
            "Yes, small dogs in a carrier travel free [1].",
            [[("dogs on public transport", ["dogs"])]],
        ),
        "turn-2": (
            "and what if it's a big one - does it need a ticket?",
            "A larger dog needs a reduced ticket (1.20 EUR) and a muzzle [1][2].",
            [[("large dog ticket muzzle", ["dogs", "fares-reduced"])]],
        ),
        "turn-3": (
            "ok thanks. I'd buy it in the app, anything I need to do?",
            "Yes, activate the app ticket before boarding [1].",
            [[("app ticket activation", ["app-tickets"])]],
        ),
    },
    "library": {
        "json-list": (
            "How long can I keep a book?",
            "Three weeks, and you can renew twice online [1][2].",
            [[("loan period books", ["loan-periods", "renewals"])]],
        ),
        "numbered": (
            "what happens if i return something late",
            "You pay 0.20 per day per item, at most 5.00 per item [1].",
            [[("late fees", ["late-fees", "lost-items"])]],
        ),
        "free-text": (
            "Kann ich am Sonntag vorbeikommen?",
            "Nein, sonntags ist die Hauptstelle geschlossen.",
            [[("opening hours Sunday", [])]],
        ),
        "parallel": (
            "how much is printing and can I book a room to study in?",
            "Printing is 0.10 a page (0.50 colour) [1]; rooms can be booked 7 days ahead [2].",
            [[("printing prices", ["printing"]), ("study room booking", ["study-rooms"])]],
        ),
        "repeat": (
            "how do I get e-books",
            "Through the Libby app with your card number and PIN [1].",
            [[("ebooks", ["ebooks"])], [("ebooks", ["ebooks"])]],
        ),
        "nothing-text": (
            "do you rent out 3d printers",
            "I couldn't find a 3D printer rental.",
            [[("3d printer rental", [])]],
        ),
        "empty-list": (
            "Is there a cafe in the library?",
            "The help pages don't mention a cafe.",
            [[("cafe", [])]],
        ),
        "null": ("can i borrow a telescope?", "I don't know, sorry.", [[("telescope loan", [])]]),
        "tool-error": (
            "is 'The Overstory' available right now",
            "The catalogue is not responding, so I can't check availability.",
            [[("The Overstory availability", [])]],
        ),
        "arg-differs": (
            "my kid (shes 11) wants her own card, wat do we need",
            "She needs your signature as a parent [1], and you bring photo ID and proof of address [2].",
            [[("children library card requirements", ["kids-card", "card-signup"])]],
        ),
        "turn-1": (
            "How do I sign up for a library card?",
            "Bring photo ID and proof of address; it's free for residents [1].",
            [[("library card sign up", ["card-signup"])]],
        ),
        "turn-2": (
            "Can I get books from other libraries too?",
            "Yes, by interlibrary loan, 2.00 per request [1].",
            [[("interlibrary loan", ["interlibrary"])]],
        ),
        "turn-3": (
            "how long does that take, roughly?",
            "About 10 days [1].",
            [[("interlibrary loan duration", ["interlibrary", "loan-periods"])]],
        ),
    },
    "appliance": {
        "json-list": (
            "how do I descale my kettle?",
            "Monthly, with 1:1 white vinegar and water, then boil plain water twice [1].",
            [[("kettle descaling", ["descaling", "dishwasher"])]],
        ),
        "numbered": (
            "my coffee machine shows E5",
            "E5 means the grinder is blocked: remove the beans and clean the burr [1].",
            [[("error E5 coffee machine", ["error-e5", "error-e2"])]],
        ),
        "free-text": (
            "can I use the kettle in the US with a converter",
            "No, the kettles are rated 220-240 V; don't use a 110 V converter.",
            [[("voltage converter", [])]],
        ),
        "parallel": (
            "Is the carafe dishwasher safe, and where can I buy a new lid?",
            "The carafe is dishwasher-safe [1]; lids are sold in the online shop [2].",
            [[("carafe dishwasher", ["dishwasher"]), ("spare lid", ["spare-parts"])]],
        ),
        "repeat": (
            "how long is the warranty on toasters",
            "Three years; keep the receipt [1].",
            [[("toaster warranty", ["warranty-3y"])], [("toaster warranty", ["warranty-3y"])]],
        ),
        "nothing-text": (
            "do you make air fryers",
            "I couldn't find any air fryers.",
            [[("air fryer", [])]],
        ),
        "empty-list": (
            "Do you ship to Iceland?",
            "I don't know whether we ship to Iceland.",
            [[("shipping Iceland", [])]],
        ),
        "null": (
            "is there a student discount",
            "I couldn't find a student discount.",
            [[("student discount", [])]],
        ),
        "tool-error": (
            "where is my repair order 88123",
            "I can't look up repair orders right now.",
            [[("repair order 88123", [])]],
        ),
        "arg-differs": (
            "Ma bouilloire fuit par le fond, elle est encore sous garantie ?",
            "Oui, les bouilloires ont une garantie de 3 ans ; gardez le ticket [1].",
            [[("kettle leak warranty", ["warranty-3y", "repair-service"])]],
        ),
        "turn-1": (
            "I want to return a toaster I never used",
            "Unused products can be returned within 30 days for a full refund [1].",
            [[("return unused product", ["returns-30"])]],
        ),
        "turn-2": (
            "what if it's been 6 weeks already",
            "After 30 days it can't be returned [1], but the 3-year warranty still applies [2].",
            [[("return after 30 days", ["returns-30", "warranty-3y"])]],
        ),
        "turn-3": (
            "and repairs once the warranty is over?",
            "A flat 39 EUR plus parts [1].",
            [[("out of warranty repair cost", ["repair-service"])]],
        ),
    },
}
FREE = {
    "transit": "From the night-service page: Night buses N1-N9 run every 30 minutes between 00:30 "
    "and 05:00. Tickets are the same as during the day.",
    "library": "Opening hours (main branch) - The main branch opens 9-20 Monday to Friday and "
    "10-16 on Saturday; it is closed on Sunday. Branch libraries differ.",
    "appliance": "From the safety leaflet: appliances are rated 220-240 V, so don't plug them "
    "into a 110 V travel converter - it can damage the heating element.",
}
ERRORS = {
    "transit": "timetable service timed out after 10s",
    "library": "catalogue API returned 502 Bad Gateway",
    "appliance": "order database: connection refused",
}
INSTRUCTIONS = {
    "transit": "You are the Riverton Metro help desk. Use the search tool; cite [n].",
    "library": "You help members of Hollins Public Library. Search before answering and cite sources as [n].",
    "appliance": "Kettle & Co. support assistant. Answer only from search results.",
}
TOOL = "search_help"


def tool_output(app: str, fmt: str, ids: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """What the search tool returns in ``fmt`` for the documents ``ids`` of ``app``, and its
    passages as the written policy counts them (free text one passage without an id, a result
    that found nothing none)."""
    kb = KB[app]
    found = [{"id": i, "text": kb[i]} for i in ids]
    lines = {
        "bracket": "[{n}] {t} (doc_id: {i})",
        "document": "Document {n}: {t} (document_id={i})",
        "chunk": "{n}. {t} (chunk_id: {i})",
        "source": "Source {n} - {t} (source: {i})",
    }
    if fmt in lines:
        text = "\n".join(
            lines[fmt].format(n=n, t=d["text"], i=d["id"]) for n, d in enumerate(found, 1)
        )
        return text, found
    if fmt == "ids":
        return json.dumps([{"id": d["id"], "content": d["text"]} for d in found]), found
    if fmt == "results":
        rows = [{"source": d["id"], "snippet": d["text"]} for d in found]
        return json.dumps({"results": rows}), found
    if fmt == "hits":
        hits = [
            {"url": URLS[app] + d["id"], "title": d["id"].replace("-", " "), "snippet": d["text"]}
            for d in found
        ]
        return json.dumps({"hits": hits}), [
            {"id": URLS[app] + d["id"], "text": d["text"]} for d in found
        ]
    if fmt == "documents":
        docs = [
            {"id": d["id"], "text": d["text"], "score": round(0.91 - 0.07 * n, 2)}
            for n, d in enumerate(found)
        ]
        return json.dumps({"documents": docs}), found
    if fmt == "none":
        return "No passages found.", []
    if fmt == "empty":
        return "[]", []
    if fmt == "null":
        return "null", []
    if fmt == "free":
        return FREE[app], [{"id": None, "text": FREE[app]}]
    raise ValueError(fmt)


NOTHING = {"No passages found.", "[]", "null"}


class Box:
    """The search tool and the model server's notes: what each search returned, what the
    answering request carried."""

    def __init__(self, app: str) -> None:
        self.app = app
        self.case = ""
        self.outputs: dict[str, list[dict[str, Any]]] = {}  # a raw result -> its passages
        self.calls: dict[str, list[str]] = {}  # case -> the searches' arguments, as run
        self.errors: dict[str, int] = {}
        self.received: dict[str, list[dict[str, Any]]] = {}  # case -> answering request's messages
        self.session: dict[str, str] = {}  # case -> the session id the app gave its run
        self.requests: dict[str, int] = {}  # case -> requests so far
        self.bodies: dict[str, Any] = {}  # case -> the answering request (BLIND2_DEBUG)
        self.mine: dict[str, set[str]] = {}  # case -> its results that carry passages
        self.skip: dict[str, str] = {}  # case -> why the policy does not decide its truth

    def search(self, query: str) -> str:
        fmt = dict(KINDS)[self.case]
        self.calls.setdefault(self.case, []).append(query)
        if fmt == "error":
            self.errors[self.case] = self.errors.get(self.case, 0) + 1
            raise RuntimeError(ERRORS[self.app])
        searches = [s for step in APPS[self.app][self.case][2] for s in step]
        ids = next(i for q, i in searches if q == query)
        raw, passages = tool_output(self.app, fmt, ids)
        self.outputs[raw] = passages
        if passages:
            self.mine.setdefault(self.case, set()).add(raw)
        return raw

    def found_in(self, text: str) -> list[tuple[int, str]]:
        """The known results (that carry passages) quoted in ``text``, by position."""
        hits = []
        for raw, passages in self.outputs.items():
            if not passages:
                continue
            for form in (raw, json.dumps(raw)[1:-1]):
                at = text.find(form)
                if at >= 0:
                    hits.append((at, raw))
                    break
        return sorted(hits)

    def truth(self, case: str, query: str, answer: str, trace_id: str) -> dict[str, Any]:
        context: list[dict[str, Any]] = []
        for message in self.received.get(case, []):
            text = message["text"]
            hits = self.found_in(text)
            if message["role"] == "tool" and not hits and text.strip() not in NOTHING:
                # an error text the framework wrote as the tool message: free text, one passage
                passages = [{"id": None, "text": text}] if text.strip() else []
            else:
                passages = [p for _, raw in hits for p in self.outputs[raw]]
            context += [p for p in passages if p not in context]
        searches = [s for step in APPS[self.app][case][2] for s in step]
        if sorted(q for q, _ in searches) != sorted(self.calls.get(case, [])):
            raise RuntimeError(f"{case}: searches ran {self.calls.get(case)}, not as asked")
        # this turn's documents in the order the answering request carries their results (a
        # parallel call's results in the order the framework wrote them back), each once
        retrieved: list[str] = []
        mine = self.mine.get(case, set())
        for message in self.received.get(case, []):
            for _, raw in self.found_in(message["text"]):
                if raw in mine:
                    retrieved += [
                        p["id"]
                        for p in self.outputs[raw]
                        if p["id"] is not None and p["id"] not in retrieved
                    ]
        if mine - {r for m in self.received.get(case, []) for _, r in self.found_in(m["text"])}:
            raise RuntimeError(f"{case}: a result of this turn is not in the answering request")
        row = {
            "case": case,
            "trace_id": trace_id,
            "query": query,
            "answer": answer,
            "retrieved": retrieved,
            "context": [{"doc_id": p["id"], "text": p["text"]} for p in context],
            "tool_calls": len(searches),
            "tool_errors": self.errors.get(case, 0),
            "steps": len(APPS[self.app][case][2]),
        }
        if case in self.session:
            row["session_id"] = self.session[case]
        return row


def text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def model_server(box: Box, final_tool: str | None = None) -> str:
    """A local Chat Completions server: the n-th request of a case asks for that case's n-th
    searches (parallel tool calls when several), the next one answers (in text, or — for
    smolagents — by calling ``final_tool``); the answering request's messages are noted for
    the truth."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            case = box.case
            _, answer, steps = APPS[box.app][case]
            declared = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
            name = next((d for d in declared if d.endswith(TOOL)), TOOL)
            n = box.requests[case] = box.requests.get(case, -1) + 1
            calls = (
                [
                    {
                        "id": f"call_{case.replace('-', '_')}_{n}_{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps({"query": q})},
                    }
                    for i, (q, _) in enumerate(steps[n])
                ]
                if n < len(steps)
                else []
            )
            if not calls:
                box.received[case] = [
                    {"role": m.get("role"), "text": text_of(m.get("content"))}
                    for m in body["messages"]
                ]
                box.bodies[case] = body
            message: dict[str, Any] = {"role": "assistant", "content": answer}
            if calls:
                message = {"role": "assistant", "content": None, "tool_calls": calls}
            elif final_tool:
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{case.replace('-', '_')}_{n}_final",
                            "type": "function",
                            "function": {
                                "name": final_tool,
                                "arguments": json.dumps({"answer": answer}),
                            },
                        }
                    ],
                }
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            base = {
                "id": f"chatcmpl-{case}-{n}",
                "created": 1765000000,
                "model": body.get("model", "m"),
            }
            usage = {
                "prompt_tokens": 120 + 40 * n,
                "completion_tokens": 14,
                "total_tokens": 134 + 40 * n,
            }
            if not body.get("stream"):
                data = json.dumps(
                    {
                        **base,
                        "object": "chat.completion",
                        "usage": usage,
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            if message.get("tool_calls"):
                deltas = [
                    {"role": "assistant", "tool_calls": [{**c, "index": i}]}
                    for i, c in enumerate(message["tool_calls"])
                ]
            else:
                words = answer.split(" ")
                deltas = [
                    {"role": "assistant", "content": (" " if i else "") + w}
                    for i, w in enumerate(words)
                ]
            for delta in [*deltas, {}]:
                chunk = {
                    **base,
                    "object": "chat.completion.chunk",
                    "choices": [
                        {"index": 0, "delta": delta, "finish_reason": None if delta else finish}
                    ],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            last = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


class Recorder:
    """Finished spans per case (one trace each) and the truth; written split open / sealed."""

    def __init__(self, stack: str, global_provider: bool = False) -> None:
        from opentelemetry import trace
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
        if global_provider:
            trace.set_tracer_provider(self.provider)
        self.cases: list[tuple[list[Any], dict[str, Any] | None]] = []

    def run(self, ask: Callable[[str, str], str], box: Box) -> None:
        for case, _ in KINDS:
            query = APPS[box.app][case][0]
            box.case = case
            answer = ask(case, query)
            self.provider.force_flush()
            spans = list(self.exporter.get_finished_spans())
            self.exporter.clear()
            ids = {s.context.trace_id for s in spans}
            if len(ids) != 1:
                raise RuntimeError(f"{case}: expected one trace, got {len(ids)}")
            trace_id = f"{ids.pop():032x}"
            if case in box.skip:
                print(f"{self.stack} {case}: left out: {box.skip[case]}", file=sys.stderr)
                self.cases.append((spans, None))
                continue
            self.cases.append((spans, box.truth(case, query, answer, trace_id)))
        debug = os.environ.get("BLIND2_DEBUG")
        if debug:
            with open(debug, "w", encoding="utf-8") as out:
                json.dump(box.bodies, out, indent=1, ensure_ascii=False)

    def write(self) -> None:
        from google.protobuf.json_format import MessageToDict
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        for part in ("open", "sealed"):
            chosen = [
                c
                for i, c in enumerate(self.cases)
                if (i % 3 == 2) == (part == "sealed") and c[1] is not None
            ]
            requests = [scrubbed(encode_spans(spans)) for spans, _ in chosen]
            folder = HERE / part
            folder.mkdir(exist_ok=True)
            proto = b"".join(
                len(b).to_bytes(4, "big") + b for b in (r.SerializeToString() for r in requests)
            )
            (folder / f"{self.stack}.otlp").write_bytes(proto)
            with (folder / f"{self.stack}.otlp.jsonl").open("w", encoding="utf-8") as out:
                for request in requests:
                    doc = MessageToDict(request)
                    for rs in doc.get("resourceSpans", []):
                        for ss in rs.get("scopeSpans", []):
                            for s in ss.get("spans", []):
                                for key in ("traceId", "spanId", "parentSpanId"):
                                    if s.get(key):
                                        s[key] = base64.b64decode(s[key]).hex()
                    out.write(json.dumps(doc, sort_keys=True) + "\n")
            with (folder / f"{self.stack}.truth.jsonl").open("w", encoding="utf-8") as out:
                for _, row in sorted(chosen, key=lambda c: c[1]["case"]):
                    out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


RUNNERS: dict[str, Callable[[str], None]] = {}


def runner(name: str) -> Callable[[Callable[[str], None]], Callable[[str], None]]:
    def keep(fn: Callable[[str], None]) -> Callable[[str], None]:
        RUNNERS[name] = fn
        return fn

    return keep


SESSION = "conv-{app}-0412"


# --- LangGraph prebuilt ReAct agent -----------------------------------------------------------


@runner("langgraph-react-openinference")
def langgraph_agent(stack: str) -> None:
    """LangGraph's prebuilt ``create_react_agent`` (``ChatOpenAI`` pointed at the local server,
    a ``search_help`` tool in a ``ToolNode`` that hands a raised error back to the model) under
    openinference-instrumentation-langchain. The conversation's turns share a thread of an
    in-memory checkpointer (its state carries the earlier turns' messages) and an OpenInference
    session; every other case has a thread of its own. The parallel case streams the graph's
    updates."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=rec.provider)
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.prebuilt import ToolNode, create_react_agent

    box = Box("transit")

    @tool
    def search_help(query: str) -> str:
        """Search the Riverton Metro help pages."""
        return box.search(query)

    llm = ChatOpenAI(model="gpt-4.1-mini", base_url=model_server(box), api_key="blind2")
    agent = create_react_agent(
        llm,
        ToolNode([search_help], handle_tool_errors=True),
        prompt=INSTRUCTIONS["transit"],
        checkpointer=InMemorySaver(),
    )
    session = SESSION.format(app="transit")

    def ask(case: str, query: str) -> str:
        inputs = {"messages": [{"role": "user", "content": query}]}
        # the checkpointer needs a thread id on every run; OpenInference records it as the
        # run's session.id, so every row names the thread as its session
        thread = session if case.startswith("turn-") else f"web-{case}"
        box.session[case] = thread
        config = {"configurable": {"thread_id": thread}}
        if case.startswith("turn-"):
            with using_session(session):
                out = agent.invoke(inputs, config)
        elif case == "parallel":
            for _ in agent.stream(inputs, config, stream_mode="updates"):
                pass
            out = agent.get_state(config).values
        else:
            out = agent.invoke(inputs, config)
        return str(out["messages"][-1].content)

    rec.run(ask, box)
    rec.write()


# --- PydanticAI --------------------------------------------------------------------------------


@runner("pydantic-ai-genai")
def pydantic_ai_agent(stack: str) -> None:
    """A PydanticAI ``Agent`` (``OpenAIChatModel`` pointed at the local server, a
    ``search_help`` tool) under its own OpenTelemetry instrumentation
    (``Agent.instrument_all`` with ``InstrumentationSettings``, content included, no Logfire). A failing search raises
    ``ToolFailed`` with the error's message (the documented way to hand a failure to the
    model; a plain exception ends the run). The conversation's turns pass the previous run's
    messages as ``message_history``."""
    rec = Recorder(stack)
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import ToolFailed
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    box = Box("appliance")
    model = OpenAIChatModel(
        "gpt-4o-mini", provider=OpenAIProvider(base_url=model_server(box), api_key="blind2")
    )
    # the ``instrument=`` argument of earlier releases is now ``Agent.instrument_all`` (or an
    # ``Instrumentation`` capability)
    Agent.instrument_all(
        InstrumentationSettings(tracer_provider=rec.provider, include_content=True)
    )
    agent = Agent(model, instructions=INSTRUCTIONS["appliance"])

    @agent.tool_plain
    def search_help(query: str) -> str:
        """Search the Kettle & Co. support knowledge base.

        Args:
            query: keywords to search for
        """
        try:
            return box.search(query)
        except RuntimeError as error:
            raise ToolFailed(str(error)) from error

    history: list[Any] = []

    def ask(case: str, query: str) -> str:
        if case.startswith("turn-"):
            result = agent.run_sync(query, message_history=history or None)
            history[:] = result.all_messages()
        else:
            result = agent.run_sync(query)
        return str(result.output)

    rec.run(ask, box)
    rec.write()


# --- Strands Agents ----------------------------------------------------------------------------


@runner("strands-genai")
def strands_agent(stack: str) -> None:
    """A Strands ``Agent`` (its ``OpenAIModel`` pointed at the local server, which it always
    streams; a ``search_help`` ``@tool``; a raised error goes back to the model as an error
    tool result) under Strands' own OpenTelemetry spans as it emits them by default (no
    ``OTEL_SEMCONV_STABILITY_OPT_IN``), through the global tracer provider. The conversation's
    turns run on one agent (its ``messages`` carry the earlier turns) whose
    ``trace_attributes`` name the session; every other case gets a fresh agent."""
    rec = Recorder(stack, global_provider=True)
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    box = Box("library")

    @tool
    def search_help(query: str) -> str:
        """Search the library's help pages and FAQ.

        Args:
            query: what to look for
        """
        return box.search(query)

    url = model_server(box)
    session = SESSION.format(app="library")

    def agent(**extra: Any) -> Any:
        model = OpenAIModel(
            client_args={"base_url": url, "api_key": "blind2"}, model_id="gpt-4o-mini"
        )
        return Agent(
            model=model,
            tools=[search_help],
            system_prompt=INSTRUCTIONS["library"],
            callback_handler=None,
            **extra,
        )

    conversation: list[Any] = []

    def ask(case: str, query: str) -> str:
        if case.startswith("turn-"):
            if not conversation:
                conversation.append(agent(trace_attributes={"session.id": session}))
            box.session[case] = session
            return str(conversation[0](query)).strip()
        return str(agent()(query)).strip()

    rec.run(ask, box)
    rec.write()


# --- smolagents ------------------------------------------------------------------------------


# smolagents hands a failed call back to the model in no tool message: the next request has no
# assistant message for the failed call, and the error's text is appended to the user's task
# message ("New task:\n<question>\nError:\nError executing tool ...\nNow let's retry: ...").
# The written policy reads an error text "handed back as the tool message"; it does not say
# what a reader takes from a user message that carries both, so the case is left out.
SMOLAGENTS_ERROR = "the error text is appended to the user's message, in no tool message"


@runner("smolagents-openinference")
def smolagents_agent(stack: str) -> None:
    """A smolagents ``ToolCallingAgent`` (``OpenAIServerModel`` pointed at the local server, a
    ``search_help`` ``@tool``; the model answers by calling ``final_answer``) under
    openinference-instrumentation-smolagents. The conversation's turns run on one agent with
    ``reset=False`` (its memory carries the earlier turns' steps) in an OpenInference session;
    every other case gets a fresh agent."""
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor

    SmolagentsInstrumentor().instrument(tracer_provider=rec.provider)
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    box = Box("transit")

    @tool
    def search_help(query: str) -> str:
        """Search the Riverton Metro help pages.

        Args:
            query: keywords to search for
        """
        return box.search(query)

    url = model_server(box, final_tool="final_answer")
    session = SESSION.format(app="transit")

    def agent() -> Any:
        model = OpenAIServerModel(model_id="gpt-4o-mini", api_base=url, api_key="blind2")
        return ToolCallingAgent(
            tools=[search_help],
            model=model,
            max_steps=5,
            instructions=INSTRUCTIONS["transit"],
            verbosity_level=0,
        )

    conversation: list[Any] = []

    def ask(case: str, query: str) -> str:
        if case == "tool-error":
            box.skip[case] = SMOLAGENTS_ERROR
        if case.startswith("turn-"):
            if not conversation:
                conversation.append(agent())
            box.session[case] = session
            with using_session(session):
                return str(conversation[0].run(query, reset=case == "turn-1"))
        return str(agent().run(query))

    rec.run(ask, box)
    rec.write()


# --- CrewAI --------------------------------------------------------------------------------


@runner("crewai-openinference")
def crewai_agent(stack: str) -> None:
    """A CrewAI ``Agent`` with a ``search_help`` tool (``LLM`` with its native OpenAI provider
    pointed at the local server) in a one-task ``Crew`` whose task is the user's question
    (``kickoff(inputs=...)``), under openinference-instrumentation-crewai. The conversation's
    turns run the agent directly (``Agent.kickoff``) with the previous turn's messages before
    the new question, in an OpenInference session."""
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
    os.environ.setdefault("CREWAI_DISABLE_TRACKING", "true")
    rec = Recorder(stack)
    from openinference.instrumentation import using_session
    from openinference.instrumentation.crewai import CrewAIInstrumentor

    CrewAIInstrumentor().instrument(tracer_provider=rec.provider)
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool

    box = Box("library")

    @tool("search_help")
    def search_help(query: str) -> str:
        """Search the library's help pages and FAQ for the query."""
        return box.search(query)

    llm = LLM(model="openai/gpt-4o-mini", base_url=model_server(box), api_key="blind2")
    session = SESSION.format(app="library")

    def agent() -> Any:
        return Agent(
            role="Library help desk",
            goal="Answer members' questions from the FAQ",
            backstory=INSTRUCTIONS["library"],
            tools=[search_help],
            llm=llm,
            verbose=False,
            max_iter=5,
        )

    history: list[Any] = []

    def ask(case: str, query: str) -> str:
        if case.startswith("turn-"):
            box.session[case] = session
            with using_session(session):
                out = agent().kickoff([*history, {"role": "user", "content": query}])
            history[:] = [m for m in out.messages if m.get("role") != "system"]
            return str(out.raw)
        helper = agent()
        task = Task(
            description="{question}", expected_output="A short answer citing [n].", agent=helper
        )
        crew = Crew(agents=[helper], tasks=[task], verbose=False)
        return str(crew.kickoff(inputs={"question": query}).raw)

    rec.run(ask, box)
    rec.write()


# --- Semantic Kernel -------------------------------------------------------------------------


@runner("semantic-kernel-genai")
def semantic_kernel_agent(stack: str) -> None:
    """A Semantic Kernel ``ChatCompletionAgent`` (``OpenAIChatCompletion`` on an ``AsyncOpenAI``
    client pointed at the local server) with a plugin whose ``search_help`` kernel function is
    called automatically, under Semantic Kernel's own OpenTelemetry spans
    (``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS=true``; the ``..._SENSITIVE``
    switch that puts messages on the spans is left off, its default) through the global tracer
    provider. The conversation's turns share one ``ChatHistoryAgentThread``."""
    os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"] = "true"
    rec = Recorder(stack, global_provider=True)
    from openai import AsyncOpenAI
    from semantic_kernel.agents import ChatCompletionAgent, ChatHistoryAgentThread
    from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion
    from semantic_kernel.functions import kernel_function

    box = Box("appliance")

    class HelpPlugin:
        @kernel_function(name=TOOL, description="Search the Kettle & Co. support knowledge base.")
        def search_help(self, query: str) -> str:
            return box.search(query)

    client = AsyncOpenAI(base_url=model_server(box), api_key="blind2")
    conversation: list[Any] = []

    def agent() -> Any:
        service = OpenAIChatCompletion(ai_model_id="gpt-4o-mini", async_client=client)
        return ChatCompletionAgent(
            service=service,
            name="KettleSupport",
            instructions=INSTRUCTIONS["appliance"],
            plugins=[HelpPlugin()],
        )

    async def run(case: str, query: str) -> str:
        if case.startswith("turn-"):
            if not conversation:
                conversation.extend([agent(), ChatHistoryAgentThread()])
            response = await conversation[0].get_response(messages=query, thread=conversation[1])
            conversation[1] = response.thread
        else:
            response = await agent().get_response(messages=query)
        return str(response.content)

    def ask(case: str, query: str) -> str:
        return asyncio.run(run(case, query))

    rec.run(ask, box)
    rec.write()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stack", choices=list(RUNNERS), required=True)
    stack = parser.parse_args().stack
    RUNNERS[stack](stack)


if __name__ == "__main__":
    main()
