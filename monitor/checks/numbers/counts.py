"""Small spelled counts of things ("two films titled X", "three suspects"): when the context
backs one, contradicts one, or cannot say.

People read "the passage describes two films titled Veeram" as faithful when the context
has one paragraph per film and never writes "two". The policy (docs, "Counts of things"):

* a count is **backed** when the context presents that many distinct things of the kind:
  that many passages, paragraphs or list lines about a same-named entity (the answer names
  it: "two films titled X", "two Paul Williamses"), or a list of that many items in a
  sentence on the same matter ("Smith and Jones" for "two players were sent off");
* it is **flagged** when the context states another count of the same things ("five
  players named ..."), presents another number of them (three lines about X for "two X"),
  or lists another number of them;
* otherwise it is **unjudged** (not flagged): a count the context neither states nor
  presents is not evidence of invention.

Only spelled counts from two to twenty before a plural noun of things are judged this way
("two films", "three cities"); a figure with a measuring unit ("two days", "three miles"),
a larger count ("forty-nine people") and any digit stay ordinary figures.
Looked at only after the plain look-up and the one-step derivations failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from monitor.checks.numbers.forms import ITEM_SPLIT, counted, enumerations
from monitor.checks.numbers.patterns import (
    MEASURES,
    SENTENCE,
    SPELLED,
    sentence_end,
    sentence_start,
)

Verdict = Literal["backed", "flagged", "unjudged"]


@dataclass(frozen=True, slots=True)
class CountVerdict:
    """What the context says of a count, and why."""

    verdict: Verdict
    why: str


_WORD = re.compile(r"[A-Za-z][\w'-]*")
_CONTENT = re.compile(r"[a-z]{4,}")
_NAMED = re.compile(
    r"\s+(?:(?:who\s+(?:are|were)\s+)?(?:named|called|titled|entitled|known\s+as)"
    r"|with\s+the\s+(?:name|title)|by\s+the\s+name(?:\s+of)?)\s+[\"'“]?"
)
_HEADER = re.compile(r"(?:may|might|can|could)\s+(?:also\s+)?refer\s+to|:\s*$", re.IGNORECASE)
_SPELLED_OR_DIGITS = "|".join(sorted(SPELLED, key=len, reverse=True))
# "48 people", "five players", "three Tamil films": a count before a plural noun
_STATED = re.compile(
    rf"\b(\d{{1,3}}|{_SPELLED_OR_DIGITS})(?:[ -]+([a-z]+))?\s+([a-z]{{3,}}s|people|men|women"
    r"|children|staff)\b",
    re.IGNORECASE,
)
# Nouns of persons: a count of one stands for a count of another in a related sentence
# ("eighty respondents" against "70 people answered the survey").
_PERSONS = frozenset(
    "people persons individuals men women children adults players members respondents "
    "participants attendees residents students workers employees passengers victims patients "
    "voters users customers visitors fans soldiers officers suspects founders".split()
)
_STOP = frozenset(
    "that this with from were have there their they them than then what when which where "
    "about also into only been being more most some such each other both".split()
)


def _singular(noun: str) -> str:
    noun = noun.lower()
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("ses", "xes", "ches", "shes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


class CountClaim:
    """A spelled count of things in an answer: its value, its noun, the entity it names (if
    any) and the words of its sentence."""

    def __init__(self, value: int, noun: str, name: str | None, sentence: str,
                 plural: str = "") -> None:  # fmt: skip
        self.value = value
        self.noun = noun  # singular, lower case ("film")
        self.persons = plural.lower() in _PERSONS  # a count of people of some kind
        self.name = name  # lower case ("veeram"), or None
        self.words = {w for w in _CONTENT.findall(sentence.lower()) if w not in _STOP}
        self.words -= {noun, noun + "s", *(name or "").split()}

    @classmethod
    def find(cls, answer: str, raw: str, noun: str) -> CountClaim | None:
        """The claim ``raw`` ("two") makes about ``noun`` ("films") in ``answer``, when it
        is a small count of things."""
        value = SPELLED.get(raw.lower())
        if value is None or not 2 <= value <= 20 or not noun:
            return None
        m = re.search(rf"\b{re.escape(raw)}\s+(?:[a-z][\w-]*\s+)?({re.escape(noun)})\b", answer,
                      re.IGNORECASE)  # fmt: skip
        if m is None:
            return None
        # its sentence, ``WINDOW`` characters on each side at most (as a figure's: each claim
        # reading its whole sentence cost claims x sentence)
        sentence = answer[sentence_start(answer, m.start()) : sentence_end(answer, m.end())]
        if m.group(1)[0].isupper():  # "two Paul Williamses": a name, made plural
            name = _capitalised(_WORD.findall(answer[m.start(1) : m.start(1) + 120]))
            return cls(value, "", _singular_name(name), sentence)
        named = _NAMED.match(answer, m.end())
        name = ""
        if named is not None:
            name = _capitalised(_WORD.findall(answer[named.end() : named.end() + 120]))
        return cls(value, _singular(noun), name.lower() or None, sentence, noun)


def _capitalised(words: list[str]) -> str:
    out = []
    for w in words[:5]:
        if not w[0].isupper():
            break
        out.append(w)
    return " ".join(out)


def _singular_name(name: str) -> str:
    """ "Paul Williamses" -> "paul williams", "Harrys" -> "harry", "Chris Eubanks" -> "chris
    eubank" (a prefix of the name as written: "Eubank" matches "Eubanks" too)."""
    low = name.lower()
    if low.endswith("ses") and len(low) > 5:
        return low[:-2]
    return low[:-1] if low.endswith("s") else low


