"""A command's outputs are built from the daemon's rows and sections at the command's paths
(``registry.build_command``): replay's golden rows honour ``golden.*`` with ``--golden-dir``
over ``golden.dir``, ``-`` sends the evaluation lines to standard output, and none of the
daemon's own outputs in the config is written by a command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from monitor.commands.cli import build_parser, runner
from monitor.golden.stored import load_rows
from monitor.registry import Outputs


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(argv)
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    path = tmp_path / "traces.jsonl"
    assert _run(["demo", "--count", "300", "--seed", "7", "--output", str(path)])[0] == 0
    return path


def _replay(traces: Path, *argv: str) -> tuple[int, str, str]:
    return _run(["replay", str(traces), "--progress", "never", "--judge", "none", *argv])


def test_replay_golden_rows_honour_the_golden_section(traces: Path, tmp_path: Path) -> None:
    """With the default reasons the rows have several; with ``golden.reasons: [refusal]``
    in the config, only refusal rows are written to ``--golden-dir``."""
    every, only = tmp_path / "every", tmp_path / "only"
    assert _replay(traces, "--golden-dir", str(every))[0] == 0
    reasons = {r["ragmon"]["reason"] for r in load_rows(every).values()}
    assert len(reasons) > 1 and "refusal" in reasons
    config = tmp_path / "ragmon.yaml"
    config.write_text(f"golden:\n  reasons: [refusal]\n  dir: {tmp_path / 'daemon'}\n")
    status, _, err = _replay(traces, "--config", str(config), "--golden-dir", str(only))
    assert status == 0, err
    rows = load_rows(only)
    assert rows and {r["ragmon"]["reason"] for r in rows.values()} == {"refusal"}
    assert f"{len(rows)} new in {only}" in err
    assert not (tmp_path / "daemon").exists()  # --golden-dir over golden.dir


def test_replay_writes_none_of_the_daemons_outputs(traces: Path, tmp_path: Path) -> None:
    """The config's evaluation and dead-letter files, golden dir and store stay unwritten:
    a replay writes where its own options say, and only there."""
    config = tmp_path / "ragmon.yaml"
    config.write_text(
        f"output:\n  evaluations_jsonl: {tmp_path / 'd.jsonl'}\n"
        f"  dead_letters_jsonl: {tmp_path / 'dl.jsonl'}\n"
        f"golden:\n  dir: {tmp_path / 'golden'}\nstore:\n  path: {tmp_path / 's.db'}\n"
    )
    lines = tmp_path / "lines.jsonl"
    status, _, err = _replay(traces, "--config", str(config), "--output-jsonl", str(lines))
    assert status == 0, err
    assert len(lines.read_text().splitlines()) == 300
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lines.jsonl", "ragmon.yaml",
                                                         "traces.jsonl"]  # fmt: skip


def test_evaluation_lines_to_standard_output(
    traces: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--output-jsonl -``: the JSONL row's path ``-`` writes to standard output (no file
    named ``-``), and the summary goes to stderr."""
    status, out, err = _replay(traces, "--output-jsonl", "-")
    assert status == 0, err
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 300 and all(json.loads(x)["trace_id"] for x in printed)
    assert out == "" and "refusal" in err  # the table on stderr
    assert not Path("-").exists()


def test_outputs_name_the_daemons_rows_they_write() -> None:
    assert Outputs().rows() == ()
    assert Outputs(Path("-"), Path("g"), Path("s.db")).rows() == ("jsonl", "golden_rows", "store")
    assert Outputs(golden_dir=Path("g")).rows() == ("golden_rows",)
