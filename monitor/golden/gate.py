"""``ragmon compare --gate GATE.yaml``: a ship gate on the golden rows that matter.

A mean over every probe absorbs a regression on five trap rows when twenty happy-path rows
improve a little; a gate does not. Each rule names a golden category (a trap category of the
review, or ``all``), a metric of the comparison and a test on that category's paired probes:

* ``no_drop``: release B's mean may not fall below A's by more than ``tolerance``. On a
  category of at least ``min_pairs_for_test`` pairs the drop must also be significant (the
  exact sign test's p below ``alpha``) to fail, so noise on a large category does not block
  a release; on a smaller one (trap categories are small) any drop beyond the tolerance
  fails;
* ``max`` / ``min``: B's mean must stay at most / at least ``value`` (± ``tolerance``).

A rule whose category has no paired probe fails (``on_empty: fail``, the default: a gate
that checked nothing must not pass) or is skipped (``on_empty: skip``). Each failed rule
names the probes that got worse (``no_drop``) or that miss the bound (``max`` / ``min``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from xml.etree import ElementTree as ET

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from monitor.golden.compare import Comparison, MetricComparison, compare_values
from monitor.golden.review import TRAP_CATEGORIES

ALL = "all"


class GateRule(BaseModel):
    """One rule: a category, a metric and the test the release must pass on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str = Field(description=f"a trap category ({', '.join(TRAP_CATEGORIES)}) or 'all'")
    metric: str = Field(description="a metric of ragmon compare (answered_ok, recall@retrieved, …)")
    rule: Literal["no_drop", "max", "min"]
    value: float | None = Field(default=None, description="the bound of a max or min rule")
    tolerance: float = Field(default=0.0, ge=0, description="slack on the drop or the bound")
    name: str | None = Field(default=None, description="shown in reports (default: derived)")

    @model_validator(mode="after")
    def _bound(self) -> GateRule:
        if self.category != ALL and self.category not in TRAP_CATEGORIES:
            raise ValueError(
                f"category {self.category!r} is not one of {', '.join((*TRAP_CATEGORIES, ALL))}"
            )
        if self.rule in ("max", "min") and self.value is None:
            raise ValueError(f"a {self.rule} rule needs a value")
        if self.rule == "no_drop" and self.value is not None:
            raise ValueError("a no_drop rule compares the releases: it takes no value")
        return self

    @property
    def label(self) -> str:
        """The rule's name in reports."""
        if self.name:
            return self.name
        bound = f" {self.value:g}" if self.value is not None else ""
        return f"{self.category}: {self.metric} {self.rule}{bound}"


