"""Causes across dimensions (``explain``'s first answer): a planted cause is named, the
segments of correlated dimensions that only carry it are reported as its stand-ins (never as
causes of their own, even when they move the most), two independent causes are both named,
a one-valued dimension never is, and unchanged traffic names nothing."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monitor.commands.cli import build_parser, runner
from monitor.segments.explain import explain_rates

Segments = dict[str, str]


def _lines(
    seed: int, n: int, make: Callable[[random.Random], Segments],
    rate: Callable[[Segments], float], applies: Callable[[Segments], float] = lambda s: 1.0,
) -> list[dict[str, Any]]:  # fmt: skip
    """``n`` evaluation lines of one check: its share of applicable results per segment
    (``applies``), and of those, its flagged share (``rate``)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        segments = make(rng)
        applicable = rng.random() < applies(segments)
        flagged = applicable and rng.random() < rate(segments)
        out.append({"checks": {"refusal": {"flagged": flagged, "applicable": applicable}},
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


def run(argv: list[str], out: io.StringIO, err: io.StringIO) -> int:
    args = build_parser().parse_args(argv)
    return runner(args.command)(args, out, err)


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


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


def _routes(cut: bool) -> Callable[[random.Random], Segments]:
    """Billing is 40 % of the traffic. Its passages are mostly of several sources (mixed);
    ``cut``: a release packs one passage for billing, so its traces read as one source (faq
    or help-center). The other routes keep their passages; release is new on billing."""

    def make(rng: random.Random) -> Segments:
        route = "billing" if rng.random() < 0.4 else rng.choice(["support", "orders"])
        if route == "billing" and cut:
            source = "faq" if rng.random() < 0.65 else "help-center"
        else:
            source = "faq" if rng.random() < 0.06 else "mixed"
        release = "r2" if route == "billing" and cut else "r1"
        return {"route": route, "data_source": source, "release": release,
                "query_length": rng.choice(["short", "medium"])}  # fmt: skip

    return make


def test_a_check_that_stops_applying_in_a_segment_is_an_applicability_cause() -> None:
    """Billing's traces cut to one passage: the conflict check (two passages needed) no
    longer applies to them, and billing, which held the conflicts, leaves the checked traces
    while it is still 40 % of the traffic. Its share of the traffic did not move: the cause
    is of its own kind, applicability, naming billing and its checkable share (before: a
    mix cause, "share of the traffic 40 % -> 0 %"); no segment is a mix or rate cause."""
    rate = lambda s: 0.2 if s["route"] == "billing" else 0.0  # noqa: E731
    applies = lambda s: 0.0 if s["data_source"] != "mixed" else 0.95  # noqa: E731
    before = _lines(11, 5000, _routes(cut=False), rate, applies)
    after = _lines(12, 5000, _routes(cut=True), rate, applies)
    causes = _causes(before, after)
    named = [c for c in causes if "explained_by" not in c]
    assert [(c["dimension"], c["segment"], c["kind"]) for c in named][:1] == [
        ("route", "billing", "applicability")
    ]
    (billing,) = [c for c in causes if c["segment"] == "billing"]
    assert billing["checkable_before"] > 0.8 and billing["checkable_after"] == 0.0
    assert billing["contribution"] < 0
    assert not any(c["kind"] in ("mix", "rate") for c in named)
    # the per-dimension table says the same of billing
    (change,) = explain_rates(before, after).values()
    (row,) = [s for s in change.dimensions["route"] if s.segment == "billing"]
    assert row.cause == "applicability"


def test_one_share_move_is_one_cause_not_one_per_segment_of_its_dimension() -> None:
    """A new release takes 40 % of the traffic and flags more; the old releases' shares
    shrink by as much: the same move seen from the other segments of the dimension. The new
    release is the cause; the old ones are its counterparts, not causes of their own (before:
    release=r1 was a second mix cause beside release=r3)."""

    def make(rng: random.Random, new: float) -> Segments:
        release = "r3" if rng.random() < new else rng.choice(["r1", "r2"])
        return {"release": release, "route": rng.choice(["billing", "support"])}

    rate = lambda s: 0.4 if s["release"] == "r3" else 0.1  # noqa: E731
    before = _lines(13, 6000, lambda rng: make(rng, 0.0), rate)
    after = _lines(14, 6000, lambda rng: make(rng, 0.4), rate)
    causes = _causes(before, after)
    assert [n for n in _named(causes) if n.startswith("release=")] == ["release=r3"]
    old = {c["segment"]: c for c in causes if c["segment"] in ("r1", "r2")}
    assert old, "the old releases' shrinking shares are significant: listed as followers"
    assert all(c["explained_by"] == "release=r3" and c["relation"] == "counterpart"
               for c in old.values())  # fmt: skip


def test_a_change_planted_in_a_route_is_named_where_it_also_reads_as_a_data_source() -> None:
    """Billing cut to one passage: its traces read as faq (which flags citations always) or
    help-center, where before almost all were mixed. Billing's rate rises with a move of its
    own (a significant row); holding data_source fixed compares it on the few billing traces
    that were faq before, which says nothing of the rest. Billing is named a cause beside
    data_source=faq, never "follows data_source=faq, no move of its own" (before: it was)."""

    def rate(s: Segments) -> float:
        return {"faq": 1.0, "help-center": 0.28}.get(s["data_source"], 0.17)

    before = _lines(15, 3000, _routes(cut=False), rate)
    after = _lines(16, 3000, _routes(cut=True), rate)
    causes = _causes(before, after)
    (change,) = explain_rates(before, after).values()
    (row,) = [s for s in change.dimensions["route"] if s.segment == "billing"]
    assert row.significant and row.contribution > 0.1
    assert "route=billing" in _named(causes)
    (billing,) = [c for c in causes if c["segment"] == "billing"]
    assert "explained_by" not in billing  # a cause, not a stand-in


def test_the_table_says_how_each_follower_follows(tmp_path: Path) -> None:
    """The text names an applicability cause by its checkable share, and says of each
    follower how it follows: a counterpart, a stand-in whose move vanishes with the cause's
    dimension held fixed, or one with no move of its own (before: every follower was "no
    move of its own", also one with a significant row)."""
    rate = lambda s: 0.2 if s["route"] == "billing" else 0.0  # noqa: E731
    applies = lambda s: 0.0 if s["data_source"] != "mixed" else 0.95  # noqa: E731
    before = _write(tmp_path / "b.jsonl", _lines(11, 5000, _routes(cut=False), rate, applies))
    after = _write(tmp_path / "a.jsonl", _lines(12, 5000, _routes(cut=True), rate, applies))
    out, err = io.StringIO(), io.StringIO()
    assert run(["explain", str(before), str(after)], out, err) == 0, err.getvalue()
    text = out.getvalue()
    assert "\n  cause: route=billing: the check applies to " in text
    assert "of its traces [applicability]" in text and "[mix]" not in text.split("(*")[0]
    # the header says of how many traces the rate counts (before: "N -> M traces" alone)
    assert " of 5000 -> " in text and " of 5000 traces it applies to" in text
    for line in text.splitlines():
        if line.startswith("  follows") and "no move of its own" in line:
            assert "route=billing" not in line.split(":", 1)[1]


def test_two_shares_that_rise_together_in_one_dimension_are_one_cause() -> None:
    """Billing cut to one passage: its traces move from mixed to faq and to help-center, and
    both rising shares are significant. One dimension, one share move: faq (the larger) is the
    cause, help-center and mixed follow it as counterparts (before: faq 5 % -> 27 % and
    help-center 0 % -> 14 % were two mix causes of data_source)."""

    def rate(s: Segments) -> float:
        return {"faq": 0.6, "help-center": 0.35}.get(s["data_source"], 0.05)

    before = _lines(15, 3000, _routes(cut=False), rate)
    after = _lines(16, 3000, _routes(cut=True), rate)
    causes = _causes(before, after)
    named = [c for c in causes if "explained_by" not in c]
    shares = [c["segment"] for c in named if c["dimension"] == "data_source"]
    assert shares == ["faq"]
    others = {c["segment"]: c for c in causes if c["dimension"] == "data_source"}
    assert others["help-center"]["explained_by"] == "data_source=faq"
    assert others["help-center"]["relation"] == "counterpart"
    # at most one share cause per dimension, in every dimension
    for dimension in {c["dimension"] for c in named}:
        kinds = [c["kind"] for c in named if c["dimension"] == dimension]
        assert kinds.count("mix") + kinds.count("applicability") <= 1, dimension


def _printed_names(text: str) -> tuple[set[str], list[str]]:
    """The segments a text report prints (as a cause or a follower), and the causes its
    follower lines name."""
    printed: set[str] = set()
    referred: list[str] = []
    for line in text.splitlines():
        if line.startswith("  cause: "):
            printed.add(line[len("  cause: ") :].split(":", 1)[0])
        elif line.startswith(("  follows ", "  the other side of ")):
            head, names = line.split("): ", 1)
            printed.update(n.strip() for n in names.split(","))
            cause = head.split(" ")[3] if head.startswith("  follows") else head.split(" ")[6]
            referred.append(cause.rstrip(",").removesuffix("'s"))
    return printed, referred


def test_every_cause_is_printed_whatever_top(tmp_path: Path) -> None:
    """With --top 1 the table shows one segment per dimension, but every cause of the JSON
    has its "cause:" line, and a follower line never names a segment the report does not
    print (before: causes were cut at --top, and "the other side of data_source=mixed's
    share" named a cause left out)."""

    def rate(s: Segments) -> float:
        return {"faq": 0.6, "help-center": 0.35}.get(s["data_source"], 0.05)

    before = _write(tmp_path / "b.jsonl", _lines(15, 3000, _routes(cut=False), rate))
    after = _write(tmp_path / "a.jsonl", _lines(16, 3000, _routes(cut=True), rate))
    out, err = io.StringIO(), io.StringIO()
    report = tmp_path / "r.json"
    argv = ["explain", str(before), str(after), "--top", "1", "--output-json", str(report)]
    assert run(argv, out, err) == 0, err.getvalue()
    causes = json.loads(report.read_text())["checks"]["refusal"]["causes"]
    named = _named(causes)
    assert len(named) > 1
    printed, referred = _printed_names(out.getvalue())
    assert set(named) <= printed
    assert referred and set(referred) <= printed


def _walk_day(day: int, count: int, path: Path) -> Path:
    """The walker's recipe: a day of ``ragmon demo`` traces (seed = day), spread over the
    day; on day two a release on the billing route packs only the first passage."""
    from monitor.sources import demo

    lines = []
    for i in range(count):
        trace = json.loads(demo.generate_bytes(i, day))
        second = i * 86400 // count
        trace["timestamp"] = f"2024-11-0{day}T{second // 3600:02d}:{second // 60 % 60:02d}:00Z"
        if day == 2 and trace["route"] == "billing":
            trace["release"] = "2024.12.0"
            trace["context"], trace["retrieved"] = trace["context"][:1], trace["retrieved"][:1]
        lines.append(trace)
    return _write(path, lines)


def test_the_walkers_planted_release_names_one_share_cause_per_dimension(tmp_path: Path) -> None:
    """Demo traces of two days, the billing route cut to one passage on a new release on day
    two, replayed into evaluation lines, then explained: on citation, data_source=faq's share
    is the cause and help-center's rise follows it (before: faq 5.2 % -> 27.0 % and
    help-center 0.0 % -> 13.8 % were two mix causes); no rate has two share causes in one
    dimension; the conflict check's fall is billing's applicability; every cause is printed
    and every follower names a printed one."""
    evaluated = []
    for day in (1, 2):
        traces = _walk_day(day, 3000, tmp_path / f"day{day}.jsonl")
        lines = tmp_path / f"evaluations{day}.jsonl"
        out, err = io.StringIO(), io.StringIO()
        assert run(["replay", str(traces), "--output-jsonl", str(lines)], out, err) == 0
        evaluated.append(str(lines))
    out, err = io.StringIO(), io.StringIO()
    report = tmp_path / "report.json"
    assert run(["explain", *evaluated, "--output-json", str(report)], out, err) == 0
    checks = json.loads(report.read_text())["checks"]
    citation = {f"{c['dimension']}={c['segment']}": c for c in checks["citation"]["causes"]}
    assert "explained_by" not in citation["data_source=faq"]
    assert citation["data_source=faq"]["kind"] == "mix"
    assert citation["data_source=help-center"]["explained_by"] == "data_source=faq"
    for name, check in checks.items():
        named = [c for c in check.get("causes", []) if "explained_by" not in c]
        for dimension in {c["dimension"] for c in named}:
            shares = [c for c in named if c["dimension"] == dimension
                      and c["kind"] in ("mix", "applicability")]  # fmt: skip
            assert len(shares) <= 1, (name, dimension)
    conflict = [c for c in checks["context_conflict"]["causes"] if "explained_by" not in c]
    assert [(c["segment"], c["kind"]) for c in conflict] == [("billing", "applicability")]
    printed, referred = _printed_names(out.getvalue())
    assert {f"{c['dimension']}={c['segment']}" for c in checks["citation"]["causes"]} <= printed
    assert set(referred) <= printed
