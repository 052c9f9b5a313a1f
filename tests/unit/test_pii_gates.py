"""The PII detectors' gates (``gates``: the literals a pattern needs, the text's shape for the
numbers' patterns) only skip scans that could not match: the redaction, its counts and what it
finds are the same as with every pattern scanned on every text, and the same as the redaction
before the gates were fused into one function (``tests/pii_frozen.py``), on the labelled
corpus, on the benchmark's passages, on arbitrary text and on text full of PII and its
look-alikes."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import bench_records
from monitor.core.pii import DETECTORS, Redactor, gates, shape
from tests import pii_frozen
from tests.pii_corpus import CORPUS

EXTRA = {"ticket": r"TCK-\d{6}"}
GATED = Redactor(EXTRA)
UNGATED = Redactor(EXTRA, builtin=tuple(dataclasses.replace(d, gate=0) for d in DETECTORS))
BEFORE = pii_frozen.Redactor(EXTRA)
PLAIN = Redactor()  # no custom detector: a text that opens no gate is returned at once
PLAIN_BEFORE = pii_frozen.Redactor()


def same(text: str) -> None:
    counts: list[dict[str, int]] = [{}, {}, {}]
    redacted = [GATED.redact(text, counts[0]), UNGATED.redact(text, counts[1]),
                BEFORE.redact(text, counts[2])]  # fmt: skip
    assert redacted[0] == redacted[1] == redacted[2]
    assert counts[0] == counts[1] == counts[2]
    assert GATED.found(text) == UNGATED.found(text) == BEFORE.found(text)
    plain: list[dict[str, int]] = [{}, {}]
    assert PLAIN.redact(text, plain[0]) == PLAIN_BEFORE.redact(text, plain[1])
    assert plain[0] == plain[1]
    # each gate open wherever its pattern matches (on the text as it comes to that pattern,
    # here the text as given: the first scan of each)
    for det in DETECTORS:
        if det.pattern.search(text) is not None:
            assert gates(text) & det.gate, (det.kind, text)


def test_the_gates_change_nothing_on_the_corpus_and_the_bench_passages() -> None:
    assert all(d.gate for d in GATED.detectors[1:])  # gated, the reference not
    assert not any(d.gate for d in UNGATED.detectors)
    for _, text, _ in CORPUS:
        same(text)
        same(f"{text} Authorization: BEARER abcdefghijklmnop1234 and TCK-123456")
    for record in bench_records(40):
        for passage in json.loads(record)["context"]:
            same(passage["text"])


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("aeBRr@:.-_ 0123456789eyJskghAKIAxoz+()/")) | st.characters(),
        max_size=200,
    )
)
def test_the_gates_change_nothing_on_any_text(text: str) -> None:
    same(text)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("0123456789 .-/+()?ABDEGZx:,\u0663\uff10\u00e9\U0001d7ce"))
        | st.characters(),
        max_size=120,
    )
)
def test_the_shape_gates_change_nothing_on_text_of_figures(text: str) -> None:
    """Digits (ASCII and not), separators, capitals and '?' in any order, as the numbers'
    detectors read them: gated and ungated redact alike."""
    same(text)
    same(f"+{text}")
    same(f"({text[:3]}) {text[3:]}")


def _luhn_digit(digits: str) -> str:
    """The check digit that makes ``digits`` + it pass the Luhn check."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str(-total % 10)


def _iban(country: str, bban: str) -> str:
    """A valid IBAN of ``country`` and ``bban`` (ISO 13616 check digits)."""
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def _grouped(text: str, sep: str, size: int = 4) -> str:
    return sep.join(text[i : i + size] for i in range(0, len(text), size))


_DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=20)
_TOKEN = st.text(alphabet="abcXYZ0189-_.~+/=", min_size=4, max_size=40)
_SEP = st.sampled_from(["", " ", "-", ".", "/", "  "])
_CASES = st.sampled_from(["bearer", "Bearer", "BEARER", "bEaReR", "bearer:"])


@st.composite
def _card(draw: st.DrawFn) -> str:
    body = draw(st.text(alphabet="0123456789", min_size=12, max_size=18))
    card = body + (
        _luhn_digit(body) if draw(st.booleans()) else draw(st.sampled_from("0123456789"))
    )
    return _grouped(card, draw(st.sampled_from(["", " ", "-", "--", "."])))


@st.composite
def _iban_text(draw: st.DrawFn) -> str:
    country = draw(st.sampled_from(["DE", "GB", "FR", "NL", "ZZ"]))
    bban = draw(st.text(alphabet="0123456789ABCXYZ", min_size=11, max_size=30))
    iban = _iban(country, bban) if draw(st.booleans()) else f"{country}00{bban}"
    return _grouped(iban, draw(st.sampled_from(["", " ", "  ", "-"])))


@st.composite
def _phone(draw: st.DrawFn) -> str:
    """A phone number in one of the forms the pattern knows, or something near one."""
    sep = draw(_SEP)
    groups = draw(st.lists(st.text(alphabet="0123456789", min_size=1, max_size=4), max_size=6))
    if draw(st.booleans()):  # +49 30 1234567, +1 2 34 56 78, 0171-1234567 ...
        head = draw(st.sampled_from(["+", "(", "0", "1-", "", "+(", "00", "0(", "+1 ("]))
        return head + sep.join(groups) + draw(st.sampled_from(["", ")", " ", "-"]))
    d = [draw(st.text(alphabet="0123456789", min_size=n, max_size=n + 2)) for n in (2, 3, 4)]
    form = draw(st.sampled_from(["({1}){s}{1}-{2}", "{1}{s}{1}{s}{2}", "1-{1}-{1}-{2}",
                                 "0{0}{s}{1}", "0{0}{s}{2}{s}{0}"]))  # fmt: skip
    return form.format(*d, s=sep)


