"""citation, the tenth blind round (issue 75): each rule with the citations beside it that
must stay and the look-alikes it must leave uncited."""

from __future__ import annotations

import pytest

from tests.unit.checks.test_citation_brackets import cited


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The backoff is `delays=[2, 4, 8]` [2].", (["2"], [])),
        ("Timeouts are `[30, 60]` [1], and the default is `None` [2].", (["1", "2"], [])),
        ("Set it with `limit=5` [3].", (["3"], ["3"])),
        ("The flag is ```\nretries=[1, 2]\n``` [1]", (["1"], [])),
        # hard negatives: the bracket right after the word, no code between; a value inside
        # the code; a code span earlier in the sentence
        ("The backoff is [2].", ([], [])),
        ("The backoff is `delays=[2, 4, 8]`.", ([], [])),
        ("With `delays` set, the backoff is [2].", ([], [])),
        ("The backoff is `delays` = [2].", ([], [])),
    ],
)
def test_a_bracket_after_a_code_span_follows_a_value(
    answer: str, expected: tuple[list[str], list[str]]
) -> None:
    """A bracket after a code span follows the span (a value), not the word before it: "is
    `delays=[2, 4, 8]` [2]" cites 2 (the blanked span left "is [2]", read as a value after
    "is")."""
    assert cited(answer, ["retry-config", "timeouts"]) == expected
