"""``ragmon explain`` on two files of 100,000 evaluation lines each (the target: ≤ 10 s on
one core), with its parts timed in the same run: reading the files (the floor), the
per-dimension decomposition, the causes across dimensions, and the input shifts.

The lines: eight segment dimensions (language, query length and shape, route, release, data
source, document age, app with one value), three flag rates, two measured inputs; after, the
Spanish refusal rate rises and the new release packs fewer passages, so every part has work.

    python bench/explain.py [--lines 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from monitor.commands.explain import _lines
from monitor.segments import causes as causes_mod
from monitor.segments import explain as explain_mod
from monitor.segments import shifts as shifts_mod

DIMENSIONS = {
    "language": ["en", "es", "de", "fr"], "query_length": ["short", "medium", "long"],
    "query_shape": ["question", "keyword", "instruction"],
    "route": ["billing", "search", "orders", "security", "support"],
    "release": ["r1", "r2", "r3"], "data_source": ["faq", "help-center", "mixed"],
    "doc_age": ["new", "old", "mixed"], "app": ["support"],
}  # fmt: skip


def line(rng: random.Random, after: bool) -> dict[str, Any]:
    seg = {d: rng.choice(v) for d, v in DIMENSIONS.items()}
    refusal = 0.05 + (0.35 if after and seg["language"] == "es" else 0.0)
    passages = rng.randint(1, 3) if after and seg["release"] == "r3" else rng.randint(3, 6)
    flags = {"refusal": rng.random() < refusal, "citation": rng.random() < 0.2,
             "unsupported_numbers": rng.random() < (0.3 if passages < 3 else 0.1)}  # fmt: skip
    return {
        "trace_id": f"{rng.getrandbits(128):032x}",
        "checks": {k: {"flagged": v, "applicable": True} for k, v in flags.items()},
        "segments": seg,
        "inputs": {"passages": passages, "context_chars": passages * rng.randint(200, 900)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, after in (("before", False), ("after", True)):
            path = Path(tmp) / f"{name}.jsonl"
            with path.open("w") as f:
                for _ in range(args.lines):
                    f.write(json.dumps(line(rng, after)) + "\n")
            paths.append(path)
        import io

        t0 = time.perf_counter()
        before, after = (_lines(p, io.StringIO()) for p in paths)
        t1 = time.perf_counter()
        assert before is not None and after is not None
        real = causes_mod.rank_causes
        explain_mod.rank_causes = lambda *a, **k: []  # the decomposition alone
        explain_mod.explain_rates(before, after)
        t2 = time.perf_counter()
        explain_mod.rank_causes = real
        rates = explain_mod.explain_rates(before, after)
        t3 = time.perf_counter()
        shifts_mod.input_shifts(before, after)
        t4 = time.perf_counter()
    decomposition, with_causes = t2 - t1, t3 - t2
    print(f"explain on 2 x {args.lines:,} lines, one core:")
    print(f"  reading both files           {t1 - t0:6.2f} s  (the floor)")
    print(f"  decomposition per dimension  {decomposition:6.2f} s")
    print(f"  + causes across dimensions   {with_causes - decomposition:6.2f} s")
    print(f"  input shifts                 {t4 - t3:6.2f} s")
    print(f"  whole (read + rates with causes + inputs) {t1 - t0 + with_causes + t4 - t3:.2f} s")
    for name, change in rates.items():
        said = [c.name + (f" (follows {c.explained_by})" if c.explained_by else "")
                for c in change.causes[:3]]  # fmt: skip
        print(f"  {name}: {', '.join(said) or 'no cause'}")


if __name__ == "__main__":
    main()
