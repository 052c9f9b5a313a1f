"""``refusal``: the answer declines or abstains instead of answering.

Real assistants decline in hundreds of ways. The patterns below are grouped by what they say
(no knowledge, the context lacks it, cannot help) and anchored on a speaker ("I", "the
context", "there is no information") so that an answer that merely states a limit ("You
cannot return sale items", "We can't ship to P.O. boxes") is not a refusal.
"""

from __future__ import annotations

import re

from monitor.checks.cues import CueIndex
from monitor.checks.refusal_languages import LANGUAGES, absence_pattern, earliest
from monitor.checks.view import TraceView
from monitor.model import CheckResult

_I = r"(?:I|we)(?:'m| am|'ve| have|'d| would| was| were| are|'re)?"
_INFO = (
    r"(?:information|info|details?|data|knowledge|context|documentation|records?|mention|"
    r"reference|answer|specifics|guidance|insight|visibility|access)"
)
_SOURCE = (
    r"(?:context|contexts|documents?|docs|sources?|passages?|excerpts?|snippets?|information|"
    r"text|texts|materials?|knowledge base|documentation|articles?|records|search results|"
    r"data|content|provided (?:info|material)|retrieved (?:results|content))"
)
_SOURCE_ADJ = r"(?:(?:provided|given|available|retrieved|supplied|above|attached|shared|current|relevant|these|those|this|that|my|our|the|your)\s+){0,3}"
_LACK = (
    r"(?:contain|contains|mention|mentions|include|includes|provide|provides|specify|specifies|"
    r"say|says|state|states|cover|covers|address|addresses|answer|answers|discuss|discusses|"
    r"describe|describes|indicate|indicates|offer|offers|have|has|give|gives|list|lists|"
    r"detail|details|explain|explains|clarify|clarifies|tell|tells|show|shows|reference|"
    r"references|touch on|go into|seem to (?:contain|mention|include|cover|address|have))"
)

# The compositional form (see ``refusal_languages.absence_pattern``): an absence predicate in the
# same clause as "the information" / "any details" or as "in the documents".
_EN_ABSENT = (
    r"\bnot (?:explicitly |specifically |directly )?(?:mentioned|stated|specified|covered|included"
    r"|provided|available|found|listed|given|addressed|discussed|described|present|detailed"
    r"|documented)\b|\bno mention\b|\bnothing\b|\babsent\b|\bsilent\b"
    r"|\b(?:isn't|is not|aren't|are not|wasn't|was not) (?:in|within|part of|among)\b"
    r"|\b(?:doesn't|does not|don't|do not|didn't|did not) (?:say|mention|specify|cover|address"
    r"|include|state|contain|discuss|describe|provide|give)\b"
)
_EN_INFO = (
    r"\b(?:the|this|that|any|such|more|no|further|specific|relevant) (?:information|details?"
    r"|answer(?! is (?:yes|no)\b)|mention)\b|\binformation (?:about|on|regarding)\b"
)
_EN_WHERE = (
    r"\b(?:in|within|from) (?:the|these|this|those|my|our|any of the) (?:\w+ )?(?:context"
    r"|documents?|sources?|passages?|excerpts?|materials?|knowledge base|documentation"
    r"|search results|text|snippets?)\b(?! (?:tab|section|folder|page|menu|list|view|panel|field))"
)