class Gate(BaseModel):
    """A gate file: its rules and the statistics of ``no_drop`` on large categories."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: list[GateRule] = Field(min_length=1)
    min_pairs_for_test: int = Field(default=30, ge=2)
    alpha: float = Field(default=0.05, gt=0, lt=1)
    on_empty: Literal["fail", "skip"] = "fail"


class GateError(ValueError):
    """A gate file that cannot be used (unreadable, not YAML, or not a gate)."""


def load_gate(path: Path, metrics: tuple[str, ...]) -> Gate:
    """The gate in ``path``; ``GateError`` naming the file and the first problem, including
    a metric that ``ragmon compare`` does not compute (a check's ``flagged:<name>`` is one)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        gate = Gate.model_validate(data)
    except OSError as exc:
        raise GateError(f"cannot read the gate {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise GateError(f"the gate {path} is not YAML: {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise GateError(f"the gate {path}: {where}: {first['msg']}") from exc
    for rule in gate.rules:
        if rule.metric not in metrics:
            raise GateError(f"the gate {path}: metric {rule.metric!r} is not one of "
                            f"{', '.join(metrics)}")  # fmt: skip
    return gate


@dataclass
class RuleOutcome:
    """One rule's result: passed, failed or skipped, with why and the probes behind it."""

    rule: GateRule
    status: Literal["passed", "failed", "skipped"]
    message: str
    stats: MetricComparison | None = None
    probes: list[str] = field(default_factory=list)


@dataclass
class GateReport:
    """Every rule's outcome."""

    outcomes: list[RuleOutcome]

    @property
    def failed(self) -> list[RuleOutcome]:
        """The rules the release failed."""
        return [o for o in self.outcomes if o.status == "failed"]

    def table(self) -> str:
        """One line per rule, and the probes of each failed one."""
        lines = [f"gate: {len(self.failed)} of {len(self.outcomes)} rules failed"]
        for o in self.outcomes:
            lines.append(f"  {o.status.upper():<7} {o.rule.label}: {o.message}")
            if o.status == "failed" and o.probes:
                shown = ", ".join(o.probes[:20])
                more = f" and {len(o.probes) - 20} more" if len(o.probes) > 20 else ""
                lines.append(f"          probes: {shown}{more}")
        return "\n".join(lines)

    def as_dict(self) -> list[dict[str, object]]:
        """The outcomes as JSON-ready data."""
        return [{"rule": o.rule.label, "status": o.status, "message": o.message,
                 "probes": o.probes} for o in self.outcomes]  # fmt: skip

    def junit(self, suite: str = "ragmon gate") -> bytes:
        """The outcomes as JUnit XML: one test case per rule, a failure per failed rule."""
        root = ET.Element("testsuites")
        skipped = sum(o.status == "skipped" for o in self.outcomes)
        counts = {"tests": len(self.outcomes), "failures": len(self.failed), "errors": 0,
                  "skipped": skipped}  # fmt: skip
        ts = ET.SubElement(
            root, "testsuite", {"name": suite} | {k: str(v) for k, v in counts.items()}
        )
        for o in self.outcomes:
            case = ET.SubElement(ts, "testcase", classname=f"gate.{o.rule.category}",
                                 name=o.rule.label)  # fmt: skip
            if o.status == "failed":
                failure = ET.SubElement(case, "failure", message=o.message, type=o.rule.rule)
                failure.text = "probes: " + ", ".join(o.probes) if o.probes else o.message
            elif o.status == "skipped":
                ET.SubElement(case, "skipped", message=o.message)
        out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
        return out


def run_gate(gate: Gate, comparison: Comparison, categories: dict[str, str]) -> GateReport:
    """Each rule of ``gate`` on the paired probes of its category (``categories``: golden id
    -> category)."""
    return GateReport([_outcome(gate, rule, comparison, categories) for rule in gate.rules])


def _outcome(
    gate: Gate, rule: GateRule, comparison: Comparison, categories: dict[str, str]
) -> RuleOutcome:
    pairs = [
        p for p in comparison.pairs.get(rule.metric, [])
        if rule.category == ALL or categories.get(p[0]) == rule.category
    ]  # fmt: skip
    if not pairs:
        status: Literal["failed", "skipped"] = "failed" if gate.on_empty == "fail" else "skipped"
        return RuleOutcome(rule, status, f"no probe of {rule.category} paired on {rule.metric}")
    stats = compare_values(rule.metric, pairs)
    if rule.rule == "no_drop":
        worse = [gid for gid, a, b in pairs if b < a - 1e-12]
        drop = -stats.diff
        tested = stats.pairs >= gate.min_pairs_for_test
        msg = (f"{stats.pairs} pairs, {stats.mean_a:.3f} -> {stats.mean_b:.3f} ({stats.diff:+.3f},"
               f" 95% {stats.low:+.3f} .. {stats.high:+.3f}), {stats.worse} worse, "
               f"{stats.better} better")  # fmt: skip
        if drop > rule.tolerance + 1e-12 and (not tested or stats.p_value < gate.alpha):
            why = f"sign p {stats.p_value:.3g} < {gate.alpha}" if tested else "any drop fails"
            return RuleOutcome(rule, "failed", f"dropped beyond {rule.tolerance:g}: {msg}; "
                               f"{why}", stats, worse)  # fmt: skip
        return RuleOutcome(rule, "passed", msg, stats)
    assert rule.value is not None
    mean = stats.mean_b
    if rule.rule == "max":
        broke = mean > rule.value + rule.tolerance + 1e-12
        off = [gid for gid, _, b in pairs if b > rule.value]
    else:
        broke = mean < rule.value - rule.tolerance - 1e-12
        off = [gid for gid, _, b in pairs if b < rule.value]
    msg = f"{stats.pairs} probes, {comparison.release_b} {mean:.3f} (bound {rule.value:g})"
    return RuleOutcome(rule, "failed" if broke else "passed", msg, stats, off if broke else [])
