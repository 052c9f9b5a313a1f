"""The times `ragmon rescore` takes."""

from __future__ import annotations

import pytest

from monitor.sources.history import parse_time


def test_times_in_each_form() -> None:
    now = lambda: 1_800_000_000.0  # noqa: E731
    assert parse_time("2h", now) == parse_time("-2h", now) == 1_800_000_000 - 7200
    assert parse_time("0s", now) == 1_800_000_000
    assert parse_time("1.5d", now) == 1_800_000_000 - 129_600
    assert parse_time("1796003639.5") == 1796003639.5
    assert parse_time("2026-12-01T00:00:00Z") == parse_time("2026-12-01T01:00:00+01:00")


@pytest.mark.parametrize("text", ["yesterday", "2026-12-01T00:00:00", "2 h", "h"])
def test_what_is_not_a_time_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_time(text)
