"""Answer and context relevance in a verdict: derived rules, the passage check, the metrics
and the OTel events."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor.core.verdict import Claim, JudgeOutput, Verdict
from monitor.telemetry import Metrics
from sinks.otel import judge_events


def _verdict(**output: object) -> Verdict:
    out = JudgeOutput.model_validate({"claims": [], **output})
    return Verdict.from_output(out, judge="anthropic", model="m", rubric_version="r")


def test_a_refusal_with_the_answer_in_its_context_is_not_relevant() -> None:
    """The rubric's rule, held in code: a false refusal does not address the question."""
    false = _verdict(is_refusal=True, context_has_answer=True, answer_relevance="relevant")
    right = _verdict(is_refusal=True, context_has_answer=False, answer_relevance="relevant")
    assert (false.answer_relevance, right.answer_relevance) == ("irrelevant", "relevant")


def test_context_relevance_is_kept_only_when_it_matches_the_passages() -> None:
    v = _verdict(answer_relevance="partial", context_relevance=["relevant", "irrelevant"])
    assert v.fitted(2, 3.0).context_precision == 0.5 and v.fitted(2, 3.0).weight == 3.0
    assert v.fitted(3, 1.0).context_relevance is None  # which entry meant which passage?
    assert v.fitted(3, 1.0).answer_relevance == "partial"
    line = v.fitted(2, 1.0).to_line()
    assert line["context_relevance"] == ["relevant", "irrelevant"]
    assert line["context_precision"] == 0.5
    assert "answer_relevance" not in _verdict().to_line()  # not said: not in the line


def test_relevance_is_counted_weighted_and_unweighted() -> None:
    metrics = Metrics(CollectorRegistry())
    claims = [Claim(text="c", label="SUPPORTED", passage=1)]
    out = JudgeOutput(claims=claims, answer_relevance="relevant",
                      context_relevance=["relevant", "irrelevant", "irrelevant"])  # fmt: skip
    v = Verdict.from_output(out, judge="anthropic", model="m", rubric_version="r", weight=4.0)
    metrics.on_verdict(v)
    get = metrics.registry.get_sample_value
    judge = {"judge": "anthropic"}
    assert get("ragmon_judge_answer_relevance_total", {**judge, "relevance": "relevant"}) == 1
    assert get("ragmon_judge_answer_relevance_weight_total",
               {**judge, "relevance": "relevant"}) == 4  # fmt: skip
    assert get("ragmon_judge_context_passages_total", {**judge, "relevance": "irrelevant"}) == 2
    assert get("ragmon_judge_context_passages_weight_total",
               {**judge, "relevance": "relevant"}) == 4  # fmt: skip


def test_each_judge_metric_is_an_evaluation_event_where_it_was_said() -> None:
    claims = [Claim(text="c", label="SUPPORTED", passage=1)]
    out = JudgeOutput(claims=claims, answer_relevance="partial",
                      context_relevance=["relevant", "irrelevant"])  # fmt: skip
    v = Verdict.from_output(out, judge="anthropic", model="m", rubric_version="r")
    events = {e["gen_ai.evaluation.name"]: e for e in judge_events(v)}
    assert events["ragmon.faithfulness"]["gen_ai.evaluation.score.label"] == "pass"
    assert events["ragmon.answer_relevance"]["gen_ai.evaluation.score.value"] == 0.5
    assert events["ragmon.context_precision"]["gen_ai.evaluation.score.value"] == 0.5
    bare = Verdict.from_output(JudgeOutput(claims=claims), judge="heuristic", model="h",
                               rubric_version="r")  # fmt: skip
    assert [e["gen_ai.evaluation.name"] for e in judge_events(bare)] == ["ragmon.faithfulness"]
