"""citation, the tenth blind round (issue 75): each rule with the citations beside it that
must stay and the look-alikes it must leave uncited."""

from __future__ import annotations

import pytest

from tests.conftest import ends_in_time
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


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Each frame[1][4] stores the bias level, and frame[0][2] the gain.", ([], [])),
        ("The raster[2][5] holds the elevation for that tile.", ([], [])),
        ("In the heatmap[3][1] shows the hottest rack.", ([], [])),
        # hard negatives: ending the clause or before "and"; a time frame; one bracket apart
        ("Readings are stored per frame[1][2].", (["1", "2"], [])),
        ("Bias is set for each frame[1][2] and drifts slowly.", (["1", "2"], [])),
        ("The refund time frame[1][2] is thirty days.", (["1", "2"], [])),
        ("The frame [1] is read first.", (["1"], [])),
    ],
)
def test_two_indices_glued_to_a_frame_or_raster_index_a_grid(
    answer: str, expected: tuple[list[str], list[str]]
) -> None:
    """A frame, raster, bitmap, heatmap or canvas is a grid of values, as a grid, board or
    image is: two indices glued to it with the clause going on index it ("frame[1][4]
    stores"), no citation (they were read as citations, 4 invalid)."""
    assert cited(answer, ["detector-guide", "export-format"]) == expected


def test_brackets_after_many_code_spans_are_read_in_linear_time() -> None:
    """Whether a bracket follows a code span was asked of every code span, slicing the text
    between them: 9,000 "`a` [1]" (189 KB) took 110 s. Now only the blanks before the bracket
    are read: 0.04 s."""
    code = (
        "from monitor.checks.citation_markers import find_citations\n"
        "from monitor.core.model import Passage\n"
        "find_citations('The value is `a` [1] ' * 9000, [Passage(text='x', doc_id='p')])\n"
    )
    assert ends_in_time(code, seconds=15)
