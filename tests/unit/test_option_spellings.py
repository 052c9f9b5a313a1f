"""One spelling of a record format is documented (the config's, ``otlp_json``) and every
spelling is taken everywhere: replay and convert took only ``otlp-json``, rescore and the
config only ``otlp_json``; replay takes ``-o`` as convert does (it was a usage error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.commands.cli import build_parser
from monitor.config import Settings


@pytest.mark.parametrize("written", ["otlp-json", "otlp_json", "OTLP_JSON"])
def test_every_command_takes_either_spelling(written: str) -> None:
    """replay, convert and rescore read the same format from either spelling."""
    parse = build_parser().parse_args
    assert parse(["replay", "x", "--format", written]).format == "otlp-json"
    assert parse(["convert", "x", "--from", written]).fmt == "otlp-json"
    assert parse(["rescore", "--since", "1h", "--format", written]).format == "otlp_json"


def test_the_config_takes_either_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    """source.kafka.format from the environment, written with a hyphen."""
    monkeypatch.setenv("RAGMON_SOURCE__KAFKA__FORMAT", "otlp-proto")
    assert Settings().source.kafka.format == "otlp_proto"


def test_the_help_shows_one_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    """Every command's help names the formats as the config does."""
    for command in ("replay", "convert", "rescore"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        text = capsys.readouterr().out
        assert "otlp_json" in text and "otlp-json" not in text, command


def test_an_unknown_format_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["replay", "x", "--format", "otlp-yaml"])
    err = capsys.readouterr().err
    assert "invalid choice: 'otlp-yaml' (choose from auto, native, otlp_json, otlp_proto)" in err


def test_replay_takes_dash_o() -> None:
    """`replay x -o y` as `convert x -o y`."""
    args = build_parser().parse_args(["replay", "x", "-o", "y"])
    assert args.output_jsonl == Path("y")
