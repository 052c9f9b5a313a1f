"""Round 13's review of the number and citation checks: the patterns this round added, each
run on long adversarial text in a child process, so that one made to backtrack fails here
(after 60 s) instead of stalling the daemon: the tens word alone ("twenty", not the head of
"twenty-five"), markdown emphasis stripped before a spelled count, and the agent noun of a
list of persons ("snowboarders")."""

from __future__ import annotations

from tests.conftest import ends_in_time


def test_the_round_s_patterns_stay_linear_on_long_runs() -> None:
    code = (
        "from monitor.checks.numbers.patterns import TENS_ALONE, unemphasised\n"
        "from monitor.checks.numbers.computed import _AGENT\n"
        "for unit in (b'twenty-', b'twenty', b'twenty-first ', b'xtwenty', b'twenty five '):\n"
        "    TENS_ALONE[20.0].search(unit * 40000 + b'-five')\n"
        "for unit in ('*a', '**', 'a*', '_', '* ', '__a'):\n"
        "    unemphasised(unit * 100000)\n"
        "for word in ('a' * 100000, 'ab' * 50000 + 'x', 'er' * 50000 + 'x'):\n"
        "    _AGENT.fullmatch(word)\n"
    )
    assert ends_in_time(code)


def test_figures_in_one_long_sentence_cost_its_length_not_its_square() -> None:
    """Each figure read its whole sentence to find what says it is a sum, a difference or a
    count: "about a quarter of" 2,000 times in one 40 KB sentence cost 1.4 s a trace, 16 MB
    records allowed. The answer is now read ``derived.WINDOW`` characters on each side of a
    figure. 20,000 such figures (400 KB) end well within the time."""
    code = (
        "from monitor.checks import UnsupportedNumbers\n"
        "from tests.conftest import view\n"
        "a = 'about a quarter of ' * 20_000 + 'users.'\n"
        "UnsupportedNumbers()(view(a, [a]))\n"
    )
    assert ends_in_time(code, seconds=30)
