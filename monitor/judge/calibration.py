"""How far the judge can be trusted: agreement with human labels.

``calibrate`` runs a judge over human-labelled traces and reports raw agreement, Cohen's
kappa, the confusion matrix, and — for the hard-fail decision — sensitivity and specificity
with 95% Wilson intervals. With those, an observed hard-fail rate can be corrected for the
judge's errors (Rogan–Gladen): ``(p + specificity - 1) / (sensitivity + specificity - 1)``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.core.stats import wilson
from monitor.core.verdict import VERDICTS


@dataclass
class Calibration:
    """The judge measured against human labels: agreement, kappa, hard-fail sensitivity and
    specificity."""

    judge: str
    model: str
    rubric_version: str
    n: int
    agreement: float
    agreement_ci: tuple[float, float]
    kappa: float
    sensitivity: float | None  # of hard_fail, against the human label
    sensitivity_ci: tuple[float, float]
    specificity: float | None
    specificity_ci: tuple[float, float]
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)  # human -> judge -> n
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def mismatch(self, judge: str, model: str, rubric_version: str) -> str | None:
        """Why this record does not describe the judge ``judge`` (``model``, under
        ``rubric_version``), or None when it does. A record measured on another judge, model
        or rubric says nothing of this one's errors: correcting with it would be a guess."""
        ours = (self.judge, self.model, self.rubric_version)
        theirs = (judge, model, rubric_version)
        if ours == theirs:
            return None
        return (
            f"the record was measured on judge {self.judge} (model {self.model}, rubric "
            f"{self.rubric_version}), the running judge is {judge} (model {model}, rubric "
            f"{rubric_version}); run `ragmon calibrate -o` with this judge"
        )

    def corrected_rate(self, observed: float) -> float | None:
        """Rogan–Gladen: the hard-fail prevalence implied by an observed judge rate."""
        if self.sensitivity is None or self.specificity is None:
            return None
        denom = self.sensitivity + self.specificity - 1
        if denom <= 0:
            return None
        return min(1.0, max(0.0, (observed + self.specificity - 1) / denom))

    def to_json(self) -> str:
        """The record as JSON text (what ``save`` writes and ``load`` reads)."""
        return json.dumps(asdict(self), indent=2) + "\n"

    def save(self, path: Path) -> None:
        """Write the record as JSON to ``path``."""
        path.write_text(self.to_json())

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read a record written by ``save``."""
        data: dict[str, Any] = json.loads(path.read_text())
        for key in ("agreement_ci", "sensitivity_ci", "specificity_ci"):
            data[key] = tuple(data[key])
        return cls(**data)


def cohen_kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa of (human, judge) label pairs."""
    n = len(pairs)
    if not n:
        return 0.0
    observed = sum(a == b for a, b in pairs) / n
    human = Counter(a for a, _ in pairs)
    judge = Counter(b for _, b in pairs)
    expected = sum(human[k] * judge[k] for k in set(human) | set(judge)) / (n * n)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def calibrate(pairs: Iterable[tuple[str, str]], judge: str, model: str, rubric: str) -> Calibration:
    """``pairs`` of (human label, judge verdict)."""
    pairs = list(pairs)
    n = len(pairs)
    agree = sum(a == b for a, b in pairs)
    confusion: dict[str, dict[str, int]] = {h: dict.fromkeys(VERDICTS, 0) for h in VERDICTS}
    for h, j in pairs:
        row = confusion.setdefault(h, dict.fromkeys(VERDICTS, 0))
        row[j] = row.get(j, 0) + 1
    pos = [(h, j) for h, j in pairs if h == "hard_fail"]
    neg = [(h, j) for h, j in pairs if h != "hard_fail"]
    tp = sum(j == "hard_fail" for _, j in pos)
    tn = sum(j != "hard_fail" for _, j in neg)
    return Calibration(
        judge=judge, model=model, rubric_version=rubric, n=n,
        agreement=agree / n if n else 0.0, agreement_ci=wilson(agree, n),
        kappa=cohen_kappa(pairs),
        sensitivity=tp / len(pos) if pos else None, sensitivity_ci=wilson(tp, len(pos)),
        specificity=tn / len(neg) if neg else None, specificity_ci=wilson(tn, len(neg)),
        confusion=confusion,
    )  # fmt: skip


def report(cal: Calibration) -> str:
    """The calibration as a report for people."""
    lo, hi = cal.agreement_ci
    lines = [
        f"judge {cal.judge} ({cal.model}), rubric {cal.rubric_version}, {cal.n} labelled traces",
        f"agreement {cal.agreement:.1%}  [{lo:.1%}, {hi:.1%}]   Cohen's kappa {cal.kappa:.3f}",
    ]
    if cal.sensitivity is not None:
        lo, hi = cal.sensitivity_ci
        lines.append(f"hard_fail sensitivity {cal.sensitivity:.1%}  [{lo:.1%}, {hi:.1%}]")
    if cal.specificity is not None:
        lo, hi = cal.specificity_ci
        lines.append(f"hard_fail specificity {cal.specificity:.1%}  [{lo:.1%}, {hi:.1%}]")
    head = "human / judge".ljust(16) + "".join(f"{v:>16}" for v in VERDICTS)
    lines += ["", head]
    for h in VERDICTS:
        row = cal.confusion.get(h, {})
        total = sum(row.values())
        cells = ""
        for j in VERDICTS:
            k = row.get(j, 0)
            lo, hi = wilson(k, total)
            cells += f"{k:>5} [{lo:>4.0%},{hi:>4.0%}]" if total else f"{0:>16}"
        lines.append(f"{h:<16}{cells}")
    return "\n".join(lines)


def agreement_line(metric: str, pairs: list[tuple[str, str]], unit: str = "traces") -> str:
    """One line of agreement on a metric of its own (answer relevance, per-passage context
    relevance): share agreed with its 95 % Wilson interval and Cohen's kappa, or why none."""
    if not pairs:
        return f"{metric}: no labelled {unit} the judge rated"
    agree = sum(a == b for a, b in pairs)
    lo, hi = wilson(agree, len(pairs))
    return (f"{metric}: agreement {agree / len(pairs):.1%}  [{lo:.1%}, {hi:.1%}]   Cohen's kappa "
            f"{cohen_kappa(pairs):.3f}  ({len(pairs)} {unit})")  # fmt: skip