# Each context sentence: as written, lower-cased, its content words made singular, its lists.
Sentences = list[tuple[str, str, frozenset[str], list[list[str]]]]


def read_sentences(passages: list[str]) -> Sentences:
    """The context's sentences as ``judge`` reads them (once a trace, for every claim): those
    with a list or a count, the others decide nothing."""
    out: Sentences = []
    for p in passages:
        for s in SENTENCE.findall(p):
            lists = _lists(s) if s.strip() else []
            if lists or _STATED.search(s):
                low = s.lower()
                words = frozenset(_singular(w) for w in _CONTENT.findall(low))
                out.append((s, low, words, lists))
    return out


def judge(
    claim: CountClaim, passages: list[str], sentences: Sentences | None = None
) -> CountVerdict:
    """Whether the context backs, contradicts or cannot judge ``claim`` (``sentences``: the
    passages' ``read_sentences``, when the caller keeps them)."""
    if claim.name:
        found = _named_units(claim, passages)
        if found is not None:
            return found
    # each context sentence, whether it is on the claim's matter, whether it names the
    # counted kind, and its lists: for both passes below
    read = [
        (s, _related(claim, low), bool(claim.noun) and claim.noun in words, lists)
        for s, low, words, lists in (read_sentences(passages) if sentences is None else sentences)
    ]
    for _, related, named, lists in read:
        for items in lists:
            presented = _lists_as(items, claim)
            if presented == claim.value and (named or related) and not _quantities(items):
                how = "count of " if counted(items) == len(items) else "sum of "
                return CountVerdict("backed", how + ", ".join(items))
    for s, related, named, lists in read:
        for m in _STATED.finditer(s):
            stated = _value(m.group(1))
            # (the word between may be the noun, the plural after it a verb: "12 volunteers
            # staff the food bank")
            noun = _singular(m.group(3))
            if m.group(2) and _singular(m.group(2)) == claim.noun:
                noun = claim.noun
            same = noun == claim.noun or (
                related and claim.persons and m.group(3).lower() in _PERSONS
            )
            if same and stated is not None and stated != claim.value:
                return CountVerdict("flagged", f"the context says {m.group(0).strip()}")
        for items in lists:
            # (a list of quantities, "took two years and cost £4 million", is not a list of
            # the things counted, nor one with those things as one item: "the galleries and
            # a new café")
            if (_lists_as(items, claim) != claim.value and (named or related)
                    and not _quantities(items)
                    and not _holds_plural(items, claim.noun)):  # fmt: skip
                return CountVerdict("flagged", "the context lists " + ", ".join(items))
    return CountVerdict("unjudged", "the context neither states nor presents this count")


def _lists(sentence: str) -> list[list[str]]:
    """The lists of a sentence: enumerations, and the items after a colon ("Plan features:
    SSO, audit logs, exports and webhooks")."""
    found = list(enumerations(sentence))
    head, colon, tail = sentence.rpartition(":")
    if colon and head.strip():
        items = [i.strip(" .") for i in ITEM_SPLIT.split(tail) if i.strip(" .")]
        if len(items) >= 2 and all(len(i.split()) <= 4 for i in items):
            found.append(items)
    return found


def _lists_as(items: list[str], claim: CountClaim) -> int | None:
    """The count a list presents for ``claim``: its items' quantities added up ("a hammer,
    two saws and a drill" is four tools); for a count of persons, its items when none has a
    quantity, and none otherwise (a list whose persons add up is the persons rule's to back,
    ``computed.persons``; "a guide, three hikers and a dog" counts no persons)."""
    total = counted(items)
    if not claim.persons:
        return total
    return len(items) if total == len(items) else None


