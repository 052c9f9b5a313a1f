"""Every metric the docs quote with its labels (``ragmon_x_total{a, b}`` or
``ragmon_x_total{a="v"}``) exists, and each label it names is one of the metric's: first-steps
said ``ragmon_check_results_total{check, outcome, route}`` where the label is ``result``."""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client import CollectorRegistry, Info

from monitor import registry

ROOT = Path(__file__).resolve().parents[2]
QUOTED = re.compile(r"(ragmon_[a-z0-9_]*[a-z0-9])\{([^}]*)\}")
EVERY_SERIES = {"le", "quantile"}  # a histogram's and a summary's own


def _daemon() -> dict[str, set[str] | None]:
    """Each series name the daemon's registry declares, and its labels (None: an info
    metric, whose labels are its value)."""
    metrics = registry.build_metrics(CollectorRegistry())
    out: dict[str, set[str] | None] = {}
    for collector, names in metrics.registry._collector_to_names.items():
        declared = getattr(collector, "_labelnames", None)  # a collector of its own: none
        if declared is None and not isinstance(collector, Info):
            continue  # read from the code that declares it (_declared_elsewhere)
        labels = None if isinstance(collector, Info) else set(declared or ())
        out |= {name: labels for name in names}
    return out


def _declared_elsewhere(family: str) -> set[str] | None:
    """A metric declared outside the daemon's registry (a collector of its own, the parent
    of ``run --workers``, the probes, the review log): the quoted names around its
    declaration in the code (its labels among them), or None when the code never names it."""
    for path in [*ROOT.glob("monitor/**/*.py"), *ROOT.glob("sinks/*.py")]:
        text = path.read_text()
        at = text.find(f'"{family}"')
        if at >= 0:
            window = text[max(0, at - 300) : at + 800]
            return set(re.findall(r"\"([a-z_]+)\"", window))
    return None


def _quoted() -> list[tuple[str, str, list[str]]]:
    out = []
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for name, inside in QUOTED.findall(page.read_text()):
            labels = [re.split(r"[!=~]", x.strip(), maxsplit=1)[0] for x in inside.split(",")]
            out.append((page.name, name, [x for x in labels if x]))
    return out


def test_every_metric_the_docs_quote_with_labels_has_those_labels() -> None:
    """Name and labels against the metric's declaration (the daemon's registry, else the
    code that declares it)."""
    daemon = _daemon()
    wrong = []
    quoted = _quoted()
    assert len(quoted) > 30  # the pattern still finds the docs' quotes
    for page, name, labels in quoted:
        family = re.sub(r"_(total|count|sum|bucket|info|created)$", "", name)
        if name in daemon:
            known = daemon[name]
            if known is None:
                continue  # an info metric: its labels are its value
        else:
            found = _declared_elsewhere(family)
            if found is None:
                wrong.append(f"{page}: {name} is no metric of ragmon's")
                continue
            known = found
        wrong += [f"{page}: {name} has no label {x}" for x in labels
                  if x not in known | EVERY_SERIES]  # fmt: skip
    assert wrong == []
