"""The risk learned from the judge's verdicts (risk/3, ``monitor/judge/learned_risk.py``):
it learns a planted separable signal, persists and reloads identically, answers the static
risk until it has enough verdicts, and never raises on any trace."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks import CheckSuite
from monitor.checks.risk import risk as static_risk
from monitor.core.model import RagTrace
from monitor.judge.learned_risk import FEATURES, LearnedRisk

SUITE = CheckSuite()


def _trace(n: int, answer: str, context: list[str]) -> RagTrace:
    return RagTrace.from_data({
        "trace_id": f"{n + 1:032x}", "query": "What does the plan include?", "answer": answer,
        "context": [{"doc_id": f"d{i}", "text": t} for i, t in enumerate(context)],
    })  # fmt: skip


def _scored(scorer: LearnedRisk, trace: RagTrace) -> tuple[np.ndarray, float]:
    view = SUITE.view(trace)
    checks = SUITE(trace, view)
    scorer.observe(view)
    return scorer.features(checks, view), scorer.score(checks, view)


def _auroc(scores: list[float], labels: list[bool]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def test_it_learns_a_planted_separable_signal() -> None:
    """Unfaithful when the worst sentence's gap is past 0.5, whatever the other features say
    (a planted label on random feature vectors)."""
    rng = random.Random(3)
    scorer = LearnedRisk(min_verdicts=0)
    data = []
    for _ in range(2000):
        x = np.zeros(len(FEATURES))
        x[0] = 1.0
        x[1:] = [rng.uniform(-3, 3) for _ in FEATURES[1:]]
        x[1] = 0.0  # the static prior undecided: the label is the planted feature's alone
        data.append((x, x[FEATURES.index("sentence_gap")] > 0.5))
    for x, y in data[:1500]:
        scorer.learn(x, y)
    held = data[1500:]
    predicted = [scorer.predict(x) for x, _ in held]
    assert _auroc(predicted, [y for _, y in held]) > 0.97
    accuracy = sum((p > 0.5) == y for p, (_, y) in zip(predicted, held, strict=True)) / len(held)
    assert accuracy > 0.9


def test_it_starts_from_the_static_risk() -> None:
    """Before any verdict the learned probability is the static risk (its log-odds, weight 1),
    and that weight is not learned: the other features learn its corrections."""
    scorer = LearnedRisk(min_verdicts=0)
    trace = _trace(5, "The plan includes 40 seats and a pony.", ["The plan includes 4 seats."])
    view = SUITE.view(trace)
    checks = SUITE(trace, view)
    x = scorer.features(checks, view)
    assert abs(scorer.predict(x) - static_risk(checks, view)) < 1e-3
    scorer.learn(x, False, 3.0)
    assert scorer.weights[FEATURES.index("static_logit")] == 1.0
    assert scorer.predict(x) < static_risk(checks, view)


def test_weights_count_as_repeated_verdicts() -> None:
    """A verdict of weight 1/p moves the model as its weight says: more than weight 1."""
    x = np.ones(len(FEATURES))
    light, heavy = LearnedRisk(min_verdicts=0), LearnedRisk(min_verdicts=0)
    light.learn(x, True, 1.0)
    heavy.learn(x, True, 20.0)
    light_after, heavy_after = light.predict(x), heavy.predict(x)
    assert 0.5 < light_after <= heavy_after
    light.learn(x, True, float("nan"))  # not a weight: ignored, not counted
    assert light.verdicts == 1


def test_it_answers_the_static_risk_until_enough_verdicts() -> None:
    scorer = LearnedRisk(min_verdicts=3)
    trace = _trace(1, "The plan includes 40 seats and a pony.", ["The plan includes 4 seats."])
    view = SUITE.view(trace)
    checks = SUITE(trace, view)
    x = scorer.features(checks, view)
    for _ in range(2):
        scorer.learn(x, False, 5.0)
    assert not scorer.learned
    assert scorer.score(checks, view) == static_risk(checks, view)
    scorer.learn(x, False, 5.0)
    assert scorer.learned
    assert scorer.score(checks, view) == round(scorer.predict(x), 4)
    assert scorer.score(checks, view) != static_risk(checks, view)


def test_it_persists_and_reloads_identically(tmp_path: Path) -> None:
    scorer = LearnedRisk(min_verdicts=2)
    rows = [
        ("The plan includes 4 seats.", ["The plan includes 4 seats."], False),
        ("The plan includes 9 seats and free llamas.", ["The plan includes 4 seats."], True),
        ("Support is open on weekdays.", ["Support is open on weekdays only."], False),
    ]
    for n, (answer, context, bad) in enumerate(rows):
        x, _ = _scored(scorer, _trace(n, answer, context))
        scorer.learn(x, bad, 2.5)
    path = tmp_path / "judge" / "risk.npz"
    scorer.save(path)
    again = LearnedRisk.load(path, min_verdicts=2)
    assert np.array_equal(again.weights, scorer.weights)
    assert np.array_equal(again.squares, scorer.squares)
    assert np.array_equal(again.df, scorer.df)
    assert (again.verdicts, again.documents) == (scorer.verdicts, scorer.documents)
    probe = _trace(9, "The plan includes 7 unicorns.", ["The plan includes 4 seats."])
    view = SUITE.view(probe)
    checks = SUITE(probe, view)
    assert again.score(checks, view) == scorer.score(checks, view)
    assert np.array_equal(again.features(checks, view), scorer.features(checks, view))


def test_a_damaged_or_foreign_file_starts_from_the_prior(tmp_path: Path) -> None:
    damaged = tmp_path / "risk.npz"
    damaged.write_bytes(b"not a model")
    assert LearnedRisk.load(damaged).verdicts == 0
    assert LearnedRisk.load(tmp_path / "missing.npz").verdicts == 0
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, version=np.array("risk/9"))
    assert LearnedRisk.load(foreign).verdicts == 0


def test_a_file_learned_over_another_static_risk_starts_from_the_prior(tmp_path: Path) -> None:
    """Its weights are corrections to the static risk it was trained beside: a file saved
    over another static risk's version is not read."""
    scorer = LearnedRisk(min_verdicts=1)
    x, _ = _scored(scorer, _trace(0, "The plan includes 9 llamas.", ["The plan has 4 seats."]))
    scorer.learn(x, True)
    path = tmp_path / "risk.npz"
    scorer.save(path)
    assert LearnedRisk.load(path).verdicts == 1
    with np.load(path) as data:
        fields = {name: data[name] for name in data.files}
    np.savez(path, **{**fields, "prior": np.array("risk/2")})
    assert LearnedRisk.load(path).verdicts == 0


@settings(max_examples=150, deadline=None)
@given(
    answer=st.text(max_size=300),
    context=st.lists(st.text(max_size=300), max_size=3),
    bad=st.booleans(),
    weight=st.floats(allow_nan=True, allow_infinity=True),
)
def test_it_never_raises_on_any_trace(
    answer: str, context: list[str], bad: bool, weight: float
) -> None:
    scorer = LearnedRisk(min_verdicts=1)
    x, before = _scored(scorer, _trace(1, answer, context))
    assert 0.0 <= before <= 1.0
    assert np.all(np.isfinite(x))
    scorer.learn(x, bad, weight)
    _, after = _scored(scorer, _trace(2, answer, context))
    assert 0.0 <= after <= 1.0
