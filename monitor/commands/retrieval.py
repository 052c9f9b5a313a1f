"""``ragmon eval-retrieval``: a TREC run scored against qrels or a published golden set."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from monitor.commands.common import _golden_set, _writable
from monitor.core.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE


def cmd_eval_retrieval(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """``ragmon eval-retrieval``: retrieval metrics of a TREC run against golden qrels."""
    from monitor.golden import retrieval

    for what, path in (("qrels", args.qrels), ("run", args.run)):
        if not path.is_file() and not (what == "qrels" and path.is_dir()):
            print(f"ragmon eval-retrieval: no such {what} file: {path}", file=stderr)
            return EXIT_USAGE
    out = args.output_json
    if out is not None and str(out) != "-" and not _writable(out, "eval-retrieval", stderr):
        return EXIT_USAGE
    try:
        run = retrieval.read_run(args.run)
        if args.qrels.is_dir():  # a published golden set: its newest version
            golden = _golden_set(args.qrels, "eval-retrieval", stderr)
            if golden is None:
                return EXIT_USAGE
            qrels = {qid: {str(d["id"]): int(d["grade"]) for d in item.get("gold_docs") or []}
                     for qid, item in golden.items.items()}  # fmt: skip
        else:
            qrels = retrieval.read_qrels(args.qrels)
    except retrieval.TrecFormatError as exc:
        print(f"ragmon eval-retrieval: {exc}", file=stderr)
        return EXIT_USAGE
    result = retrieval.evaluate(qrels, run, args.k, args.chunk_separator,
                                complete=not args.only_retrieved)  # fmt: skip
    if result["unretrieved"]:
        print(f"{result['unretrieved']} judged queries have no retrieved document in the run: "
              "scored 0 in every metric (--only-retrieved leaves them out)",
              file=stderr)  # fmt: skip
    if result["unanswerable"]:
        print(f"{result['unanswerable']} judged queries have no relevant document (unanswerable): "
              "left out of every metric", file=stderr)  # fmt: skip
    metrics = result["metrics"]
    assert isinstance(metrics, dict)
    if not metrics["queries"]:
        print("ragmon eval-retrieval: no query is in both the run and the qrels", file=stderr)
        return EXIT_FAIL
    text = json.dumps(result, indent=2, sort_keys=False)
    if args.output_json is not None and str(args.output_json) == "-":
        print(text, file=stdout)
        return EXIT_OK
    if args.output_json is not None:
        args.output_json.write_text(text + "\n", encoding="utf-8")
    print(f"{'metric':<16}{'value':>10}", file=stdout)
    for name, value in metrics.items():
        shown = f"{value:>10d}" if isinstance(value, int) else f"{value:>10.4f}"
        print(f"{name:<16}{shown}", file=stdout)
    skipped = len(run.keys() - qrels.keys())
    if skipped:
        print(f"{skipped} run queries have no qrels and were not scored", file=stderr)
    return EXIT_OK
