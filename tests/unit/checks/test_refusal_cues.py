"""The refusal patterns as data files: every file loads, and a bad file is named, not guessed."""

from __future__ import annotations

import tomllib

import pytest

from monitor.checks.refusal_cues import CueFileError, languages, parse_language


def test_every_language_file_loads_english_first() -> None:
    codes = [lang.code for lang in languages()]
    assert codes[0] == "en"
    assert codes[1:] == sorted(codes[1:])
    assert len(codes) == 15


_SKETCH = """
code = "xx"
words = ["nope"]
nouns = ["info"]
[fragments]
what = '(?:info|data)'
[absence]
absent = 'missing'
info = '{:what}'
where = 'in the files'
[[patterns]]
kind = "no_knowledge"
regex = ['\\bnope, ', 'no {:what}\\b']
"""


def test_a_new_language_is_a_file() -> None:
    lang = parse_language(tomllib.loads(_SKETCH))
    assert lang.search("Nope, no data here.", {"nope"}) == ("no_knowledge", "Nope, no data")
    assert lang.search("Nope, no data here.", set()) is None  # the language's gate
    # the absence rule runs last, gated by the nouns
    assert lang.search("The info is missing.", {"nope"}) is None
    assert lang.search("The info is missing.", {"nope", "info"}) == (
        "context_lacks",
        "info is missing",
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["patterns"][0].update(kind="maybe"), "patterns[0].kind"),
        (lambda d: d["patterns"][0].update(regex="no {:missing}"), "KeyError: 'missing'"),
        (lambda d: d["patterns"][0].update(regex="(unclosed"), "error"),
        (lambda d: d.update(words="nope"), "expected an array of strings"),
        (lambda d: d.update(patterns=[]), "non-empty array"),
        (
            lambda d: d.pop("absence") and d["patterns"][0].update(absence=True),
            "without an [absence]",
        ),
    ],
)
def test_a_bad_file_is_named(change, message) -> None:  # type: ignore[no-untyped-def]
    doc = tomllib.loads(_SKETCH)
    change(doc)
    with pytest.raises(CueFileError, match=r"xx\.toml") as err:
        parse_language(doc, "languages/xx.toml")
    assert message in str(err.value)
