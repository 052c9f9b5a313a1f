"""The form of a query: a ``question``, a ``keyword`` lookup (a few words without the form
of a question: "refund policy enterprise") or an ``instruction`` (longer, without the form
of a question: "Summarise the refund policy for enterprise customers"); and its length.

A question is what ends with a question mark (any script's), or starts with an interrogative
or an auxiliary that opens a question in one of the refusal check's languages, or with a
request to be told ("tell me", "explain"). Written for the languages the refusal check
knows; another language's question without a question mark counts by length alone.
"""

from __future__ import annotations

import re

QUESTION = "question"
KEYWORD = "keyword"
INSTRUCTION = "instruction"

_MARKS = ("?", "？", "؟", ";")  # the Greek question mark is ";": only at the very end
_OPENERS = frozenset(
    """
    what which who whom whose when where why how is are was were do does did can could should
    would will shall may might has have had am tell explain describe list give show compare
    was welche welcher welches wer wen wem wann wo warum wie wieviel wieviele ist sind kann
    können gibt erkläre nenne
    qué que cuál cuáles quién quiénes cuándo dónde por cómo cuánto cuánta cuántos cuántas es
    son puedo puede hay explica dime
    quoi quel quelle quels quelles qui quand où pourquoi comment combien est-ce peut-on
    explique dis
    cosa che quale quali chi quando dove perché come quanto quanti è sono posso spiega dimmi
    wat welke wie wanneer waar waarom hoe hoeveel is zijn kan leg
    co który która które kto kiedy gdzie dlaczego jak ile czy
    qual quais quem onde porque quantos quantas é pode explique diga
    что какой какая какие кто когда где почему зачем как сколько можно ли объясни
    ne hangi kim nerede neden niçin nasıl kaç
    ما ماذا من متى أين لماذا كيف كم هل أي
    क्या कौन कब कहाँ कहां क्यों कैसे कितना कितने किस
    """.split()
)
# Japanese, Korean and Chinese questions end in a particle (か, 까, 吗, 呢) or hold a question
# word anywhere (no spaces mark where a sentence starts)
_CJK_END = re.compile(r"(か|까|니|吗|嗎|呢)\s*$")
_CJK_WORD = re.compile(
    r"什么|什麼|怎么|怎麼|为什么|為什麼|多少|哪|谁|誰|几|何|どこ|いつ|なぜ|どう|だれ|誰|"
    r"무엇|뭐|어디|언제|왜|어떻게|몇|누구"
)
# Turkish asks with a particle after the word it questions ("Bu doğru mu")
_PARTICLE_END = re.compile(r"\s(mı|mi|mu|mü)(sın|sin|sun|sün|yım|yim|yum|yüm)?\s*$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def query_shape(query: str, keyword_words: int) -> str | None:
    """``question``, ``keyword`` or ``instruction``; None for an empty query."""
    text = query.strip()
    if not text:
        return None
    if text.endswith(_MARKS) or _CJK_END.search(text) or _PARTICLE_END.search(text):
        return QUESTION
    if _CJK.search(text) and _CJK_WORD.search(text):
        return QUESTION
    words = text.split()
    first = words[0].lower().strip("¿¡\"'«(“")
    if first in _OPENERS:
        return QUESTION
    # without spaces between words (CJK): count characters, two to a word
    size = max(len(words), len(text) // 2) if _CJK.search(text) else len(words)
    return KEYWORD if size <= keyword_words else INSTRUCTION


def query_length(query: str, short_chars: int, long_chars: int) -> str | None:
    """``short``, ``medium`` or ``long`` by characters; None for an empty query."""
    n = len(query.strip())
    if n == 0:
        return None
    return "short" if n <= short_chars else "long" if n > long_chars else "medium"
