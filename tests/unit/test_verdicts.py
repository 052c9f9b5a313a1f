"""The verdict guard: the corpus in ``tests/verdicts`` must evaluate exactly as stored."""

from __future__ import annotations

import json

import pytest

from tests import verdicts

# The passage memo must not change a verdict: the corpus runs as the daemon does by default
# (no memo), with a memo so small that it evicts all the time (a kept entry's lazy parts grow
# it past the cap), and with a 64 MiB one.
MEMO_CAPS = {"daemon_default": None, "evicting_memo": 40_000, "large_memo": 64 << 20}


@pytest.fixture(scope="module", params=sorted(MEMO_CAPS))
def now(request: pytest.FixtureRequest) -> dict[str, str]:
    return verdicts.current(MEMO_CAPS[request.param])


def test_every_stored_trace_is_still_evaluated_and_no_other(now: dict[str, str]) -> None:
    stored = verdicts.loads(verdicts.STORED.read_text(encoding="utf-8"))
    assert len(stored) >= 10_000
    missing, extra = sorted(stored.keys() - now.keys()), sorted(now.keys() - stored.keys())
    assert not missing and not extra, f"missing {missing[:5]}, new {extra[:5]}"


def test_evaluation_lines_equal_the_stored_ones(now: dict[str, str]) -> None:
    stored = verdicts.loads(verdicts.STORED.read_text(encoding="utf-8"))
    changed = [k for k in sorted(stored) if k in now and now[k] != stored[k]]
    report = []
    for key in changed[:5]:
        was, got = json.loads(stored[key]), json.loads(now[key])
        report.append(f"{key}:\n  stored {_diff(was, got)}\n  now    {_diff(got, was)}")
    assert not changed, (
        f"{len(changed)} of {len(stored)} evaluation lines changed (if intended, run "
        "`make verdicts` and commit the diff):\n" + "\n".join(report)
    )


def test_the_stored_form_round_trips() -> None:
    lines = {
        "a/1": {"trace_id": "1", "checks": {"x": {"flagged": True}}},
        "b/2": {"trace_id": "2", "checks": {"x": {"flagged": False}}},
        "c/3": {"trace_id": "3", "checks": {"x": {"flagged": True}}},
    }
    text = verdicts.dumps(lines)
    assert text.count('"line"') == 2  # each distinct result once
    back = verdicts.loads(text)
    assert back["a/1"] == back["c/3"] != back["b/2"]
    assert json.loads(back["b/2"]) == {"checks": {"x": {"flagged": False}}}


def _diff(a: dict[str, object], b: dict[str, object]) -> str:
    """The parts of ``a`` that differ from ``b`` (checks by name, then the judge)."""
    out: dict[str, object] = {}
    for key in a.keys() | b.keys():
        if key == "checks":
            ca, cb = a.get(key) or {}, b.get(key) or {}
            assert isinstance(ca, dict) and isinstance(cb, dict)
            out.update({n: ca.get(n) for n in ca.keys() | cb.keys() if ca.get(n) != cb.get(n)})
        elif a.get(key) != b.get(key):
            out[key] = a.get(key)
    return json.dumps(out, sort_keys=True)[:600]
