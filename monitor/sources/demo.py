"""Synthetic RAG traffic with known, labelled failure modes.

A small support-assistant corpus (refunds, pricing, shipping, warranty, security, support
hours) and answers that are right, or wrong in one known way. Each trace carries its failure
mode in ``attributes["ragmon.demo.failure_mode"]`` and a ``golden_id`` so that the checks (and
later the judge) can be scored against the truth. Deterministic: same seed and index, same
trace.
"""

from __future__ import annotations

import json
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from monitor.core.lines import PassageRecord, RetrievedRecord, TraceRecord
from monitor.sources.base import SourceDefaults, SourcePosition, SourceRecord

if TYPE_CHECKING:
    from monitor.sources.demo_config import DemoSourceConfig  # pydantic: not for `--help`
    from monitor.telemetry import Metrics

FAILURE_MODE = "ragmon.demo.failure_mode"  # the attribute naming a demo trace's failure mode
FAILURE_MODES = (
    "grounded",
    "invented_number",
    "false_refusal",
    "correct_abstention",
    "missing_citation",
    "invalid_citation",
    "stale_duplicate",
    "empty_retrieval",
)

# Share of each failure mode in the traffic; healthy answers dominate, as in production.
_WEIGHTS = (0.55, 0.09, 0.06, 0.05, 0.08, 0.05, 0.07, 0.05)


@dataclass(frozen=True)
class Doc:
    """A demo knowledge-base document."""

    doc_id: str
    route: str
    text: str
    question: str
    answer: str  # grounded answer, with {c} where the citation goes
    wrong: str  # the same answer with an invented figure
    stale: str | None = None  # an older version of the page stating other figures


CORPUS: tuple[Doc, ...] = (
    Doc(
        "refund-policy-v3",
        "billing",
        "Refund policy. Customers can request a full refund within 30 days of purchase. "
        "Refunds are issued to the original payment method within 5 business days. Annual "
        "plans cancelled after 30 days receive a prorated refund minus a $25 processing fee. "
        "Sale items and gift cards are not refundable.",
        "How long do I have to ask for a refund?",
        "You can request a full refund within 30 days of purchase {c}. The money goes back to "
        "your original payment method within 5 business days {c}.",
        "You can request a full refund within 60 days of purchase {c}. The money goes back to "
        "your original payment method within 5 business days {c}.",
        stale="Refund policy. Customers can request a full refund within 14 days of purchase. "
        "Refunds are issued to the original payment method within 10 business days. Annual "
        "plans cancelled after 14 days receive a prorated refund minus a $40 processing fee. "
        "Sale items and gift cards are not refundable.",
    ),
    Doc(
        "pricing-2024",
        "billing",
        "Pricing. The Starter plan costs $19 per user per month. The Pro plan costs $49 per "
        "user per month or $490 per user per year. Enterprise pricing starts at $1,600 per "
        "month for up to 50 seats. Prices exclude VAT, which is charged at 20% in the UK.",
        "How much is the Pro plan?",
        "The Pro plan costs $49 per user per month, or $490 per user per year {c}.",
        "The Pro plan costs $59 per user per month, or $490 per user per year {c}.",
        stale="Pricing. The Starter plan costs $15 per user per month. The Pro plan costs $39 "
        "per user per month or $390 per user per year. Enterprise pricing starts at $1,600 per "
        "month for up to 50 seats. Prices exclude VAT, which is charged at 20% in the UK.",
    ),
    Doc(
        "shipping-eu",
        "orders",
        "Shipping. Orders to EU countries ship within 2 business days from our warehouse in "
        "Rotterdam. Standard delivery takes 3–5 business days and costs €4.95; orders above "
        "€60 ship free. Express delivery arrives the next business day for €12.50.",
        "How much does express shipping cost in the EU?",
        "Express delivery arrives the next business day and costs €12.50 {c}.",
        "Express delivery arrives the next business day and costs €14.90 {c}.",
    ),
    Doc(
        "warranty",
        "support",
        "Warranty. All hardware carries a 2-year limited warranty from the date of delivery. "
        "Batteries are covered for 12 months. Claims require the order number and a photo of "
        "the defect; replacements ship within 7 days of an approved claim.",
        "How long is the battery covered?",
        "Batteries are covered for 12 months under the limited warranty {c}.",
        "Batteries are covered for 18 months under the limited warranty {c}.",
    ),
    Doc(
        "security-overview",
        "security",
        "Security. Customer data is encrypted at rest with AES-256 and in transit with TLS 1.2 "
        "or later. We keep backups for 35 days and run penetration tests twice a year. Our "
        "SOC 2 Type II report was renewed on March 15, 2024.",
        "How long are backups kept?",
        "Backups are kept for 35 days, and data is encrypted at rest with AES-256 {c}.",
        "Backups are kept for 90 days, and data is encrypted at rest with AES-256 {c}.",
    ),
    Doc(
        "support-hours",
        "support",
        "Support hours. Our support team is available Monday to Friday from 8:00 to 18:00 CET. "
        "Pro customers get a first response within 4 hours; Starter customers within 24 hours. "
        "Enterprise customers have a 24/7 phone line.",
        "How fast does support answer Pro customers?",
        "Pro customers get a first response within 4 hours {c}.",
        "Pro customers get a first response within 2 hours {c}.",
    ),
)

