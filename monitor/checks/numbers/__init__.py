"""Finding and normalising the numbers, amounts, percentages and dates a text states.

The naive approach (pull every digit run out of answer and context, diff the sets) is noisy on
real answers: list markers, citation markers, thousands separators, decimal commas, currency,
percent spelled out, dates written three ways, rounded figures. This module turns a text into
``Mention``s whose ``values`` are comparable across all of those spellings.

A mention can have several readings (``1.600`` is 1.6 in English and 1600 in German); it is
supported when any reading is.

The package has three parts: ``patterns`` (vocabulary, noise, tokeniser spaces), ``mentions``
(the tokenizer: text to ``Mention``s) and ``index`` (the context side: ``NumberIndex`` and
``NumberLookup``). The check that uses them is ``monitor.checks.unsupported``.
"""

from monitor.checks import native

native.extend(__path__, "numbers")  # the compiled build's modules first, when it runs

from monitor.checks.numbers.index import NumberIndex, NumberLookup
from monitor.checks.numbers.mentions import Mention, Reading, answer_mentions, locale_of
from monitor.checks.numbers.patterns import strip_noise, untokenise

__all__ = [
    "Mention",
    "NumberIndex",
    "NumberLookup",
    "Reading",
    "answer_mentions",
    "locale_of",
    "strip_noise",
    "untokenise",
]
