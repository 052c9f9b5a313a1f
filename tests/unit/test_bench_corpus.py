"""The benchmark corpus's reuse laws: what ``--reuse`` promises the benchmarks."""

from __future__ import annotations

import argparse
import json

import pytest

from bench.corpus import Reuse, add_reuse_arguments, bench_records, reuse_of


def _passages(records: list[bytes]) -> list[tuple[str, str]]:
    return [(p["doc_id"], p["text"]) for r in records for p in json.loads(r)["context"]]


def test_zipf_reuse_brings_a_chunk_back_with_the_same_text() -> None:
    records = bench_records(400, reuse=Reuse(1.0, chunks=1000, per_trace=4))
    passages = _passages(records)
    chunks = [(d, t) for d, t in passages if d.startswith("chunk-")]
    texts: dict[str, set[str]] = {}
    for doc_id, text in chunks:
        texts.setdefault(doc_id, set()).add(text)
    assert all(len(t) == 1 for t in texts.values())  # a chunk's text is fixed by its rank
    assert len(texts) < len(chunks) / 2  # skewed: most draws are repeats at this size
    assert all(len(json.loads(r)["context"]) in (0, 4) for r in records)
    top = max(texts, key=lambda d: sum(c == d for c, _ in chunks))
    assert top == "chunk-1"


def test_no_reuse_makes_every_padding_passage_new() -> None:
    passages = _passages(bench_records(300, reuse=Reuse(None)))
    texts = [t for _, t in passages]
    assert len(set(texts)) == len(texts)
    assert bench_records(50) == bench_records(50, reuse=Reuse())  # the default corpus


def test_the_reuse_arguments() -> None:
    parser = argparse.ArgumentParser()
    add_reuse_arguments(parser)
    assert reuse_of(parser.parse_args(["--reuse", "zipf:0.8", "--chunks", "10"])) == Reuse(
        0.8, 10, 5
    )
    assert reuse_of(parser.parse_args([])) == Reuse(None, 1_000_000, 5)
    with pytest.raises(SystemExit, match="zipf:S"):
        reuse_of(parser.parse_args(["--reuse", "pareto"]))
