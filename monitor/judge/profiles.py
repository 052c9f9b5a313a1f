"""Profiles for open detector models served behind an OpenAI-compatible server: their own
prompt and output formats, mapped onto ragmon's claims and verdict.

* ``minicheck`` (Bespoke-MiniCheck-7B; Ollama's ``bespoke-minicheck``): one document–claim
  pair per request, ``Document: …`` / ``Claim: …``, answered ``Yes`` or ``No``. The answer is
  split into sentences (one claim each, as the model card asks) and the packed passages are
  the document. Yes is SUPPORTED, No is ABSENT: the model cannot say CONTRADICTED (no
  ``hard_fail``), nor tell a refusal (the ``refusal`` check does).
* ``lynx`` (Patronus Lynx-8B/70B): one request with the question, the document and the
  answer in its sections, answered as JSON with ``REASONING`` and ``SCORE`` (``PASS`` or
  ``FAIL``). PASS is one SUPPORTED claim (the whole answer), FAIL one ABSENT claim carrying
  the reasoning: no per-claim labels, no CONTRADICTED, no refusal detection.

A reply the format does not allow is ``ValueError`` (asked once more, then
``invalid_output``, as for the rubric).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from monitor.core.model import RagTrace
from monitor.core.verdict import Claim, JudgeOutput
from monitor.judge.replies import drop_reasoning
from monitor.judge.rubric import unfence

Profile = Literal["rubric", "minicheck", "lynx"]

# Labels each profile can give (the rubric: all three, and refusals).
LABELS: dict[str, tuple[str, ...]] = {
    "rubric": ("SUPPORTED", "ABSENT", "CONTRADICTED"),
    "minicheck": ("SUPPORTED", "ABSENT"),
    "lynx": ("SUPPORTED", "ABSENT"),
}

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_MAX_CLAIMS = 20


def sentences(answer: str) -> list[str]:
    """The answer's sentences (list items count as sentences), at most ``_MAX_CLAIMS``."""
    parts = [p.strip(" \n\t-*•") for p in _SENTENCE_END.split(answer)]
    return [p for p in parts if len(p) > 1][:_MAX_CLAIMS]


def document(trace: RagTrace) -> str:
    """The packed passages as one document, in prompt order."""
    return "\n\n".join(p.text for p in trace.context)


def minicheck_requests(trace: RagTrace) -> list[tuple[str, list[dict[str, Any]]]]:
    """(claim, chat messages) per sentence of the answer, in the model's format."""
    doc = document(trace)
    return [(claim, [{"role": "user", "content": f"Document: {doc}\nClaim: {claim}"}])
            for claim in sentences(trace.answer)]  # fmt: skip


def minicheck_label(reply: str) -> str:
    """SUPPORTED for Yes, ABSENT for No; anything else is not the format."""
    word = reply.strip().strip(".!\"'`").split()[:1]
    if word and word[0].lower() == "yes":
        return "SUPPORTED"
    if word and word[0].lower() == "no":
        return "ABSENT"
    raise ValueError(f"MiniCheck answers Yes or No, not {reply[:60]!r}")


def minicheck_output(labelled: list[tuple[str, str]]) -> JudgeOutput:
    """MiniCheck's Yes/No per sentence as claims: SUPPORTED or ABSENT (never CONTRADICTED)."""
    return JudgeOutput(claims=[Claim(text=c[:2000], label=lab) for c, lab in labelled])


LYNX_PROMPT = """\
Read the QUESTION, the DOCUMENT and the ANSWER below and decide whether the ANSWER is \
faithful to the DOCUMENT: it must neither add information the DOCUMENT does not give nor \
contradict it. Give your verdict as "PASS" when the ANSWER is faithful to the DOCUMENT and \
"FAIL" when it is not, and explain your reasoning.

--
QUESTION (THIS DOES NOT COUNT AS BACKGROUND INFORMATION):
{question}

--
DOCUMENT:
{document}

--
ANSWER:
{answer}

--

Your output should be in JSON FORMAT with the keys "REASONING" and "SCORE":
{{"REASONING": <your reasoning as bullet points>, "SCORE": <your final score>}}
"""


def lynx_messages(trace: RagTrace) -> list[dict[str, Any]]:
    """The one request of the Lynx format."""
    text = LYNX_PROMPT.format(question=trace.query, document=document(trace), answer=trace.answer)
    return [{"role": "user", "content": text}]


_SCORE = re.compile(r'"?SCORE"?\s*:\s*"?(PASS|FAIL)', re.IGNORECASE)


def lynx_output(reply: str, answer: str) -> JudgeOutput:
    """PASS: the answer as one SUPPORTED claim; FAIL: one ABSENT claim with the reasoning."""
    text = unfence(drop_reasoning(reply)[0])
    score, reasoning = None, ""
    try:
        doc = json.loads(text)
        if isinstance(doc, dict):
            score = str(doc.get("SCORE", "")).strip().upper()
            why = doc.get("REASONING", "")
            reasoning = " ".join(map(str, why)) if isinstance(why, list) else str(why)
    except ValueError:
        m = _SCORE.search(text)  # a reply that is almost JSON (unescaped quotes in reasoning)
        score = m.group(1).upper() if m else None
    if score not in ("PASS", "FAIL"):
        raise ValueError(f"Lynx answers SCORE PASS or FAIL, not {reply[:60]!r}")
    claim = answer.strip()[:2000] or "(empty answer)"
    if score == "PASS":
        return JudgeOutput(claims=[Claim(text=claim, label="SUPPORTED")])
    note = f"{claim} — {reasoning}"[:2000] if reasoning else claim
    return JudgeOutput(claims=[Claim(text=note, label="ABSENT")])
