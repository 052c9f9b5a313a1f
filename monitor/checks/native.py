"""Which build of the checks runs: the modules ``deploy/compile.py`` compiled with mypyc
(``_native/``, from the same source), or the interpreted ones.

The compiled modules are put in front of the interpreted ones (the packages' ``__path__``)
when they exist, were built for this Python, match their sources byte for byte, and the
interpreted modules they were compiled against too (a source changed since the compile falls
back to the interpreted modules, never runs stale code), and
``RAGMON_COMPILED`` is not ``0``. ``BUILD`` says which it is and ``WHY`` why not compiled; the
daemon logs both at start and exports them (``ragmon_build``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
NATIVE = HERE / "_native"


def status(here: Path = HERE) -> tuple[str, str]:
    """("compiled", "") or ("interpreted", why) for the checks package at ``here``."""
    if os.environ.get("RAGMON_COMPILED", "1") == "0":
        return "interpreted", "RAGMON_COMPILED=0"
    try:
        manifest = json.loads((here / "_native" / "manifest.json").read_text())
    except FileNotFoundError:
        return "interpreted", "not compiled (make compile)"
    except (OSError, ValueError) as exc:
        return "interpreted", f"unreadable compile manifest: {exc}"
    if manifest.get("suffix") != sysconfig.get_config_var("EXT_SUFFIX"):
        return "interpreted", "compiled for another Python"
    for name, digest in sorted(manifest.get("sources", {}).items()):
        try:
            now = hashlib.sha256((here / name).read_bytes()).hexdigest()
        except OSError:
            now = ""
        if now != digest:
            return "interpreted", f"{name} changed since it was compiled (make compile)"
    return "compiled", ""


BUILD, WHY = status()


def extend(path: list[str], sub: str = "") -> None:
    """Put the compiled modules of a package (``monitor.checks``, or its ``sub`` package)
    in front of its interpreted ones, when the compiled build runs."""
    if BUILD != "compiled":
        return
    path.insert(0, str(NATIVE / sub if sub else NATIVE))
    if str(NATIVE) not in sys.path:  # the compiled modules' shared runtime is a top-level one
        sys.path.append(str(NATIVE))


def c_module(name: str) -> ModuleType:
    """The compiled build's C module ``name`` (``monitor.checks.<name>``; see ``C_MODULES``
    in deploy/compile.py), imported by name: a module of this package reaches it without
    importing the package itself (no import circle through ``monitor.checks``)."""
    return importlib.import_module(f"monitor.checks.{name}")
