"""Alert rules: valid for promtool, and every alert fires and stays quiet where it should."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus"


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool not found: `make test` installs Debian's prometheus package")
    return path


def test_rules_are_valid() -> None:
    """`promtool check rules` accepts the rule file."""
    result = subprocess.run([promtool(), "check", "rules", str(RULES / "rules.yml")],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compose_prometheus_config_is_valid_where_it_lies() -> None:
    """`promtool check config` on the shipped file, outside the container: its rule file
    is named relative to it, so the same path holds in the compose mount and here."""
    result = subprocess.run([promtool(), "check", "config", str(RULES / "prometheus.yml")],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 1 rule files found" in result.stdout + result.stderr


def test_committed_unit_tests_match_the_rules() -> None:
    """rules_test.yml is what gen_rules_test.py produces from the current rules."""
    sys.path.insert(0, str(RULES))
    try:
        import gen_rules_test
    finally:
        sys.path.pop(0)
    assert (RULES / "rules_test.yml").read_text() == gen_rules_test.build()


def test_every_alert_fires_and_stays_quiet(tmp_path: Path) -> None:
    """`promtool test rules`: a firing and a non-firing case per alert, including the
    low-traffic case of the refusal spike. promtool runs a file's tests one after another
    (two minutes for the whole file), so the tests are dealt into one file per core and the
    files run side by side; every test is in exactly one of them."""
    import yaml

    whole = yaml.safe_load((RULES / "rules_test.yml").read_text())
    tests = whole["tests"]
    parts = max(2, os.cpu_count() or 1)
    files = []
    for i in range(parts):
        part = {**whole, "rule_files": [str(RULES / f) for f in whole["rule_files"]],
                "tests": tests[i::parts]}  # fmt: skip
        files.append(tmp_path / f"rules_test_{i}.yml")
        files[-1].write_text(yaml.safe_dump(part, sort_keys=False))
    assert sum(len(yaml.safe_load(f.read_text())["tests"]) for f in files) == len(tests)
    runs = [subprocess.Popen([promtool(), "test", "rules", str(f)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for f in files]  # fmt: skip
    for run in runs:
        out, _ = run.communicate()
        assert run.returncode == 0, out
        assert "SUCCESS" in out


def test_every_alert_has_its_runbook_section() -> None:
    """Each alert's `runbook` annotation names a page and an anchor that exist: a heading
    of that page whose MkDocs anchor (lower case, as the toc extension makes it) it is, so
    an alert never points at nothing (the runbook moved from the README to the docs)."""
    import re

    import yaml

    rules = yaml.safe_load((RULES / "rules.yml").read_text())
    alerts = [r for g in rules["groups"] for r in g["rules"] if "alert" in r]
    assert alerts
    for rule in alerts:
        page, _, anchor = rule["annotations"]["runbook"].partition("#")
        text = (ROOT / page).read_text(encoding="utf-8")
        headings = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                    for h in re.findall(r"(?m)^#+ (.+)$", text)}  # fmt: skip
        assert anchor in headings, f"{rule['alert']}: no section #{anchor} in {page}"
