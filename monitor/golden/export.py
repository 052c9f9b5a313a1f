"""Turn reviewed candidate rows into the files Ragas, DeepEval and Langfuse load."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import TextIO

from monitor.core.lines import GoldenItem, GoldenRow, JsonObject

FORMATS = ("ragas", "deepeval", "langfuse")
# A row's state, one vocabulary for the review page, `golden stats` and `golden export`:
# accepted, rejected, needs_review. A status set by hand is read in any case; "reviewed" and
# "approved" (earlier names) read as accepted; anything else is still to be reviewed.
STATES = ("accepted", "rejected", "needs_review")
ACCEPTED = ("accepted", "reviewed", "approved")


def status_of(row: GoldenRow) -> str:
    """The row's state: accepted, rejected or needs_review."""
    status = str((row.get("ragmon") or {}).get("status") or "").strip().lower()
    if status in ACCEPTED:
        return "accepted"
    return status if status == "rejected" else "needs_review"


# What an expected refusal is in the tools' own fields. None of Ragas' SingleTurnSample,
# DeepEval's Golden or a Langfuse dataset item has a field for "the assistant should
# decline": each compares the response with a reference text, so the reference says what a
# correct answer does; the behaviour itself travels in each tool's metadata (DeepEval's
# additional_metadata, Langfuse's metadata) as expected: "refuse".
REFUSAL_REFERENCE = (
    "The documents do not answer this question. A correct answer says so and does not "
    "answer it from elsewhere."
)


def has_reference(row: GoldenRow) -> bool:
    """Whether the row has a reference answer, or is expected to be refused (which needs
    none: its reference is ``REFUSAL_REFERENCE``)."""
    ref = _reference(row)
    return isinstance(ref, str) and bool(ref.strip())


def _or_refusal(reference: str | None, expected: object) -> str | None:
    """``reference``, or ``REFUSAL_REFERENCE`` when there is none and the expected behaviour
    is to refuse."""
    if (reference is None or not str(reference).strip()) and expected == "refuse":
        return REFUSAL_REFERENCE
    return reference


def _reference(row: GoldenRow) -> str | None:
    # A reviewer may fill either the Ragas or the DeepEval name of the gold answer.
    got = row.get("reference") if row.get("reference") is not None else row.get("expected_output")
    return _or_refusal(got, (row.get("ragmon") or {}).get("expected"))


def to_ragas(row: GoldenRow) -> JsonObject:
    """A Ragas ``SingleTurnSample`` (``EvaluationDataset.from_jsonl``)."""
    return {
        "user_input": row["user_input"],
        "retrieved_contexts": list(row["retrieved_contexts"]),
        "retrieved_context_ids": list(row["retrieved_context_ids"]),
        "response": row["response"],
        "reference": _reference(row),
    }


def to_deepeval(row: GoldenRow) -> JsonObject:
    """A DeepEval ``Golden`` (``EvaluationDataset.add_goldens_from_json_file``)."""
    meta = row["ragmon"]
    return {
        "input": row["input"],
        "actual_output": row["actual_output"],
        "expected_output": _reference(row),
        "retrieval_context": list(row["retrieval_context"]),
        "additional_metadata": {
            "trace_id": meta["trace_id"],
            "reason": meta["reason"],
            "category": meta["category"],
            "count": meta["count"],
            "retrieved_context_ids": list(row["retrieved_context_ids"]),
            "expected": meta.get("expected", "answer"),
        },
    }


def to_langfuse(row: GoldenRow, dataset_name: str = "ragmon-golden") -> JsonObject:
    """Keyword arguments of Langfuse ``create_dataset_item`` (upserts by ``id``)."""
    meta = row["ragmon"]
    return {
        "dataset_name": dataset_name,
        "id": row["id"],
        "input": {"question": row["user_input"], "contexts": list(row["retrieved_contexts"])},
        "expected_output": _reference(row),
        "metadata": {
            "response": row["response"],
            "context_ids": list(row["retrieved_context_ids"]),
            "reason": meta["reason"],
            "category": meta["category"],
            "count": meta["count"],
            "expected": meta.get("expected", "answer"),
        },
        "source_trace_id": meta["trace_id"],
    }


