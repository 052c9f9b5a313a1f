"""A trace's risk: how likely its answer is unfaithful to its context, from the checks' own
evidence, as one number in [0, 1] (higher: more likely), on every trace and without a model.

With ``judge.sampling.by: risk`` the judge's sample follows it: a trace's inclusion probability
rises from ``base_rate`` at risk 0 to ``flagged_rate`` at risk 1, so the budget lands on the
answers likely to fail while every trace keeps a chance and its 1/p weight (the weighted
rates stay unbiased). The evaluation line carries ``risk``; ``ragmon_trace_risk`` is its
histogram.

Definition (``RISK_VERSION``): each piece of evidence is a chance that the answer fails,
combined as independent chances (noisy-or: 1 − Π(1 − eᵢ)):

* grounding: the share of the answer's content words missing from the context, ``1 − o``
  (``grounding_overlap``), scaled by 0.85 so that it never reaches certainty — alone it ranks
  hallucinated answers well (AUROC measured by ``bench/risk.py``). An answer too short for
  the check to score (one or two content words: "Paris", "in 1994") is measured the same way
  on the words it has: a short right answer is a name or a figure the context holds, a short
  wrong one usually is not (risk/1 left them at 0, and ranked short-answer QA below a naive
  lexical novelty). A missing word said right before a name the context has (a word it
  writes capitalised, not only at a sentence's start) counts twice (risk/5): it is part of
  a name or title the context does not give ("alan curtis" over "Curtis said ...",
  "president Szijjarto" over "Foreign Minister Peter Szijjarto"): a summariser's invented
  first name, title or role, an extrinsic entity one-sentence summaries are often wrong
  by, which counting every missing word alike underweights;
* new phrasing (risk/4): the share of the answer's word trigrams (three words in a row,
  case and punctuation ignored) found neither in the context nor in the question, scaled by
  0.25 in an answer of up to 10 words and by more as the answer grows, linearly to 1.0 at
  90 words and over (risk/6). An answer can reuse the context's words while stating what it
  does not say (who resigned and who was appointed, swapped); word sequences the context
  never has tell such recombined or invented statements where single words do not, most of
  all in long answers, nearly all of whose words are somewhere in the context (risk/2
  ranked FRANK's multi-sentence CNN/DM summaries below a naive lexical novelty). Fewer than
  three words add nothing here. The share is read on more trigrams, and so tells more, the
  longer the answer: a one-sentence summary's few trigrams are often new while it is faithful (alone
  they rank FRANK's XSum summaries at 0.55), a long answer's are many and rank long-form
  answers better than the grounding gap does (ExpertQA's long answers 0.65 against 0.58,
  QAGS's CNN/DM summaries 0.80 against 0.57), where a fixed 0.25 left the sum of the two at
  the gap's ranking;
* unsupported figures (``unsupported_numbers`` flagged): 0.6;
* names the context does not write (``unsupported_names`` flagged): 0.3 (risk/9; chosen
  among 0.2-0.5 on the development parts of the long-form sets: it lifts summaries and
  long answers, SummEdits and BUMP most, and lowers the claim sets whose answers name what
  their evidence does not write, AttrScore-GenSearch);
* an answer over an empty context (``empty_context`` flagged): 0.5;
* conflicting passages (``context_conflict`` flagged): 0.3;
* invalid or missing citations (``citation`` flagged): 0.15.

A refusal (``refusal`` flagged) is not measured by its words (a refusal's words are not in
the context by nature): its risk is 0.3, the chance it is a false refusal, which the judge
tells (``judge_false_refusal``); but what the answer says in its sentences that do not refuse
is measured as any answer is, and sets the risk when higher (risk/7): "The context does not
mention the fee. However, banks usually charge $25." answers all the same, from what the
context does not give (risk/6 scored every such answer 0.3, below most unfaithful ones).
Content words are those the grounding check counts: contractions of stop words ("it's",
"don't", "you're") are stop words (risk/8; before, "it's a comedy" missed the word "it's" from
a context that never says it, a gap of a third).
A check that did not run adds nothing, nor a flag check that did not apply.
The weights, the grounding scale among them, are chosen, not fitted (public data with every
kind labelled is not at hand; the phrasing scale was chosen among a few on FRANK's
validation articles and HaluEval, the name part's weight among 1.5–3 on FRANK's validation
articles, the phrasing's growth with length among a few schedules on the development parts
of the sets ``bench/longform.py`` converts and FRANK's validation articles); ``bench/risk.py``
measures how the result ranks and samples.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from monitor.checks import kernels
from monitor.checks.context import content_words, missing_words
from monitor.checks.evidence import OverlapEvidence
from monitor.checks.memo import lowered
from monitor.checks.refusal import find_refusal
from monitor.checks.view import TraceView
from monitor.core.model import CheckResult

RISK = "risk"  # its name where a version or an error is told beside the checks'
RISK_VERSION = "risk/9"  # risk/3 is the learned risk's (monitor/judge/learned_risk.py)
GROUNDING_SCALE = 0.85
NAME_PART_WEIGHT = 2.0  # a missing word said before a name the context has counts this much
PHRASING_SCALE = 0.25  # in an answer of SHORT_WORDS words or fewer
PHRASING_SCALE_LONG = 1.0  # from LONG_WORDS words on; linear between (risk/6)
SHORT_WORDS = 10
LONG_WORDS = 90
MAX_TRIGRAMS = 64  # a longer answer is read in at most this many trigrams (bounded work)
FLAG_CHANCES: Mapping[str, float] = {
    "unsupported_numbers": 0.6,
    "unsupported_names": 0.3,  # (risk/9)
    "empty_context": 0.5,
    "context_conflict": 0.3,
    "citation": 0.15,
}
REFUSAL_CHANCE = 0.3
REST_WORDS = 8  # content words a refusal's other sentences need to be measured (risk/7)


def risk(checks: Mapping[str, CheckResult], view: TraceView) -> float:
    """The risk of the trace ``view`` whose check results are ``checks`` (see the module)."""
    refusal = checks.get("refusal")
    if refusal is not None and refusal.flagged:
        return _refusal_risk(checks, view)
    grounding = checks.get("grounding_overlap")
    novel = _new_phrasing(view.answer, view) if grounding is not None else None
    keep = _words_keep(_grounding_gap(grounding, view), novel, view.answer)
    return round(1.0 - _flags_keep(checks, keep), 4)


def _words_keep(gap: float | None, novel: float | None, text: str) -> float:
    """The chance that ``text``'s words fail in neither way: its grounding ``gap`` and its
    share of ``novel`` trigrams, each scaled (see the module)."""
    keep = 1.0
    if gap:
        keep *= 1.0 - GROUNDING_SCALE * gap
    if novel:
        keep *= 1.0 - phrasing_scale(text) * novel
    return keep


def _flags_keep(checks: Mapping[str, CheckResult], keep: float) -> float:
    """``keep`` (the chance that nothing else fails) times the chance that none of the flags
    of ``FLAG_CHANCES`` raised fails."""
    for name, chance in FLAG_CHANCES.items():
        result = checks.get(name)
        if result is not None and result.flagged:
            keep *= 1.0 - chance
    return keep


def _refusal_risk(checks: Mapping[str, CheckResult], view: TraceView) -> float:
    """A refusal's risk: ``REFUSAL_CHANCE``, or, when higher, the risk of what the answer says
    in its sentences that do not refuse (their grounding gap and new phrasing, with the
    flags), read only where the grounding check runs (risk/7)."""
    if checks.get("grounding_overlap") is None:
        return REFUSAL_CHANCE
    # (every sentence that refuses is left out: "I don't know. The context doesn't say.")
    rest = " ".join(s for s in SENTENCES.split(view.answer) if find_refusal(s) is None)
    words = content_words(rest)
    if len(words) < REST_WORDS:
        return REFUSAL_CHANCE  # a refusal, an apology, a pointer elsewhere
    keep = _words_keep(_missing_share(words, view), _new_phrasing(rest, view), rest)
    return round(max(REFUSAL_CHANCE, 1.0 - _flags_keep(checks, keep)), 4)


def phrasing_scale(answer: str) -> float:
    """The new phrasing's weight in an answer of this length (see the module): whitespace
    words are counted up to ``LONG_WORDS`` only (bounded work on a long answer)."""
    words = min(len(answer.split(maxsplit=LONG_WORDS)), LONG_WORDS)
    share = max(0, words - SHORT_WORDS) / (LONG_WORDS - SHORT_WORDS)
    return PHRASING_SCALE + (PHRASING_SCALE_LONG - PHRASING_SCALE) * share


def _grounding_gap(grounding: CheckResult | None, view: TraceView) -> float | None:
    """The share of the answer's content words missing from the context: the check's when it
    scored, else (an answer too short to score) of the words the answer has; None when the
    check did not run or the answer has no content word."""
    if grounding is None:
        return None
    if grounding.applicable:
        if grounding.score is None:
            return None
        gap = 1.0 - grounding.score
        evidence = grounding.evidence
        if not isinstance(evidence, OverlapEvidence) or not evidence.missing:
            return gap
        parts = _name_parts(evidence.missing, view)
        return min(1.0, gap + parts * (NAME_PART_WEIGHT - 1.0) / evidence.content_words)
    words = content_words(view.answer)
    return _missing_share(words, view) if words else None


def _missing_share(words: set[str], view: TraceView) -> float:
    """The share of ``words`` (content words of the answer) the context lacks, a part of a
    name counting ``NAME_PART_WEIGHT`` times."""
    missing = missing_words(view, words)
    weighted = len(missing) + _name_parts(missing, view) * (NAME_PART_WEIGHT - 1.0)
    return min(1.0, weighted / len(words))


_NEXT_WORD = re.compile(r" +([a-z][a-z'-]*)")
SENTENCES = re.compile(r"(?<=[.!?])\s+")  # where an answer's sentences part
_SENTENCE_END = frozenset(".!?")


def _name_parts(missing: Collection[str], view: TraceView) -> int:
    """How many of the ``missing`` words (content words the context lacks) the answer says
    right before a name the context has: the next word, after spaces only, is one the
    context writes capitalised as a word of its own somewhere not at a sentence's start
    ("alan" in "alan curtis" over "... said Curtis"). Case in the answer is not read (some
    summarisers lower-case everything)."""
    if not missing:
        return 0
    answer = view.answer.lower()
    parts = 0
    named: dict[str, bool] = {}  # a name asked of the context once (bounded work on repeats)
    for word in missing:
        i = answer.find(word) if word else -1
        while i >= 0:
            end = i + len(word)
            after = _NEXT_WORD.match(answer, end) if i == 0 or not answer[i - 1].isalpha() else None
            if after is not None:
                name = after.group(1).strip("'-")
                if name not in named:
                    named[name] = len(name) > 1 and _named(view.context_text, name)
                if named[name]:
                    parts += 1
                    break
            i = answer.find(word, end)
    return parts


def _named(context: str, word: str) -> bool:
    """Whether ``context`` writes ``word`` (lower-case) capitalised, as a word of its own, at
    least once where no sentence ends just before it."""
    name = word[0].upper() + word[1:]
    i = context.find(name)
    while i >= 0:
        end = i + len(name)
        if (i == 0 or not context[i - 1].isalnum()) and (
            end == len(context) or not context[end].isalpha()
        ):
            j = i - 1
            while j >= 0 and context[j].isspace():
                j -= 1
            if j >= 0 and context[j] not in _SENTENCE_END:
                return True
        i = context.find(name, i + 1)
    return False


def _new_phrasing(text: str, view: TraceView) -> float | None:
    """The share of ``text``'s (the answer's, or a part of it) word trigrams found in neither
    the context nor the question (case and punctuation ignored, dashes and curly quotes too;
    a trigram's last word may be the start of a longer one: "refund" in "refunds", as the
    grounding check reads words); None when it has fewer than three words. The risk reads it
    only where the grounding check runs. A long text is read in at most ``MAX_TRIGRAMS``
    trigrams spread evenly over it (bounded work). Counted by ``kernels.phrasing``: C in the
    compiled build."""
    novel, looked = kernels.phrasing(
        lowered(text), view.context_lower, lowered(view.trace.query), MAX_TRIGRAMS
    )
    return novel / looked if looked else None
