"""Load ragmon's exports with the real Ragas and DeepEval and print what they hold.

Runs in its own virtualenv (`make export-libs`: the pinned versions in requirements.txt),
because DeepEval brings pytest plugins and pins of its own that do not belong in ragmon's
test environment. Usage: load.py ragas=FILE deepeval=FILE ... (one process, so each library
is imported once); prints a JSON list, per file the samples as the library parsed them. A
file the library cannot load exits non-zero with the library's error."""

from __future__ import annotations

import json
import os
import sys

# No telemetry from either library (this machine's network is closed anyway).
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")


def load_ragas(path: str) -> dict[str, object]:
    import ragas
    from ragas import EvaluationDataset

    dataset = EvaluationDataset.from_jsonl(path)
    return {
        "library": f"ragas {ragas.__version__}",
        "sample_type": type(dataset.samples[0]).__name__ if len(dataset) else None,
        "features": sorted(dataset.features()) if len(dataset) else [],
        "samples": [s.model_dump(exclude_none=True) for s in dataset.samples],
    }


def load_deepeval(path: str) -> dict[str, object]:
    from importlib.metadata import version

    from deepeval.dataset import EvaluationDataset

    dataset = EvaluationDataset()
    dataset.add_goldens_from_json_file(path)
    return {
        "library": f"deepeval {version('deepeval')}",
        "sample_type": type(dataset.goldens[0]).__name__ if dataset.goldens else None,
        "samples": [g.model_dump(exclude_none=True) for g in dataset.goldens],
    }


def main() -> None:
    loaders = {"ragas": load_ragas, "deepeval": load_deepeval}
    loaded = []
    for arg in sys.argv[1:]:
        kind, _, path = arg.partition("=")
        loaded.append(loaders[kind](path))
    json.dump(loaded, sys.stdout, default=str)


if __name__ == "__main__":
    main()
