"""PII redaction: typed placeholders for what must not leave the process.

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
from typing import Literal, Protocol

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


# The gates: which of the built-in detectors can match in a text at all, a bit each in
# ``gates(text)``, every one computed in a few C-level passes and searches. A gate only skips
# a scan that could not match (a match holds what its gate looks for), never a match: the
# redaction is the one of the patterns alone. Each literal a pattern needs is looked for
# behind a memchr of its rarest character (most prose holds no 'J', so no 'eyJ' search), and
# by a regular expression that starts with that character where the engine's scan for a
# first character beats the str search's; the patterns of numbers read the text's shape,
# and their runs of digits its shape squeezed (separators ' -./' dropped too: a card's
# thirteen digits are thirteen '0's in a row there, a phone's 000-000 six).
_EMAIL, _BEARER, _JWT, _KEY, _IBAN, _CARD, _IPV4, _IPV6, _PHONE = (1 << i for i in range(9))
_DASH_KEYS = re.compile(r"-(?:(?<=sk-)|(?<=glpat-))")  # sk- and glpat-, found at the '-'
_XOX = re.compile(r"xox")
_BEARER_FOLDED = re.compile(rb"bearer")
_A_KEYS = re.compile(r"A(?:KIA|SIA|Iza)")
_IBAN_SHAPE = re.compile(rb"AA00")  # [A-Z]{2}\d{2}
_CARD_SHAPE = re.compile(rb"0(?:[ -]?0){12}")  # 13 digits, one separator at most between
_CARD_RUN = b"0" * 13  # the same squeezed
_IPV4_SHAPE = re.compile(rb"0\.0{1,3}\.0{1,3}\.0")
_PHONE_DIGITS = re.compile(rb"000[ ./-]000")  # \d{3}[.-]\d{3}; 0\d{2,4}[ /-]\d{3}
_PHONE_RUN = b"000000"  # the same squeezed


def gates(text: str) -> int:
    """The bits of the built-in detectors (``Detector.gate``) that may match in ``text``."""
    bits = 0
    if "@" in text:
        bits |= _EMAIL
    # re's case-insensitive 'bearer' matches exactly the texts whose lower() holds 'bearer',
    # and so do the ASCII bytes lower-cased: no other character folds to a b, e, a or r
    encoded = text.encode("ascii", "replace")
    if _BEARER_FOLDED.search(encoded.lower()) is not None:
        bits |= _BEARER
    if "J" in text and "eyJ" in text:
        bits |= _JWT
    if (
        "_" in text  # sk_, rk_, gh?_, github_pat_
        or ("-" in text and _DASH_KEYS.search(text) is not None)
        or ("x" in text and _XOX.search(text) is not None)
        or ("A" in text and _A_KEYS.search(text) is not None)  # AKIA, ASIA, AIza
    ):
        bits |= _KEY
    if ":" in text:
        bits |= _IPV6
    text_shape = encoded.translate(_SHAPE_TABLE, _SHAPE_DROPPED)  # shape(text)
    if _IBAN_SHAPE.search(text_shape) is not None:
        bits |= _IBAN
    if _IPV4_SHAPE.search(text_shape) is not None:
        bits |= _IPV4
    squeezed = text_shape.translate(None, b" -./")
    if _CARD_RUN in squeezed and _CARD_SHAPE.search(text_shape) is not None:
        bits |= _CARD
    if (
        (b"+" in text_shape and b"+0" in text_shape)  # +\d
        or (b"(" in text_shape and b"(000)" in text_shape)  # (\d{3})
        or (_PHONE_RUN in squeezed and _PHONE_DIGITS.search(text_shape) is not None)
    ):
        bits |= _PHONE
    return bits


@dataclass(frozen=True)
class Detector:
    """One kind of PII: its pattern, an optional validator of matches, the group replaced."""

    kind: str
    pattern: re.Pattern[str]
    valid: Callable[[str], bool] | None = None
    group: int = 0  # which group to replace (0: the whole match)
    # Its bit in ``gates(text)``: a text without it is not scanned. 0: always scanned.
    gate: int = 0

    def may_match(self, text: str) -> bool:
        """Whether ``pattern`` can match in ``text`` at all (False: it cannot)."""
        return not self.gate or bool(gates(text) & self.gate)


# Order matters: secrets and structured numbers before the looser phone pattern.
DETECTORS: tuple[Detector, ...] = (
    Detector(
        "EMAIL",
        re.compile(
            r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}\b"
        ),
        gate=_EMAIL,
    ),
    Detector(
        "BEARER_TOKEN",
        re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"),
        group=1,
        gate=_BEARER,
    ),
    Detector(
        "JWT",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        gate=_JWT,
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
        gate=_KEY,
    ),
    Detector(
        "IBAN",
        re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b"),
        _iban_ok,
        gate=_IBAN,
    ),
    Detector(
        "CARD",
        re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])"),
        _card_ok,
        gate=_CARD,
    ),
    Detector(
        "IP",
        re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"),
        _ipv4_ok,
        gate=_IPV4,
    ),
    Detector(
        "IP",
        re.compile(
            r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){1,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4}){0,6}(?![\w:])"
        ),
        _ipv6_ok,
        gate=_IPV6,
    ),
    Detector(
        "PHONE",
        re.compile(
            r"(?<![\w+])\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,5}(?![\w-])"  # +49 30 1234567
            r"|(?<![\w(])\(\d{3}\)[ ]?\d{3}[ .-]\d{4}(?![\w-])"  # (555) 123-4567
            r"|(?<![\w.-])(?:1[ .-])?\d{3}[.-]\d{3}[.-]\d{4}(?![\w-])"  # 555-123-4567, 1-800-555-0199
            r"|(?<![\w.-])0\d{2,4}[ /-]\d{3,8}(?:[ -]\d{2,5})?(?![\w.-])"  # 030 1234567, 0171-1234567
        ),
        _phone_ok,
        gate=_PHONE,
    ),
)

KINDS = tuple(dict.fromkeys(d.kind for d in DETECTORS))


class Redactor:
    """Replaces PII with typed placeholders; ``extra`` adds named patterns (from config),
    scanned first and on every text; ``builtin``: the detectors after them."""

    def __init__(
        self, extra: Mapping[str, str] | None = None, builtin: tuple[Detector, ...] = DETECTORS
    ) -> None:
        custom = tuple(
            Detector(name.upper(), re.compile(pattern)) for name, pattern in (extra or {}).items()
        )
        self.detectors = custom + builtin
        # every detector gated: a text that opens no gate is returned at once
        self._gated = all(d.gate for d in self.detectors)

    def redact(self, text: str, counts: dict[str, int] | None = None) -> str:
        """``text`` with every detected item replaced; ``counts`` (if given) is updated."""
        if not text:
            return text
        # the gates' bits, read when a detector first needs them and again after a replacement
        open_: int | None = None
        if self._gated:
            open_ = gates(text)
            if not open_:
                return text  # no detector can match: most passages
        for det in self.detectors:
            if det.gate:
                if open_ is None:
                    open_ = gates(text)
                # most texts hold no '@', no 'eyJ', no 13 digits in a row, ...: not scanned
                if not open_ & det.gate:
                    continue
            text, n = det.pattern.subn(
                functools.partial(self._replace, det=det, counts=counts), text
            )
            if n:
                open_ = None
        return text

    def found(self, text: str) -> list[tuple[str, str]]:
        """(kind, text) of every item ``redact`` would replace in ``text``."""
        out: list[tuple[str, str]] = []
        open_ = gates(text)
        for det in self.detectors:
            if det.gate and not open_ & det.gate:
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


Written = Literal["lines", "rows", "judge"]


class _Switch(Protocol):
    @property
    def redact_pii(self) -> bool: ...


class _Patterns(Protocol):
    @property
    def pii_patterns(self) -> Mapping[str, str]: ...


class RedactionSettings(Protocol):
    """What ``redactor_for`` reads of the settings (``monitor.config.Settings`` has it): the
    two switches and the extra patterns, so that this utility does not depend on the
    settings module (which imports the golden wing, which imports this)."""

    @property
    def output(self) -> _Switch:
        """``output``: ``redact_pii`` for evaluation lines."""
        ...

    @property
    def judge(self) -> _Switch:
        """``judge``: ``redact_pii`` for what the judge reads."""
        ...

    @property
    def golden(self) -> _Patterns:
        """``golden``: the extra ``pii_patterns``."""
        ...


def redactor_for(settings: RedactionSettings, where: Written) -> Redactor | None:
    """The one PII rule for everything ragmon writes or sends, with the golden-row detectors
    and ``golden.pii_patterns``: candidate ``rows`` always; evaluation ``lines`` (files,
    stdout, whichever sink writes them) unless ``output.redact_pii`` is off; what the
    ``judge`` reads only when ``judge.redact_pii`` is on. None: nothing is redacted there."""
    wanted = {
        "rows": True,
        "lines": settings.output.redact_pii,
        "judge": settings.judge.redact_pii,
    }[where]
    return Redactor(settings.golden.pii_patterns) if wanted else None
