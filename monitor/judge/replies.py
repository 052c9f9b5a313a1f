"""Reading the verdict out of a model's reply the way real servers send it.

Self-hosted reasoning models (vLLM, SGLang, Ollama, llama.cpp without a reasoning parser) put
their reasoning in the content before the answer (``<think> … </think>``, ``<thinking>``,
``<reasoning>``), and many servers ignore ``response_format`` and wrap the JSON in a fence or
a sentence ("Here is my verdict: {…} Let me know …"). ``read_output`` drops a leading
reasoning block, then takes the reply as JSON, or else the one JSON object in it that
validates against the verdict schema; it says which repairs were needed (counted in
``ragmon_judge_output_repairs_total{kind}``, so a team sees that its server wants a reasoning
parser). Two different objects that both validate are no verdict: never guess.
"""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from monitor.core.verdict import JudgeOutput

# Bounded labels of ragmon_judge_output_repairs_total{kind=...}.
REASONING_BLOCK = "reasoning_block"  # a <think>-style block before the answer, dropped
FENCED = "fenced"  # the JSON inside a Markdown code fence
PROSE_WRAPPED = "prose_wrapped"  # the JSON inside sentences
REPAIRS = (REASONING_BLOCK, FENCED, PROSE_WRAPPED)

_OPEN = re.compile(r"\s*<(think|thinking|reasoning)>", re.IGNORECASE)


def drop_reasoning(reply: str) -> tuple[str, bool]:
    """The reply without a leading reasoning block, and whether there was one. A block that
    is never closed leaves no answer ("")."""
    opened = _OPEN.match(reply)
    if opened is None:
        return reply, False
    close = re.compile(rf"</{opened.group(1)}>", re.IGNORECASE).search(reply, opened.end())
    return (reply[close.end() :] if close else ""), True


def read_output(reply: str) -> tuple[JudgeOutput, tuple[str, ...]]:
    """The verdict JSON in ``reply`` and the repairs it took; ``ValueError`` when there is
    none, or more than one."""
    text, reasoned = drop_reasoning(reply)
    repairs: tuple[str, ...] = (REASONING_BLOCK,) if reasoned else ()
    text = text.strip()
    if not text:
        raise ValueError("no answer after the reasoning" if reasoned else "an empty answer")
    try:
        return JudgeOutput.model_validate_json(text), repairs
    except (ValidationError, ValueError):
        pass
    found: dict[str, JudgeOutput] = {}
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at >= 0:
        try:
            obj, _ = decoder.raw_decode(text, at)
            output = JudgeOutput.model_validate(obj)
        except (ValidationError, ValueError):
            pass
        else:
            found.setdefault(json.dumps(obj, sort_keys=True), output)
        at = text.find("{", at + 1)
    if len(found) != 1:
        why = "no JSON object" if not found else f"{len(found)} different JSON objects"
        raise ValueError(f"{why} in the answer validates as a verdict")
    kind = FENCED if text.startswith("```") else PROSE_WRAPPED
    return next(iter(found.values())), (*repairs, kind)
