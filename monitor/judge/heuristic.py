"""``HeuristicJudge``: claims and labels from lexical and numeric evidence, no network.

The answer is split into sentences (claims). A claim is SUPPORTED when one passage covers
most of its content words and states its figures; CONTRADICTED when a passage covers it
closely but states other figures for it (the stale-page case); ABSENT otherwise. A refusal has
no claims; whether the context had the answer is guessed from how much of the question the
passages cover. Cheap and transparent, and labelled ``judge="heuristic"`` everywhere.
"""

from __future__ import annotations

import re

from monitor.checks.numbers import NumberLookup, answer_mentions, strip_noise
from monitor.checks.refusal import find_refusal
from monitor.checks.text import CONTENT_WORD
from monitor.core.model import RagTrace
from monitor.core.verdict import Claim, JudgeOutput, Verdict
from monitor.judge.rubric import RUBRIC_ID

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP = frozenset(
    "that this with from have your their there which would could should about these those "
    "they them were will been also into than then when what where while more most some such "
    "only very just each other does done".split()
)


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in CONTENT_WORD.findall(text.lower())} - _STOP


_QUERY_WORD = re.compile(r"[a-z][a-z'-]{2,}")
_QUERY_STOP = _STOP | frozenset(
    "how much many long often what when where which who why the and for are you can our any".split()
)


def _query_words(text: str) -> set[str]:
    """Question words, short ones included ("Pro plan"), question words dropped."""
    return {w.rstrip("s") for w in _QUERY_WORD.findall(text.lower())} - _QUERY_STOP


class HeuristicJudge:
    """A lexical and numeric screen with the judge's interface: no model, no network."""

    name = "heuristic"
    model = "heuristic-v1"

    def __init__(self, support: float = 0.6, contradiction: float = 0.5) -> None:
        self.support = support
        self.contradiction = contradiction

    def judge(self, trace: RagTrace) -> Verdict:
        """The verdict on ``trace`` (raises ``JudgeError`` by kind when there is none)."""
        return Verdict.from_output(
            self.output(trace), judge=self.name, model=self.model,
            rubric_version=RUBRIC_ID,
        )  # fmt: skip

    def close(self) -> None:
        """Nothing held."""

    def output(self, trace: RagTrace) -> JudgeOutput:
        """The claims and labels the screen finds, before they become a verdict."""
        passages = [p.text for p in trace.context]
        if find_refusal(trace.answer) is not None:
            q = _query_words(trace.query)
            ctx = _query_words(" ".join(passages))
            covered = len(q & ctx) / len(q) if q else 0.0
            return JudgeOutput(claims=[], is_refusal=True, context_has_answer=covered >= 0.5)
        words = [_words(p) for p in passages]
        lookups = [NumberLookup(p) for p in passages]
        claims = []
        # (a claim keeps "according to passage 2"; its figures are no claim all the same)
        answer = strip_noise(trace.answer, textual=False).replace(" | ", " ")
        for sentence in _SENTENCE.split(answer):
            sentence = sentence.strip(" -*•")
            w = _words(sentence)
            if len(w) < 2:
                continue
            claims.append(self._label(sentence, w, words, lookups))
        return JudgeOutput(claims=claims)

    def _label(
        self, sentence: str, w: set[str], words: list[set[str]], lookups: list[NumberLookup]
    ) -> Claim:
        if not words:
            return Claim(text=sentence, label="ABSENT")
        coverage = [len(w & pw) / len(w) for pw in words]
        best = max(range(len(words)), key=coverage.__getitem__)
        figures = answer_mentions(sentence)
        stated = [all(lk.supports(m) for m in figures) for lk in lookups]
        if coverage[best] >= self.support and stated[best]:
            return Claim(text=sentence, label="SUPPORTED", passage=best + 1)
        # Another passage may state the figures with fewer of the same words.
        for i in sorted(range(len(words)), key=coverage.__getitem__, reverse=True):
            if coverage[i] >= self.support and stated[i]:
                return Claim(text=sentence, label="SUPPORTED", passage=i + 1)
        if figures and coverage[best] >= self.contradiction and not stated[best]:
            return Claim(text=sentence, label="CONTRADICTED", passage=best + 1)
        return Claim(text=sentence, label="ABSENT")
