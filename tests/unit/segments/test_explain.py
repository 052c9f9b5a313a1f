"""``ragmon explain``: the decomposition is exact, and each kind of cause comes out as what it
is (a rate jump in one segment, a traffic-mix shift, a packer that drops passages, nothing)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from monitor.commands.cli import build_parser, runner
from monitor.segments.explain import explain_rates
from monitor.segments.shifts import input_shifts, psi

LANGUAGES = {"en": 0.6, "es": 0.2, "de": 0.2}


def _line(rng: random.Random, rate: dict[tuple[str, str], float], keyword_share: float,
          passages: tuple[int, int] = (4, 6)) -> dict[str, Any]:  # fmt: skip
    language = rng.choices(list(LANGUAGES), weights=list(LANGUAGES.values()))[0]
    shape = "keyword" if rng.random() < keyword_share else "question"
    flagged = rng.random() < rate[language, shape]
    n = rng.randint(*passages)
    return {
        "trace_id": f"{rng.getrandbits(128):032x}",
        "checks": {
            "refusal": {"flagged": flagged, "applicable": True, "evidence": {}},
            "grounding_overlap": {"flagged": False, "applicable": True, "evidence": {},
                                  "score": rng.random()},
        },
        "segments": {"language": language, "query_shape": shape},
        # passages vary in length, as real chunks do
        "inputs": {"passages": n, "context_chars": sum(rng.randint(50, 3000) for _ in range(n))},
    }  # fmt: skip


BASE = {(lang, shape): 0.05 if shape == "question" else 0.15
        for lang in LANGUAGES for shape in ("question", "keyword")}  # fmt: skip


def _period(seed: int, n: int = 4000, **kw: Any) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rate = kw.pop("rate", BASE)
    keyword_share = kw.pop("keyword_share", 0.2)
    return [_line(rng, rate, keyword_share, **kw) for _ in range(n)]


def test_mix_and_rate_add_up_to_the_change_in_every_dimension() -> None:
    rate = {**BASE, ("es", "question"): 0.3}
    got = explain_rates(_period(1), _period(2, rate=rate, keyword_share=0.4))["refusal"]
    for dimension in got.dimensions:
        mix, r = got.parts(dimension)
        assert mix + r == pytest.approx(got.change, abs=1e-12)
        total = sum(s.contribution for s in got.dimensions[dimension])
        assert total == pytest.approx(got.change, abs=1e-12)


def test_a_rate_jump_confined_to_one_language_is_a_rate_change_there() -> None:
    rate = {**BASE, ("es", "question"): 0.40, ("es", "keyword"): 0.50}
    got = explain_rates(_period(3), _period(4, rate=rate))["refusal"]
    language = got.dimensions["language"]
    top = language[0]
    assert top.segment == "es" and top.significant and top.cause == "rate"
    assert [s.segment for s in language if s.significant] == ["es"]
    mix, r = got.parts("language")
    assert abs(r) > 10 * abs(mix)


def test_a_shift_toward_keyword_queries_is_mix_not_rate() -> None:
    """Per-segment rates unchanged, keyword lookups from 20 % to 60 % of the traffic."""
    got = explain_rates(_period(5), _period(6, keyword_share=0.6))["refusal"]
    assert got.interval()[0] > 0  # the overall rate rose
    mix, rate = got.parts("query_shape")
    assert mix > 0 and abs(rate) < mix / 2  # (the rates' sampling noise stays in rate)
    causes = {s.segment: s.cause for s in got.dimensions["query_shape"]}
    assert causes == {"keyword": "mix", "question": "mix"}
    assert not any(s.cause in ("rate", "both") for d in got.dimensions.values() for s in d
                   if d is got.dimensions["query_shape"])  # fmt: skip


def test_unchanged_traffic_marks_nothing_significant() -> None:
    got = explain_rates(_period(7), _period(8))
    for change in got.values():
        lo, hi = change.interval()
        assert lo <= 0 <= hi
        assert not any(s.significant for d in change.dimensions.values() for s in d)
    assert all(s.level == "none" for s in input_shifts(_period(7), _period(8)))


def test_a_packer_that_drops_passages_is_the_top_input_shift() -> None:
    shifts = input_shifts(_period(9), _period(10, passages=(1, 2)))
    assert shifts[0].input == "passages" and shifts[0].level == "major"
    assert shifts[0].before == 5 and shifts[0].after <= 2


def test_psi_is_zero_for_the_same_sample_and_grows_with_the_shift() -> None:
    same = [float(i % 50) for i in range(1000)]
    assert psi(same, same) == pytest.approx(0, abs=1e-9)
    assert psi(same, [v + 5 for v in same]) < psi(same, [v + 20 for v in same])


def test_the_judges_hard_fail_rate_is_weighted() -> None:
    """A judged trace counts 1/p times: one hard fail at weight 9 among ten at weight 1
    is half of the weighted population."""

    def judged(verdict: str, weight: float) -> dict[str, Any]:
        return {"checks": {}, "segments": {"route": "a"},
                "judge": {"verdict": verdict, "weight": weight}}  # fmt: skip

    after = [judged("hard_fail", 9.0)] + [judged("pass", 1.0)] * 9
    got = explain_rates([judged("pass", 1.0)] * 10, after)["judge_hard_fail"]
    assert got.after.rate == pytest.approx(0.5) and got.before.rate == 0


def run(argv: list[str], out: io.StringIO, err: io.StringIO) -> int:
    args = build_parser().parse_args(argv)
    return runner(args.command)(args, out, err)


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_command_prints_a_table_and_writes_the_json(tmp_path: Path) -> None:
    rate = {**BASE, ("es", "question"): 0.40, ("es", "keyword"): 0.50}
    before = _write(tmp_path / "before.jsonl", _period(11))
    after = _write(tmp_path / "after.jsonl", _period(12, rate=rate, passages=(1, 2)))
    out, err = io.StringIO(), io.StringIO()
    report = tmp_path / "report.json"
    code = run(["explain", str(before), str(after), "--output-json", str(report)], out, err)
    assert code == 0, err.getvalue()
    table = out.getvalue()
    assert "refusal:" in table and "\n  cause: language=es: its rate " in table  # first
    assert "passages" in table.split("inputs")[1].splitlines()[1]
    data = json.loads(report.read_text())
    seg = data["checks"]["refusal"]["dimensions"]["language"]["segments"][0]
    assert {"segment", "share_before", "share_after", "rate_before", "rate_after",
            "contribution", "significant"} <= set(seg)  # fmt: skip
    assert data["inputs"][0]["input"] == "passages"
    assert "grounding_overlap" not in data["checks"]  # a score is no flagged rate
    (cause, *_) = data["checks"]["refusal"]["causes"]  # the contract the evaluation reads
    assert (cause["dimension"], cause["segment"], cause["kind"]) == ("language", "es", "rate")
    assert {"contribution", "interval", "significant"} <= set(cause)


def test_the_command_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run(["explain", str(tmp_path / "nope"), str(tmp_path / "nope2")], out, err) == 2
    assert "nope" in err.getvalue()
    empty = _write(tmp_path / "e.jsonl", [])
    err = io.StringIO()
    assert run(["explain", str(empty), str(empty)], out, err) == 1
    assert "no rate" in err.getvalue()