_PHRASES: list[tuple[str, str]] = [
    # --- no knowledge -------------------------------------------------------------------
    ("no_knowledge", r"\bI (?:really |honestly |simply |just )?(?:don't|do not) know\b"),
    ("no_knowledge", r"\bI'?m (?:not (?:sure|certain|aware)|unsure|uncertain)\b"),
    ("no_knowledge", r"\bI am (?:not (?:sure|certain|aware)|unsure|uncertain)\b"),
    ("no_knowledge", r"\bno idea\b"),
    (
        "no_knowledge",
        rf"\b{_I} (?:(?:don't|do not|did not|didn't) have|have no|had no|lack|found no|see no|have not found|haven't found|did not find|didn't find) (?:any |enough |sufficient |specific |the |that |this |relevant |reliable |up-to-date |current |further |more |such |clear |direct |explicit )*{_INFO}\b",
    ),
    (
        "no_knowledge",
        rf"\b{_I} (?:(?:could not|couldn't|can't|cannot|can not|was unable to|were unable to|am unable to|'m unable to|are unable to|was not able to|wasn't able to|am not able to|'m not able to|did not|didn't) (?:find|locate|identify|see|spot|come across|retrieve|access|confirm|verify|determine|pinpoint|discover))\b",
    ),
    (
        "no_knowledge",
        r"\bI (?:(?:don't|do not) see|see no) (?:any )?(?:information|mention|reference|details?|data|answer)\b",
    ),
    (
        "no_knowledge",
        r"\b(?:I'm|I am|I was) (?:not|unable to) (?:find|locate|able to (?:find|locate|determine|confirm|verify|answer|say))\b",
    ),
    (
        "no_knowledge",
        r"\bnot something I (?:know|have information on|can (?:answer|confirm|verify))\b",
    ),
    ("no_knowledge", r"\bbeyond (?:my|the scope of my) (?:knowledge|training)\b"),
    ("no_knowledge", r"\boutside (?:of )?(?:my|the scope of my) knowledge\b"),
    (
        "no_knowledge",
        r"\bmy (?:knowledge|training data|information) (?:doesn't|does not|is limited)\b",
    ),
    # --- the context lacks it ----------------------------------------------------------------
    (
        "context_lacks",
        rf"\b(?:the |these |those |this |that |my |our |your )?{_SOURCE_ADJ}{_SOURCE}(?: (?:provided|given|available|retrieved|above|here|I have|I was given|you(?:'ve| have)? (?:shared|provided|sent|given)))? (?:doesn't|does not|don't|do not|did not|didn't|fails? to|makes? no|lacks?|contain no|contains no|has no|have no|gives? no|offers? no|provides? no|mentions? no|include no|includes no)\s*(?:any |explicit(?:ly)? |specific(?:ally)? |clear(?:ly)? |direct(?:ly)? |actually |appear to |seem to |explicitly |mention of |information (?:on|about|regarding) )*(?:{_LACK}|mention|information|details?|reference|answer|indication|data|articles?|entry|entries|page|section|content|record)\b",
    ),
    (
        "context_lacks",
        r"\b(?:there(?: is| are| was| were|'s| seems to be| appears to be)|I (?:found|see)) (?:no|not any|not enough|insufficient|little|nothing) (?:relevant |specific |explicit |clear |direct |such |further |additional |useful )*(?:information|mention|data|details?|reference|indication|evidence|record|documentation|context|answer)\b",
    ),
    (
        "context_lacks",
        rf"\b(?:not|isn't|aren't|wasn't|weren't) (?:explicitly |specifically |clearly |directly )?(?:mentioned|specified|provided|stated|covered|addressed|included|available|described|listed|discussed|found|detailed|defined|documented|given|present|outlined|explained)(?: anywhere)? (?:in|within|among|by) {_SOURCE_ADJ}{_SOURCE}\b",
    ),
    (
        "context_lacks",
        r"(?:(?:\bnot|n't|\bno) (?:enough|sufficient)|\binsufficient|\binadequate|\blimited) (?:information|context|data|details)(?: is| was)? (?:available |provided |given )?(?:to|in|for|about|on|here|available|provided)\b",
    ),
    (
        "context_lacks",
        r"\b(?:no|nothing) (?:relevant |specific |matching )?(?:information|results?|documents?|answer|data|content|matches) (?:is |was |were |are |has been |could be )?(?:available|provided|found|returned|given|mentioned|located|available)\b",
    ),
    (
        "context_lacks",
        r"\b(?:the )?answer (?:is not|isn't|was not|wasn't|cannot be|can't be|could not be|couldn't be) (?:found|available|provided|determined|given|located|in|contained|present|derived|inferred)\b",
    ),
    (
        "context_lacks",
        rf"\b(?:cannot|can't|can not|could not|couldn't) be (?:reliably |definitively |clearly )?(?:determined|answered|inferred|found|confirmed|derived|deduced|verified|established) (?:from|based on|using|with|in) {_SOURCE_ADJ}{_SOURCE}\b",
    ),
    (
        "context_lacks",
        r"\b(?:can't|cannot|can not|unable to|not possible to|impossible to) (?:be )?(?:determine[d]?|answer(?:ed)?|say|tell|infer(?:red)?|conclude|confirm(?:ed)?) (?:this |that |it )?(?:from|based on|given|with|using) (?:the )?(?:provided |given |available |retrieved )?(?:context|documents?|information|sources?|passages?|data|text)\b",
    ),
    (
        "context_lacks",
        r"\b(?:based on|from|according to|given|with) (?:the |this |these )?(?:provided |given |available |retrieved |supplied )?(?:context|documents?|information|sources?|passages?|data|text)(?: (?:provided|given|available|I have|retrieved))?,? (?:I|we|it is|it's) (?:can't|cannot|can not|am unable to|'m unable to|am not able to|'m not able to|is not possible to|isn't possible to|impossible to|don't|do not|have no way to)\b",
    ),
    (
        "context_lacks",
        r"^\s*(?:empty response|no answer(?: found| available)?|no (?:relevant )?(?:information|results|documents) (?:found|available)|not found|n/?a|unknown|none)\s*\.?\s*$",
    ),
    (
        "context_lacks",
        r"\boutside (?:the scope of|of) (?:the |this |these |my |our )?(?:provided |given |available )?(?:context|documents?|information|sources?|knowledge base|documentation)\b",
    ),
    (
        "context_lacks",
        r"\bbeyond (?:the scope of )?(?:the |this |these )?(?:provided |given |available )?(?:context|documents?|information|sources?|knowledge base|documentation)\b",
    ),
    (
        "context_lacks",
        rf"(?<!if )(?<!if the )(?<!when )(?<!when the )(?<!unless )(?<!unless the )\b(?:the )?{_SOURCE_ADJ}{_SOURCE} (?:is|are|was|were|seems?|appears?)(?: to be)? (?:missing|empty|silent|blank)\b|\b(?:the )?(?:relevant |required |needed |necessary |specific )?(?:information|details?|data|answer) (?:is|are) (?:missing|absent) (?:from|in) {_SOURCE_ADJ}{_SOURCE}\b",
    ),
    (
        "context_lacks",
        rf"\bthere(?:'s| is| was) nothing (?:in|within|about)\b|\bnone of the {_SOURCE_ADJ}{_SOURCE} (?:{_LACK}|mentions?|says?|talks? about)\b",
    ),
    (
        "no_knowledge",
        r"\b(?:couldn't|could not|can't|cannot|didn't|did not) (?:find|spot|see|locate) (?:anything|any (?:mention|information|details)|mention)\b|\bI'?m not seeing (?:anything|any)\b|\bI (?:don't|do not) see anything\b",
    ),
    (
        "context_lacks",
        rf"(?:\bnot|n't) something (?:the |my |these |our )?{_SOURCE_ADJ}{_SOURCE} (?:cover|mention|address|include|say|discuss)|\boutside (?:of )?what I can (?:answer|help with|say|tell)|\b(?:it'?s|it is|this is|that is|that's) (?:not |un)clear (?:from|in|based on) {_SOURCE_ADJ}{_SOURCE}\b",
    ),
    (
        "no_knowledge",
        r"\bI (?:have|had) no way (?:of knowing|to (?:know|tell|determine|confirm|verify))\b|\bI (?:wasn't|was not|weren't|haven't been|have not been) (?:given|provided|shown|told)\b",
    ),
    ("context_lacks", absence_pattern(_EN_ABSENT, _EN_INFO, _EN_WHERE)),
    # --- cannot help ------------------------------------------------------------------------------
    (
        "cannot_help",
        rf"\b(?:{_I} |I'm |we're )(?:can't|cannot|can not|could not|couldn't|won't be able to|unable to|not able to|will not be able to|am unable to|'m unable to|are unable to|am not able to|'m not able to|are not able to|'re not able to|is not able to|do not have the ability to|don't have the ability to|am not in a position to|'m not in a position to) (?:really |fully |reliably |accurately |confidently |definitively |currently |directly )?(?:help|assist|answer|respond|provide|give|offer|share|say|tell|comment|speak|advise|determine|confirm|verify|disclose|discuss|address|support|process|access|look up|check|make|guarantee|predict|recommend)\b",
    ),
    (
        "cannot_help",
        r"\bI (?:must|have to|need to|will have to|'ll have to|would have to|'d have to) (?:respectfully )?(?:decline|refrain|pass)\b",
    ),
    (
        "cannot_help",
        r"\b(?:I'm|I am) (?:afraid|sorry)(?:,)? (?:but )?(?:I |that )?(?:can't|cannot|can not|don't|do not|am unable|'m unable|am not able|won't|have no|couldn't|could not)\b",
    ),
    (
        "cannot_help",
        r"\b(?:sorry|apologies|unfortunately|regrettably),? (?:but )?I (?:can't|cannot|can not|don't|do not|am unable|'m unable|am not able|'m not able|won't|have no|couldn't|could not|was unable|wasn't able)\b",
    ),
    (
        "cannot_help",
        r"\b(?:unable|not able) to (?:provide|give|offer|find|locate|answer|determine|confirm|verify|help|assist) (?:you )?(?:with )?(?:an? |the |that |this |any |specific |more |further |enough |precise |exact )*(?:answer|information|details?|response|data|figure|number|help|assistance|request|question)\b",
    ),
    (
        "cannot_help",
        r"\b(?:this|that|the) (?:question|request|topic) (?:is|falls) (?:outside|beyond|not within|not covered)\b",
    ),
    (
        "cannot_help",
        r"\bnot (?:able|allowed|permitted|authorized) to (?:answer|help|assist|discuss|share|disclose|provide)\b",
    ),
    (
        "cannot_help",
        r"\bI (?:would|'d) (?:recommend|suggest) (?:contacting|reaching out to|checking with|asking|consulting) .{0,60}\b(?:as|since|because) (?:I|the (?:context|documents?|information))\b",
    ),
]

