"""Reviews of candidate golden rows: an append-only decision log, the golden set it yields,
and the precision of each check that the decisions measure.

A decision is one JSON line (``ragmon.review/v1``) appended to ``<golden dir>/reviews/
reviews.jsonl`` with a single ``write`` on a file opened for appending, then fsync'd: a crash
leaves every earlier line whole (at worst the last line is cut short, and readers skip it and
say so). Nothing is rewritten, so no edit is ever lost; the state of a row is its latest
decision. Each decision names the decision it was made on (``after``): when someone else
decided the same row in between, the append is refused (``ReviewConflict``) rather than
silently overwriting their work.

Every accept or "check was wrong" reject of a flagged row is a label for the check that
flagged it: accepted = the check was right, rejected as wrong = a false positive.
``precision()`` turns the labels into each check's reviewed precision per route, with a 95 %
Wilson interval.

The golden set is published from the accepted rows as versioned files
(``golden-v0003-<sha256 prefix>.jsonl``, schema ``ragmon.golden/v1``), each written once and
never rewritten; publishing unchanged content writes nothing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monitor.core.lines import GoldenItem, GoldenRow, GoldPassage

REVIEW_SCHEMA = "ragmon.review/v1"
GOLDEN_SCHEMA = "ragmon.golden/v1"
LOG_NAME = "reviews.jsonl"
TrapCategory = Literal["answerable", "unanswerable", "near_miss", "multi_hop", "stale_policy"]
TRAP_CATEGORIES: tuple[str, ...] = get_args(TrapCategory)
REJECT_REASONS = ("check_wrong", "duplicate", "not_useful", "other")
REJECT_LABELS = {"check_wrong": "check was wrong", "duplicate": "duplicate",
                 "not_useful": "not useful", "other": "other"}  # fmt: skip
_VERSION = re.compile(r"^golden-v(\d{4,})-([0-9a-f]{12})\.jsonl$")


class ReviewError(Exception):
    """A decision that cannot be recorded (bad input, unknown row)."""


class ReviewConflict(ReviewError):
    """Someone decided the row after the decision this one was made on: ``current``, the
    row's decision now. The message is the command line's (it names ``--after``); the page
    says it in its own words."""

    def __init__(self, current: Decision) -> None:
        self.current = current
        super().__init__(
            f"row {current.row_id} was decided by {current.reviewer} at "
            f"{current.at.isoformat()} ({current.action}) after the state you saw; "
            f"reload it and decide again (--after {current.id})"
        )


class Decision(BaseModel):
    """One reviewer's decision on one candidate row."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    review_schema: Literal["ragmon.review/v1"] = Field("ragmon.review/v1", alias="schema")
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    row_id: str = Field(min_length=1)
    action: Literal["accept", "reject"]
    reviewer: str = Field(min_length=1, max_length=200)
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    after: str | None = None  # the row's latest decision id the reviewer saw (None: first)
    reason: Literal["check_wrong", "duplicate", "not_useful", "other"] | None = None
    note: str | None = Field(default=None, max_length=2000)
    reference: str | None = Field(default=None, max_length=20000)
    gold_docs: dict[str, int] = Field(default_factory=dict)  # doc id -> grade 0-3
    category: TrapCategory | None = None
    expected: Literal["answer", "refuse"] | None = None
    # copied from the row when the decision is made, so precision needs only the log
    check: str | None = None
    route: str | None = None

    @field_validator("gold_docs")
    @classmethod
    def _grades(cls, v: dict[str, int]) -> dict[str, int]:
        bad = {k: g for k, g in v.items() if not (0 <= g <= 3) or not k}
        if bad:
            raise ValueError(f"grades are 0-3 and doc ids non-empty: {bad}")
        return v

    def label(self) -> bool | None:
        """What this decision says about the check that flagged the row: right (accepted),
        wrong (rejected as check_wrong), or nothing (rejected for another reason)."""
        if self.action == "accept":
            return True
        return False if self.reason == "check_wrong" else None

    def line(self) -> str:
        """The decision as one line of the review log."""
        return self.model_dump_json(by_alias=True, exclude_none=True) + "\n"


@dataclass
class LogRead:
    """The decisions read from the log, and how many lines could not be read."""

    decisions: list[Decision] = field(default_factory=list)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)


def latest_of(decisions: Iterable[Decision]) -> dict[str, Decision]:
    """Each row's latest decision (the log is in append order)."""
    return {d.row_id: d for d in decisions}


