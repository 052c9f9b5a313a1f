"""The bounded reader of Python reprs (Haystack's ``ChatMessage`` objects on its spans): the
literal forms a repr is made of, read without evaluating anything; anything else, or over
the bounds, is ``ReprError`` and never another exception."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.ingest.conventions.pyrepr import MAX_DEPTH, Call, ReprError, parse


def test_a_chat_message_and_its_parts() -> None:
    text = ("ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult("
            "result='{\"id\": 1}\\n\\'x\\' \\u00e9\\x41', origin=ToolCall(tool_name='search', "
            "arguments={'query': \"it's\"}, id='c1', extra=None), error=False)], _name=None, "
            "_meta={'usage': {'total_tokens': 92, 'ratio': -1.5e-3}, 'flags': (1,), "
            "'set': {2, 3}})")  # fmt: skip
    message = parse(text)
    assert isinstance(message, Call) and message.name == "ChatMessage" and not message.args
    assert message.kwargs["_role"] == "tool"  # an enum member: its value
    content = message.kwargs["_content"]
    assert isinstance(content, list) and len(content) == 1
    assert content[0] == Call("ToolCallResult", (), {
        "result": '{"id": 1}\n\'x\' éA',
        "origin": Call("ToolCall", (), {"tool_name": "search", "arguments": {"query": "it's"},
                                        "id": "c1", "extra": None}),
        "error": False})  # fmt: skip
    assert message.kwargs["_meta"] == {"usage": {"total_tokens": 92, "ratio": -0.0015},
                                       "flags": (1,), "set": [2, 3]}  # fmt: skip


@pytest.mark.parametrize(("text", "value"), [
    ("<foo.Bar object at 0x7f00>", "<foo.Bar object at 0x7f00>"),  # opaque: its text
    ("datetime.datetime(2026, 12, 6, tzinfo=datetime.timezone.utc)",
     Call("datetime.datetime", (2026, 12, 6), {"tzinfo": "datetime.timezone.utc"})),
    ("Document(id=abc, content: 'x', score: 0.5)",  # Haystack's Document writes k: v
     Call("Document", (), {"id": "abc", "content": "x", "score": 0.5})),
    ("[None, True, False, inf, b'raw', r'a\\b', '']",
     [None, True, False, "inf", "raw", "a\\b", ""]),
    ("{}", {}), ("()", ()), ("[1, 2,]", [1, 2]),
    ("'\\x \\u12 \\q \\101'", "\\x \\u12 \\q A"),  # an incomplete or unknown escape: as written
])  # fmt: skip
def test_the_literal_forms(text: str, value: object) -> None:
    assert parse(text) == value


def test_a_call_is_read_never_made() -> None:
    """Untrusted span content: a repr that names a function is a ``Call`` value, nothing
    runs; a call of a call's result is not a repr's form at all."""
    assert parse("eval('1 + 1')") == Call("eval", ("1 + 1",), {})
    with pytest.raises(ReprError):
        parse("__import__('os').system('true')")


@pytest.mark.parametrize("text", [
    "'unterminated", "f(a==b)", "x == 1", "[1 2]", "{'a' 1}", "<open", "f(", "", "@",
    "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2), "'a' * 10",
])  # fmt: skip
def test_what_is_not_a_repr_is_an_error(text: str) -> None:
    with pytest.raises(ReprError):
        parse(text)


def test_over_the_bounds() -> None:
    with pytest.raises(ReprError):
        parse("'" + "x" * (1 << 20) + "'")
    with pytest.raises(ReprError):
        parse("[" + "1, " * 100_001 + "]")


def test_cut_and_mangled_reprs_raise_only_repr_errors() -> None:
    """Every prefix of a real message, and random edits of it, is a value or ``ReprError``."""
    text = ("ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[ToolCall("
            "tool_name='search', arguments={'query': 'gift \"card\"'}, id='c1')], "
            "_meta={})")  # fmt: skip
    rng = random.Random(7)
    alphabet = "()[]{}<>'\",:=.\\ -0a_"
    tries = [text[:i] for i in range(len(text))]
    for _ in range(2000):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice(alphabet)
        tries.append("".join(chars))
    for t in tries:
        with contextlib.suppress(ReprError):
            parse(t)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="()[]{}<>'\",:=.\\ -+0123456789abeijnruxTFN_", max_size=120))
def test_any_text_is_a_value_or_a_repr_error(text: str) -> None:
    with contextlib.suppress(ReprError):
        parse(text)
