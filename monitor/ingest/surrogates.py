"""Lone UTF-16 surrogates escaped in JSON, made U+FFFD before the JSON is decoded.

JSON may escape half of a surrogate pair alone (``"\\ud800"``). RFC 8259, section 8.2, says
of it: "the ABNF in this specification allows member names and string values to contain bit
sequences that cannot encode Unicode characters; for example, "\\uDEAD" (a single unpaired
UTF-16 surrogate). Instances of this have been observed, for example, when a library
truncates a UTF-16 string without checking whether the truncation split a surrogate pair."
An assistant's answer cut at a length limit in the middle of an emoji is exactly that.
Python's ``json`` and msgspec decode it into a ``str`` that UTF-8 cannot encode, so every
later encoding raises: the checks' byte searches, the risk, an evaluation line, a judge's
request. The escape is replaced by ``\\ufffd`` (U+FFFD REPLACEMENT CHARACTER), what a UTF-8
decoder puts for bytes that encode no character; a pair stays a pair, and an escaped
backslash before a ``u`` (``"\\\\ud800"``: a backslash, then the text ``ud800``) is no escape.
"""

from __future__ import annotations

import re

_HIGH = rb"\\u[dD][89abAB][0-9a-fA-F]{2}"
_LOW = rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
# an escape begins after an even run of backslashes (each pair is one escaped backslash);
# a high half with its low half after it is a pair and is matched whole, then kept
_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)(" + _HIGH + _LOW + rb"|" + _HIGH + rb"|" + _LOW + rb")")
_REPLACEMENT = rb"\ufffd"
_ANY = re.compile(rb"\\u[dD][89a-fA-F]")  # any escaped half, paired or not: the cheap test


def _mend(match: re.Match[bytes]) -> bytes:
    escaped_backslashes, escape = match.group(1), match.group(2)
    if len(escape) == 12:  # a high half and a low half: a pair, one character
        return match.group(0)
    return escaped_backslashes + _REPLACEMENT


def without_lone_surrogates(raw: bytes) -> bytes:
    """``raw`` (JSON) with every escaped lone surrogate made ``\\ufffd``; ``raw`` itself, at
    the cost of one search (0.4 us on a 1.3 KB record, where msgspec decodes it in 5 us),
    when it escapes no surrogate at all."""
    if _ANY.search(raw) is None:
        return raw
    return _ESCAPE.sub(_mend, raw)
