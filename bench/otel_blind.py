"""The agent readers on the blind agent corpora (``tests/otel_corpus/blind/`` and
``blind2/``, issue 73): corpora and their truth written by a hand that had not read the
readers.

Run: ``python bench/otel_blind.py open`` (the part a reader is developed against: counts,
and which cases differ and how) or ``python bench/otel_blind.py sealed`` (the held-out part:
counts only, never a trace's content; scored once, at the end of a round); ``--corpus
blind2`` for the second corpus. The stacks are the part's truth files.

For each stack and format (``.otlp``, ``.otlp.jsonl``), converted with the project's
conversion (``tests/otel_corpus``: ``converted``, ``differences``), it prints:

* ``exact``: traces whose query, answer, context passages (ids, texts, order) and retrieved
  ids equal the truth (and the session id, where the app gave one), of the truth's traces;
* ``mapped``: traces the conversion evaluated; ``declined``: the other outcomes, by name
  (``content_missing``, ``unrecognised``: a reader that cannot read a trace says so);
* ``agent``: traces whose tool calls, tool errors and steps to the answer (``ragmon.agent.*``)
  equal the truth's ``tool_calls``, ``tool_errors`` and ``steps``.

Not a test: the figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from monitor.core.model import AGENT_INPUTS, RagTrace
from monitor.ingest import conversion
from monitor.ingest.conventions import CONVENTIONS
from monitor.sources import framing
from tests.otel_corpus import FORMATS, HERE, converted, differences, truth

CORPORA = ("blind", "blind2")
TRUTH = ".truth.jsonl"
# the truth's counts of what the agent did -> the trace's measured input
AGENT = {"tool_calls": "tool_calls", "tool_errors": "tool_errors", "steps": "agent_steps"}


def outcomes(stack: str, fmt: str, where: Path) -> dict[str, int]:
    """Traces per outcome of the conversion (a convention, or why none was read)."""
    data = (where / f"{stack}{FORMATS[fmt]}").read_bytes()
    return conversion.convert(list(framing.read_messages(data, fmt)), fmt.replace("-", "_")).counts


def agent_differences(expected: dict[str, Any], got: RagTrace | None) -> list[str]:
    """What the trace says the agent did that the truth does not (empty: the same)."""
    if got is None:
        return ["not mapped"]
    out = []
    for key, name in AGENT.items():
        if key in expected:
            value = got.attributes.get(AGENT_INPUTS[name])
            if value != expected[key]:
                out.append(f"{name} {value!r} (truth {expected[key]})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("open", "sealed"))
    parser.add_argument("--corpus", choices=CORPORA, default="blind")
    args = parser.parse_args(argv)
    where = HERE / args.corpus / args.part
    stacks = sorted(p.name.removesuffix(TRUTH) for p in where.glob(f"*{TRUTH}"))
    show = args.part == "open"  # the sealed part: counts only, never a trace's content
    totals = {"traces": 0, "exact": 0, "agent": 0}
    print(f"{'stack':34} {'format':11} {'exact':>7} {'mapped':>6} {'agent':>7}  declined")
    notes: list[str] = []
    for stack in stacks:
        rows = truth(stack, where)
        for fmt in FORMATS:
            got = converted(stack, fmt, where)
            counts = outcomes(stack, fmt, where)
            declined = {k: v for k, v in counts.items() if k not in CONVENTIONS}
            exact = agent = 0
            for trace_id, expected in sorted(rows.items(), key=lambda kv: kv[1]["case"]):
                problems = differences(expected, got.get(trace_id))
                work = agent_differences(expected, got.get(trace_id))
                exact += not problems
                agent += not work
                said = [*problems, *(w for w in work if w not in problems)]  # "not mapped" once
                if show and said:
                    notes.append(f"{stack} {fmt} {expected['case']}: " + "; ".join(said))
            n = len(rows)
            totals["traces"] += n
            totals["exact"] += exact
            totals["agent"] += agent
            print(f"{stack:34} {fmt:11} {exact:>3}/{n:<3} {len(got):>6} {agent:>3}/{n:<3}  "
                  f"{declined or '-'}")  # fmt: skip
    t = totals["traces"]
    print(f"{'all':34} {'':11} {totals['exact']:>3}/{t:<3} {'':>6} {totals['agent']:>3}/{t:<3}")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
