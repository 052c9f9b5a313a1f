"""Small things a new user's walk found (issue 71): each error says what to do in one line,
with the status the exit-status table gives, and a value written as YAML writes it reads as
YAML reads it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from monitor.commands.cli import build_parser, runner
from monitor.config import load
from monitor.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(argv)
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


def test_a_time_not_understood_lists_the_forms_taken(tmp_path: Path) -> None:
    """`explain --since yesterday` names the three forms a time is given in (it said
    "Invalid isoformat string")."""
    lines = tmp_path / "e.jsonl"
    lines.write_text("")
    code, _, err = run(["explain", str(lines), "--since", "yesterday"])
    assert code == 2
    assert err.count("\n") <= 1
    assert "'yesterday' is not a time" in err
    assert "2026-12-01T00:00:00Z" in err and "Unix seconds" in err and "2h" in err


def test_a_text_file_is_said_to_be_of_no_known_format(tmp_path: Path) -> None:
    """A text file is sniffed as length-prefixed protobuf (anything not JSON is); when
    nothing decodes, replay says the input is text of no known format, not that no trace
    was understood "(otlp-proto)"."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello world\nthis is text, not traces\n")
    code, _, err = run(["replay", str(notes)])
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("ragmon replay: no trace evaluated: the input is text of no known")
    assert "otlp-proto" not in last


def test_an_unknown_row_is_exit_1_as_an_unknown_trace_is(tmp_path: Path) -> None:
    """`golden review --row deadbeef` asked for a row that is not there: status 1, as
    `inspect` with an unknown id (it was 2, a usage error)."""
    code, _, err = run(["golden", "review", "--dir", str(tmp_path), "--row", "deadbeef",
                        "--accept", "--reviewer", "me"])  # fmt: skip
    assert code == 1
    assert "no candidate row 'deadbeef'" in err


def test_invalid_yaml_is_one_line(tmp_path: Path) -> None:
    """The YAML error's what and where in one line (it was three, with a caret)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("source:\n  type: kafka\n   bad: [\n")
    with pytest.raises(ConfigError) as caught:
        load(bad)
    said = str(caught.value)
    assert "\n" not in said
    assert said.endswith("is not valid YAML: mapping values are not allowed here at line 3, "
                         "column 7")  # fmt: skip


@pytest.mark.parametrize("written", ["null", "Null", "NULL", "~", " ~ "])
def test_every_yaml_null_clears_a_key(
    written: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key the file set is cleared by any of YAML's spellings of null (NULL and ~ were a
    directory of that name)."""
    config = tmp_path / "c.yaml"
    config.write_text("golden:\n  dir: /var/lib/ragmon/golden\n")
    monkeypatch.setenv("RAGMON_GOLDEN__DIR", written)
    assert load(config).golden.dir is None


@pytest.mark.parametrize("written", ["", "   ", "\t"])
def test_a_blank_value_is_not_set(
    written: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whitespace only is as empty: the file's value stays (it was a directory named by
    the blanks), and a number key keeps its default."""
    config = tmp_path / "c.yaml"
    config.write_text("golden:\n  dir: /var/lib/ragmon/golden\n")
    monkeypatch.setenv("RAGMON_GOLDEN__DIR", written)
    monkeypatch.setenv("RAGMON_METRICS__PORT", written)
    settings = load(config)
    assert settings.golden.dir == Path("/var/lib/ragmon/golden")
    assert settings.metrics.port == 9464


def test_calibrate_help_says_what_is_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["calibrate", "--help"])
    assert "not_judgeable) are left out of the measure" in " ".join(capsys.readouterr().out.split())


def test_rescore_page_names_promtools_block_duration() -> None:
    """A long window backfills in blocks of promtool's choosing unless it is told."""
    assert "--max-block-duration" in (ROOT / "docs/rescore.md").read_text()
