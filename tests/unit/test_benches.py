"""The benchmarks still run: each one that needs no service, on a small input, exits 0 and
prints its figures. Their numbers are not asserted (a bench reports, it does not test); what
is held is that a change to the code they drive does not leave them broken unnoticed, as
``bench/kafka_e2e.py`` was for a while (its integration twin runs it against the broker)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> str:
    """``python bench/<args>`` from the repository root: its standard output."""
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("bench/pipeline.py", "--traces", "200", "--repeats", "1"), "session stage"),
        (("bench/checks.py", "--traces", "200", "--repeats", "1"), "unsupported_numbers"),
        (("bench/sessions.py", "--sessions", "2000"), "a session"),
        (("bench/followups.py",), "a pair"),
        # two sets side by side (the project's own twice: a held-out set is scored by hand)
        (
            ("bench/followups.py", "tests/sessions/followups.tsv", "tests/sessions/followups.tsv"),
            "drop (P, R)",
        ),
        (("bench/otlp.py", "--traces", "50", "--repeats", "1"), "traces/s"),
        (("bench/explain.py", "--lines", "2000"), "unsupported_numbers"),
        (("bench/pii.py",), "answers/s"),
        (("bench/redaction.py", "--traces", "40", "--repeats", "1"), "the gates alone"),
        (("bench/quality.py",), "ALL"),
        (
            ("bench/store.py", "--traces", "100", "--repeats", "1", "--rows", "3000"),
            "one session by id",
        ),
    ],
    ids=lambda v: v[0] if isinstance(v, tuple) else None,
)
def test_a_bench_runs(args: tuple[str, ...], says: str) -> None:
    assert says in run_bench(*args)


def test_the_risk_bench_reads_both_public_formats(tmp_path: Path) -> None:
    """bench/risk.py on files shaped as HaluEval's QA lines and FRANK's judgements with their
    article files (a handful written here: the public sets are not committed)."""
    qa = tmp_path / "qa.json"
    lines = []
    for i in range(200):  # 222 answers at 10 % hallucinated: the samplers run too
        knowledge = f"The museum in town {i} opened in {1900 + i} and has {i + 3} rooms."
        lines.append(json.dumps({
            "knowledge": knowledge, "question": f"When did museum {i} open?",
            "right_answer": f"{1900 + i}", "hallucinated_answer": f"{1800 + i} in Paris",
        }))  # fmt: skip
    qa.write_text("\n".join(lines) + "\n", encoding="utf-8")
    articles = tmp_path / "articles"
    articles.mkdir()
    judged = []
    for i in range(40):
        (articles / f"{i}.json").write_text(json.dumps({
            "hash": str(i), "article": f"The council approved {i + 10} new homes on Monday.",
            "BERTS2S": f"the council approved {i + 10} new homes." if i % 2 else
                       f"the mayor rejected {i + 99} new schools in spain.",
        }), encoding="utf-8")  # fmt: skip
        judged.append({"hash": str(i), "model_name": "BERTS2S", "dataset": "bbc",
                       "Factuality": 1.0 if i % 2 else 0.0})  # fmt: skip
    annotations = tmp_path / "human_annotations.json"
    annotations.write_text(json.dumps(judged), encoding="utf-8")
    out = run_bench("bench/risk.py", str(qa), "--frank", str(annotations), str(articles),
                    "--draws", "20")  # fmt: skip
    assert "HaluEval QA" in out and "FRANK XSum summaries" in out
    assert out.count("AUROC on all: risk") == 2
    assert out.count("learned risk (all judged), 5-fold CV") == 2
    assert "top 10% by learned (all judged)" in out  # on the HaluEval subsample
    assert "unfaithful among judged" in out  # the samplers, on HaluEval
    assert "too few faithful answers (20)" in out  # FRANK: 20 faithful of 40
