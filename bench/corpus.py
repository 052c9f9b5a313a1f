"""Benchmark traces: ~5 KB each, 5 packed passages, answers from the demo failure modes.

The passage that answers the question comes from the demo corpus; the other passages are
generated support-documentation prose (distinct per passage, with figures), so that the
five passages look like a real retrieval result rather than five copies of one page.
"""

from __future__ import annotations

import json
import random

from monitor.model import RagTrace
from monitor.sources import demo

_SUBJECTS = (
    "The admin console", "Each workspace", "The billing page", "Our mobile app", "The API",
    "Single sign-on", "The audit log", "Every invoice", "The export job", "A team owner",
    "The support portal", "Usage-based pricing", "The free trial", "Data residency",
)  # fmt: skip
_VERBS = (
    "keeps", "shows", "limits", "retries", "archives", "lists", "encrypts", "syncs",
    "requires", "allows", "reports", "schedules",
)  # fmt: skip
_OBJECTS = (
    "up to {n} members", "changes for {n} days", "requests {n} times per minute",
    "{n} GB of attachments", "invoices older than {n} months", "{n} active sessions",
    "a {p}% discount on annual plans", "reports every {n} hours", "{n} projects per seat",
    "backups from the last {n} days", "a ${m} monthly minimum",
)  # fmt: skip
_TAILS = (
    "unless an owner changes the setting.", "for all plans.", "on the Enterprise plan only.",
    "in the EU and US regions.", "after the first billing cycle.", "by default.",
    "when the workspace is verified.", "as described in the admin guide.",
)  # fmt: skip


def _sentence(rng: random.Random) -> str:
    obj = rng.choice(_OBJECTS).format(
        n=rng.randint(2, 500), p=rng.randint(5, 40), m=f"{rng.randint(10, 2000):,}"
    )
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {obj} {rng.choice(_TAILS)}"


def _passage(rng: random.Random, first: str | None, size: int = 1000) -> str:
    parts = [first] if first else []
    length = sum(len(p) + 1 for p in parts)
    while length < size:
        parts.append(_sentence(rng))
        length += len(parts[-1]) + 1
    return " ".join(parts)


def bench_records(n: int, seed: int = 1) -> list[bytes]:
    """``n`` native records of about 5 KB: the demo answer, its passages padded to five."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec = demo.generate(i, seed)
        passages = rec["context"]
        if not passages:  # empty retrieval stays empty
            out.append(json.dumps(rec).encode())
            continue
        packed = []
        for k in range(5):
            src = passages[k] if k < len(passages) else None
            doc_id = src["doc_id"] if src else f"kb-{rng.randint(1, 9999)}"
            text = _passage(rng, src["text"] if src else None)
            packed.append({"doc_id": doc_id, "chunk_id": f"{doc_id}#0", "text": text})
        rec["context"] = packed
        out.append(json.dumps(rec).encode())
    return out


def bench_traces(n: int, seed: int = 1) -> list[RagTrace]:
    return [RagTrace.model_validate_json(r) for r in bench_records(n, seed)]
