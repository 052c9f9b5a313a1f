"""The checks' C kernels (monitor/checks/text_kernels.c) built with AddressSanitizer and
UndefinedBehaviorSanitizer, fed random passages in a fresh interpreter and compared with
their Python references: a read past a buffer, an overflow or a wrong answer fails here, not
in a daemon."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "monitor" / "checks" / "text_kernels.c"

pytestmark = pytest.mark.integration

FUZZ = """
import random, sys
sys.path.insert(0, sys.argv[1])
import text_kernels as c
from monitor.checks import kernels  # RAGMON_COMPILED=0: the Python references
assert kernels.EXACT
rnd = random.Random(int(sys.argv[2]))
alphabet = b"ab. 0123456789.  \\x00\\xff"
for _ in range(int(sys.argv[3])):
    a, b = (bytes(rnd.choice(alphabet) for _ in range(rnd.choice(
        [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 40, 300, 2000]))) for _ in range(2))
    ka, kb = c.keys(a), c.keys(b)
    assert c.count(ka) == kernels.count(kernels.keys(a)), a
    assert c.shares(ka, kb) == kernels.shares(kernels.keys(a), kernels.keys(b)), (a, b)
    assert c.contains(a, b[:4]) == kernels.contains(a, b[:4]), (a, b)
    for answer in (a[:12], b[:5] + a[:9]):  # from the context in part, or not
        assert c.phrasing(answer, b, a[:3], 1 + len(a) % 4) == kernels.phrasing(
            answer, b, a[:3], 1 + len(a) % 4), (answer, b)
print("ok")
"""


def _asan_runtime(cc: str) -> str | None:
    found = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True)
    path = found.stdout.strip()
    return path if found.returncode == 0 and os.path.isabs(path) else None


def test_the_c_kernels_hold_under_the_sanitizers(tmp_path: Path) -> None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    runtime = _asan_runtime(cc) if shutil.which(cc) else None
    if runtime is None:
        pytest.skip("no C compiler with AddressSanitizer here")
    built = tmp_path / ("text_kernels" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(
        [cc, "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer", "-fPIC", "-shared", f"-I{sysconfig.get_paths()['include']}",
         str(SOURCE), "-o", str(built)],
        check=True,
    )  # fmt: skip
    env = {**os.environ, "LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0",
           "RAGMON_COMPILED": "0", "PYTHONPATH": str(ROOT)}  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-c", FUZZ, str(tmp_path), "7", "30000"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]