# Substrings that any match of each phrase contains, checked on the lower-cased answer before
# the pattern runs: most answers then run none of the 32 patterns (one combined pattern cost
# ~170 µs on a 150-character answer; gated, the check costs a few µs). A test proves the gate
# changes no outcome on the phrase corpus and on generated text.
_NEGATION = ("n't", "not", " no ", "lack", "unable", "cannot", "can not")
_CUES: list[tuple[str, ...]] = [
    ("know",),
    ("sure", "certain", "aware"),
    ("sure", "certain", "aware"),
    ("idea",),
    _NEGATION,
    _NEGATION,
    ("n't", "not", "see no"),
    ("not", "unable"),
    ("not something",),
    ("beyond",),
    ("outside",),
    ("my knowledge", "my training", "my information"),
    (
        *_NEGATION,
        "fail",
        "make no",
        "makes no",
        "has no",
        "have no",
        "gives no",
        "offers no",
        "provides no",
        "mentions no",
        "includes no",
        "include no",
        "contain no",
        "contains no",
    ),
    ("there", "i found", "i see"),
    ("not", "n't"),
    ("enough", "insufficient", "inadequate", "limited"),
    ("no", "nothing"),
    ("answer",),
    ("cannot be",),
    ("n't", "cannot", "can not", "unable", "possible"),
    ("n't", "cannot", "can not", "unable", "possible", "not able", "no way", "don't", "do not"),
    ("empty", "no", "n/a", "na", "unknown", "none", "not found"),
    ("outside",),
    ("beyond",),
    ("missing", "empty", "silent", "blank", "absent"),
    ("nothing", "none of"),
    ("n't", "not", "cannot"),
    ("something", "outside what", "clear"),
    ("no way", "given", "provided", "shown", "told"),
    (
        "information",
        "detail",
        "answer",
        "mention",
        "context",
        "document",
        "source",
        "passage",
        "excerpt",
        "material",
        "knowledge base",
        "search result",
        "text",
        "snippet",
    ),
    (*_NEGATION, "ability", "not in a position"),
    ("decline", "refrain", "pass"),
    ("afraid", "sorry"),
    ("sorry", "apolog", "unfortunately", "regrettabl"),
    ("unable", "not able"),
    ("outside", "beyond", "not within", "not covered"),
    ("not able", "not allowed", "not permitted", "not authorized"),
    ("recommend", "suggest"),
]
_PATTERNS = [
    (kind, frozenset(cues), re.compile(pattern, re.IGNORECASE | re.MULTILINE))
    for (kind, pattern), cues in zip(_PHRASES, _CUES, strict=True)
]
_ALL_CUES = frozenset(c for cues in _CUES for c in cues)


