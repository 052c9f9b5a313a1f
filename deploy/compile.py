"""Compile the checks with mypyc, from the same source, beside the interpreted package.

    python deploy/compile.py [--mode auto|1|require|0] [--root DIR]

``--mode`` (default: ``$RAGMON_MYPYC``, else ``auto``):

* ``auto`` / ``1``: compile when a C compiler and the Python headers are present, else say
  why not and leave the interpreted package as it is (exit 0);
* ``require``: a failed or impossible compile is an error (exit 1): the container image and
  CI build this way;
* ``0``: remove a compiled build (the interpreted package runs).

The compiled modules go to ``monitor/checks/_native/`` under ``--root`` (the directory that
holds the ``monitor`` package: the source tree, or site-packages), with a manifest of the
sources they were built from; ``monitor.checks.native`` puts them in front of the
interpreted modules at import when they match their sources (a changed source falls back to
the interpreted module: rebuild with ``make compile``). mypy (mypyc) is installed when
missing; the compile runs in a temporary copy so nothing is written into the source tree but
``_native/``. The same step builds the C modules of ``C_MODULES`` (with setuptools, which
mypyc uses too): a primitive each, whose Python reference the interpreted build runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MYPY = "mypy==2.4.1"  # the version the compiled build is tested with
# The modules compiled: the checks' logic and the view they share (compiled, the checks
# reach its properties without the interpreter: the suite ~10 % faster). Not the packages'
# __init__ (they choose the build), the evidence and option types (compiled
# classes cannot subclass the interpreted Evidence and pydantic bases), the config, the
# shadow runner and the cue loader (start-up only).
COMPILED = (
    "text.py", "memo.py", "cues.py", "refusal.py", "unsupported.py", "context.py",
    "citation.py", "citation_markers.py", "citation_ids.py", "citation_lists.py",
    "citation_prose.py",
    "numbers/computed.py", "numbers/counts.py", "numbers/derived.py", "numbers/forms.py",
    "numbers/quantities.py", "numbers/measures.py", "numbers/years.py", "numbers/spelled.py",
    "numbers/index.py", "numbers/mentions.py", "numbers/patterns.py", "numbers/hedges.py",
    "numbers/shown.py", "numbers/grouped.py", "numbers/ordinals.py", "numbers/rates.py",
    "numbers/zones.py", "numbers/weekdays.py",
    "numbers/premise.py", "numbers/across.py", "view.py", "names.py",
)  # fmt: skip
# C modules built beside them: primitives whose cost is C-level work mypyc cannot cut (each
# has its interpreted reference in Python, the interpreted build's code).
C_MODULES = ("text_kernels.c",)
_SETUP_C = """from setuptools import Extension, setup
setup(name="ragmon-checks-c", script_args=["build_ext", "--inplace"], ext_modules=[
    Extension("monitor.checks." + name.removesuffix(".c"), ["monitor/checks/" + name],
              extra_compile_args=["-O3"])
    for name in {names!r}
])
"""
_MYPY_INI = """[mypy]
strict = True
python_version = 3.11
plugins = pydantic.mypy
[mypy-ahocorasick,bpe_openai,fasttext,kafka.*,google.protobuf.*,google.rpc.*,opentelemetry.proto.*]
ignore_missing_imports = True
"""


def _why_not() -> str | None:
    """Why this machine cannot compile C extensions, or None."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc} not found)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers ({headers} missing)"
    return None


