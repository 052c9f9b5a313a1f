"""Long-form answers with faithfulness labels, from public sets, into one file format that
``bench/risk.py --longform FILE`` measures the risk on.

Run: ``python bench/longform.py SET SOURCE OUT`` (``OUT`` ``-`` for standard output). Each
line written is one answer: ``{"set", "split", "id", "query", "passages", "answer",
"hallucinated"}``; ``split`` is ``dev`` (to develop on) or ``test`` (held out: read once, at the
end of a round). Nothing of the sets is committed here. The sets:

* ``expertqa`` (``chaitanyamalaviya/ExpertQA`` on GitHub; ``SOURCE`` is its ``data/lfqa``
  folder, of which ``rand_val.jsonl`` is read as ``dev`` and ``rand_test.jsonl`` as ``test``;
  the ``domain_*`` files are the same answers split another way and are not read): experts'
  questions answered in several sentences by GPT-4 from retrieved web passages
  (``rr_gs_gpt4``, ``rr_sphere_gpt4``) or with passages found after the answer
  (``post_hoc_*``); the systems whose evidence carries no passage text (``gpt4``,
  ``bing_chat``) are left out. The passages of a trace are the distinct evidence passages
  its claims cite. Each claim with evidence was judged by an expert against it: an answer is
  unfaithful when some cited claim is only ``Partial``-ly or ``Incomplete``-ly supported.
  Labels are a claim's support by its own evidence, so they are noisy as a faithfulness
  label of the whole answer against all its passages (a claim can be in another cited
  passage); uncited claims (``Missing``) and ``N/A`` are not read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

EXPERTQA_SYSTEMS = ("rr_gs_gpt4", "rr_sphere_gpt4", "post_hoc_gs_gpt4", "post_hoc_sphere_gpt4")
EXPERTQA_UNSUPPORTED = frozenset({"Partial", "Incomplete"})
_EVIDENCE = re.compile(r"\[(\d+)\]\s*(\S+)\s*\n+(.*)", re.DOTALL)


def expertqa(folder: Path) -> Iterator[dict[str, object]]:
    """ExpertQA's answers with passages, as long-form rows (see the module)."""
    for split, name in (("dev", "rand_val.jsonl"), ("test", "rand_test.jsonl")):
        lines = (folder / name).read_text(encoding="utf-8").splitlines()
        for n, raw in enumerate(lines):
            if not raw.strip():
                continue
            item = json.loads(raw)
            for system, answer in sorted(item.get("answers", {}).items()):
                if system not in EXPERTQA_SYSTEMS:
                    continue
                passages: dict[int, str] = {}
                judged = unsupported = 0
                for claim in answer.get("claims") or []:
                    evidence = claim.get("evidence") or []
                    for text in evidence:
                        found = _EVIDENCE.match(text)
                        if found and found.group(3).strip():
                            passages.setdefault(int(found.group(1)), found.group(3).strip())
                    if evidence:
                        judged += 1
                        unsupported += claim.get("support") in EXPERTQA_UNSUPPORTED
                if passages and judged:
                    yield {
                        "set": "expertqa", "split": split, "id": f"{split}-{n}-{system}",
                        "query": item.get("question", ""),
                        "passages": [passages[k] for k in sorted(passages)],
                        "answer": answer.get("answer_string", ""), "hallucinated": unsupported > 0,
                    }  # fmt: skip


SETS = {"expertqa": expertqa}


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("source", type=Path, help="the set's folder (see above)")
    parser.add_argument("out", help="the file to write, - for standard output")
    args = parser.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for row in SETS[args.set](args.source):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
