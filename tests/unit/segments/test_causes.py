"""Causes across dimensions (``explain``'s first answer): a planted cause is named, the
segments of correlated dimensions that only carry it are reported as its stand-ins (never as
causes of their own, even when they move the most), two independent causes are both named,
a one-valued dimension never is, and unchanged traffic names nothing."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from monitor.segments.explain import explain_rates

Segments = dict[str, str]


def _lines(
    seed: int, n: int, make: Callable[[random.Random], Segments],
    rate: Callable[[Segments], float],
) -> list[dict[str, Any]]:  # fmt: skip
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        segments = make(rng)
        flagged = rng.random() < rate(segments)
        out.append({"checks": {"refusal": {"flagged": flagged, "applicable": True}},
                    "segments": segments})  # fmt: skip
    return out


def _traffic(es_share: float) -> Callable[[random.Random], Segments]:
    """Spanish queries are all of medium length (the stand-in); English ones of any length;
    release and route are independent of both; app has one value (all traffic)."""

    def make(rng: random.Random) -> Segments:
        es = rng.random() < es_share
        length = "medium" if es else rng.choice(["short", "medium", "long"])
        return {"language": "es" if es else "en", "query_length": length,
                "release": rng.choice(["r1", "r2"]), "route": rng.choice(["billing", "search"]),
                "app": "support"}  # fmt: skip

    return make


def _causes(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    (change,) = explain_rates(before, after).values()
    return [c.as_dict() for c in change.causes]


def _named(causes: list[dict[str, Any]]) -> list[str]:
    return [f"{c['dimension']}={c['segment']}" for c in causes if "explained_by" not in c]


def test_a_rate_rise_in_one_language_is_named_and_its_stand_in_follows_it() -> None:
    """Spanish refusals rise 5 % -> 45 % at a constant share: language=es is the cause, a
    rate; query_length=medium (every Spanish query) moves too and is reported as explained
    by it, not as a cause; the releases and routes, which rose with all traffic, follow it;
    the one-valued app is never named."""
    base = lambda s: 0.05  # noqa: E731
    rise = lambda s: 0.45 if s["language"] == "es" else 0.05  # noqa: E731
    causes = _causes(_lines(1, 6000, _traffic(0.3), base), _lines(2, 6000, _traffic(0.3), rise))
    assert _named(causes) == ["language=es"]
    (first,) = [c for c in causes if "explained_by" not in c]
    assert first["kind"] == "rate" and first["significant"] and first["contribution"] > 0
    standing = {f"{c['dimension']}={c['segment']}": c["explained_by"]
                for c in causes if "explained_by" in c}  # fmt: skip
    assert standing.get("query_length=medium") == "language=es"
    # the unrelated dimensions rise with all traffic, not on their own: they follow the cause
    unrelated = [c for c in causes if c["dimension"] in ("release", "route")]
    assert all(c.get("explained_by") == "language=es" for c in unrelated)
    assert not any(c["dimension"] == "app" for c in causes)  # one value: all traffic


def test_a_mix_shift_is_named_and_the_rate_it_leaks_elsewhere_is_its_stand_in() -> None:
    """The Spanish share grows 10 % -> 40 % at constant rates (Spanish refuses more):
    language=es is the cause, a mix; the medium length's rate, which rises only because it
    holds more Spanish queries, follows it."""
    rate = lambda s: 0.4 if s["language"] == "es" else 0.05  # noqa: E731
    causes = _causes(_lines(3, 6000, _traffic(0.1), rate), _lines(4, 6000, _traffic(0.4), rate))
    named = [c for c in causes if "explained_by" not in c]
    assert [(c["dimension"], c["segment"], c["kind"]) for c in named][:1] == [
        ("language", "es", "mix")
    ]
    assert not any(c["dimension"] == "query_length" for c in named)
    assert {c["explained_by"] for c in causes if "explained_by" in c} <= {"language=es"}


def test_two_independent_causes_are_both_named() -> None:
    """Spanish refusals rise, and so do the billing route's, independently: both are causes,
    neither explains the other."""
    base = lambda s: 0.05  # noqa: E731

    def both(s: Segments) -> float:
        return (
            0.05 + (0.3 if s["language"] == "es" else 0) + (0.2 if s["route"] == "billing" else 0)
        )

    causes = _causes(_lines(5, 8000, _traffic(0.3), base), _lines(6, 8000, _traffic(0.3), both))
    named = set(_named(causes))
    assert {"language=es", "route=billing"} <= named
    assert not any(c.get("explained_by") in ("language=es", "route=billing")
                   and c["dimension"] in ("language", "route") for c in causes)  # fmt: skip


def test_unchanged_traffic_names_no_cause() -> None:
    rate = lambda s: 0.1 if s["language"] == "es" else 0.05  # noqa: E731
    assert _causes(_lines(7, 6000, _traffic(0.3), rate), _lines(8, 6000, _traffic(0.3), rate)) == []


def test_a_rise_across_all_traffic_names_no_segment() -> None:
    """Every segment's rate doubles alike (a model release, everywhere): every segment is
    significant in its own dimension's table, but none moved on its own — no cause, no
    stand-in (before: every segment of every dimension came out as a [rate] cause)."""
    before = _lines(9, 6000, _traffic(0.3), lambda s: 0.05)
    after = _lines(10, 6000, _traffic(0.3), lambda s: 0.10)
    assert _causes(before, after) == []
