"""Round 14's review of the checks: inputs found to stop a check or to cost more than their
size, each held by a test that fails on the code before its fix. The timing tests run the
check in a child process (``ends_in_time``), so a regression fails the tier instead of
stalling it."""

from __future__ import annotations

from monitor.checks import UnsupportedNumbers
from tests.conftest import ends_in_time, view


def _numbers_end_in_time(answer: str, context: str, seconds: float = 30) -> bool:
    code = (
        "from monitor.checks import UnsupportedNumbers\n"
        "from tests.conftest import view\n"
        f"UnsupportedNumbers()(view({answer}, [{context}]))\n"
    )
    return ends_in_time(code, seconds=seconds)


def test_a_figure_written_again_is_not_looked_up_again() -> None:
    """Each figure of the answer was looked up in the context anew, a scan of every place
    its digits are written: "1/" 2,000 times in the answer and in the context cost 0.84 s
    compiled (4 KB each), and it grows with the square. 20,000 of each (40 KB) end well
    within the time; so do 7,000 counts of things ("three suspects", 100 KB)."""
    assert _numbers_end_in_time("'1/' * 20_000", "'1/' * 20_000")
    assert _numbers_end_in_time("'1-' * 20_000", "'1-' * 20_000")
    assert _numbers_end_in_time("'three suspects ' * 7_000", "'The fee is 30 dollars.'")


def test_distinct_figures_read_the_context_s_figures_once() -> None:
    """Figures that differ but start with the same digits (1.0001 to 1.3999) each parsed
    every figure of the context at every place those digits are written: 1,000 of them
    beside 1,000 decimals cost 6 s, beside "1/" repeated 13 s (7 KB each)."""
    answer = "' '.join(f'1.{j:04d}' for j in range(1, 4000))"
    assert _numbers_end_in_time(answer, "' '.join(f'1.{j:03d}' for j in range(1, 999))")
    assert _numbers_end_in_time(answer, "'1/' * 12_000")
    assert _numbers_end_in_time("' '.join(f'1-{j}' for j in range(2, 4000))", "'1-' * 12_000")


def test_rounded_and_repeated_figures_read_as_before() -> None:
    """The look-ups kept once per figure give the same results: a rounded figure backed, one
    that is not flagged, a figure repeated flagged once."""
    context = ["Revenue was $181,674,817 and margin 12.4%; 1.25 and 1.3 units; 7/1/2024."]
    ok = UnsupportedNumbers()(view("Revenue was $181 million, margin 12%, 1.3 units.", context))
    assert not ok.flagged
    bad = UnsupportedNumbers()(view("Margin 13%, 13% and 13%; 1.4 units and 1.4 units.", context))
    assert bad.evidence.numbers == ("13%", "1.4")


def test_no_check_raises_on_text_with_a_lone_surrogate() -> None:
    """A str holding half of a UTF-16 surrogate pair (the ingest reads an escaped one as
    U+FFFD, but a str made otherwise, by a caller of the checks or a decoder with
    ``surrogateescape``, still holds it) could not be encoded to UTF-8: the number check
    (a spelled figure looked up), the conflict and grounding checks and the risk raised
    UnicodeEncodeError. Encoded with ``surrogatepass`` now, the checks read the rest."""
    from monitor.checks import CheckSuite
    from monitor.checks.risk import risk
    from tests.conftest import make_trace

    answer = "The fee is 30 dollars \udc80 and refunds take 14 days for each customer [1]."
    passages = [
        "The fee is 30 dollars \udc80 and refunds take fourteen days. \ud83d",
        "The fee is 40 dollars \udc80 and refunds take fourteen days. \ud83d",
    ]
    suite = CheckSuite()
    trace = make_trace(answer, passages, "what \udc80 fee?")
    view = suite.view(trace)
    results = suite(trace, view)
    assert [n for n, r in results.items() if r.error] == []
    assert results["unsupported_numbers"].flagged is False  # 14 read as "fourteen"
    assert results["context_conflict"].flagged
    assert 0.0 <= risk(results, view) <= 1.0


def test_one_unit_of_time_said_many_times_costs_its_length() -> None:
    """Each "one hour" of the answer lower-cased the whole answer again (to read the hedge
    before it) and searched the whole context for its unit: "one hour " 44,000 times (400
    KB) cost 5.1 s compiled, 0.4 s at 100 KB. 100,000 (900 KB) end well within the time."""
    assert _numbers_end_in_time("'one hour ' * 100_000", "'The fee is 30 dollars.'", seconds=15)


def test_counts_of_things_read_the_context_once() -> None:
    """Each count of things ("three cats") read every context sentence again (its words, its
    lists) and compared it with every word of the count's sentence, read whole: 1,000
    counts of different things in one 15 KB sentence beside 250 short passages cost 9.5 s
    compiled. The sentences are read once a trace, and a count's sentence, as a figure's,
    within ``WINDOW`` characters on each side; 2,000 such counts end well within the time."""
    code = (
        "from monitor.checks import UnsupportedNumbers\n"
        "from tests.conftest import view\n"
        "nouns = [''.join(chr(97 + j // 26**k % 26) for k in range(3)) + 'ats' for j in range(2000)]\n"
        "answer = ' '.join(f'three {n}' for n in nouns)\n"
        "passages = [f'The dog {n[::-1]} is here.' for n in nouns[:500]]\n"
        "UnsupportedNumbers()(view(answer, passages))\n"
    )
    assert ends_in_time(code, seconds=15)


def test_figures_the_query_asks_about_read_the_query_once() -> None:
    """A figure the query states was checked for an accepted false premise by parsing each
    of the query's yes/no questions anew, and reading the answer's sentences anew: 1,000
    figures asked about in one question and stated in the answer cost 0.9 s compiled (5 KB),
    growing with the square. The questions and sentences are read once a trace."""
    code = (
        "from monitor.checks import UnsupportedNumbers\n"
        "from tests.conftest import view\n"
        "answer = 'Yes. ' + ' '.join(f'{i}.' for i in range(5000))\n"
        "query = 'Is the limit ' + ' '.join(str(i) for i in range(5000)) + '?'\n"
        "UnsupportedNumbers()(view(answer, ['The fee is 30 dollars.'], query))\n"
    )
    assert ends_in_time(code, seconds=15)


def test_a_query_of_many_questions_is_read_in_its_first_few() -> None:
    """Every figure the query states was asked of every yes/no question of the query: 1,500
    "Is it N?" and 1,500 figures took 24 s compiled, growing with the square. The first
    ``MAX_QUESTIONS`` (32) are read; an accepted false premise of one of them is still
    flagged."""
    code = (
        "from monitor.checks import UnsupportedNumbers\n"
        "from tests.conftest import view\n"
        "answer = 'Yes. ' + ' '.join(f'It is {i}.' for i in range(3000))\n"
        "query = ' '.join(f'Is it {i}?' for i in range(3000))\n"
        "UnsupportedNumbers()(view(answer, ['The fee is 30 dollars.'], query))\n"
    )
    assert ends_in_time(code, seconds=20)
    context = ["The limit is 100 requests a minute."]
    many = "Is the limit 500 a minute? " + " ".join(f"Is it open on day {i}?" for i in range(40))
    result = UnsupportedNumbers()(view("Yes, the limit is 500 a minute.", context, many))
    assert result.flagged
    assert result.evidence.numbers == ("500",)
