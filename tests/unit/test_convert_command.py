"""``ragmon convert`` tells the format from the file and takes ``-o``, as ``replay`` does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from monitor.commands.cli import build_parser, runner

CORPUS = Path(__file__).resolve().parents[1] / "otel_corpus"


def _run(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    out, err = io.StringIO(), io.StringIO()
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("name", "fmt"), [("openai-genai.otlp", "otlp-proto"), ("openai-genai.otlp.jsonl", "otlp-json")]
)
def test_the_format_is_told_from_the_file(tmp_path: Path, name: str, fmt: str) -> None:
    """No --from: the same records as with the format named (--from was required)."""
    sniffed, named = tmp_path / "sniffed.jsonl", tmp_path / "named.jsonl"
    assert _run("convert", str(CORPUS / name), "-o", str(sniffed))[0] == 0
    assert _run("convert", str(CORPUS / name), "--from", fmt, "--output-jsonl", str(named))[0] == 0
    assert sniffed.read_text() == named.read_text() and sniffed.read_text()


def test_the_records_go_to_stdout_unless_named() -> None:
    code, out, err = _run("convert", str(CORPUS / "openai-genai.otlp"))
    assert code == 0 and out.count("\n") >= 1 and "traces mapped" in err


def test_native_records_are_refused_in_one_line(tmp_path: Path) -> None:
    native = tmp_path / "native.jsonl"
    native.write_text(_run("demo", "--count", "2")[1])
    code, out, err = _run("convert", str(native))
    assert (code, out) == (1, "")
    assert err.splitlines() == [f"ragmon convert: {native} holds native records, not OTLP "
                                "spans: nothing to convert (ragmon replay evaluates native "
                                "records)"]  # fmt: skip
