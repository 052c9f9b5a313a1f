"""PII redaction as it was before its gates were fused into one function (``gates``): a
frozen copy, the reference the redaction is tested against (``tests/unit/test_pii_gates.py``).
Not to be edited: the redaction must stay the same on every text.

Each detector is a pattern plus, where the format has one, a validity check (Luhn for card
numbers, ISO 13616 mod-97 for IBANs, octet ranges for IPv4) so that look-alikes — order
numbers, version strings, long SKUs — are left alone. Matches are replaced by
``[REDACTED:TYPE]``; the types are a bounded set and are counted.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

PLACEHOLDER = "[REDACTED:{}]"


def luhn_ok(digits: str) -> bool:
    """Whether ``digits`` pass the Luhn check (card numbers)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_ok(text: str) -> bool:
    digits = re.sub(r"[ -]", "", text)
    return 13 <= len(digits) <= 19 and luhn_ok(digits)


def _iban_ok(text: str) -> bool:
    s = re.sub(r"\s", "", text).upper()
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def _ipv4_ok(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _ipv6_ok(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return text.count(":") >= 2


def _phone_ok(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return 7 <= len(digits) <= 15


# A text's shape, what the gates of the detectors of numbers (IBANs, cards, IPv4 addresses,
# phone numbers) read: each character those patterns can match kept as its class (any digit
# '0', an ASCII capital 'A', the separators ' ', '.', '-', '/', '+', '(' and ')' as they are),
# every other character dropped. A non-ASCII character is encoded as '?', which counts as a
# digit (``\d`` takes any Unicode digit), and so does a '?' of the text. A match's characters
# are all kept and in order, so its shape is a piece of the text's shape: a shape pattern that
# every match's shape holds and that the text's shape lacks rules the detector out. Two C
# passes over the text instead of a regex engine's step at each character.
_SHAPE_KEPT = b"0123456789?ABCDEFGHIJKLMNOPQRSTUVWXYZ .-/+()"
_SHAPE_TABLE = bytes.maketrans(b"0123456789?ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"0" * 11 + b"A" * 26)
_SHAPE_DROPPED = bytes(c for c in range(256) if c not in _SHAPE_KEPT)


def shape(text: str) -> bytes:
    """``text``'s shape (see above): "Call +49 30 1234567" is "A +00 00 0000000"."""
    return text.encode("ascii", "replace").translate(_SHAPE_TABLE, _SHAPE_DROPPED)


@dataclass(frozen=True)
class Detector:
    """One kind of PII: its pattern, an optional validator of matches, the group replaced."""

    kind: str
    pattern: re.Pattern[str]
    valid: Callable[[str], bool] | None = None
    group: int = 0  # which group to replace (0: the whole match)
    # Literals one of which every match contains (in the lower-cased text when ``folded``):
    # a text with none is not scanned. Empty: always scanned. A gate, never a filter.
    needs: tuple[str, ...] = ()
    folded: bool = False
    # A pattern the shape of every match holds (see ``shape``): a text whose shape does not
    # hold it is not scanned. None: no such gate. A gate, never a filter.
    shaped: re.Pattern[bytes] | None = None

    def may_match(
        self, text: str, text_shape: bytes | None = None, lowered: str | None = None
    ) -> bool:
        """Whether ``pattern`` can match in ``text`` at all (False: it cannot);
        ``text_shape`` and ``lowered``: ``shape(text)`` and ``text.lower()`` when known."""
        if self.needs:
            seen = text
            if self.folded:
                seen = text.lower() if lowered is None else lowered
            for literal in self.needs:  # a loop, not any(): most short texts hold none
                if literal in seen:
                    break
            else:
                return False
        if self.shaped is None:
            return True
        return self.shaped.search(shape(text) if text_shape is None else text_shape) is not None


# Order matters: secrets and structured numbers before the looser phone pattern.
DETECTORS: tuple[Detector, ...] = (
    Detector(
        "EMAIL",
        re.compile(
            r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}\b"
        ),
        needs=("@",),
    ),
    Detector(
        "BEARER_TOKEN",
        re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"),
        group=1,
        needs=("bearer",),
        folded=True,
    ),
    Detector(
        "JWT",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        needs=("eyJ",),
    ),
    Detector(
        "API_KEY",
        re.compile(
            r"\b(?:sk-(?:proj-|ant-(?:api\d{2}-)?)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
            r"|sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
            r"|(?:AKIA|ASIA)[A-Z0-9]{16}"  # AWS access key id
            r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
            r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
            r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
            r"|AIza[A-Za-z0-9_-]{35})"  # Google
        ),
        # '_' stands for sk_, rk_, gh?_ and github_pat_: a one-character literal is a memchr
        needs=("_", "sk-", "glpat-", "xox", "AKIA", "ASIA", "AIza"),
    ),
    Detector(
        "IBAN",
        re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b"),
        _iban_ok,
        shaped=re.compile(rb"AA00"),  # [A-Z]{2}\d{2}
    ),
    Detector(
        "CARD",
        re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])"),
        _card_ok,
        shaped=re.compile(rb"0(?:[ -]?0){12}"),  # 13 digits, one separator at most between
    ),
    Detector(
        "IP",
        re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"),
        _ipv4_ok,
        shaped=re.compile(rb"0\.0{1,3}\.0{1,3}\.0"),
    ),
    Detector(
        "IP",
        re.compile(
            r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){1,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4}){0,6}(?![\w:])"
        ),
        _ipv6_ok,
        needs=(":",),
    ),
    Detector(
        "PHONE",
        re.compile(
            r"(?<![\w+])\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,5}(?![\w-])"  # +49 30 1234567  # noqa: E501
            r"|(?<![\w(])\(\d{3}\)[ ]?\d{3}[ .-]\d{4}(?![\w-])"  # (555) 123-4567
            r"|(?<![\w.-])(?:1[ .-])?\d{3}[.-]\d{3}[.-]\d{4}(?![\w-])"  # 555-123-4567, 1-800-555-0199  # noqa: E501
            r"|(?<![\w.-])0\d{2,4}[ /-]\d{3,8}(?:[ -]\d{2,5})?(?![\w.-])"  # 030 1234567, 0171-1234567  # noqa: E501
        ),
        _phone_ok,
        # +\d; (\d{3}); \d{3}[.-]\d{3}; 0\d{2,4}[ /-]\d{3}
        shaped=re.compile(rb"\+0|\(000\)|000[ ./-]000"),
    ),
)

