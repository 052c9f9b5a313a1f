"""A word typed as the initials of words the earlier turn wrote out, for ``rephrase``: "mdp"
for "mot de passe", "rdv" for "rendez-vous", "2fa" for "two factor authentication" or
"Zwei-Faktor-Authentifizierung" (a number word by its digits). Users type the short form of
a name they do not want to spell; the earlier turn spelled it.

A short word (``_LONGEST`` letters at most) is the initials of a run of two words or more
of the earlier turn when it takes each word's first letter, in order, and may take more of
its consonants after it ("rdv": the r and d of "rendez", the v of "vous"): each word of the
run gives its first letter and any of its later consonants, nothing skips a word. A word
spelled with a later vowel is a word, not a short form ("send" is no "student discount").
A short form may also stand for one long word alone, its first letter and later consonants
("pw" for "password"), the word three times as long at least.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiouyàáâäèéêëìíîïòóôöùúûü")  # a short form keeps a word's consonants
_LONGEST = 4  # letters of a short form at most
_RUN = 4  # words of the earlier turn a short form may stand for
_WHOLE = 3  # times as many letters at least as a short form has, a word it stands for alone


def _spells(short: str, pieces: tuple[str, ...]) -> bool:
    """Whether ``short`` is each of ``pieces``' first letter, in order, each followed by
    any of that piece's later consonants (in order, some or none)."""
    if not pieces:
        return not short
    piece = pieces[0]
    if not short or short[0] != piece[0]:
        return False
    rest, tail = short[1:], piece[1:]
    # take 0..k more letters of this piece (a subsequence of its tail), then the next piece
    for k in range(len(rest) + 1):
        if k and (rest[k - 1] in _VOWELS or not _subsequence(rest[:k], tail)):
            break
        if _spells(rest[k:], pieces[1:]):
            return True
    return False


def _subsequence(x: str, y: str) -> bool:
    letters = iter(y)
    return all(c in letters for c in x)


def pieces(earlier: list[str], numerals: dict[str, str]) -> list[str]:
    """``earlier``'s words as their initials are read: a number's word by its digits
    ("two": "2"; ``numerals``)."""
    return [numerals.get(w, w) for w in earlier]


def expanded(word: str, earlier: list[str], read: list[str]) -> tuple[str, ...] | None:
    """The run of ``earlier``'s words that ``word`` is the initials of, or None (``read``:
    ``earlier``'s ``pieces``)."""
    if not 2 <= len(word) <= _LONGEST or not any(c.isalpha() for c in word):
        return None
    first = word[0]
    for start, piece in enumerate(read):
        if piece[0] != first:
            continue
        if len(piece) >= _WHOLE * len(word) and _spells(word, (piece,)):
            return (earlier[start],)  # one word cut to its consonants ("pw": "password")
        for size in range(2, min(_RUN, len(word), len(read) - start) + 1):
            if _spells(word, tuple(read[start : start + size])):
                return tuple(earlier[start : start + size])
    return None
