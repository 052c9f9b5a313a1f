"""``ragmon explain FILE --since T [--until U]``: two periods from one stream of evaluation
lines, by each line's time (the trace's ``timestamp``), as the drift reports compare the last
hour with the days before it."""

from __future__ import annotations

import io
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from monitor.commands.cli import build_parser, runner
from monitor.core.model import Evaluation, RagTrace
from monitor.segments.windows import seconds, split

START = datetime(2026, 11, 1, tzinfo=UTC)


def _line(rng: random.Random, i: int, es_rate: float) -> dict[str, Any]:
    language = "es" if rng.random() < 0.3 else "en"
    flagged = rng.random() < (es_rate if language == "es" else 0.05)
    return {"trace_id": f"{i:032x}", "timestamp": (START + timedelta(minutes=i)).isoformat(),
            "checks": {"refusal": {"flagged": flagged, "applicable": True, "evidence": {}}},
            "segments": {"language": language}, "inputs": {}}  # fmt: skip


def _stream(path: Path) -> Path:
    """4,000 lines a minute apart: Spanish refusals rise from 5 % to 45 % at line 2,000."""
    rng = random.Random(1)
    lines = [_line(rng, i, 0.05 if i < 2000 else 0.45) for i in range(4000)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(argv)
    code = runner(args.command)(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_one_file_split_at_since_names_the_planted_cause(tmp_path: Path) -> None:
    path = _stream(tmp_path / "e.jsonl")
    since = (START + timedelta(minutes=2000)).isoformat()
    code, out, err = run(["explain", str(path), "--since", since])
    assert code == 0, err
    assert "2000 -> 2000 traces" in out and "\n  cause: language=es: its rate " in out
    assert "2000 lines" in err  # the periods are said
    # --until ends the period after: the half hour after the change is its own window
    until = (START + timedelta(minutes=2030)).isoformat()
    code, out, err = run(["explain", str(path), "--since", since, "--until", until])
    assert code == 0, err
    assert "2000 -> 30 traces" in out and "left out 1970 lines at or after --until" in err


def test_a_window_before_the_change_finds_no_cause(tmp_path: Path) -> None:
    path = _stream(tmp_path / "e.jsonl")
    since, until = ((START + timedelta(minutes=m)).isoformat() for m in (1000, 2000))
    code, out, err = run(["explain", str(path), "--since", since, "--until", until])
    assert code == 0, err
    assert "no significant change" in out and "cause:" not in out


def test_follow_up_lines_take_their_turns_time_and_untimed_lines_are_counted() -> None:
    lines: list[Any] = [
        {"trace_id": "a", "timestamp": "2026-11-01T00:00:00Z", "checks": {}, "session_id": "s"},
        {"trace_id": "a", "followup": {"by": "b", "seconds": 5, "signals": [], "after": "clean"}},
        {"trace_id": "c", "checks": {}},  # no time
        {"trace_id": "c", "followup": {"by": "d", "seconds": 5, "signals": [], "after": "clean"}},
        {"trace_id": "e", "timestamp": "2026-11-01T02:00:00", "checks": {}},  # no zone: UTC
        {"trace_id": "f", "timestamp": "not a time", "checks": {}},
    ]
    got = split(lines, seconds("2026-11-01T01:00:00Z") or 0.0)
    assert [line["trace_id"] for line in got.before] == ["a", "a"]
    assert [line["trace_id"] for line in got.after] == ["e"]
    assert got.untimed == 3


def test_what_cannot_be_split_is_one_line(tmp_path: Path) -> None:
    path = _stream(tmp_path / "e.jsonl")
    code, _, err = run(["explain", str(path)])
    assert code == 2 and "one file needs --since" in err
    code, _, err = run(["explain", str(path), str(path), "--since", "2026-11-01T00:00:00Z"])
    assert code == 2 and "two files are the two periods already" in err
    code, _, err = run(["explain", str(path), "--since", "2026-11-02T00:00:00Z",
                        "--until", "2026-11-01T00:00:00Z"])  # fmt: skip
    assert code == 2 and "--since must be before --until" in err
    code, _, err = run(["explain", str(path), "--since", "yesterday"])
    assert code == 2 and "--since/--until" in err
    code, _, err = run(["explain", str(path), "--since", "2027-01-01T00:00:00Z"])
    assert code == 1 and "no evaluation line from --since on" in err
    assert "2026-11-01T00:00:00Z to 2026-11-03T18:39:00Z" in err  # the file's times
    untimed = tmp_path / "old.jsonl"  # lines written before they carried a time
    untimed.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items()
                                           if k != "timestamp"}) + "\n"
                               for line in path.read_text().splitlines()))  # fmt: skip
    code, _, err = run(["explain", str(untimed), "--since", "2026-11-01T00:00:00Z"])
    assert code == 1 and "left out 4000 lines with no time" in err and "no line has a time" in err


def test_the_evaluation_line_carries_the_traces_time() -> None:
    trace = RagTrace.from_data(
        {"trace_id": "1" * 32, "query": "q", "answer": "a", "timestamp": "2026-11-01T00:00:00Z"}
    )
    line = Evaluation(trace, {}).to_line()
    assert seconds(line["timestamp"]) == START.timestamp()
    untimed = RagTrace.from_data({"trace_id": "2" * 32, "query": "q", "answer": "a"})
    assert "timestamp" not in Evaluation(untimed, {}).to_line()
