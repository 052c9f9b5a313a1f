"""``explain`` treats the follow-up signals as rates: the share of a conversation's pairs whose
next turn carried each, in the first turn's segments."""

from __future__ import annotations

from pathlib import Path

from monitor.core.lines import Line
from monitor.segments.explain import explain_rates, observations


def lines(pairs: int, escalations_es: int, escalations_en: int) -> list[Line]:
    """``pairs`` pairs per language; the given number of them escalated."""
    out: list[Line] = []
    for lang, escalated in (("es", escalations_es), ("en", escalations_en)):
        for i in range(pairs):
            tid = f"{lang}{i:030d}"
            out.append(
                {
                    "trace_id": tid,
                    "app": None,
                    "route": None,
                    "checks": {},
                    "segments": {"language": lang},
                    "inputs": {},
                    "session_id": f"s-{tid}",
                }
            )
            out.append(
                {
                    "trace_id": tid,
                    "session_id": f"s-{tid}",
                    "followup": {
                        "by": "b" * 32,
                        "seconds": 30.0,
                        "after": "clean",
                        "signals": ["escalation"] if i < escalated else [],
                    },
                }
            )
    return out  # fmt: skip


def test_followup_signals_are_rates_in_the_first_turns_segments() -> None:
    obs = observations(lines(10, 3, 1))
    esc = obs["followup_escalation"]
    assert len(esc) == 20 and sum(o.flagged for o in esc) == 4
    assert {o.segments["language"] for o in esc if o.flagged} == {"es", "en"}
    assert sum(o.flagged for o in obs["followup_rephrase"]) == 0


def test_explain_names_the_segment_where_escalations_rose() -> None:
    rates = explain_rates(lines(300, 6, 6), lines(300, 120, 6), ["followup_escalation"])
    change = rates["followup_escalation"].as_dict()
    causes = change["causes"]
    assert isinstance(causes, list) and causes
    first = causes[0]
    assert isinstance(first, dict)
    assert (first["dimension"], first["segment"], first["kind"]) == ("language", "es", "rate")


def test_a_followup_line_without_its_turns_line_still_counts() -> None:
    """The first turn's line may sit in an earlier file: its segments are then unknown."""
    only = [x for x in lines(5, 5, 0) if "followup" in x]
    obs = observations(only)["followup_escalation"]
    assert len(obs) == 10 and all(o.segments == {} for o in obs)


def test_the_table_counts_a_follow_up_rate_in_pairs(tmp_path: Path) -> None:
    """A follow-up rate is a share of pairs of turns: ``explain`` says pairs, not traces."""
    import io
    import json

    from monitor.commands.cli import build_parser, runner

    files = []
    for name, data in (("before", lines(300, 6, 6)), ("after", lines(300, 120, 6))):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in data))
        files.append(str(path))
    args = build_parser().parse_args(["explain", *files, "--check", "followup_escalation"])
    out = io.StringIO()
    assert runner("explain")(args, out, io.StringIO()) == 0
    head = out.getvalue().splitlines()[0]
    assert head.startswith("followup_escalation:") and head.endswith("600 -> 600 pairs")
