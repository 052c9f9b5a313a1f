"""What ``ragmon replay`` says of its judge (issue 71.6): the sampling it runs as it is
configured (by risk, not the flagged-mode sentence), and, when no sampled trace got a
verdict, what happened to them, in words, with no pointer to log lines that were not
written."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from monitor.commands.cli import build_parser, runner


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(argv)
    return runner(args.command)(args, out, err), err.getvalue()


def _traces(tmp_path: Path, n: int = 40) -> Path:
    path = tmp_path / "traces.jsonl"
    assert _run(["demo", "--count", str(n), "--seed", "3", "--output", str(path)])[0] == 0
    return path


def _replay(argv: list[str]) -> tuple[int, str]:
    return _run(["replay", *argv])


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released: connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_sampling_by_risk_is_said_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMON_JUDGE__SAMPLING__BY", "risk")
    code, err = _replay([str(_traces(tmp_path)), "--judge", "heuristic"])
    assert code == 0, err
    assert "by risk: 0.05 at risk 0 rising to 0.5 at risk 1" in err
    assert "flagged 0.5" not in err  # the flagged mode's sentence (before: this one)
    monkeypatch.setenv("RAGMON_JUDGE__SAMPLING__BY", "flagged")
    code, err = _replay([str(_traces(tmp_path)), "--judge", "heuristic"])
    assert code == 0 and "base rate 0.05, flagged 0.5" in err


def test_a_judge_that_cannot_be_reached_is_said_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real refused connection (no server on the port), the SDK not retrying."""
    monkeypatch.setenv("RAGMON_JUDGE__OPENAI__BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    monkeypatch.setenv("RAGMON_JUDGE__OPENAI__API_KEY", "not-a-key")
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    monkeypatch.setenv("RAGMON_JUDGE__MAX_RETRIES", "0")
    monkeypatch.setenv("RAGMON_JUDGE__SAMPLING__BASE_RATE", "1")
    code, err = _replay([str(_traces(tmp_path, 12)), "--judge", "openai"])
    assert code == 1
    (said,) = [line for line in err.splitlines() if "no sampled trace could be judged" in line]
    assert "by the openai judge:" in said and "could not reach its server" in said
    assert "log lines above" not in said  # none were written (before: "see the log lines ...")
    assert "the checks' results above stand" in said