_UNANSWERABLE = (
    ("Do you offer a student discount?", "billing"),
    ("Can I pay with cryptocurrency?", "billing"),
    ("Do you ship to Antarctica?", "orders"),
    ("Is the product certified for medical use?", "security"),
)

_REFUSALS = (
    "I'm sorry, but the provided documents do not contain that information.",
    "I don't know. The context doesn't mention this.",
    "Unfortunately, I couldn't find any information about that in the available sources.",
    "There is no information about this in the documentation I have access to.",
    "I'm unable to answer that based on the provided context.",
)

_FILLER = (
    ("account-basics", "Accounts. Each workspace has one owner who can invite members, assign "
     "roles and transfer ownership. Members can belong to several workspaces and switch "
     "between them from the sidebar. Deleted workspaces can be restored for a limited time."),
    ("integrations", "Integrations. The assistant connects to Slack, Microsoft Teams and "
     "Zendesk. Webhooks deliver events as signed JSON payloads; failed deliveries are retried "
     "with exponential backoff. API keys are scoped to a single workspace."),
    ("data-export", "Data export. Owners can export all workspace data as CSV or JSON from the "
     "settings page. Large exports are prepared in the background and a download link is "
     "sent by e-mail once the archive is ready."),
)  # fmt: skip

_APPS = ("support-assistant",)
_RELEASES = ("2024.11.1", "2024.11.2")


def _cite(style: str, i: int, doc_id: str) -> str:
    return {"index": f"[{i}]", "id": f"[{doc_id}]", "none": ""}[style]


_UPDATED = datetime(2024, 11, 1, tzinfo=UTC)  # the demo's documents are this old or older


def _passage(doc_id: str, text: str) -> PassageRecord:
    """A packed passage with its data source and its document's last update: within two
    months for current pages, a year and more for an outdated copy (``-old``); derived from
    the id, so the traffic's random choices stay as they were."""
    h = zlib.crc32(doc_id.encode())
    days = 400 + h % 200 if doc_id.endswith("-old") else h % 60
    updated = (_UPDATED - timedelta(days=days)).isoformat().replace("+00:00", "Z")
    source = (
        "help-center" if any(d.doc_id == doc_id.removesuffix("-old") for d in CORPUS) else "faq"
    )
    return {"doc_id": doc_id, "chunk_id": f"{doc_id}#0", "text": text, "data_source": source,
            "timestamp": updated}  # fmt: skip


def _with_stale_copy(doc: Doc, passages: list[PassageRecord]) -> tuple[Doc, list[PassageRecord]]:
    """A document that has an outdated copy (``doc`` or the first such), packed together
    with that copy in place of ``doc``."""
    doc = next((d for d in CORPUS if d.stale), doc) if doc.stale is None else doc
    old = _passage(f"{doc.doc_id}-old", doc.stale or "")
    return doc, [_passage(doc.doc_id, doc.text), old, *passages[1:]]


def _cited(rng: random.Random, mode: str, template: str, style: str, doc: Doc,
           passages: list[PassageRecord]) -> str:  # fmt: skip
    """The answer with its citation marker: valid, out of range, or none."""
    if mode == "invalid_citation":
        return template.replace("{c}", f"[{len(passages) + rng.randint(1, 4)}]")
    pos = next(i for i, p in enumerate(passages, 1) if p["doc_id"] == doc.doc_id)
    cite = _cite("none" if mode == "missing_citation" else style, pos, doc.doc_id)
    return template.replace(" {c}", f" {cite}" if cite else "")


