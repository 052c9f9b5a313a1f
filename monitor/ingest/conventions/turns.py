"""What an agent's answering model call was given: the tool results in its request, this
turn's and an earlier turn's (the history a conversation's next call carries), each once.

The rule (docs, "Agents"): a trace's packed context is every passage of every tool result in
the answering request, history included, in the order the request has them, each passage
once; its retrieved documents are what this turn's retrieval calls returned. A result that
several messages, parts or events carry is one result: joined by its tool call's id where
the request names one, by its content where it does not.
"""

from __future__ import annotations

from typing import NamedTuple

from monitor.ingest.conventions.core import _Doc, _unique
from monitor.ingest.conventions.tool_output import tool_docs

ANSWER_TOOLS = frozenset({"final_answer"})  # smolagents' answer channel: not a search


class ToolResult(NamedTuple):
    """One tool result as the answering request carries it."""

    call: str | None  # the tool call's id, where the request names it
    text: str
    this_turn: bool  # False: an earlier turn's, carried as history


def once(results: list[ToolResult]) -> list[ToolResult]:
    """Each result once, in order: a result whose call id was seen, or (without an id) whose
    text was, is a copy. Two calls of one tool with the same answer stay two calls."""
    calls: set[str] = set()
    texts: set[str] = set()
    out = []
    for r in results:
        if (r.call in calls) if r.call is not None else (r.text in texts):
            continue
        if r.call is not None:
            calls.add(r.call)
        texts.add(r.text)
        out.append(r)
    return out


def passages(results: list[ToolResult]) -> tuple[list[_Doc], list[_Doc]]:
    """(packed, retrieved): every result's passages in order, each once; this turn's."""
    packed: list[_Doc] = []
    retrieved: list[_Doc] = []
    for r in results:
        docs = tool_docs(r.text)
        packed += docs
        if r.this_turn:
            retrieved += docs
    return _unique(packed), _unique(retrieved)


def calls(results: list[ToolResult]) -> int:
    """This turn's tool calls whose results the request carries."""
    return sum(1 for r in results if r.this_turn)
