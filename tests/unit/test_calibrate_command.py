"""``ragmon calibrate`` measures the judge on the traces the daemon would judge."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from monitor.commands.cli import build_parser, runner
from monitor.core.model import RagTrace
from monitor.judge.stage import judgeable


def _run(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    out, err = io.StringIO(), io.StringIO()
    return runner(args.command)(args, out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    code, text, _ = _run("demo", "--count", "300", "--with-labels")
    assert code == 0
    path = tmp_path / "labels.jsonl"
    path.write_text(text)
    return path


def test_traces_the_daemon_never_judges_are_left_out_and_said(labels: Path) -> None:
    """The demo's empty retrievals have no context to judge: the daemon skips them
    (not_judgeable), so their verdicts are not part of the judge's agreement (they were
    counted as agreeing fail verdicts); the report says how many were left, by label."""
    rows = [json.loads(x) for x in labels.read_text().splitlines()]
    left: dict[str, int] = {}
    for row in rows:
        label = row.pop("label")
        if not judgeable(RagTrace.from_data(row)):
            left[label] = left.get(label, 0) + 1
    assert left, "the demo has traces with nothing to judge"
    code, out, _ = _run("calibrate", "--labels", str(labels))
    assert code == 0
    assert f"{len(rows) - sum(left.values())} labelled traces" in out.splitlines()[0]
    said = ", ".join(f"{n} {label}" for label, n in sorted(left.items()))
    assert (f"left out: {sum(left.values())} labelled rows the daemon never judges "
            in out) and out.rstrip().find(f"labelled {said}") > 0  # fmt: skip


def test_only_unjudgeable_rows_is_exit_1_and_says_why(labels: Path, tmp_path: Path) -> None:
    rows = [json.loads(x) for x in labels.read_text().splitlines()]
    empty = [r for r in rows if not judgeable(RagTrace.from_data(
        {k: v for k, v in r.items() if k != "label"}))]  # fmt: skip
    only = tmp_path / "empty.jsonl"
    only.write_text("".join(json.dumps(r) + "\n" for r in empty))
    code, _, err = _run("calibrate", "--labels", str(only))
    assert code == 1
    assert "no usable labelled rows" in err and "the daemon never judges" in err


def test_a_row_whose_text_holds_a_unicode_line_separator_is_one_row(
    labels: Path, tmp_path: Path
) -> None:
    """U+2028 and U+0085 stand inside a JSON string as they are (``ensure_ascii=False``);
    the labels file is split at newlines only, so such a row is read, not two bad lines."""
    rows = [json.loads(x) for x in labels.read_text().splitlines()]
    row = next(r for r in rows if judgeable(RagTrace.from_data(
        {k: v for k, v in r.items() if k != "label"})))  # fmt: skip
    row["query"] = "Line one\u2028line two\x85 three?"
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = _run("calibrate", "--labels", str(one))
    assert code == 0 and "1 labelled traces" in out.splitlines()[0] and "line 2" not in err