def _quantities(items: list[str]) -> bool:
    """Some item states a figure or an amount ("cost £4 million"), or is a unit alone, a
    rate's ("rents plots by the year and supplies water butts": two clauses, not things)."""
    return any(c.isdigit() or c in "$€£¥₹" for item in items for c in item) or any(
        item.lower() in MEASURES for item in items
    )


def _holds_plural(items: list[str], noun: str) -> bool:
    """An item is the counted things themselves, in the plural ("the refurbished galleries"
    for "three galleries"): the list does not count them."""
    for item in items:
        words = item.lower().split()
        if words and words[-1] != noun and _singular(words[-1]) == noun:
            return True
    return False


def _value(word: str) -> int | None:
    if word.isdecimal():  # (not "¹²": a digit, no decimal)
        return int(word)
    v = SPELLED.get(word.lower())
    return int(v) if v is not None else None


def _related(claim: CountClaim, sentence: str) -> bool:
    """The context sentence is on the claim's matter: it shares a content word with the
    answer's sentence (besides the counted noun and the name)."""
    return any(w in sentence for w in claim.words)


def _named_units(claim: CountClaim, passages: list[str]) -> CountVerdict | None:
    """The passages, paragraphs and list lines about the named entity (a "may refer to:"
    header is not one); None when none mentions it. Backed when that many lines are about
    it (or that many also name the counted kind: "film"); flagged when more lines of that
    kind, or fewer lines and fewer mentions than the count, are there."""
    name = claim.name or ""
    units = [
        line.lower()
        for p in passages
        for line in p.splitlines()
        if name in line.lower() and line.strip() and not _HEADER.search(line)
    ]
    if not units:
        return None
    kind = [u for u in units if claim.noun and claim.noun in u]
    if claim.value in (len(units), len(kind) or None):
        n = claim.value
        return CountVerdict("backed", f"{n} passages or lines about {name}")
    mentions = sum(u.count(name) for u in units)
    if len(kind) > claim.value or (len(units) < claim.value and mentions < claim.value):
        return CountVerdict("flagged", f"the context presents {len(kind) or len(units)} {name}")
    return CountVerdict("unjudged", f"{name}: {mentions} mentions in {len(units)} lines")


# The items an answer lists right after a count it gives ("three days a week — Monday,
# Wednesday and Friday", "two named drivers, Sarah and Imran Khan", "five things:" and its
# bullets): opened by a dash, colon, bracket or comma a few words on, split at commas and
# "and", ended by the first item that starts with no capital (what the sentence goes on to)
_OPENS_LIST = re.compile(r"[^—–:(,.\n]{0,40}?[—–:(,][ \t]*")
_ITEM_SPLIT = re.compile(r"[ \t]*(?:,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+|[ \t]*&[ \t]*)")
_BULLET = re.compile(r"[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+(.+)")
_MARKUP = str.maketrans("", "", "*_`")


def answer_list(answer: str, raw: str, context: str) -> str | None:
    """The items the answer lists right after its spelled count ``raw`` when there are that
    many of them, each starting with a capital and sharing a word with the context (see
    above), as a derivation ("Monday, Wednesday, Friday"); None otherwise."""
    value = SPELLED.get(raw.lower())
    at = answer.find(raw)
    if value is None or not 2 <= value <= 12 or at < 0:
        return None
    end = answer.find("\n", at)
    line = answer[at + len(raw) : end if end >= 0 else len(answer)]
    if line.rstrip(" *_").endswith(":") and end >= 0:  # "includes five things:" and bullets
        items = []
        for row in answer[end + 1 :].splitlines():
            bullet = _BULLET.match(row)
            if bullet is None:
                break
            items.append(bullet.group(1).translate(_MARKUP).strip())
    else:
        opened = _OPENS_LIST.match(line)
        if opened is None:
            return None
        items = []
        for part in _ITEM_SPLIT.split(re.split(r"[.;)]", line[opened.end() :], maxsplit=1)[0]):
            item = part.translate(_MARKUP).strip()
            if not item[:1].isupper():
                break
            items.append(item)
    if len(items) != value:
        return None
    lower = context.lower()
    if not all(_mentioned(i, lower) for i in items):
        return None
    return ", ".join(items)


def _mentioned(item: str, context_lower: str) -> bool:
    """Whether a word of ``item`` (three letters or more) is in the lower-cased context."""
    return any(w in context_lower for w in re.findall(r"[a-z]{3,}", item.lower()))
