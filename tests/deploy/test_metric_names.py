"""Every metric the daemon exposes passes ``promtool check metrics`` without a warning: its
names follow Prometheus's conventions (base units, ``_total`` counters)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from monitor import registry


def test_every_metric_name_passes_promtool_without_warnings() -> None:
    """The daemon's registry as a scrape shows it (every family's HELP and TYPE, labelled
    ones included): promtool exits 0 and says nothing (it warned that the document-age
    histogram was in days, not the base unit seconds)."""
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool not found: `make test` installs Debian's prometheus package")
    metrics = registry.build_metrics(CollectorRegistry())
    scrape = generate_latest(metrics.registry)
    assert b"ragmon_input_passages_bucket" in scrape  # the input histograms are in it
    checked = subprocess.run([promtool, "check", "metrics"], input=scrape,
                             capture_output=True, timeout=60)  # fmt: skip
    said = (checked.stdout + checked.stderr).decode()
    assert (checked.returncode, said) == (0, ""), said
