"""Every evaluation line carries ``risk`` (issue 75: "one evaluation line without risk in a
replay of 600 public traces"). The line without it was a follow-up line: a conversation of two
turns among the traces writes, after both evaluation lines, ``{"trace_id", "session_id",
"followup"}`` keyed by the first turn's trace id, with no ``checks`` and no ``risk``; a reader
that takes every line with a ``trace_id`` for an evaluation line (or the last line of a trace
id for its evaluation) reads that one as a trace without risk. Held here: over the OTLP
corpus (spans of real instrumentation, conversations among them) and over native traces of
every shape the risk treats apart (empty answer, whitespace, empty or blank context, a
refusal, checks that do not apply, a check that raises on nothing), every line with checks
has a risk in [0, 1], and every line without one is a follow-up or session line."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from monitor.commands.cli import main
from tests import otel_corpus

SHAPES: list[tuple[str, list[str]]] = [
    ("", ["Refunds take 5 days."]),
    ("   ", ["Refunds take 5 days."]),
    ("Refunds take 5 days.", []),
    ("Refunds take 5 days.", ["", " "]),
    ("", []),
    ("I'm sorry, I cannot help with that.", ["Refunds take 5 days."]),
    ("I don't know.", []),
    ("Yes.", ["Refunds take 5 days."]),
    ("5", ["5"]),
    ("the of and", ["x"]),
    ("Refunds take 7 days [3].", ["Refunds take 5 days.", "Refunds take 7 days."]),
    ("Starter supports up to 5 million monthly active users.",
     ["Starter supports up to 500,000 monthly active users."]),
]  # fmt: skip


def _replay(path: Path, out: Path) -> list[dict[str, Any]]:
    argv = ["replay", str(path), "--output-jsonl", str(out), "--judge", "none"]
    assert main([*argv, "--progress", "never"], stderr=io.StringIO()) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _assert_risk_on_every_evaluation_line(lines: list[dict[str, Any]]) -> int:
    """The number of lines without checks (follow-up and session lines)."""
    others = 0
    for line in lines:
        if "checks" in line:
            assert isinstance(line.get("risk"), float), line
            assert 0.0 <= line["risk"] <= 1.0, line
        else:  # not an evaluation line: about a turn or a session evaluated before
            assert "followup" in line or "session" in line, line
            assert "risk" not in line
            others += 1
    return others


@pytest.mark.parametrize("stack", ["langgraph-react-openinference", "google-adk-genai"])
def test_the_lines_without_risk_are_follow_up_lines(
    stack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A corpus file with a conversation of two turns: its follow-up line is the one line
    with a trace id and without risk, and the trace it names has an evaluation line with a
    risk before it."""
    lines = _replay(otel_corpus.HERE / f"{stack}.otlp.jsonl", tmp_path / "out.jsonl")
    assert _assert_risk_on_every_evaluation_line(lines) >= 1
    followups = [i for i, line in enumerate(lines) if "followup" in line]
    assert followups
    for i in followups:
        turn = lines[i]["trace_id"]
        assert any(line.get("trace_id") == turn and "risk" in line for line in lines[:i])


def test_every_trace_shape_has_a_risk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Empty or blank answers and contexts, refusals, checks that do not apply: each trace's
    evaluation line has a risk."""
    path = tmp_path / "shapes.jsonl"
    path.write_text("".join(
        json.dumps({"trace_id": f"{i + 1:032x}", "query": "q?", "answer": answer,
                    "context": [{"doc_id": f"d{j}", "text": t} for j, t in enumerate(texts)]})
        + "\n" for i, (answer, texts) in enumerate(SHAPES)
    ), encoding="utf-8")  # fmt: skip
    lines = _replay(path, tmp_path / "out.jsonl")
    assert len(lines) == len(SHAPES)
    assert _assert_risk_on_every_evaluation_line(lines) == 0
