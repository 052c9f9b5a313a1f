"""``ragmon replay --store`` and ``ragmon inspect``: a trace's evidence and a session's turns
from the store; an unknown id is one line and status 1, an unreadable store status 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from monitor.commands.cli import main

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
    assert main(["replay", str(path), "--store", str(store), "--progress", "never"],
                stderr=io.StringIO()) == 0  # fmt: skip
    return store


def _run(argv: list[str], capsys: object) -> tuple[int, str, str]:
    err = io.StringIO()
    capsys.readouterr()  # type: ignore[attr-defined]  # the replay's summary
    status = main(argv, stderr=err)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    return status, out, err.getvalue()


def test_a_trace_is_printed_with_its_evidence_and_follow_up(tmp_path: Path, capsys: object) -> None:
    store = _conversation(tmp_path)
    status, out, _ = _run(["inspect", "--store", str(store), A.upper()], capsys)
    assert status == 0
    assert "unsupported_numbers  flagged: figures not in the context: 25 euros" in out
    assert "[1] fees: The refund fee is 15 euros." in out
    assert f"follow-up: trace {B}, 30.0 s later: escalation" in out
    assert "session conv-1: escalated after 2 turns" in out


def test_a_session_shows_its_turns_in_order_and_its_outcome(tmp_path: Path, capsys: object) -> None:
    store = _conversation(tmp_path)
    status, out, _ = _run(["inspect", "--store", str(store), "--session", "conv-1"], capsys)
    assert status == 0
    assert out.index(A) < out.index(B)
    assert "outcome: escalated after 2 turns" in out
    status, out, _ = _run(["inspect", "--store", str(store), "--session", "conv-1", "--json"],
                          capsys)  # fmt: skip
    lines = [json.loads(x) for x in out.splitlines()]
    assert [("checks" in x, "followup" in x, "session" in x) for x in lines] == [
        (True, False, False), (False, True, False), (True, False, False), (False, False, True)
    ]  # fmt: skip


def test_an_unknown_id_is_one_line_and_status_1(tmp_path: Path, capsys: object) -> None:
    store = _conversation(tmp_path)
    status, out, err = _run(["inspect", "--store", str(store), "c" * 32], capsys)
    assert (status, out, err) == (1, "", f"ragmon inspect: no trace {'c' * 32} in {store}\n")
    status, _, err = _run(["inspect", "--store", str(store), "--session", "nope"], capsys)
    assert status == 1 and err.count("\n") == 1


def test_an_unreadable_store_is_one_line_and_status_2(tmp_path: Path, capsys: object) -> None:
    status, _, err = _run(["inspect", "--store", str(tmp_path / "none.db"), A], capsys)
    assert status == 2 and err == f"ragmon inspect: no store at {tmp_path / 'none.db'}\n"
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    status, _, err = _run(["inspect", "--store", str(tmp_path / "junk.db"), A], capsys)
    assert status == 2 and err.count("\n") == 1 and "is not a store" in err
