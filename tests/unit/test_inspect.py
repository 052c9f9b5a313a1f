"""``ragmon replay --store`` and ``ragmon inspect``: a trace's evidence and a session's turns
from the store; an unknown id is one line and status 1, an unreadable store status 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from monitor.commands.cli import build_parser, runner

CTX = [{"doc_id": "fees", "text": "The refund fee is 15 euros. Refunds take 5 days."}]
A, B = "a" * 32, "b" * 32


def _conversation(tmp_path: Path) -> Path:
    rows = [
        {"trace_id": A, "timestamp": "2026-12-01T10:00:00Z", "route": "billing",
         "session_id": "conv-1", "query": "How much is the refund fee?", "context": CTX,
         "answer": "The refund fee is 25 euros."},
        {"trace_id": B, "timestamp": "2026-12-01T10:00:30Z", "route": "billing",
         "session_id": "conv-1", "query": "That's wrong. Let me talk to a human agent please.",
         "context": CTX, "answer": "I can't help with that."},
    ]  # fmt: skip
    path = tmp_path / "conv.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = tmp_path / "store.db"
    status, _, _ = _call(["replay", str(path), "--store", str(store), "--progress", "never"])
    assert status == 0
    return store


def _call(argv: list[str]) -> tuple[int, str, str]:
    """The command run as ``ragmon`` runs it (its status, stdout, stderr), without the
    logging setup of ``main``."""
    args = build_parser().parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


def test_a_trace_is_printed_with_its_evidence_and_follow_up(tmp_path: Path) -> None:
    store = _conversation(tmp_path)
    status, out, _ = _call(["inspect", "--store", str(store), A.upper()])
    assert status == 0
    assert "unsupported_numbers  flagged: figures not in the context: 25 euros" in out
    assert "[1] fees: The refund fee is 15 euros." in out
    assert f"follow-up: trace {B}, 30.0 s later: escalation" in out
    assert "session conv-1: escalated after 2 turns" in out


def test_a_session_shows_its_turns_in_order_and_its_outcome(tmp_path: Path) -> None:
    store = _conversation(tmp_path)
    status, out, _ = _call(["inspect", "--store", str(store), "--session", "conv-1"])
    assert status == 0
    assert out.index(A) < out.index(B)
    assert "outcome: escalated after 2 turns" in out
    argv = ["inspect", "--store", str(store), "--session", "conv-1", "--json"]
    status, out, _ = _call(argv)
    lines = [json.loads(x) for x in out.splitlines()]
    assert [("checks" in x, "followup" in x, "session" in x) for x in lines] == [
        (True, False, False), (False, True, False), (True, False, False), (False, False, True)
    ]  # fmt: skip


def test_an_unknown_id_is_one_line_and_status_1(tmp_path: Path) -> None:
    store = _conversation(tmp_path)
    status, out, err = _call(["inspect", "--store", str(store), "c" * 32])
    assert (status, out, err) == (1, "", f"ragmon inspect: no trace {'c' * 32} in {store}\n")
    status, _, err = _call(["inspect", "--store", str(store), "--session", "nope"])
    assert status == 1 and err.count("\n") == 1


def test_an_unreadable_store_is_one_line_and_status_2(tmp_path: Path) -> None:
    status, _, err = _call(["inspect", "--store", str(tmp_path / "none.db"), A])
    assert status == 2 and err == f"ragmon inspect: no store at {tmp_path / 'none.db'}\n"
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    status, _, err = _call(["inspect", "--store", str(tmp_path / "junk.db"), A])
    assert status == 2 and err.count("\n") == 1 and "is not a store" in err
