"""citation: forms the first common-sense round of citations showed (issue 75, wave 21), each
with the citations beside it that must stay and the look-alikes it must leave uncited."""

from __future__ import annotations

import pytest

from tests.unit.checks.test_citation_brackets import cited

DOCS = ["faq-login", "faq-password"]


@pytest.mark.parametrize(
    ("answer", "ids", "expected"),
    [
        # "source: document 2" in other languages
        ("有給休暇は10日付与されます（出典：文書2）。申請は3日前まで（出典：文書1）。", DOCS,
         (["2", "1"], [])),
        ("Die Frist beträgt drei Monate (Quelle: Dokument 2).", DOCS, (["2"], [])),
        ("Según la fuente 3, tienes 30 días.", DOCS, (["3"], ["3"])),
        ("根据文档2，退款需要7天。", DOCS, (["2"], [])),
        # an id in full-width parentheses
        ("ロックの解除は管理者に依頼できます（faq-admin）。", DOCS, (["faq-admin"], ["faq-admin"])),
        # a markdown link: to a passage, to another page of a passage's site, to elsewhere
        ("Retries back off ([docs](https://docs.acme.io/v2/retries)).",
         ["https://docs.acme.io/v2/retries"], (["https://docs.acme.io/v2/retries"], [])),
        ("Webhooks are signed ([docs](https://docs.acme.io/v3/hooks)).",
         ["https://docs.acme.io/v2/retries"], (["https://docs.acme.io/v3/hooks"],
                                               ["https://docs.acme.io/v3/hooks"])),
        ("Get the installer from [python.org](https://www.python.org/downloads/).",
         ["python-setup-guide"], ([], [])),
        # chemistry, an interval from zero, a unit's power: no citations
        ("At rest, [Ca2+] is near 100 nM while [H+] barely moves.", DOCS, ([], [])),
        ("For a probability p in [0, 1], the odds are p / (1 - p).", DOCS, ([], [])),
        ("Refunds take 5 days [0, 2].", DOCS, (["0", "2"], ["0"])),
        ("The heating is rated at 80 W/m².", DOCS, ([], [])),
        ("The heating is rated at 80 W.²", DOCS, (["2"], [])),
        # a file name or a spaced id in parentheses
        ("Relocation is capped at $5,000 (relocation_policy.pdf).", ["benefits_2024.pdf"],
         (["relocation_policy.pdf"], ["relocation_policy.pdf"])),
        ("Revenue grew 12% (Quarterly Report Q3.pdf).", ["Quarterly Report Q3.pdf"],
         (["Quarterly Report Q3.pdf"], [])),
        # a sources line: a quoted title with a comma is one, an id in a code span is read
        ('Logs are kept a year.\n\nSources: kb-610, "Admin Guide, Chapter 7"', ["kb-610"],
         (["kb-610", "Admin Guide, Chapter 7"], ["Admin Guide, Chapter 7"])),
        ("Sick leave needs no note.\n\n*Sources:* `handbook/leave.md`", ["handbook/leave.md"],
         (["handbook/leave.md"], [])),
        ("Run `handbook/leave.md` through the linter.", ["handbook/leave.md"], ([], [])),
        # an id of words joined by hyphens, in prose written otherwise: the words
        ("Net-metering credits roll over [2].", ["solar-faq", "net-metering"], (["2"], [])),
        ("Credits roll over (net-metering).", ["solar-faq", "net-metering"],
         (["net-metering"], [])),
    ],
)  # fmt: skip
def test_common1_forms(answer: str, ids: list[str], expected: tuple[list[str], list[str]]) -> None:
    assert cited(answer, ids) == expected
