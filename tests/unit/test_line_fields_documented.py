"""Every field of the evaluation line's types (``monitor.core.lines``) is named in the page
that documents the line, docs/evaluation-lines.md: a field added to the type and not to the
page is found here (``adjusted_count`` was written for two waves and named only in the trace
record's page; ``risk_error`` came with this test)."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from monitor.core.lines import CheckLine, EvaluationLine, FollowupLine, FollowupPart

PAGE = Path(__file__).resolve().parents[2] / "docs" / "evaluation-lines.md"


def undocumented(kind: type, page: str) -> list[str]:
    """The fields of the line type ``kind`` that ``page`` never names (as `x` or "x")."""
    return [k for k in typing.get_type_hints(kind) if f"`{k}`" not in page
            and f'"{k}"' not in page]  # fmt: skip


@pytest.mark.parametrize("kind", [EvaluationLine, CheckLine, FollowupPart, FollowupLine])
def test_every_field_is_named_in_the_page(kind: type) -> None:
    assert undocumented(kind, PAGE.read_text(encoding="utf-8")) == []


def test_a_field_missing_from_the_page_is_found() -> None:
    class Grown(EvaluationLine, total=False):
        a_field_nobody_documented: str

    assert undocumented(Grown, PAGE.read_text(encoding="utf-8")) == ["a_field_nobody_documented"]
