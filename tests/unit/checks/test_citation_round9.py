"""citation, the ninth blind round (issue 75): a date or time format in capitals is a
placeholder; each with the citations beside it that must stay."""

from __future__ import annotations

import pytest

from monitor.checks import Citation, TraceView
from monitor.core.model import RagTrace

check = Citation()


def cited(answer: str, ids: list[str]) -> tuple[list[str], list[str]]:
    """(cited, invalid) ids of ``answer`` over passages with ``ids``."""
    trace = RagTrace.from_data(
        {
            "trace_id": "0" * 31 + "1",
            "answer": answer,
            "context": [{"doc_id": i, "text": f"Text of {i}."} for i in ids],
        }
    )
    line = check(TraceView(trace)).evidence.to_line()
    return line.get("cited", []), line.get("invalid", [])


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Write dates as [DD/MM/YYYY] and never use [TBD] in published copy.", ([], [])),
        ("Use the [YYYY-MM-DD] form in file names [style-guide].", (["style-guide"], [])),
        ("Times are written [HH:MM] on the rota [1].", (["1"], [])),
        ("German copy writes [DD.MM.YYYY] dates [2].", (["2"], [])),
        ("Stamp each entry [HH:MM:SS].", ([], [])),
        # hard negatives: ids and citations in capitals still cite
        ("See the house rules [HR-POLICY].", (["HR-POLICY"], ["HR-POLICY"])),
        ("See the house rules [STYLE-GUIDE].", (["STYLE-GUIDE"], [])),
        ("Dates follow the guide [1][2].", (["1", "2"], [])),
    ],
)
def test_a_date_or_time_format_is_a_placeholder(
    answer: str, expected: tuple[list[str], list[str]]
) -> None:
    """ "[DD/MM/YYYY]" is a placeholder in capitals, as "[YOUR_API_KEY]" is: no citation (it
    was cited as an id, and invalid)."""
    assert cited(answer, ["style-guide", "dates"]) == expected