def _mypyc() -> None:
    """Install mypy (mypyc) when it is missing."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print(f"compile: installing {MYPY}", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", MYPY], check=True)


# Besides the compiled modules, the interpreted ones their compiled code was checked against:
# a change to any of them also sends the checks back to the interpreted build.
DEPENDS = (
    "__init__.py", "numbers/__init__.py", "evidence.py", "options.py", "kernels.py",
    "../core/model.py", "../core/lines.py",
)  # fmt: skip


def source_hashes(checks: Path) -> dict[str, str]:
    """The SHA-256 of each compiled module's source under ``checks`` (monitor/checks), and of
    the interpreted modules they were compiled against."""
    return {m: hashlib.sha256((checks / m).read_bytes()).hexdigest()
            for m in (*COMPILED, *C_MODULES, *DEPENDS)}  # fmt: skip


def _build(what: str, args: list[str], cwd: Path, **env: str) -> None:
    """Run this Python with ``args`` in ``cwd``; a failure is a RuntimeError with its tail."""
    run = subprocess.run([sys.executable, *args], cwd=cwd, env={**os.environ, **env},
                         capture_output=True, text=True)  # fmt: skip
    if run.returncode != 0:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"{what} failed:\n{tail}")


def compile_checks(root: Path) -> tuple[int, float]:
    """Compile ``COMPILED`` of ``root``/monitor/checks with mypyc, and build ``C_MODULES``,
    into its ``_native`` directory: (modules, seconds)."""
    checks = root / "monitor" / "checks"
    native = checks / "_native"
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ragmon-mypyc-") as tmp:
        work = Path(tmp)
        shutil.copytree(root / "monitor", work / "monitor",
                        ignore=shutil.ignore_patterns("_native", "__pycache__"))  # fmt: skip
        (work / "mypy.ini").write_text(_MYPY_INI)
        files = [f"monitor/checks/{m}" for m in COMPILED]
        _build("mypyc", ["-m", "mypyc", *files], work, MYPYC_OPT_LEVEL="3")
        (work / "setup_c.py").write_text(_SETUP_C.format(names=C_MODULES))
        _build("the C modules' build", ["setup_c.py"], work)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        if native.exists():
            shutil.rmtree(native)
        native.mkdir(parents=True)
        built = 0
        for m in (*COMPILED, *C_MODULES):
            built_name = m.removesuffix(".py").removesuffix(".c") + suffix
            so = work / "monitor" / "checks" / built_name
            target = native / built_name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, target)
            built += 1
        for shared in work.glob(f"*__mypyc{suffix}"):  # the modules' shared runtime
            shutil.copy2(shared, native / shared.name)
        # the sources that were compiled, from the copy: a source edited while the build ran
        # differs from them, so the build is not taken for it (it was, when the tree was read)
        sources = source_hashes(work / "monitor" / "checks")
    seconds = time.monotonic() - t0
    manifest = {"suffix": suffix, "sources": sources, "seconds": round(seconds, 1)}
    (native / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return built, seconds


def _up_to_date(native: Path) -> bool:
    """A build is there, for this Python, from the sources as they are now."""
    try:
        manifest = json.loads((native / "manifest.json").read_text())
        current = source_hashes(native.parent)
    except (OSError, ValueError):
        return False
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return bool(manifest.get("suffix") == suffix and manifest.get("sources") == current)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("auto", "1", "require", "0"),
                        default=os.environ.get("RAGMON_MYPYC") or "auto")  # fmt: skip
    parser.add_argument(
        "--root",
        type=Path,
        default=HERE.parent,
        help="the directory holding the monitor package (default: this tree)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    args = parser.parse_args()
    native = args.root / "monitor" / "checks" / "_native"
    if args.mode == "0":
        shutil.rmtree(native, ignore_errors=True)
        print("checks: interpreted (RAGMON_MYPYC=0)")
        return 0
    if not args.force and _up_to_date(native):
        print("checks: compiled with mypyc (up to date with their sources)")
        return 0
    why = _why_not()
    if why is not None:
        print(f"checks: interpreted: {why}", file=sys.stderr if args.mode == "require" else
              sys.stdout)  # fmt: skip
        return 1 if args.mode == "require" else 0
    try:
        _mypyc()
        print("checks: compiling with mypyc (once; one core's work: about 20 s on an idle "
              "machine, several times that on a busy one; RAGMON_MYPYC=0 skips it)",
              flush=True)  # fmt: skip
        built, seconds = compile_checks(args.root)
    except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
        print(f"checks: interpreted: the compile failed: {exc}", file=sys.stderr)
        return 1 if args.mode == "require" else 0
    print(f"checks: compiled with mypyc ({built} modules in {seconds:.0f} s); "
          "RAGMON_COMPILED=0 runs the interpreted ones")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
