"""``refusal``: the answer declines or abstains instead of answering.

Real assistants decline in hundreds of ways, in many languages. The patterns, one data file
per language in ``languages/`` (loaded by ``refusal_cues``), are grouped by what they say (no
knowledge, the context lacks it, cannot help) and anchored on a speaker ("I", "the context",
"there is no information") so that an answer that merely states a limit ("You cannot return
sale items", "no hay comisión") is not a refusal.
"""

from __future__ import annotations

from typing import ClassVar

from monitor.checks.cues import CueIndex
from monitor.checks.evidence import RefusalEvidence
from monitor.checks.refusal_cues import Language, languages
from monitor.checks.view import TraceView
from monitor.core.evidence import CheckMeasure, CheckOutput
from monitor.core.model import CheckResult

_LANGUAGES = languages()
# Substrings that any match of each pattern contains, found in one pass on the lower-cased
# answer before any pattern runs: most answers then run no pattern at all (one combined pattern
# cost ~170 µs on a 150-character answer; gated, the check costs a few µs).
_GATES = [lang.gate_cues() for lang in _LANGUAGES]
_CUE_INDEX = CueIndex(
    [c for subs, _ in _GATES for c in subs], [w for _, words in _GATES for w in words]
)


def _wakes(language: Language) -> tuple[frozenset[str], bool]:
    """(the cues one of which must be found for ``language`` to run a pattern, whether any
    found cue does): its gate's words and cues; without a gate, its patterns' own cues and,
    for its absence rule, its nouns, and any cue at all when a pattern has no cue of its own.
    Asked before ``Language.search``, which would return None for the others."""
    gate = language.words | frozenset(language.cues)
    if gate:
        return gate, False
    own = {c for p in language.patterns if p.cues is not None for c in p.cues}
    if language.absence is not None:
        own.update(language.nouns)
    return frozenset(own), any(p.cues is None for p in language.patterns)


_WAKES = [_wakes(lang) for lang in _LANGUAGES]


def find_refusal(text: str, gated: bool = True) -> tuple[str, str] | None:
    """(kind, matched phrase) of the earliest refusal in ``text``, or None.

    English patterns first, then each other language's (only those a found cue wakes).
    ``gated=False`` runs every pattern regardless of its cues (the reference behaviour the
    gates are tested against).
    """
    hits = _CUE_INDEX.hits(text.lower()) if gated else None
    if hits is not None and not hits:
        return None
    for language, (wake, always) in zip(_LANGUAGES, _WAKES, strict=True):
        if hits is None or always or not wake.isdisjoint(hits):
            found = language.search(text, hits)
            if found is not None:
                return found
    return None


_NO_REFUSAL = RefusalEvidence()


class Refusal:
    """Flags answers that decline or abstain; evidence is the matched phrase and its kind."""

    name: ClassVar[str] = "refusal"
    evidence: ClassVar[type[RefusalEvidence]] = RefusalEvidence
    output: ClassVar[CheckOutput] = "flag"
    measures: ClassVar[tuple[CheckMeasure, ...]] = ()
    options: ClassVar[None] = None  # nothing to configure

    def __init__(self, options: None = None) -> None:
        """Nothing to configure (``options`` is always None)."""

    def __call__(self, view: TraceView) -> CheckResult:
        """The check's result on one trace."""
        answer = view.answer
        if not answer.strip():
            return CheckResult.not_applicable(self.name, "empty_answer")
        found = find_refusal(answer)
        if found is None:
            return _NOT_A_REFUSAL
        kind, phrase = found
        return CheckResult(name=self.name, flagged=True, evidence=RefusalEvidence(phrase, kind))


# Results are immutable: the common one is built once and shared (six results a trace are
# a measurable share of the check path).
_NOT_A_REFUSAL = CheckResult(name=Refusal.name, flagged=False, evidence=_NO_REFUSAL)
