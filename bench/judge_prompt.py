"""The judge's prompt size on the benchmark corpus: the rubric and the tool schema (sent with
every call), the whole prompt per trace, in characters and in tokens (o200k, the encoding of
the OpenAI models ragmon prices), and optionally against another rubric module.

Run: ``python bench/judge_prompt.py [--against OLD_RUBRIC.py] [--traces 2000]``, e.g. with
``git show <rev>:monitor/judge/rubric.py > /tmp/old_rubric.py`` for the rubric before a change.
Not a test: the figures are reported, not asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import bench_records
from monitor.core.model import RagTrace
from monitor.judge import rubric
from monitor.judge.tokens import for_model


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("other_rubric", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", type=Path, help="another rubric module to compare with")
    parser.add_argument("--traces", type=int, default=2000)
    args = parser.parse_args()
    counter = for_model("gpt-4o")
    traces = [RagTrace.from_json(r) for r in bench_records(args.traces)]
    rows = [("current", rubric)] + ([("against", _module(args.against))] if args.against else [])
    print(f"{len(traces)} benchmark traces; tokens by the o200k encoding")
    print(f"{'rubric':<10} {'version':<18} {'fixed chars':>11} {'fixed tok':>9} "
          f"{'prompt chars':>12} {'prompt tok':>10}")  # fmt: skip
    sizes = {}
    for name, module in rows:
        fixed = module.RUBRIC + json.dumps(module.TOOL)
        fixed_tokens = counter.count(fixed)
        chars = statistics.mean(len(fixed) + len(module.user_prompt(t)) for t in traces)
        tokens = statistics.mean(fixed_tokens + counter.count(module.user_prompt(t))
                                 for t in traces)  # fmt: skip
        sizes[name] = tokens
        print(f"{name:<10} {module.RUBRIC_VERSION:<18} {len(fixed):>11} {fixed_tokens:>9} "
              f"{chars:>12.0f} {tokens:>10.0f}")  # fmt: skip
    if args.against:
        print(f"prompt tokens, current / against: {sizes['current'] / sizes['against']:.3f}")


if __name__ == "__main__":
    main()
