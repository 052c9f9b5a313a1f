"""Every module of ``monitor/`` and ``sinks/`` holds at most ``LIMIT`` lines of code: blank
lines, comments and docstrings not counted (a module past it is split into cohesive ones,
as ``checks/numbers/derived.py`` and ``core/model.py`` were)."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 400
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
             tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}  # fmt: skip


def code_lines(source: str) -> int:
    """The lines of ``source`` that hold code: a token other than a comment or layout, on a
    line that is no part of a docstring (a module's, class's or function's first string)."""
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):  # fmt: skip
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    code: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            code.update(range(tok.start[0], tok.end[0] + 1))
    return len(code - docs)


def modules() -> list[Path]:
    return sorted(p for d in ("monitor", "sinks") for p in (ROOT / d).rglob("*.py"))


def test_the_count_leaves_out_blank_lines_comments_and_docstrings() -> None:
    source = '"""Module.\n\nMore."""\n\n# a comment\nx = 1  # counted\n\n\ndef f() -> str:\n' \
             '    """Doc."""\n    return """a\nb"""\n'  # fmt: skip
    assert code_lines(source) == 4  # x, def, return's two lines (a string, not a docstring)


def test_the_count_flags_a_module_over_the_limit() -> None:
    assert code_lines("x = 1\n" * (LIMIT + 1)) > LIMIT


def test_every_module_is_at_most_400_lines_of_code() -> None:
    """A module over the limit fails (none is excepted)."""
    over = {str(p.relative_to(ROOT)): n for p in modules()
            if (n := code_lines(p.read_text(encoding="utf-8"))) > LIMIT}  # fmt: skip
    assert len(modules()) > 100, "the modules were not found"
    assert over == {}, f"modules over {LIMIT} lines of code: {over}"