def apply_decisions(
    rows: dict[str, GoldenRow], decisions: Iterable[Decision]
) -> dict[str, GoldenRow]:
    """The rows as every command and the review page see them: a row's latest decision
    sets its ``ragmon.status`` (accept: ``accepted``, reject: ``rejected``) and, on accept,
    its reference and trap category; a row without a decision keeps what its file says
    (a status edited by hand included). The one place a row's state is decided."""
    latest = latest_of(decisions)
    out: dict[str, GoldenRow] = {}
    for rid, row in rows.items():
        d = latest.get(rid)
        if d is None:
            out[rid] = row
            continue
        row, meta = row.copy(), row["ragmon"].copy()
        row["ragmon"] = meta
        meta["status"] = "accepted" if d.action == "accept" else "rejected"
        meta["decision"] = d.id
        if d.action == "accept" and d.reference is not None:
            row["reference"] = d.reference
        if d.action == "accept" and d.category is not None:
            meta["category"] = d.category
        if d.action == "accept":
            meta["expected"] = d.expected or "answer"
        out[rid] = row
    return out


class ReviewLog:
    """The append-only decision log of one golden directory."""

    def __init__(self, golden_dir: Path) -> None:
        self.path = golden_dir / "reviews" / LOG_NAME

    def read(self) -> LogRead:
        """Every decision in the log, in order (cut or unreadable lines counted, not raised)."""
        out = LogRead()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return out
        for no, raw in enumerate(data.split(b"\n"), 1):
            if not raw.strip():
                continue
            try:
                out.decisions.append(Decision.model_validate_json(raw))
            except ValidationError as exc:
                out.bad_lines.append((no, exc.errors()[0]["msg"]))
        return out

    def latest(self) -> dict[str, Decision]:
        """Each row's latest decision."""
        return latest_of(self.read().decisions)

    def append(self, decision: Decision) -> Decision:
        """Appends one decision, refusing it when the row was decided after `decision.after`.
        The check and the append hold an exclusive lock on the log, so two reviewers of the
        same row cannot both pass the check."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            current = self.latest().get(decision.row_id)
            if current is not None and current.id != decision.after:
                raise ReviewConflict(current)
            os.write(fd, decision.line().encode())
            os.fsync(fd)
        finally:
            os.close(fd)  # releases the lock
        return decision


def decide(
    log: ReviewLog, row: GoldenRow, action: Literal["accept", "reject"], reviewer: str,
    **fields: object,
) -> Decision:  # fmt: skip
    """Records a decision on a candidate row, with the row's check and route."""
    meta = row.get("ragmon", {})
    has_reference = fields.get("reference") or row.get("reference")
    if action == "accept" and not has_reference and fields.get("expected") != "refuse":
        raise ReviewError(
            "an accepted row needs a reference answer, or to be marked as expected to refuse "
            "(`--expect refuse`; on the page: expected behaviour 'refuse') for a question the "
            "documents cannot answer"
        )
    if action == "reject" and fields.get("reason") is None:
        raise ReviewError(f"a reject needs a reason: one of {', '.join(REJECT_REASONS)}")
    known = set(row.get("retrieved_context_ids") or [])
    gold = fields.get("gold_docs")  # what is not a mapping, the decision's validation refuses
    unknown = sorted(set(gold) - known) if isinstance(gold, dict) else []
    if unknown:
        raise ReviewError(f"gold documents not among the row's passages: {unknown}")
    try:
        decision = Decision(
            row_id=row["id"], action=action, reviewer=reviewer,
            check=meta.get("reason"), route=meta.get("route"), **fields,
        )  # fmt: skip
    except ValidationError as exc:
        raise ReviewError(str(exc.errors()[0]["msg"])) from exc
    return log.append(decision)


# --- the golden set --------------------------------------------------------------------


def golden_items(rows: dict[str, GoldenRow], decisions: Iterable[Decision]) -> list[GoldenItem]:
    """The golden set: every row whose latest decision is an accept, as ragmon.golden/v1,
    one item per question (``split_repeats``)."""
    return split_repeats(accepted_items(rows, decisions))[0]


def question_key(item: GoldenItem) -> str:
    """What makes two items the same question: the query, case and spacing aside."""
    return " ".join(str(item.get("query") or "").casefold().split())


