"""Ordinal numbers, for a question's content words (``words.content``): an ordinal typed with
digits ("2e", "2nd", "2º", "2.") and written out ("deuxième", "tweede", "zweiten") are one
word, its number's digits, as a number's word and its digits already are ("deux" / "2"), so
"ajouter 2e utilisateur" keeps "ajouter un deuxième utilisateur"'s words.

The words are each language's ordinals from first to tenth, in their forms; left out where
the word is also another, common one (Spanish "cuarto", a room; Portuguese "segunda",
Monday; Italian "prima", before, and "secondo", according to; Swedish "andra", other).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

_WORDS: Final = {
    "en": ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
           "tenth"],
    "fr": ["premier|première|premiere|1er|1re|1ère", "deuxième|deuxieme|2eme|2ème",
           "troisième|troisieme", "quatrième|quatrieme", "cinquième|cinquieme",
           "sixième|sixieme", "septième|septieme", "huitième|huitieme", "neuvième|neuvieme",
           "dixième|dixieme"],
    "nl": ["eerste", "tweede", "derde", "vierde", "vijfde", "zesde", "zevende", "achtste",
           "negende", "tiende"],
    "de": ["erste|ersten|erster|erstes|erstem", "zweite|zweiten|zweiter|zweites|zweitem",
           "dritte|dritten|dritter|drittes|drittem", "vierte|vierten|vierter|viertes",
           "fünfte|fünften|fünfter|fünftes", "sechste|sechsten|sechster|sechstes",
           "siebte|siebten|siebter|siebtes", "achte|achten|achter|achtes",
           "neunte|neunten|neunter|neuntes", "zehnte|zehnten|zehnter|zehntes"],
    "es": ["primer|primero|primera", "segundo|segunda", "tercer|tercero|tercera", "",
           "quinto|quinta", "sexto|sexta", "séptimo|séptima", "octavo|octava",
           "noveno|novena", "décimo|décima"],
    "it": ["primo", "", "terzo|terza", "quarto|quarta", "quinto|quinta", "sesto|sesta",
           "settimo|settima", "ottavo|ottava", "nono|nona", "decimo|decima"],
    "pt": ["primeiro|primeira", "", "terceiro|terceira", "quarto|quarta", "quinto|quinta",
           "sexto|sexta", "sétimo|sétima", "oitavo|oitava", "nono|nona", "décimo|décima"],
    "pl": ["pierwszy|pierwsza|pierwsze|pierwszego|pierwszej|pierwszym",
           "drugi|druga|drugie|drugiego|drugiej|drugim|drugą",
           "trzeci|trzecia|trzecie|trzeciego|trzeciej|trzecim|trzecią"],
    "sv": ["första", "", "tredje", "fjärde", "femte", "sjätte", "sjunde", "åttonde", "nionde",
           "tionde"],
    "tr": ["birinci", "ikinci", "üçüncü", "dördüncü", "beşinci", "altıncı", "yedinci",
           "sekizinci", "dokuzuncu", "onuncu"],
}  # fmt: skip
# an ordinal typed with its digits: "2e", "2nd", "3rd", "2º", "2ª", "2.", "2te", "2ste"
_TYPED: Final = re.compile(
    r"(\d+)(?:e|er|re|ère|eme|ème|è|de|ste|te|nd|rd|st|th|º|ª|°|nci|ncı|inci|ıncı|uncu|üncü)"
)


@cache
def ordinals(code: str) -> dict[str, str]:
    """A language's ordinal words -> their number's digits ("tweede": "2")."""
    return {
        form: str(n)
        for n, forms in enumerate(_WORDS.get(code, ()), start=1)
        for form in forms.split("|")
        if form
    }


def typed(word: str) -> str | None:
    """The digits of an ordinal typed with them ("2e": "2"), or None."""
    m = _TYPED.fullmatch(word)
    return m[1] if m else None
