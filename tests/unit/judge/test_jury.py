"""The jury: two judges, one explicit rule, disagreements counted per route."""

from __future__ import annotations

import pytest
from msgspec.structs import replace
from pydantic import ValidationError

from monitor.core.model import RagTrace
from monitor.core.verdict import Claim, JudgeOutput, Verdict
from monitor.judge.config import JudgeConfig
from monitor.judge.heuristic import HeuristicJudge
from monitor.judge.jury import JuryJudge, combine
from monitor.sources import demo

TRACE = RagTrace.from_data(demo.generate(0))


def verdict(*labels: str, judge: str = "a", tokens: int = 10) -> Verdict:
    out = JudgeOutput(claims=[Claim(text=f"c{i}", label=lab) for i, lab in enumerate(labels)])  # type: ignore[arg-type]
    return Verdict.from_output(out, judge=judge, model=f"{judge}-1", rubric_version="r",
                               input_tokens=tokens, cost_usd=0.01)  # fmt: skip


class Fixed:
    """A judge that always answers the same verdict (a unit-test double)."""

    def __init__(self, v: Verdict) -> None:
        self.v, self.name, self.model, self.calls, self.closed = v, v.judge, v.model, 0, False

    def judge(self, trace: RagTrace) -> Verdict:
        self.calls += 1
        return self.v

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("one", "two", "rule", "want"),
    [
        (("CONTRADICTED",), ("CONTRADICTED",), "both", "hard_fail"),
        (("CONTRADICTED",), ("SUPPORTED",), "both", "fail"),  # one family alone: no page
        (("CONTRADICTED",), ("SUPPORTED",), "either", "hard_fail"),
        (("SUPPORTED",), ("ABSENT",), "both", "fail"),
        (("SUPPORTED",), ("SUPPORTED",), "both", "pass"),
        ((), (), "both", "not_applicable"),
        ((), ("SUPPORTED",), "both", "pass"),
    ],
)
def test_the_verdict_rule(one: tuple[str, ...], two: tuple[str, ...], rule: str,
                          want: str) -> None:  # fmt: skip
    got = combine(verdict(*one), verdict(*two, judge="b"), rule, "jury(a+b)", "a-1+b-1")  # type: ignore[arg-type]
    assert got.verdict == want and got.judge == "jury(a+b)"
    assert got.input_tokens == 20 and got.cost_usd == pytest.approx(0.02)


def test_the_second_judge_sees_its_share_by_trace_id_and_disagreements_are_reported() -> None:
    pairs: list[tuple[str | None, bool]] = []
    first, second = Fixed(verdict("SUPPORTED")), Fixed(verdict("ABSENT", judge="b"))
    jury = JuryJudge(first, second, share=0.3, on_pair=lambda r, ok: pairs.append((r, ok)))
    traces = [replace(TRACE, trace_id=f"{i + 1:032x}") for i in range(2000)]
    chosen = [jury.selected(t) for t in traces]
    assert chosen == [jury.selected(t) for t in traces]  # deterministic
    assert 0.26 < sum(chosen) / len(chosen) < 0.34
    verdicts = [jury.judge(t) for t in traces[:200]]
    assert first.calls == 200 and second.calls == sum(chosen[:200]) == len(pairs)
    assert all(not ok for _, ok in pairs) and {r for r, _ in pairs} == {TRACE.route}
    assert {v.verdict for v, c in zip(verdicts, chosen, strict=False) if c} == {"fail"}
    assert {v.verdict for v, c in zip(verdicts, chosen, strict=False) if not c} == {"pass"}
    jury.close()
    assert first.closed and second.closed


def test_a_jury_is_two_backends() -> None:
    with pytest.raises(ValidationError, match="must differ"):
        JudgeConfig.model_validate({"backend": "openai", "jury": {"backend": "openai"}})
    JudgeConfig.model_validate({"backend": "anthropic", "jury": {"backend": "openai"}})


def test_a_jury_member_of_the_generators_family_is_flagged() -> None:
    from prometheus_client import CollectorRegistry

    from monitor.judge.sampler import Budget, HashSampler, SamplingRules
    from monitor.judge.stage import JudgeStage
    from monitor.telemetry import Metrics

    jury = JuryJudge(HeuristicJudge(), Fixed(verdict("SUPPORTED", judge="gpt-4.1-mini")))
    metrics = Metrics(CollectorRegistry())
    stage = JudgeStage(jury, HashSampler(SamplingRules(1.0, 1.0)), Budget(None),
                       observer=metrics)  # fmt: skip
    stage._check_family(replace(TRACE, model="gpt-4o"))
    assert stage.same_family_seen
    assert metrics.registry.get_sample_value("ragmon_judge_same_family") == 1


def test_a_jury_line_carries_each_members_own_verdict() -> None:
    """The combined verdict hides which judge said what; the line keeps both, first judge
    first; a single judge's line has no members."""
    one, two = verdict("CONTRADICTED"), verdict("SUPPORTED", judge="b")
    line = combine(one, two, "both", "jury(a+b)", "a-1+b-1").to_line()
    assert line["verdict"] == "fail"
    assert line["members"] == [
        {"judge": "a", "model": "a-1", "rubric_version": "r", "verdict": "hard_fail",
         "score": one.score},
        {"judge": "b", "model": "b-1", "rubric_version": "r", "verdict": "pass",
         "score": two.score},
    ]  # fmt: skip
    assert "members" not in one.to_line()
