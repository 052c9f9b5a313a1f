"""Identifiers written in groups: an IBAN ("DE89 3704 0044 0532 0130 00"), a tracking, meter
or account number in spaced groups ("1Z 999 AA1 0123 4567 84", "1550 1234 5678 90", "5577
9911"), a sort code ("20 00 00") and a UK postcode ("SW1V 1NP"). The scan reads their groups
as figures of their own ("00" is anywhere), or reads nothing (a postcode): these are read
whole. The same characters in the context, in any grouping ("15501234567890", "20-00-00"),
back the identifier; one not backed is reported whole, once, in place of its groups.

Phone numbers (a leading "+" or "0", or groups joined by hyphens) are left to the look-up's
own reading of them, which knows country codes and trunk zeros.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

_IBAN = re.compile(r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?")
_POSTCODE = re.compile(r"[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}")
_SORT_CODE = re.compile(r"\d\d([ -])\d\d\1\d\d")
# (a leading "+" is taken in, so that a phone number is seen whole and set aside)
_RUN = re.compile(
    r"(?<![\w+.,/:)£$€¥₹-])(?<![)£$€¥₹\d] )\+?[A-Z0-9]{1,6}(?:[ -][A-Z0-9]{1,6}){1,7}"
    r"(?![\w/-]|[.,:]\d)"
)
_TOKEN = re.compile(r"(?<![\w-])[A-Z0-9][A-Z0-9-]{5,}(?![\w])")  # a context's code, ungrouped
_WORDS_BEFORE = re.compile(r"sort[ -]?code\W{0,8}$", re.IGNORECASE)
# A run of groups with a code's letters beside its digits: "JD 123 456 789 GB"
_CODE_LETTERS = re.compile(r"(?:[A-Z]{1,3} )?[\d ]+(?: [A-Z]{1,3})?")
_THOUSANDS = re.compile(r"\d{1,3}(?: \d{3})+")  # "5 000 000": one figure
_YEARS = re.compile(r"(?:(?:19|20)\d\d )+(?:19|20)\d\d")


def versioned(raw: str, context: str) -> bool:
    """Whether ``raw``, a version of the answer ("2.14.1"), is written in the context after
    a "v" ("v2.14.1"), which the scan reads as no figure (a letter is glued to it)."""
    return (
        "." in raw and re.search(rf"(?<![\w.])[vV]{re.escape(raw)}(?!\w|\.\d)", context) is not None
    )


class Run(NamedTuple):
    """An identifier of the answer written in groups: where it stands, as written, its key
    (its letters and digits, upper-cased), and the key with the letters written beside it
    ("JD 123 456 789 GB": a code the context may write whole, "JD123456789GB")."""

    start: int
    end: int
    raw: str
    key: str
    whole: str = ""


def key(raw: str) -> str:
    """An identifier's letters and digits, upper-cased: the same in any grouping."""
    return "".join(c for c in raw if c.isalnum()).upper()


def _segments(raw: str) -> list[str]:
    """The keys of a context's run of groups: its runs of groups with digits, between the
    words it holds ("Derby DE22 3FT", upper-cased, keys "DE223FT"), and the whole run from
    its first such group to its last."""
    parts = raw.split(" ")
    digits = [any(c.isdigit() for c in p) for p in parts]
    if not any(digits):
        return []
    first, last = digits.index(True), len(digits) - 1 - digits[::-1].index(True)
    out = [key(" ".join(parts[first : last + 1]))]
    segment: list[str] = []
    for part, has in zip([*parts, ""], [*digits, False], strict=True):
        if has:
            segment.append(part)
        elif segment:
            out.append(key(" ".join(segment)))
            segment = []
    return out


def _groups_of_digits(raw: str, before: str, lettered: bool) -> bool:
    """Whether a run of groups is an identifier: eight digits or more in groups of letters
    and digits ("1Z 999 AA1 …"), six with a code's letters beside them ("HH 20419 77"), or
    a sort code after its name; not a phone number, a figure
    with spaces for thousands, or a list of years (unless ``lettered``: letters written
    beside its groups make it a code, "JD 123 456 789 GB")."""
    if raw[0] in "+0" or "-" in raw:
        return False
    if _SORT_CODE.fullmatch(raw):
        return _WORDS_BEFORE.search(before) is not None
    groups = raw.split(" ")
    digits = sum(c.isdigit() for c in raw)
    if digits < (6 if lettered else 8) or (
        not lettered and (_THOUSANDS.fullmatch(raw) or _YEARS.fullmatch(raw))
    ):
        return False
    with_digits = [g for g in groups if any(c.isdigit() for c in g)]
    return len(with_digits) >= 2 and all(len(g) >= 2 for g in with_digits)


def runs(answer: str) -> list[Run]:
    """The identifiers written in groups in ``answer``, in order."""
    found: list[Run] = []
    for m in _RUN.finditer(answer):
        raw = m.group(0)
        whole = raw
        # letters before or after the code are its name ("UPS 1Z …"), not part of it
        parts = raw.split(" ")
        while parts and not any(c.isdigit() for c in parts[0]):
            parts.pop(0)
        while parts and not any(c.isdigit() for c in parts[-1]):
            parts.pop()
        raw = " ".join(parts)
        if not raw:
            continue
        start = m.start() + whole.index(raw)
        lettered = raw != whole and _CODE_LETTERS.fullmatch(whole) is not None
        if (
            _IBAN.fullmatch(raw)
            or (_POSTCODE.fullmatch(raw) and " " in raw)
            or _groups_of_digits(raw, answer[max(0, start - 24) : start], lettered)
        ):
            found.append(Run(start, start + len(raw), raw, key(raw), key(whole)))
    return found


class Grouped:
    """The answer's identifiers in groups, and what the context writes for them: found on
    first use, once a trace."""

    def __init__(self, answer: str, context: str, same_digits: Callable[[str], bool]) -> None:
        self.runs = runs(answer)
        self._context = context
        self._same_digits = same_digits
        self._keys: frozenset[str] | None = None

    def run_at(self, i: int) -> Run | None:
        """The identifier that ``i``, a place in the answer, stands in, or None."""
        return next((r for r in self.runs if r.start <= i < r.end), None)

    def backed(self, run: Run) -> bool:
        """Whether the context writes ``run``'s letters and digits, in any grouping."""
        return (
            self.written(run.key)
            or (run.whole != run.key and self.written(run.whole))
            or (run.key.isdigit() and self._same_digits(run.raw))
        )

    def written(self, letters: str) -> bool:
        """Whether the context writes the letters and digits ``letters`` (an identifier's
        ``key``) as one identifier, in any grouping."""
        if self._keys is None:
            upper = self._context.upper()
            keys = {k for m in _RUN.finditer(upper) for k in _segments(m.group(0))}
            keys.update(key(m.group(0)) for m in _TOKEN.finditer(upper))
            keys.update(key(m.group(0)) for m in _IBAN.finditer(upper))
            self._keys = frozenset(keys)
        return letters in self._keys