@st.composite
def _address(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        octets = draw(st.lists(st.integers(0, 300), min_size=3, max_size=5))
        return ".".join(map(str, octets))
    groups = draw(st.lists(st.text(alphabet="0123456789abcdefABCDEFg", max_size=5), max_size=9))
    return ":".join(groups)


_PII = st.one_of(
    st.builds(
        "{}@{}.{}".format,
        st.text(alphabet="abZ09._%+-", min_size=1, max_size=12),
        st.text(alphabet="abz09-.", min_size=1, max_size=12),
        st.text(alphabet="abcXYZ", min_size=1, max_size=26),
    ),
    st.builds("{} {}".format, _CASES, _TOKEN),
    st.builds("eyJ{}.eyJ{}.{}".format, _TOKEN, _TOKEN, _TOKEN),
    st.builds(
        "{}{}".format,
        st.sampled_from(
            [
                "sk-",
                "sk-proj-",
                "sk-ant-api03-",
                "sk_live_",
                "rk_test_",
                "AKIA",
                "ASIA",
                "ghp_",
                "github_pat_",
                "glpat-",
                "xoxb-",
                "AIza",
                "xox",
            ]
        ),
        st.text(alphabet="ABCZabz0189_-", min_size=0, max_size=45),
    ),
    _card(),
    _iban_text(),
    _phone(),
    _address(),
    _DIGITS,
    st.sampled_from(["TCK-123456", "[REDACTED:EMAIL]", "2024-03-15", "v10.2.3", "08:00"]),
)
_FILLER = st.text(alphabet=st.sampled_from(list(" ,.;:()-/+\n\tabcAZ\u00e9\u0663")), max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_FILLER, _PII), min_size=1, max_size=8), _FILLER)
def test_the_gates_change_nothing_on_text_full_of_pii(
    pieces: list[tuple[str, str]], tail: str
) -> None:
    """E-mail addresses, bearer tokens in any case, JWTs, API keys, cards (Luhn valid or
    not), IBANs (check digits valid or not), phone numbers, IPv4 and IPv6 addresses and their
    look-alikes, next to each other with little between: redacted as before and as by the
    ungated patterns."""
    same("".join(f + p for f, p in pieces) + tail)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 199), st.integers(0, 2000), _PII)
def test_the_gates_change_nothing_on_passages_with_pii_planted(
    which: int, where: int, item: str
) -> None:
    """One item planted anywhere in a benchmark passage (prose with figures)."""
    passage = PASSAGES[which % len(PASSAGES)]
    at = where % (len(passage) + 1)
    same(passage[:at] + item + passage[at:])


PASSAGES = [p["text"] for r in bench_records(40) for p in json.loads(r)["context"]]


def test_the_shape_skips_the_number_patterns_on_prose_with_figures() -> None:
    """A passage of figures that no number pattern can match is not scanned by them (the gate
    works); a card, an IBAN, an address or a phone number in it is."""
    prose = "The admin console keeps up to 459 members; a $1,038 monthly minimum, 16% off."
    ipv6 = next(d for d in DETECTORS if d.valid is not None and d.valid.__name__ == "_ipv6_ok")
    numbers = [d for d in DETECTORS if d.kind in ("IBAN", "CARD", "IP", "PHONE") and d != ipv6]
    assert [d.kind for d in numbers] == ["IBAN", "CARD", "IP", "PHONE"]
    assert not any(d.may_match(prose) for d in numbers)
    assert PLAIN.redact(prose) is prose  # no gate open: the text as it came
    for kind, item in (("IBAN", "DE89 3704 0044 0532 0130 00"), ("CARD", "4111 1111 1111 1111"),
                       ("CARD", "4111-1-1-1-1-1-1-1-1-1-1-1-1"),
                       ("IP", "10.0.0.1"), ("PHONE", "+49 30 1234567"),
                       ("PHONE", "(555) 123-4567"), ("PHONE", "030 1234567"),
                       ("PHONE", "555.123.4567"), ("PHONE", "030/1234567"),
                       ("PHONE", "0171-1234567"), ("PHONE", "1-800-555-0199"),
                       ("PHONE", "+1 2 34 56 78")):  # fmt: skip
        (detector,) = [d for d in numbers if d.kind == kind and d.may_match(f"{prose} {item} now")]
        assert detector.pattern.search(f"{prose} {item} now")
    assert shape("Call +49 30 1234567, ok? \u0663") == b"A +00 00 0000000 0 0"


def test_each_literal_gate_opens_on_its_literal_alone() -> None:
    """Each literal the detectors need opens its gate by itself, in a text of nothing else
    that could (a gate that missed one would skip that pattern's matches)."""
    prose = "The admin console keeps up to 459 members; a monthly minimum, 16% off."
    for literal, kind in (("@", "EMAIL"), ("bearer", "BEARER_TOKEN"), ("BeArEr", "BEARER_TOKEN"),
                          ("eyJ", "JWT"), ("_", "API_KEY"), ("sk-", "API_KEY"),
                          ("glpat-", "API_KEY"), ("xox", "API_KEY"), ("AKIA", "API_KEY"),
                          ("ASIA", "API_KEY"), ("AIza", "API_KEY"), (":", "IP")):  # fmt: skip
        opened = {d.kind for d in DETECTORS if d.gate & gates(f"{prose} {literal} now")}
        assert opened == {kind}, literal
