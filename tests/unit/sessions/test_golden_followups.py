"""A turn the user's next turn said failed becomes a candidate golden row of its own reason,
or joins the row a check already made of the same question; the review page shows the next
turn beside the question."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from monitor.checks import CheckSuite
from monitor.core.model import Evaluation, Followup, Passage, RagTrace, Turn
from monitor.golden import web as review_web
from monitor.golden.export import stats
from monitor.golden.stored import load_rows
from sinks.golden import GoldenRowSink

A = "a" * 32
QUESTION = "How much is the Pro plan? My email is ana@example.com"


def followup(next_query: str, signals: tuple[str, ...], after: str = "clean") -> Followup:
    return Followup(Turn("s1", A, 100.0, QUESTION, after),  # type: ignore[arg-type]
                    Turn("s1", "b" * 32, 160.0, next_query, "clean"), signals)  # fmt: skip


def rows(tmp_path: Path, *followups: Followup, evaluations: tuple[Evaluation, ...] = ()) -> dict:
    sink = GoldenRowSink(tmp_path)
    sink.start()
    for e in evaluations:
        sink.write(e)
    for f in followups:
        sink.write_followup(f)
    sink.flush()
    sink.close()
    return load_rows(tmp_path)


def test_a_rephrase_makes_a_row_with_the_next_turn_beside_the_question(tmp_path: Path) -> None:
    (row,) = rows(tmp_path, followup("how much is the pro plan??", ("rephrase",))).values()
    meta = row["ragmon"]
    assert (meta["reason"], meta["category"], meta["trace_id"]) == ("user_rephrased", None, A)
    assert meta["followup"]["query"] == "how much is the pro plan??"
    assert meta["followup"]["signals"] == ["rephrase"] and meta["followup"]["seconds"] == 60.0
    assert "ana@example.com" not in row["user_input"]  # redacted like every row
    assert "response" not in row  # a follow-up carries the question, not the answer


def test_said_wrong_comes_before_escalated_before_rephrased(tmp_path: Path) -> None:
    signals = ("rephrase", "escalation", "negative_feedback")
    (row,) = rows(tmp_path, followup("no, that's wrong, human pls", signals)).values()
    assert row["ragmon"]["reasons"] == ["user_said_wrong", "user_escalated", "user_rephrased"]


def test_feedback_without_a_failure_makes_no_row(tmp_path: Path) -> None:
    assert rows(tmp_path, followup("thanks!", ("positive_feedback",))) == {}
    assert rows(tmp_path, followup("does it include sso?", ())) == {}


def test_a_row_a_check_made_of_the_same_question_takes_the_reason(tmp_path: Path) -> None:
    """Deduplicated with the check reasons: one row for the question, both reasons on it."""
    trace = RagTrace(
        trace_id=A,
        query=QUESTION,
        answer="I don't know.",
        context=[Passage(text="The Pro plan costs $20 a month.")],
    )
    suite = CheckSuite()
    refused = Evaluation(trace, suite(trace))
    assert refused.checks["refusal"].flagged
    got = rows(tmp_path, followup("how much is the pro plan??", ("rephrase",), "refusal"),
               evaluations=(refused,))  # fmt: skip
    (row,) = got.values()
    assert row["ragmon"]["reason"] == "refusal"
    assert "user_rephrased" in row["ragmon"]["reasons"]
    assert row["ragmon"]["followup"]["after"] == "refusal"
    # golden stats counts the row under both reasons (it showed the first only: a
    # rephrase that joined a check's row never showed)
    said = {ln.split()[0]: ln.split()[1:] for ln in stats(got.values()).splitlines() if ln}
    assert said["refusal"] == ["1", "1"] and said["user_rephrased"] == ["1", "1"]
    assert said["rows:"][:3] == ["1", "occurrences:", "1"]


def test_the_review_page_shows_the_next_turn_beside_the_question(tmp_path: Path) -> None:
    (row,) = rows(tmp_path, followup("let me talk to a <b>person</b>", ("escalation",))).values()
    body = TestClient(review_web.build_app(tmp_path)).get(f"/row/{row['id']}").text
    assert 'id="followup"' in body and "escalation" in body
    assert "let me talk to a &lt;b&gt;person&lt;/b&gt;" in body  # untrusted text, escaped
    assert "not in the row" in body  # the answer is not claimed


def test_the_review_page_says_what_a_follow_up_row_lacks_and_shows_its_route(
    tmp_path: Path,
) -> None:
    """A follow-up row carries no passage and no answer (the turn record is compact): the
    page says they are not in the row, instead of "no passage reached the model" of a trace
    that had passages; the route the turn carries is the row's (it showed "-")."""
    a = Turn("s1", A, 100.0, QUESTION, "refusal", route="pricing")
    b = Turn("s1", "b" * 32, 160.0, "how much is the pro plan??", "clean", route="pricing")
    (row,) = rows(tmp_path, Followup(a, b, ("rephrase",))).values()
    assert row["ragmon"]["route"] == "pricing"
    body = TestClient(review_web.build_app(tmp_path)).get(f"/row/{row['id']}").text
    assert "no passage reached the model" not in body
    assert "not the passages" in body and "route pricing" in body
