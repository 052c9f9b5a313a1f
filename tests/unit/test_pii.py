"""PII redaction: recall and precision per type on a labelled corpus, and custom patterns."""

from __future__ import annotations

import pytest

from monitor.core.pii import KINDS, PLACEHOLDER, Redactor, luhn_ok
from tests.pii_corpus import CORPUS


def score(redactor: Redactor) -> dict[str, tuple[float, float]]:
    """kind → (recall, precision) over CORPUS."""
    out: dict[str, tuple[float, float]] = {}
    for kind in KINDS:
        tp = fn = fp = 0
        for k, text, secret in CORPUS:
            if k != kind:
                continue
            redacted = redactor.redact(text)
            if secret is not None:
                hit = secret not in redacted and PLACEHOLDER.format(kind) in redacted
                tp += hit
                fn += not hit
            elif "[REDACTED:" in redacted:
                fp += 1
        out[kind] = (tp / max(tp + fn, 1), tp / max(tp + fp, 1))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_recall_and_precision_per_type(kind: str) -> None:
    """Every type finds its positives and leaves its look-alikes alone."""
    recall, precision = score(Redactor())[kind]
    assert recall == 1.0, kind
    assert precision == 1.0, kind


@pytest.mark.parametrize(("kind", "text", "secret"), [c for c in CORPUS if c[2] is not None])
def test_each_positive_is_replaced_by_its_type(kind: str, text: str, secret: str) -> None:
    """The secret is gone and a placeholder of the right type stands in its place."""
    redacted = Redactor().redact(text)
    assert secret not in redacted
    assert PLACEHOLDER.format(kind) in redacted


def test_counts_by_type() -> None:
    """Redactions are counted by type (for metrics)."""
    counts: dict[str, int] = {}
    Redactor().redact("mail a@b.io or c@d.io, card 4111 1111 1111 1111", counts)
    assert counts == {"EMAIL": 2, "CARD": 1}


def test_custom_pattern_from_config() -> None:
    """A configured pattern gets its own placeholder type, before the built-ins."""
    redactor = Redactor({"customer_id": r"\bCUST-\d{6}\b"})
    assert redactor.redact("ticket for CUST-123456") == "ticket for [REDACTED:CUSTOMER_ID]"


def test_luhn() -> None:
    """The Luhn check accepts valid card numbers and rejects a changed digit."""
    assert luhn_ok("4111111111111111")
    assert not luhn_ok("4111111111111112")


def test_one_redaction_rule_for_everything_written_or_sent() -> None:
    """Candidate rows always; evaluation lines unless output.redact_pii is off (whichever
    sink writes them); the judge's input only when judge.redact_pii is on; all with the
    golden patterns."""
    from monitor.config import Settings
    from monitor.core.pii import redactor_for

    default = Settings()
    assert redactor_for(default, "rows") is not None and redactor_for(default, "lines")
    assert redactor_for(default, "judge") is None
    custom = Settings.model_validate({
        "output": {"redact_pii": False}, "judge": {"redact_pii": True},
        "golden": {"pii_patterns": {"ticket": r"TK-\d{6}"}},
    })  # fmt: skip
    assert redactor_for(custom, "lines") is None
    judge = redactor_for(custom, "judge")
    assert judge is not None and "TK-123456" not in judge.redact("ticket TK-123456 opened")
