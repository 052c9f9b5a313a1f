"""Review decisions: the append-only log (conflicts, crash-cut lines, concurrent writers),
check precision against scipy's Wilson interval, and versioned golden-set files."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from scipy.stats import binomtest

from monitor.core.stats import wilson
from monitor.golden import review
from monitor.golden.precision import PrecisionCollector
from monitor.golden.precision import precision as golden_precision
from monitor.golden.review import Decision, ReviewConflict, ReviewError, ReviewLog
from monitor.telemetry import LabelLimiter


def row(rid: str, reason: str = "refusal", route: str = "billing") -> dict[str, Any]:
    return {
        "id": rid,
        "user_input": f"question {rid}?",
        "retrieved_context_ids": ["doc-1", "doc-2"],
        "reference": None,
        "ragmon": {
            "reason": reason,
            "route": route,
            "trace_id": f"t-{rid}",
            "examples": [f"t-{rid}"],
        },
    }


def test_decisions_append_and_the_latest_one_decides(tmp_path: Path) -> None:
    log = ReviewLog(tmp_path)
    first = review.decide(
        log, row("a"), "accept", "ana", reference="30 days.", gold_docs={"doc-1": 3}
    )
    second = review.decide(log, row("a"), "reject", "bo", reason="check_wrong", after=first.id)
    assert [d.id for d in log.read().decisions] == [first.id, second.id]  # nothing rewritten
    assert log.latest()["a"].reviewer == "bo"
    assert (first.label(), second.label()) == (True, False)
    assert Decision(row_id="x", action="reject", reviewer="r", reason="duplicate").label() is None


def test_a_decision_made_on_a_stale_state_is_refused(tmp_path: Path) -> None:
    """Two reviewers open the same row; the second to decide gets a conflict, not an
    overwrite, and succeeds once it names the first decision."""
    log = ReviewLog(tmp_path)
    ana = review.decide(log, row("a"), "accept", "ana", reference="30 days.")
    with pytest.raises(ReviewConflict, match="decided by ana"):
        review.decide(log, row("a"), "reject", "bo", reason="not_useful")
    with pytest.raises(ReviewConflict):
        review.decide(log, row("a"), "reject", "bo", reason="not_useful", after="stale-id")
    review.decide(log, row("a"), "reject", "bo", reason="not_useful", after=ana.id)
    assert len(log.read().decisions) == 2


@pytest.mark.parametrize(("action", "fields", "message"), [
    ("accept", {}, "needs a reference"),
    ("reject", {}, "needs a reason"),
    ("accept", {"reference": "x", "gold_docs": {"doc-9": 2}}, "not among the row's passages"),
    ("accept", {"reference": "x", "gold_docs": {"doc-1": 4}}, "grades are 0-3"),
    ("accept", {"reference": "x", "category": "bogus"}, "Input should be"),
])  # fmt: skip
def test_bad_decisions_are_refused_with_a_reason(
    tmp_path: Path, action: str, fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ReviewError, match=message):
        review.decide(ReviewLog(tmp_path), row("a"), action, "ana", **fields)  # type: ignore[arg-type]
    assert not ReviewLog(tmp_path).path.exists()


def test_accept_without_reference_when_the_answer_is_to_refuse(tmp_path: Path) -> None:
    d = review.decide(ReviewLog(tmp_path), row("a"), "accept", "ana", expected="refuse")
    assert review.golden_items({"a": row("a")}, [d])[0]["expected"] == "refuse"


def test_a_line_cut_short_by_a_crash_is_skipped_and_reported(tmp_path: Path) -> None:
    log = ReviewLog(tmp_path)
    review.decide(log, row("a"), "accept", "ana", reference="x")
    with log.path.open("ab") as f:
        f.write(b'{"schema": "ragmon.review/v1", "row_id": "b", "act')  # no newline: torn
    read = log.read()
    assert len(read.decisions) == 1 and read.bad_lines and read.bad_lines[0][0] == 2
    # the next append starts on its own line and is readable
    with log.path.open("ab") as f:
        f.write(b"\n")
    review.decide(log, row("c"), "accept", "ana", reference="y")
    assert [d.row_id for d in log.read().decisions] == ["a", "c"]


def _race(args: tuple[str, str]) -> str:
    directory, who = args
    try:
        review.decide(ReviewLog(Path(directory)), row("same"), "accept", who, reference=who)
        return "ok"
    except ReviewConflict:
        return "conflict"


def _many(args: tuple[str, int]) -> None:
    directory, k = args
    for i in range(50):
        review.decide(
            ReviewLog(Path(directory)), row(f"r{k}-{i}"), "accept", f"p{k}", reference="x" * 3000
        )


def test_concurrent_reviewers_never_interleave_or_overwrite(tmp_path: Path) -> None:
    """Eight processes decide the same fresh row at once: exactly one wins. Four processes
    append 50 long decisions each: all 200 lines are whole."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(8) as pool:
        outcomes = pool.map(_race, [(str(tmp_path), f"r{i}") for i in range(8)])
        assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
        pool.map(_many, [(str(tmp_path), k) for k in range(4)])
    read = ReviewLog(tmp_path).read()
    assert not read.bad_lines and len(read.decisions) == 201


