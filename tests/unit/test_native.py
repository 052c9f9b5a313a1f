"""The compiled build of the checks (deploy/compile.py, mypyc) runs only when it matches its
sources: a changed source falls back to the interpreted module, never to stale code; under
`make test` the compiled build must be the one running."""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
from pathlib import Path

import pytest

from monitor.checks import context, native

ROOT = Path(__file__).resolve().parents[2]


def fake_build(tmp_path: Path, suffix: str | None = None) -> Path:
    """A copy of the checks' sources with a manifest as deploy/compile.py writes it."""
    import sys

    sys.path.insert(0, str(ROOT / "deploy"))
    try:
        import compile as builder
    finally:
        sys.path.remove(str(ROOT / "deploy"))
    shutil.copytree(ROOT / "monitor", tmp_path / "monitor",
                    ignore=shutil.ignore_patterns("_native", "__pycache__"))  # fmt: skip
    here = tmp_path / "monitor" / "checks"
    (here / "_native").mkdir()
    manifest = {"suffix": suffix or sysconfig.get_config_var("EXT_SUFFIX"),
                "sources": builder.source_hashes(here)}  # fmt: skip
    (here / "_native" / "manifest.json").write_text(json.dumps(manifest))
    return here


def test_a_build_runs_only_while_it_matches_its_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGMON_COMPILED", raising=False)
    here = fake_build(tmp_path)
    assert native.status(here) == ("compiled", "")
    (here / "context.py").write_text((here / "context.py").read_text() + "\n# edited\n")
    build, why = native.status(here)
    assert build == "interpreted" and "context.py changed" in why
    model = fake_build(tmp_path / "model")  # a module the compiled ones were checked against
    (model.parent / "core" / "model.py").write_text(
        (model.parent / "core" / "model.py").read_text() + "\n"
    )
    assert native.status(model)[1].startswith("../core/model.py changed")
    other = fake_build(tmp_path / "other", suffix=".cpython-39-x86_64-linux-gnu.so")
    assert native.status(other) == ("interpreted", "compiled for another Python")
    assert native.status(tmp_path / "nowhere")[1].startswith("not compiled")
    monkeypatch.setenv("RAGMON_COMPILED", "0")
    assert native.status(fake_build(tmp_path / "off")) == ("interpreted", "RAGMON_COMPILED=0")


@pytest.mark.skipif(
    os.environ.get("TEST_EXPECT_COMPILED") != "1",
    reason="make test compiles the checks (deploy/compile.py --mode require)",
)
def test_make_test_runs_the_compiled_checks() -> None:
    if os.environ.get("RAGMON_COMPILED") == "0":
        assert native.BUILD == "interpreted"  # the verdict guard's interpreted run
        return
    assert native.BUILD == "compiled", native.WHY
    assert str(context.__file__).endswith(sysconfig.get_config_var("EXT_SUFFIX"))


def test_a_source_edited_while_the_build_runs_is_not_taken_for_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build compiles a copy of the sources taken at its start; the manifest named the
    tree as it was at the end, so a module edited while mypyc ran (a minute) was taken for
    built and its stale code ran. The manifest now names the sources that were compiled.
    (The compiler is stood in for: it edits the tree and leaves an empty module.)"""
    import sys

    sys.path.insert(0, str(ROOT / "deploy"))
    try:
        import compile as builder
    finally:
        sys.path.remove(str(ROOT / "deploy"))
    monkeypatch.delenv("RAGMON_COMPILED", raising=False)
    shutil.copytree(ROOT / "monitor", tmp_path / "monitor",
                    ignore=shutil.ignore_patterns("_native", "__pycache__"))  # fmt: skip
    here = tmp_path / "monitor" / "checks"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")

    def build(what: str, args: list[str], cwd: Path, **env: str) -> None:
        if what == "mypyc":  # the developer saves a change meanwhile
            (here / "context.py").write_text((here / "context.py").read_text() + "\n# edited\n")
        for m in (*builder.COMPILED, *builder.C_MODULES):
            out = cwd / "monitor" / "checks" / (m.removesuffix(".py").removesuffix(".c") + suffix)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(b"")

    monkeypatch.setattr(builder, "_build", build)
    builder.compile_checks(tmp_path)
    build_state, why = native.status(here)
    assert build_state == "interpreted" and "context.py changed" in why
