"""Benchmark traces: ~5 KB each, 5 packed passages, answers from the demo failure modes.

The passage that answers the question comes from the demo corpus; the other passages are
generated support-documentation prose (distinct per passage, with figures), so that the
five passages look like a real retrieval result rather than five copies of one page.

With ``Reuse`` (``--reuse zipf:S --chunks C --per-trace K``), the other passages are drawn
from a corpus of ``C`` chunks by a Zipf law of exponent ``S`` (rank ``r`` drawn with weight
``r ** -S``), as production retrieval is skewed towards popular documents; a chunk's text is
a function of its rank, so a chunk that is drawn again brings the same text. ``--reuse none``
makes every such passage new, as without ``Reuse``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from dataclasses import dataclass

from monitor.core.model import RagTrace
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


@dataclass(frozen=True)
class Reuse:
    """How padding passages recur: ``exponent`` None draws every one new; else Zipf over
    ``chunks`` chunks. ``per_trace`` passages are packed in each trace."""

    exponent: float | None = None
    chunks: int = 1_000_000
    per_trace: int = 5

    def __str__(self) -> str:
        law = "none" if self.exponent is None else f"zipf:{self.exponent:g}"
        return f"reuse {law}, {self.chunks:,} chunks, {self.per_trace} per trace"


def add_reuse_arguments(parser: argparse.ArgumentParser) -> None:
    """``--reuse``, ``--chunks`` and ``--per-trace`` (read back with ``reuse_of``)."""
    parser.add_argument("--reuse", default="none", help="none, or zipf:S (Zipf exponent S)")
    parser.add_argument("--chunks", type=int, default=1_000_000, help="corpus size for zipf")
    parser.add_argument("--per-trace", type=int, default=5, help="passages per trace")


def reuse_of(args: argparse.Namespace) -> Reuse:
    """The ``Reuse`` the command line asks for."""
    if args.reuse == "none":
        return Reuse(None, args.chunks, args.per_trace)
    law, _, exponent = args.reuse.partition(":")
    if law != "zipf" or not exponent:
        raise SystemExit(f"--reuse: expected none or zipf:S, got {args.reuse!r}")
    return Reuse(float(exponent), args.chunks, args.per_trace)


class _Chunks:
    """The padding passages: new each time, or drawn by rank from a Zipf-weighted corpus."""

    def __init__(self, reuse: Reuse, rng: random.Random, seed: int) -> None:
        self.reuse, self.rng, self.seed = reuse, rng, seed
        self._texts: dict[int, str] = {}
        self._cum: list[float] = []
        if reuse.exponent is not None:
            s = reuse.exponent
            self._cum = list(itertools.accumulate(r**-s for r in range(1, reuse.chunks + 1)))

    def draw(self) -> tuple[str, str]:
        """(doc id, text) of the next padding passage."""
        if not self._cum:
            return f"kb-{self.rng.randint(1, 9999)}", _passage(self.rng, None)
        (rank,) = self.rng.choices(range(1, self.reuse.chunks + 1), cum_weights=self._cum)
        text = self._texts.get(rank)
        if text is None:
            text = self._texts[rank] = _passage(random.Random(f"{self.seed}/{rank}"), None)
        return f"chunk-{rank}", text


def bench_records(n: int, seed: int = 1, reuse: Reuse | None = None) -> list[bytes]:
    """``n`` native records of about 5 KB: the demo answer, its passages padded to five (or
    ``reuse.per_trace``), the padding drawn as ``reuse`` says (default: every one new)."""
    reuse = reuse or Reuse()
    rng = random.Random(seed)
    chunks = _Chunks(reuse, rng, seed)
    out = []
    for i in range(n):
        rec = demo.generate(i, seed)
        passages = rec["context"]
        if not passages:  # empty retrieval stays empty
            out.append(json.dumps(rec).encode())
            continue
        packed = []
        for k in range(reuse.per_trace):
            src = passages[k] if k < len(passages) else None
            if src:
                doc_id, text = src["doc_id"], _passage(rng, src["text"])
            else:
                doc_id, text = chunks.draw()
            packed.append({"doc_id": doc_id, "chunk_id": f"{doc_id}#0", "text": text})
        rec["context"] = packed
        out.append(json.dumps(rec).encode())
    return out


def bench_traces(n: int, seed: int = 1) -> list[RagTrace]:
    return [RagTrace.from_json(r) for r in bench_records(n, seed)]