def generate(index: int, seed: int = 7) -> TraceRecord:
    """The ``index``-th demo trace as a native ``ragmon.trace/v1`` record."""
    rng = random.Random(f"{seed}:{index}")
    mode = rng.choices(FAILURE_MODES, weights=_WEIGHTS)[0]
    doc = rng.choice(CORPUS)
    fillers = rng.sample(_FILLER, k=rng.randint(1, 3))
    passages = [_passage(doc.doc_id, doc.text)] + [_passage(d, t) for d, t in fillers]
    style = rng.choice(("index", "id"))
    template = doc.wrong if mode == "invented_number" else doc.answer
    if mode == "stale_duplicate":
        doc, passages = _with_stale_copy(doc, passages)
        template = doc.answer
    question, route = doc.question, doc.route
    rng.shuffle(passages)
    answer = _cited(rng, mode, template, style, doc, passages)
    if mode == "false_refusal":
        answer = rng.choice(_REFUSALS)
    elif mode == "correct_abstention":
        question, route = rng.choice(_UNANSWERABLE)
        passages = [_passage(d, t) for d, t in fillers]
        answer = rng.choice(_REFUSALS)
    elif mode == "empty_retrieval":
        passages = []
        answer = rng.choice(
            ("Empty Response", "I don't know.", "Our Pro plan costs $45 per user per month.")
        )
    retrieved: list[RetrievedRecord] = [
        {"doc_id": str(p["doc_id"]), "chunk_id": p["chunk_id"], "rank": i,
         "score": round(0.92 - 0.07 * i + rng.uniform(-0.02, 0.02), 3)}
        for i, p in enumerate(passages, 1)
    ]  # fmt: skip
    ts = datetime(2024, 11, 1, tzinfo=UTC) + timedelta(seconds=index * 1.5)
    return {
        "schema": "ragmon.trace/v1",
        "trace_id": f"{rng.getrandbits(128):032x}",
        "timestamp": ts.isoformat().replace("+00:00", "Z"),
        "app": _APPS[0],
        "route": route,
        "release": rng.choice(_RELEASES),
        "query": question,
        "retrieved": retrieved,
        "context": passages,
        "answer": answer,
        "model": "gpt-4o-mini",
        "attributes": {FAILURE_MODE: mode},
        # One trace in ten is a "probe" whose gold label is known (always judged).
        "golden_id": f"demo-{mode}-{doc.doc_id}" if rng.random() < 0.1 else None,
    }


def generate_bytes(index: int, seed: int = 7) -> bytes:
    """Demo trace ``index`` of the traffic of ``seed``, as a native JSON record."""
    return json.dumps(generate(index, seed), ensure_ascii=False).encode("utf-8")


def gold_label(record: TraceRecord) -> str:
    """The faithfulness verdict a careful human gives a demo trace (for calibration)."""
    mode = record["attributes"][FAILURE_MODE]
    if mode == "invented_number":
        return "hard_fail"
    if mode in ("false_refusal", "correct_abstention"):
        return "not_applicable"
    if mode == "empty_retrieval":
        # "Our Pro plan costs $45": a claim with nothing behind it; otherwise a non-answer
        return "fail" if any(c.isdigit() for c in record["answer"]) else "not_applicable"
    return "pass"


class DemoSource(SourceDefaults):
    """The built-in synthetic traffic at a fixed rate: the embedded default of ``ragmon run``."""

    name = "demo"

    @classmethod
    def from_config(cls, config: DemoSourceConfig, metrics: Metrics | None = None) -> DemoSource:
        """``source.demo``: the generator's seed, rate and limit."""
        cfg = config
        seed = cfg.seed
        return cls(lambda i: generate_bytes(i, seed), cfg.rate_per_second, limit=cfg.limit)

    def __init__(
        self,
        generate: Callable[[int], bytes],
        rate_per_second: float,
        limit: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._generate = generate
        self._interval = 1.0 / rate_per_second
        self._limit = limit
        self._clock = clock
        self._sleep = sleep
        self._next = 0
        self._t0: float | None = None

    def start(self) -> None:
        """Start the clock of the fixed rate."""
        self._t0 = self._clock()

    def ready(self) -> bool:
        """Started."""
        return self._t0 is not None

    def poll(self, max_records: int, timeout: float) -> list[SourceRecord]:
        """The records due by now at the fixed rate, at most ``max_records``."""
        if self._t0 is None:
            self.start()
        assert self._t0 is not None
        due = int((self._clock() - self._t0) / self._interval) + 1
        if self._limit is not None:
            due = min(due, self._limit)
        if due <= self._next:
            wait = self._t0 + self._next * self._interval - self._clock()
            self._sleep(max(0.0, min(timeout, wait)))
            return []
        out: list[SourceRecord] = []
        while self._next < due and len(out) < max_records:
            out.append(
                SourceRecord(SourcePosition("demo", 0, self._next), self._generate(self._next))
            )
            self._next += 1
        return out

    @property
    def exhausted(self) -> bool:
        """Whether the limit is reached."""
        return self._limit is not None and self._next >= self._limit

    # The rest are the protocol's defaults: no record time, nothing to commit, hold, stop
    # taking or release; synthetic traffic replays (what a stop leaves matters to no one).