_CUE_INDEX = CueIndex(
    [*_ALL_CUES, *(c for lang in LANGUAGES for c in (*lang.cues, *lang.nouns))],
    [w for lang in LANGUAGES for w in lang.words],
)


def find_refusal(text: str, gated: bool = True) -> tuple[str, str] | None:
    """(kind, matched phrase) of the earliest refusal in ``text``, or None.

    English patterns first, then each other language's. ``gated=False`` runs every pattern
    regardless of its cues (the reference behaviour the gates are tested against).
    """
    hits = _CUE_INDEX.hits(text.lower()) if gated else None
    if hits is not None and not hits:
        return None
    english = earliest(
        text,
        ((kind, pattern) for kind, cues, pattern in _PATTERNS
         if hits is None or not hits.isdisjoint(cues)),
    )  # fmt: skip
    if english is not None:
        return english
    for language in LANGUAGES:
        found = language.search(text, hits)
        if found is not None:
            return found
    return None


class Refusal:
    """Flags answers that decline or abstain; evidence is the matched phrase and its kind."""

    name = "refusal"

    def __call__(self, view: TraceView) -> CheckResult:
        answer = view.answer
        if not answer.strip():
            return CheckResult.not_applicable(self.name, "empty_answer")
        found = find_refusal(answer)
        if found is None:
            return CheckResult(name=self.name, flagged=False)
        kind, phrase = found
        return CheckResult(name=self.name, flagged=True, evidence={"phrase": phrase, "kind": kind})