def test_precision_per_check_and_route_with_scipys_wilson_interval(tmp_path: Path) -> None:
    log = ReviewLog(tmp_path)
    for i in range(7):
        review.decide(log, row(f"ok{i}"), "accept", "ana", reference="x")
    for i in range(3):
        review.decide(log, row(f"bad{i}"), "reject", "ana", reason="check_wrong")
    review.decide(log, row("dup"), "reject", "ana", reason="duplicate")  # not a label
    review.decide(
        log, row("n", reason="unsupported_numbers", route="shop"), "accept", "ana", reference="x"
    )
    first = review.decide(log, row("flip"), "accept", "ana", reference="x")
    review.decide(log, row("flip"), "reject", "bo", reason="check_wrong", after=first.id)
    got = {(p.check, p.route): p for p in golden_precision(log.read().decisions)}
    refusal = got[("refusal", "billing")]
    assert (refusal.right, refusal.wrong) == (7, 4)  # the flipped row counts once, as wrong
    ci = binomtest(7, 11).proportion_ci(0.95, method="wilson")
    assert refusal.interval() == pytest.approx((ci.low, ci.high), rel=1e-9)
    assert (
        got[("unsupported_numbers", "shop")].right,
        got[("unsupported_numbers", "shop")].wrong,
    ) == (1, 0)


def test_precision_is_exported_from_the_log_on_scrape(tmp_path: Path) -> None:
    log = ReviewLog(tmp_path)
    registry = CollectorRegistry()
    registry.register(PrecisionCollector(log, LabelLimiter(max_values=1)))
    assert b"ragmon_check_review_precision{" not in generate_latest(registry)
    for i in range(3):
        review.decide(log, row(f"a{i}"), "accept", "ana", reference="x")
    review.decide(log, row("w", route="shop"), "reject", "ana", reason="check_wrong")
    samples = {
        (s.labels["check"], s.labels["route"], s.labels.get("bound") or s.labels["label"]): s.value
        for f in text_string_to_metric_families(generate_latest(registry).decode())
        for s in f.samples
    }
    # billing is the one route allowed; shop's decision folds into "other"
    assert samples[("refusal", "billing", "estimate")] == 1.0
    assert samples[("refusal", "other", "wrong")] == 1.0
    low, high = wilson(3, 3)
    assert samples[("refusal", "billing", "low")] == pytest.approx(low)
    assert samples[("refusal", "billing", "high")] == high == 1.0


def test_published_versions_are_never_rewritten(tmp_path: Path) -> None:
    rows = {r: row(r) for r in ("a", "b")}
    log = ReviewLog(tmp_path)
    review.decide(
        log,
        rows["a"],
        "accept",
        "ana",
        reference="30 days.",
        gold_docs={"doc-2": 2},
        category="answerable",
    )
    out = tmp_path / "set"
    v1, new = review.publish(review.golden_items(rows, log.read().decisions), out)
    assert new and v1.number == 1 and v1.path.name.startswith("golden-v0001-")
    body = v1.path.read_bytes()
    item = json.loads(body)
    assert item["schema"] == "ragmon.golden/v1" and item["gold_docs"] == [
        {"id": "doc-2", "grade": 2}
    ]
    assert item["reviewer"] == "ana" and item["source_trace_ids"] == ["t-a"]
    same, new = review.publish(review.golden_items(rows, log.read().decisions), out)
    assert not new and same == v1
    review.decide(log, rows["b"], "accept", "bo", reference="No.")
    v2, new = review.publish(review.golden_items(rows, log.read().decisions), out)
    assert new and v2.number == 2 and v1.path.read_bytes() == body
    assert [i["id"] for i in review.load_version(v2.path)] == ["a", "b"]
    v1.path.write_bytes(body.replace(b"30 days", b"60 days"))  # edited in place
    with pytest.raises(ReviewError, match="does not match its digest"):
        list(review.load_version(v1.path))


def test_a_published_set_holds_each_question_once_and_is_never_empty(tmp_path: Path) -> None:
    """Two rows of one query (flagged for two reasons) both accepted: the set keeps the
    later decision's item, once; with nothing accepted no version is written."""
    out = tmp_path / "set"
    with pytest.raises(ReviewError, match="empty golden set"):
        review.publish([], out)
    assert not out.exists()
    rows = {"a": row("a", "refusal"), "b": {**row("b", "citation"), "user_input": "Question  A?"}}
    rows["a"]["user_input"] = "question a?"
    log = ReviewLog(tmp_path)
    review.decide(log, rows["a"], "accept", "ana", reference="x")
    review.decide(log, rows["b"], "accept", "bo", reference="y")
    kept, left = review.split_repeats(review.accepted_items(rows, log.read().decisions))
    assert ([i["id"] for i in kept], [i["id"] for i in left]) == (["b"], ["a"])
    assert [i["id"] for i in review.golden_items(rows, log.read().decisions)] == ["b"]
    with pytest.raises(ReviewError, match="ask the same question"):
        review.publish(review.accepted_items(rows, log.read().decisions), out)
    version, _ = review.publish(kept, out)
    assert [i["id"] for i in review.load_version(version.path)] == ["b"]


def test_a_published_set_reads_back_text_with_unicode_line_separators(tmp_path: Path) -> None:
    """A question pasted from a web page holds U+2028 (LINE SEPARATOR); text decoded from
    Windows-1252 as Latin-1 holds U+0085 where "…" was. JSON writes both as they are inside a
    string (RFC 8259 escapes only quotes, backslashes and controls below U+0020), and
    ``str.splitlines`` breaks a line at both: the version could not be read back."""
    items: list[Any] = [
        {"id": "a", "user_input": "Line one\u2028line two?", "reference": "Wait\x85 yes."},
        {"id": "b", "user_input": "Para\u2029graph?", "reference": "x\x1cy"},
    ]
    version, _ = review.publish(items, tmp_path / "set")
    assert list(review.load_version(version.path)) == items
