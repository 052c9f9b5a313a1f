"""PII in evaluation lines: quoted pieces of an item are redacted, everything else stays."""

from __future__ import annotations

from monitor.core.pii import Redactor
from sinks.jsonl import redact_line

ANSWER = "Card 4111 1111 1111 1111 was charged $45 [1]. Mail jane@example.com."


def line() -> dict[str, object]:
    return {
        "checks": {
            "citation": {"flagged": False, "evidence": {"cited": ["1"], "invalid": [], "valid": 1}},
            "unsupported_numbers": {"flagged": True,
                                    "evidence": {"numbers": ["4111", "1111", "$45"], "checked": 5}},
        },
        "judge": {"claims": [{"label": "ABSENT", "text": "Mail jane@example.com."}]},
    }  # fmt: skip


def test_figures_read_out_of_a_card_number_are_redacted_as_the_card() -> None:
    out = redact_line(line(), Redactor(), (ANSWER,))
    checks = out["checks"]
    assert checks["unsupported_numbers"]["evidence"]["numbers"] == [
        "[REDACTED:CARD]", "[REDACTED:CARD]", "$45",
    ]  # fmt: skip
    assert out["judge"]["claims"][0]["text"] == "Mail [REDACTED:EMAIL]."


def test_a_piece_that_also_stands_outside_the_item_stays() -> None:
    """The citation index "1" occurs inside the card number and as "[1]": it stays."""
    out = redact_line(line(), Redactor(), (ANSWER,))
    assert out["checks"]["citation"]["evidence"] == {"cited": ["1"], "invalid": [], "valid": 1}
    assert out["checks"]["unsupported_numbers"]["evidence"]["checked"] == 5