KINDS = tuple(dict.fromkeys(d.kind for d in DETECTORS))


class Redactor:
    """Replaces PII with typed placeholders; ``extra`` adds named patterns (from config)."""

    def __init__(self, extra: Mapping[str, str] | None = None) -> None:
        custom = tuple(
            Detector(name.upper(), re.compile(pattern)) for name, pattern in (extra or {}).items()
        )
        self.detectors = custom + DETECTORS

    def redact(self, text: str, counts: dict[str, int] | None = None) -> str:
        """``text`` with every detected item replaced; ``counts`` (if given) is updated."""
        if not text:
            return text
        # what the gates read, made when one first does and again after a replacement
        text_shape: bytes | None = None
        lowered: str | None = None
        for det in self.detectors:
            if det.shaped is not None and text_shape is None:
                text_shape = shape(text)
            if det.folded and lowered is None:
                lowered = text.lower()
            # most texts hold no '@', no 'eyJ', no 13 digits in a row, ...: not scanned
            if det.may_match(text, text_shape, lowered):
                text, n = det.pattern.subn(
                    functools.partial(self._replace, det=det, counts=counts), text
                )
                if n:
                    text_shape = lowered = None
        return text

    def found(self, text: str) -> list[tuple[str, str]]:
        """(kind, text) of every item ``redact`` would replace in ``text``."""
        out: list[tuple[str, str]] = []
        text_shape = shape(text)
        lowered = text.lower()
        for det in self.detectors:
            if not det.may_match(text, text_shape, lowered):
                continue
            for m in det.pattern.finditer(text):
                item = m.group(det.group)
                if det.valid is None or det.valid(item):
                    out.append((det.kind, item))
        return out

    def redact_all(self, texts: Iterable[str], counts: dict[str, int] | None = None) -> list[str]:
        """Each text redacted; ``counts`` tallies the redactions by kind."""
        return [self.redact(t, counts) for t in texts]

    @staticmethod
    def _replace(m: re.Match[str], det: Detector, counts: dict[str, int] | None) -> str:
        found = m.group(det.group)
        if det.valid is not None and not det.valid(found):
            return m.group(0)
        if counts is not None:
            counts[det.kind] = counts.get(det.kind, 0) + 1
        whole = m.group(0)
        if det.group:
            start, end = m.span(det.group)
            offset = m.start()
            return whole[: start - offset] + PLACEHOLDER.format(det.kind) + whole[end - offset :]
        return PLACEHOLDER.format(det.kind)
