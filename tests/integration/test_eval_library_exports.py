"""The Ragas and DeepEval exports loaded by the real libraries (pinned versions in their own
virtualenv, tests/export_libs): candidate rows as ``SingleTurnSample`` / ``Golden`` with the
retrieved passages, and the published golden set with its gold documents as Ragas
``reference_contexts`` and DeepEval ``context``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.golden.stored import load_rows
from monitor.sources import demo
from tests import export_libs
from tests.integration.conftest import ragmon

pytestmark = pytest.mark.integration


def export(tmp: Path, name: str, *args: str) -> Path:
    out = tmp / name
    done = ragmon("golden", "export", *args, "--output", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_candidate_rows_and_golden_set_load_in_ragas_and_deepeval(tmp_path: Path) -> None:
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(200)))
    golden = tmp_path / "golden"
    assert ragmon("replay", str(src), "--golden-dir", str(golden)).returncode == 0
    rows = load_rows(golden)
    assert len(rows) >= 5
    row = next(iter(rows.values()))
    gold, other = row["retrieved_context_ids"][:2]
    decided = ragmon(
        "golden", "review", "--dir", str(golden), "--row", row["id"], "--accept",
        "--reviewer", "ana", "--reference", "Refunds within 30 days.",
        "--gold", f"{gold}=3", "--gold", f"{other}=1", "--category", "multi_hop",
    )  # fmt: skip
    assert decided.returncode == 0, decided.stderr
    assert ragmon("golden", "publish", "--dir", str(golden)).returncode == 0
    d, s = ["--dir", str(golden), "--status", "any"], ["--set", str(golden / "set")]
    ragas, deepeval, set_ragas, set_deepeval = export_libs.load(
        ("ragas", export(tmp_path, "rows.jsonl", *d, "--format", "ragas")),
        ("deepeval", export(tmp_path, "rows.json", *d, "--format", "deepeval")),
        ("ragas", export(tmp_path, "set.jsonl", *s, "--format", "ragas")),
        ("deepeval", export(tmp_path, "set.json", *s, "--format", "deepeval")),
    )
    assert ragas["library"] == "ragas 0.4.3" and ragas["sample_type"] == "SingleTurnSample"
    assert deepeval["library"] == "deepeval 4.3.1" and deepeval["sample_type"] == "Golden"

    def as_parsed(q: str, a: str, ctx: list[str], ids: list[str] | None = None) -> str:
        return json.dumps([q, a, ctx, ids])

    want = sorted(
        as_parsed(r["user_input"], r["response"], r["retrieved_contexts"],
                  r["retrieved_context_ids"])
        for r in rows.values()
    )  # fmt: skip
    assert want == sorted(
        as_parsed(x["user_input"], x["response"], x["retrieved_contexts"],
                  x["retrieved_context_ids"])
        for x in ragas["samples"]
    )  # fmt: skip
    assert want == sorted(
        as_parsed(g["input"], g["actual_output"], g["retrieval_context"],
                  g["additional_metadata"]["retrieved_context_ids"])
        for g in deepeval["samples"]
    )  # fmt: skip
    traces = {r["ragmon"]["trace_id"] for r in rows.values()}
    assert {g["additional_metadata"]["trace_id"] for g in deepeval["samples"]} == traces

    passages = dict(zip(row["retrieved_context_ids"], row["retrieved_contexts"], strict=True))
    (sample,) = set_ragas["samples"]
    assert sample["user_input"] == row["user_input"]
    assert sample["reference"] == "Refunds within 30 days."
    ids = sorted([gold, other])  # the set lists gold documents by id
    assert sample["reference_context_ids"] == ids
    assert sample["reference_contexts"] == [passages[i] for i in ids]
    (g,) = set_deepeval["samples"]
    assert g["input"] == row["user_input"] and g["expected_output"] == "Refunds within 30 days."
    assert g["context"] == [passages[i] for i in ids]  # was left empty before
    assert g["additional_metadata"]["category"] == "multi_hop"
