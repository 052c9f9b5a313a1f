"""What a judge returns: claims with labels, and the verdict derived from them.

The verdict is computed here, never taken from the model: score = supported / claims; any
CONTRADICTED claim is a hard fail; an answer with no claims (a refusal) is not applicable,
never a perfect score.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Unpack

from pydantic import BaseModel, ConfigDict, Field

Label = Literal["SUPPORTED", "ABSENT", "CONTRADICTED"]
VerdictLabel = Literal["pass", "fail", "hard_fail", "not_applicable"]
VERDICTS: tuple[VerdictLabel, ...] = ("pass", "fail", "hard_fail", "not_applicable")
# Does the answer address the question (answer relevance), and does each packed passage bear
# on it (context relevance; its relevant share is the trace's context precision)?
Relevance = Literal["relevant", "partial", "irrelevant"]
RELEVANCE: tuple[Relevance, ...] = ("relevant", "partial", "irrelevant")
PassageRelevance = Literal["relevant", "irrelevant"]


class Claim(BaseModel):
    """One atomic claim of the answer and the evidence for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=2000)
    label: Label
    passage: int | None = Field(default=None, ge=1, description="1-based passage relied on.")


class JudgeOutput(BaseModel):
    """The structured output a judge model must produce (validated, never trusted blindly)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claims: list[Claim] = Field(max_length=100)
    is_refusal: bool = False
    context_has_answer: bool | None = None
    # said by the rubric's judges in the same call; None where a profile cannot say them
    answer_relevance: Relevance | None = None
    context_relevance: list[PassageRelevance] | None = Field(default=None, max_length=500)


class MemberVerdict(BaseModel):
    """One jury member's own verdict on a trace the jury judged (``Verdict.members``)."""

    model_config = ConfigDict(frozen=True)

    judge: str
    model: str
    rubric_version: str
    verdict: VerdictLabel
    score: float | None


class TokenCounts(TypedDict):
    """The tokens of a judge's calls for one verdict."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


class CallUsage(TypedDict, total=False):
    """What one judge call cost and took (``Verdict.from_output``): its fields of the
    verdict (the tokens: ``TokenCounts``)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    latency_seconds: float
    usage_estimated: bool
    output_repairs: tuple[str, ...]


class Verdict(BaseModel):
    """A judged trace."""

    model_config = ConfigDict(frozen=True)

    judge: str  # "heuristic" | "anthropic"
    model: str
    rubric_version: str
    verdict: VerdictLabel
    score: float | None
    weight: float
    claims: list[Claim]
    context_has_answer: bool | None = None
    # None: not said (a profile that cannot say it, or a list not one entry per passage)
    answer_relevance: Relevance | None = None
    context_relevance: tuple[PassageRelevance, ...] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    latency_seconds: float = 0.0
    # the server reported no token usage: the tokens (and the cost) are an estimate
    usage_estimated: bool = False
    # what reading the reply took (monitor.judge.replies: a reasoning block dropped, a fence)
    output_repairs: tuple[str, ...] = ()
    # a jury's verdict: each member's own, first judge first (empty for a single judge)
    members: tuple[MemberVerdict, ...] = ()

    @classmethod
    def from_output(
        cls, output: JudgeOutput, judge: str, model: str, rubric_version: str,
        weight: float = 1.0, **usage: Unpack[CallUsage],
    ) -> Verdict:  # fmt: skip
        """The verdict of a judge's labelled claims, with the call's model, usage, cost and
        latency. A refusal is relevant only when the context lacks the answer: one the judge
        says had the answer in its context is irrelevant, whatever else it said (the stage
        checks the context relevance against the trace: ``fitted``)."""
        claims = list(output.claims)
        if not claims:
            verdict: VerdictLabel = "not_applicable"
            score = None
        else:
            supported = sum(c.label == "SUPPORTED" for c in claims)
            score = supported / len(claims)
            if any(c.label == "CONTRADICTED" for c in claims):
                verdict = "hard_fail"
            else:
                verdict = "pass" if supported == len(claims) else "fail"
        # Whether the context held the answer only means something for a refusal.
        has_answer = output.context_has_answer if output.is_refusal or not claims else None
        relevance = output.answer_relevance
        if relevance is not None and output.is_refusal and has_answer is True:
            relevance = "irrelevant"  # a false refusal does not address the question
        per_passage = output.context_relevance
        return cls(
            judge=judge, model=model, rubric_version=rubric_version, verdict=verdict,
            score=score, weight=weight, claims=claims, context_has_answer=has_answer,
            answer_relevance=relevance,
            context_relevance=None if per_passage is None else tuple(per_passage), **usage,
        )  # fmt: skip

    def fitted(self, passages: int, weight: float) -> Verdict:
        """This verdict with the stage's sampling ``weight``, its context relevance dropped
        unless it has one entry for each of the trace's ``passages`` (never matched by
        guess)."""
        update: dict[str, Any] = {"weight": weight}
        if self.context_relevance is not None and len(self.context_relevance) != passages:
            update["context_relevance"] = None
        return self.model_copy(update=update)

    @property
    def context_precision(self) -> float | None:
        """The relevant share of the packed passages (None when not said, or no passage)."""
        said = self.context_relevance
        if not said:
            return None
        return sum(r == "relevant" for r in said) / len(said)

    def to_line(self) -> dict[str, object]:
        """The ``judge`` member of an evaluation line (docs, "Evaluation lines")."""
        return {
            "judge": self.judge,
            "model": self.model,
            "rubric_version": self.rubric_version,
            "verdict": self.verdict,
            "score": self.score,
            "weight": self.weight,
            "claims": [c.model_dump() for c in self.claims],
            "context_has_answer": self.context_has_answer,
            **({"answer_relevance": self.answer_relevance}
               if self.answer_relevance is not None else {}),
            **({"context_relevance": list(self.context_relevance),
                "context_precision": self.context_precision}
               if self.context_relevance is not None else {}),
            **({"members": [m.model_dump() for m in self.members]} if self.members else {}),
        }  # fmt: skip
