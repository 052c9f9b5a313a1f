"""What a follow-up turn reports rather than asks or judges: readings of ``signals`` that the
turn's place in the conversation undoes.

* A hand-off thanked for: thanks whose words hold the hand-off ("bedankt voor het
  terugbellen", "상담원이랑 통화했어요 감사합니다": what the thanks are for), or thanks alone
  after a turn that asked for a person, where what reads as a request asks nothing ("merci
  beaucoup, le technicien passe demain", "dzięki, przełożone": the hand-off done). Thanks
  that ask for the person again ("thanks, now get me a human") stay a request: a word of
  the language's ``want`` role is in them.
* The user's problem asked again: a turn of one clause that asks A again with a complaint in
  it ("not working", "nie działa") whose words are all A's ("my login doesn't work on
  mobile, what should I do?" / "login not working mobile"): the problem A stated, restated,
  not a verdict on the answer. A complaint in a clause of its own beside the question
  ("that's not what I asked. <the question again>") is not one.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from functools import cache
from importlib import resources

from monitor.sessions import grammar
from monitor.sessions.words import (
    _FLAGS,
    _JAMO,
    _first_language,
    _Turn,
    languages,
)


def thanked_handoff(
    a: _Turn,
    b: _Turn,
    request: re.Match[str],
    thanks: re.Match[str],
    asked: Callable[[_Turn], bool],
) -> bool:
    """Whether B's request for a person (``request``) is the hand-off B only thanks for
    (``thanks``): its words inside the thanks' (what they are for), or thanks after a turn
    that asked for a person (``asked``, read only then) naming no wish."""
    if thanks.start() <= request.start() and request.end() <= thanks.end():
        return True
    return _wants().search(b.text) is None and asked(a)


@cache
def _wants() -> re.Pattern[str]:
    """Every language's words of a wish for a person (``want``: "get me", "ich möchte")."""
    words = [w for lang in languages() for w in _role(lang.code, "want")]
    return re.compile("|".join(f"\\b(?:{w})\\b" for w in words) or "(?!)", _FLAGS)


def restated(a: _Turn, b: _Turn, verdict: tuple[int, int]) -> bool:
    """Whether B, one clause that asks A again (read by the caller), holds a complaint whose
    words are all A's (``verdict``: where the complaint's verdict is in B's text)."""
    text = b.text
    start, end = verdict
    while end < len(text) and text[end].isalnum():
        end += 1  # whole words: "görünmüyor"
    if len(grammar.clauses(text)) > 1:  # B asks A again (the caller's): one clause, all of B
        return False  # a clause beside it may be the verdict ("not what I asked. <it again>")
    lang = _first_language(a, b)
    negators = _negators(lang.code)
    a_negates = any(w in negators for w in a.words)
    return all(
        w[:_START] in a.starts or (w in negators and a_negates)
        for w in _WORD.findall(text[start:end])
    )


_START = 4  # a word of A begun with the same four letters is the same word ("working", "work")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


@cache
def _negators(code: str) -> frozenset[str]:
    """A language's words of negation (``negators``), each word of them."""
    return frozenset(w for x in _role(code, "negators") for w in x.split())


def _role(code: str, role: str) -> tuple[str, ...]:
    """A language's words of a role of its ``grammar`` table."""
    return tuple(_tables().get(code, {}).get(role, ()))


@cache
def _tables() -> dict[str, dict[str, list[str]]]:
    """Each language's ``grammar`` table, read as ``words.languages`` reads it."""
    folder = resources.files("monitor.sessions") / "languages"
    out = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8").translate(_JAMO))
            out[data["code"]] = data.get("grammar", {})
    return out
