"""A bounded reader of Python object reprs, for the instrumentations that record a framework's
objects only as their ``repr()`` (Haystack's ``ChatMessage(_role=<ChatRole.USER: 'user'>,
_content=[TextContent(text='…')], …)``).

The text is untrusted span content, so it is parsed, never evaluated: a small recursive
descent over the literal forms a repr is made of — strings (Python's escapes), numbers,
``None``/``True``/``False``, lists, tuples, dicts and sets, calls of a dotted name with
positional and keyword arguments (``Name(a, k=v)``; Haystack's ``Document`` writes
``k: v``), enum members (``<Enum.MEMBER: value>``, read as their value) and opaque objects
(``<x object at 0x…>``, read as their text). A bare name other than the three constants is
read as its text. Anything else, a text over ``MAX_CHARS``, nesting deeper than
``MAX_DEPTH`` or more than ``MAX_NODES`` values is ``ReprError``: the caller reads nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

MAX_CHARS = 1 << 20  # a span attribute's value is bounded by the decoders well below this
MAX_DEPTH = 32
MAX_NODES = 100_000


class ReprError(ValueError):
    """The text is not a repr this reader reads (or is over its bounds)."""


class Call(NamedTuple):
    """A call in a repr: ``name(*args, **kwargs)``, as written (nothing is called)."""

    name: str
    args: tuple[object, ...]
    kwargs: dict[str, object]


_SPACE = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?j?")
# a quoted body: anything but the quote or a backslash, or an escaped character
_BODIES = {q: re.compile(rf"[^{q}\\]*(?:\\.[^{q}\\]*)*", re.DOTALL) for q in ("'", '"')}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)",
                     re.DOTALL)  # fmt: skip
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a",
           "b": "\b", "f": "\f", "v": "\v", "\n": ""}  # fmt: skip
_CONSTANTS: dict[str, object] = {"None": None, "True": True, "False": False}
_CLOSE = {"[": "]", "(": ")", "{": "}"}


def _unescape(match: re.Match[str]) -> str:
    e = match.group(1)
    if e in _SIMPLE:
        return _SIMPLE[e]
    if e[0] in "xuU" and len(e) > 1:
        code = int(e[1:], 16)
        return chr(code) if code <= 0x10FFFF else ""
    if e[0] in "01234567":
        return chr(int(e, 8))
    return "\\" + e  # an incomplete or unknown escape stays as written


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.nodes = 0

    def past_space(self, at: int) -> int:
        m = _SPACE.match(self.text, at)
        return m.end() if m else at

    def space(self) -> None:
        self.at = self.past_space(self.at)

    def peek(self) -> str:
        self.space()
        return self.text[self.at : self.at + 1]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise ReprError(f"expected {char!r} at {self.at}")
        self.at += 1

    def value(self, depth: int) -> object:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise ReprError("too deep or too large")
        c = self.peek()
        if c in ("'", '"'):
            return self.string()
        if c in "bBrRuU" and self.text[self.at + 1 : self.at + 2] in ("'", '"'):
            raw = c in "rR"
            self.at += 1
            return self.string(raw)
        if c in "[({":
            return self.collection(c, depth)
        if c == "<":
            return self.angle(depth)
        if c and (c.isdigit() or c in "-+."):
            m = _NUMBER.match(self.text, self.at)
            if m is None:
                raise ReprError(f"bad number at {self.at}")
            self.at = m.end()
            s = m.group(0).replace("_", "")
            if s.endswith("j"):
                return s  # a complex number: kept as its text
            return float(s) if any(ch in s for ch in ".eE") else int(s)
        m = _NAME.match(self.text, self.at)
        if m is None:
            raise ReprError(f"unexpected {c!r} at {self.at}")
        self.at = m.end()
        name = m.group(0)
        if self.peek() == "(":
            self.at += 1
            return self.call(name, depth)
        return _CONSTANTS.get(name, name)

    def string(self, raw: bool = False) -> str:
        quote = self.text[self.at]
        m = _BODIES[quote].match(self.text, self.at + 1)
        assert m is not None  # (the pattern matches the empty string)
        end = m.end()
        if self.text[end : end + 1] != quote:
            raise ReprError("unterminated string")
        self.at = end + 1
        body = m.group(0)
        return body if raw or "\\" not in body else _ESCAPE.sub(_unescape, body)

    def items(self, close: str, depth: int) -> list[object]:
        out: list[object] = []
        while self.peek() != close:
            out.append(self.value(depth + 1))
            if self.peek() != ",":
                break
            self.at += 1
        self.expect(close)
        return out

    def collection(self, open_: str, depth: int) -> object:
        self.at += 1
        if open_ == "[":
            return self.items("]", depth)
        if open_ == "(":
            return tuple(self.items(")", depth))
        # a dict, or a set when its first item has no key
        if self.peek() == "}":
            self.at += 1
            return {}
        first = self.value(depth + 1)
        if self.peek() != ":":  # a set: read as a list
            members = [first]
            while self.peek() == ",":
                self.at += 1
                if self.peek() == "}":
                    break
                members.append(self.value(depth + 1))
            self.expect("}")
            return members
        out: dict[object, object] = {}
        key: object = first
        while True:
            self.expect(":")
            out[key if isinstance(key, str | int | float | bool | None) else repr(key)] = (
                self.value(depth + 1))  # fmt: skip
            if self.peek() != ",":
                break
            self.at += 1
            if self.peek() == "}":
                break
            key = self.value(depth + 1)
        self.expect("}")
        return out

    def call(self, name: str, depth: int) -> Call:
        args: list[object] = []
        kwargs: dict[str, object] = {}
        while self.peek() != ")":
            m = _NAME.match(self.text, self.at)  # (peek has skipped the spaces)
            j = self.past_space(m.end()) if m else self.at
            sign = self.text[j : j + 2] if m else ""
            if (
                m is not None
                and "." not in m.group(0)
                and (sign[:1] == ":" or (sign[:1] == "=" and sign != "=="))
            ):  # a keyword argument (``k=v``; Haystack's Document: ``k: v``)
                self.at = j + 1
                kwargs[m.group(0)] = self.value(depth + 1)
            else:
                args.append(self.value(depth + 1))
            if self.peek() != ",":
                break
            self.at += 1
        self.expect(")")
        return Call(name, tuple(args), kwargs)

    def angle(self, depth: int) -> object:
        """``<Enum.MEMBER: value>`` as its value; any other ``<…>`` as its text."""
        start = self.at
        self.at += 1
        m = _NAME.match(self.text, self.at)
        if m is not None:
            self.at = m.end()
            if self.peek() == ":":
                self.at += 1
                value = self.value(depth + 1)
                self.expect(">")
                return value
        end = self.text.find(">", self.at)
        if end < 0:
            raise ReprError("unterminated <...>")
        self.at = end + 1
        return self.text[start : self.at]


def parse(text: str) -> object:
    """The value a repr spells (``Call`` for a call), or ``ReprError``."""
    if len(text) > MAX_CHARS:
        raise ReprError("too long")
    parser = _Parser(text)
    try:
        value = parser.value(0)
    except RecursionError as exc:  # (MAX_DEPTH keeps well below the interpreter's limit)
        raise ReprError("too deep") from exc
    parser.space()
    if parser.at != len(text):
        raise ReprError(f"trailing text at {parser.at}")
    return value
