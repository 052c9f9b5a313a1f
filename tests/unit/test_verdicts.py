"""The verdict guard: the corpus in ``tests/verdicts`` must evaluate exactly as stored, part
by part (each check, the judge, the rest of the line)."""

from __future__ import annotations

import json

import pytest

from monitor.checks import CHECK_NAMES, output_of
from tests import verdicts

# The passage memo must not change a verdict: the corpus runs as the daemon does by default
# (no memo), with a memo so small that it evicts all the time (a kept entry's lazy parts grow
# it past the cap), and with a 64 MiB one.
MEMO_CAPS = {"daemon_default": None, "evicting_memo": 40_000, "large_memo": 64 << 20}


@pytest.fixture(scope="module")
def stored() -> dict[str, dict[str, str]]:
    return verdicts.stored()


@pytest.fixture(scope="module", params=sorted(MEMO_CAPS))
def now(request: pytest.FixtureRequest) -> dict[str, dict[str, str]]:
    return verdicts.current(MEMO_CAPS[request.param])


def test_every_stored_trace_is_still_evaluated_and_no_other(
    stored: dict[str, dict[str, str]], now: dict[str, dict[str, str]]
) -> None:
    assert set(stored) == set(now), "a part is stored that is not evaluated, or the reverse"
    for part, values in stored.items():
        assert len(values) >= 10_000, part
        missing, extra = (
            sorted(values.keys() - now[part].keys()),
            sorted(now[part].keys() - values.keys()),
        )
        assert not missing and not extra, f"{part}: missing {missing[:5]}, new {extra[:5]}"


def test_evaluation_lines_equal_the_stored_ones(
    stored: dict[str, dict[str, str]], now: dict[str, dict[str, str]]
) -> None:
    report = verdicts.changes(stored, now)
    changed = {
        part: [k for k in sorted(values) if k in now.get(part, {}) and now[part][k] != values[k]]
        for part, values in stored.items()
    }
    examples = [
        f"{part} {key}:\n  stored {stored[part][key][:300]}\n  now    {now[part][key][:300]}"
        for part, keys in changed.items()
        for key in keys[:2]
    ]
    assert not report, (
        "evaluation results changed (if intended, run `make verdicts` and commit the diff):\n"
        + "\n".join(report + examples[:6])
    )


def test_every_check_has_a_part_and_is_flagged_somewhere_in_it(
    stored: dict[str, dict[str, str]],
) -> None:
    """A check the guard never sees flagged (or, for a score, scored) is not guarded."""
    for name in CHECK_NAMES:
        values = [json.loads(v) for v in stored.get(f"check-{name}", {}).values()]
        assert values, f"no stored results for {name}: run `make verdicts`"
        if output_of(name) == "score":
            assert any(v.get("score") is not None for v in values), name
        else:
            assert any(v.get("flagged") for v in values), f"{name} is never flagged"
            assert any(v.get("applicable") and not v.get("flagged") for v in values), name


def test_the_stored_form_round_trips_and_a_change_is_told_per_check() -> None:
    lines = {
        "a/1": {"trace_id": "1", "checks": {"x": {"flagged": True, "applicable": True}}},
        "b/2": {"trace_id": "2", "checks": {"x": {"flagged": False, "applicable": True}}},
        "c/3": {"trace_id": "3", "checks": {"x": {"flagged": True, "applicable": True}}},
    }
    parts = verdicts.by_part(lines)
    text = verdicts.dumps(parts["check-x"])
    assert text.count('"line"') == 2  # each distinct result once
    back = verdicts.loads(text)
    assert back["a/1"] == back["c/3"] != back["b/2"]
    was = verdicts.canonical_parts(parts)
    lines["b/2"]["checks"]["x"]["flagged"] = True
    lines["d/4"] = {"trace_id": "4", "checks": {"x": {"flagged": False, "applicable": True}}}
    now = verdicts.canonical_parts(verdicts.by_part(lines))
    assert verdicts.changes(was, now) == [
        "check-x: 1 passed -> flagged, 1 new",
        "judge: 1 new",
        "risk: 1 new",
        "segments: 1 new",
        "trace: 1 new",
    ]