def _item_reference(item: GoldenItem) -> str | None:
    """A golden-set item's reference, ``REFUSAL_REFERENCE`` for one expected to be refused."""
    return _or_refusal(item.get("reference"), item.get("expected"))


def set_to_ragas(item: GoldenItem) -> JsonObject:
    """A published golden-set item as a Ragas ``SingleTurnSample``: the gold documents are
    the reference contexts."""
    return {
        "user_input": item["query"],
        "reference": _item_reference(item),
        "reference_contexts": [p["text"] for p in item.get("gold_passages") or []],
        "reference_context_ids": [p["id"] for p in item.get("gold_passages") or []],
    }


def set_to_deepeval(item: GoldenItem) -> JsonObject:
    """A golden-set item as a DeepEval ``Golden``: ``context`` holds the gold documents."""
    return {
        "input": item["query"],
        "expected_output": _item_reference(item),
        "context": [p["text"] for p in item.get("gold_passages") or []],
        "additional_metadata": {
            k: item.get(k) for k in ("id", "category", "expected", "gold_docs")
        },
    }


def set_to_langfuse(item: GoldenItem, dataset_name: str = "ragmon-golden") -> JsonObject:
    """A golden-set item as a Langfuse dataset item."""
    return {
        "dataset_name": dataset_name,
        "id": item["id"],
        "input": {"question": item["query"]},
        "expected_output": _item_reference(item),
        "metadata": {k: item.get(k) for k in ("category", "expected", "gold_docs", "reviewer")},
    }


def export_set(
    items: Iterable[GoldenItem], fmt: str, out: TextIO, dataset_name: str = "ragmon-golden"
) -> int:
    """Write published golden-set items in ``fmt``; returns how many."""
    if fmt == "langfuse":
        shaped = [set_to_langfuse(i, dataset_name) for i in items]
    else:
        shaped = [{"ragas": set_to_ragas, "deepeval": set_to_deepeval}[fmt](i) for i in items]
    return _write(shaped, fmt, out)


def export(
    rows: Iterable[GoldenRow], fmt: str, out: TextIO, dataset_name: str = "ragmon-golden"
) -> int:
    """Write ``rows`` in ``fmt``; returns how many. DeepEval reads one JSON array, the
    others JSON lines; Langfuse items name ``dataset_name``."""
    if fmt == "langfuse":
        items = [to_langfuse(r, dataset_name) for r in rows]
    else:
        items = [{"ragas": to_ragas, "deepeval": to_deepeval}[fmt](r) for r in rows]
    return _write(items, fmt, out)


def _write(items: list[JsonObject], fmt: str, out: TextIO) -> int:
    if fmt == "deepeval":
        json.dump(items, out, ensure_ascii=False, indent=1)
        out.write("\n")
    else:
        for item in items:
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    return len(items)


def stats(rows: Iterable[GoldenRow]) -> str:
    """Rows and occurrences by reason (a row counts under every reason it carries: a check's
    and the follow-up's that joined it), category and status."""
    by_reason: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    by_category: Counter[str] = Counter()
    by_status: Counter[str] = Counter()
    n = total = 0
    for row in rows:
        meta = row["ragmon"]
        n += 1
        total += meta["count"]
        for reason in dict.fromkeys([meta["reason"], *(meta.get("reasons") or ())]):
            by_reason[reason] += 1
            occurrences[reason] += meta["count"]
        by_category[meta.get("category") or "-"] += 1  # a hand-edited row may have none
        by_status[status_of(row)] += 1
    lines = [f"{'reason':<22} {'rows':>6} {'occurrences':>12}"]
    lines += [f"{r:<22} {c:>6} {occurrences[r]:>12}" for r, c in by_reason.most_common()]
    lines.append("")
    lines.append(f"{'category':<22} {'rows':>6}")
    lines += [f"{k:<22} {c:>6}" for k, c in by_category.most_common()]
    lines.append("")
    lines.append(f"{'status':<22} {'rows':>6}")
    lines += [f"{k:<22} {c:>6}" for k, c in by_status.most_common()]
    lines.append("")
    lines.append(f"rows: {n}   occurrences: {total}   (a row counts under each of its reasons)")
    return "\n".join(lines)