def split_repeats(items: list[GoldenItem]) -> tuple[list[GoldenItem], list[GoldenItem]]:
    """(one item per question, the items left out): of items asking the same question
    (two rows of one query flagged for different reasons, say) the latest decision is
    kept, so a set never scores one question twice."""
    latest: dict[str, GoldenItem] = {}
    for item in items:
        key = question_key(item) or str(id(item))  # no query: nothing to compare
        if key not in latest or item["reviewed_at"] >= latest[key]["reviewed_at"]:
            latest[key] = item
    kept = {id(i) for i in latest.values()}
    return [i for i in items if id(i) in kept], [i for i in items if id(i) not in kept]


def accepted_items(rows: dict[str, GoldenRow], decisions: Iterable[Decision]) -> list[GoldenItem]:
    """Every row whose latest decision is an accept, as ragmon.golden/v1, by row id."""
    items = []
    for rid, d in sorted(latest_of(decisions).items()):
        row = rows.get(rid)
        if d.action != "accept" or row is None:
            continue
        meta = row.get("ragmon", {})
        ids, contexts = row.get("retrieved_context_ids") or [], row.get("retrieved_contexts") or []
        gold = sorted(d.gold_docs.items())
        pairs = list(zip(ids, contexts, strict=False))
        # by document id; each relevant document with every passage of it that was packed
        passages: list[GoldPassage] = [{"id": k, "text": t} for k, g in gold if g >= 1
                                       for doc, t in pairs if doc == k]  # fmt: skip
        item: GoldenItem = {
            "schema": GOLDEN_SCHEMA,
            "id": rid,
            "query": row.get("user_input"),
            "reference": d.reference if d.reference is not None else row.get("reference"),
            "gold_docs": [{"id": k, "grade": g} for k, g in gold],
            "gold_passages": passages,  # the relevant documents' text (PII-redacted)
            "category": d.category,
            "expected": d.expected or "answer",
            "source_trace_ids": list(meta.get("examples") or [meta.get("trace_id")]),
            "route": meta.get("route"),
            "reviewer": d.reviewer,
            "reviewed_at": d.at.isoformat(),
            "decision": d.id,
        }  # fmt: skip
        items.append(item)
    return items


@dataclass(frozen=True)
class Version:
    """One published golden-set version file: its number, content hash and path."""

    number: int
    digest: str
    path: Path


def versions(directory: Path) -> list[Version]:
    """Published golden-set versions, oldest first."""
    out = []
    for p in directory.glob("golden-v*.jsonl") if directory.is_dir() else ():
        m = _VERSION.match(p.name)
        if m:
            out.append(Version(int(m.group(1)), m.group(2), p))
    return sorted(out, key=lambda v: v.number)


def _render(items: list[GoldenItem]) -> bytes:
    return "".join(json.dumps(i, sort_keys=True, ensure_ascii=False) + "\n" for i in items).encode()


def publish(items: list[GoldenItem], directory: Path) -> tuple[Version, bool]:
    """Writes the items as the next version unless they equal the latest one. Returns the
    version that holds them and whether it is new. A version file is created exclusively
    (never overwritten) and fsync'd before it gets its final name. No empty version and no
    question twice (``split_repeats`` first): both are refused."""
    if not items:
        raise ReviewError("no accepted item: an empty golden set is not published")
    seen: dict[str, str] = {}
    for item in items:
        key = question_key(item)
        if key and key in seen:
            raise ReviewError(f"items {seen[key]} and {item.get('id')} ask the same question")
        seen[key] = str(item.get("id"))
    body = _render(items)
    digest = hashlib.sha256(body).hexdigest()[:12]
    existing = versions(directory)
    if existing and existing[-1].digest == digest:
        return existing[-1], False
    directory.mkdir(parents=True, exist_ok=True)
    number = existing[-1].number + 1 if existing else 1
    final = directory / f"golden-v{number:04d}-{digest}.jsonl"
    tmp = directory / f".tmp-{final.name}"
    with open(tmp, "xb") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    if final.exists():  # a concurrent publisher took the number
        tmp.unlink()
        raise ReviewError(f"{final.name} already exists; publish again")
    os.link(tmp, final)  # fails rather than replace an existing file
    tmp.unlink()
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return Version(number, digest, final), True


def load_version(path: Path) -> Iterator[GoldenItem]:
    """The items of a published version, checked against the digest in its name."""
    m = _VERSION.match(path.name)
    body = path.read_bytes()
    if m and hashlib.sha256(body).hexdigest()[:12] != m.group(2):
        raise ReviewError(f"{path.name}: content does not match its digest (edited in place?)")
    for line in body.split(b"\n"):  # not splitlines(): U+2028 and U+0085 stand inside strings
        if line.strip():
            yield json.loads(line)
