"""The Langfuse exports through the real Langfuse SDK: every exported line is passed as
``create_dataset_item(**line)`` to a client pointed at a local server that speaks Langfuse's
public API; the server records what the SDK sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from monitor.golden import export as golden_export
from monitor.golden import review
from monitor.sources import demo
from sinks.golden import load_rows
from tests.integration.conftest import ragmon, serve_asgi

pytestmark = pytest.mark.integration


@pytest.fixture
def langfuse_api() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        received.append(body)
        return JSONResponse({
            "id": body.get("id") or "generated", "status": "ACTIVE", "input": body.get("input"),
            "expectedOutput": body.get("expectedOutput"), "metadata": body.get("metadata"),
            "sourceTraceId": body.get("sourceTraceId"), "datasetId": "ds-1",
            "datasetName": body["datasetName"], "createdAt": "2026-01-01T00:00:00Z",
            "updatedAt": "2026-01-01T00:00:00Z", "mediaReferences": [],
        })  # fmt: skip

    app = Starlette(routes=[Route("/api/public/dataset-items", create, methods=["POST"])])
    with serve_asgi(app) as url:
        yield url, received


def send(host: str, lines: list[dict[str, Any]]) -> list[Any]:
    from langfuse import Langfuse

    client = Langfuse(public_key="pk-test", secret_key="sk-test", host=host, tracing_enabled=False)
    try:
        return [client.create_dataset_item(**line) for line in lines]
    finally:
        client.shutdown()


def test_exports_load_through_the_langfuse_sdk(
    tmp_path: Path, langfuse_api: tuple[str, list[dict[str, Any]]]
) -> None:
    host, received = langfuse_api
    src = tmp_path / "traces.jsonl"
    src.write_text("".join(json.dumps(demo.generate(i)) + "\n" for i in range(200)))
    golden = tmp_path / "golden"
    assert ragmon("replay", str(src), "--golden-dir", str(golden)).returncode == 0
    rows = load_rows(golden)
    row = next(iter(rows.values()))
    doc = row["retrieved_context_ids"][0]
    review.decide(review.ReviewLog(golden), row, "accept", "ana", reference="Thirty days.",
                  gold_docs={doc: 2}, category="answerable")  # fmt: skip
    assert ragmon("golden", "publish", "--dir", str(golden)).returncode == 0
    out = ragmon("golden", "export", "--set", str(golden / "set"), "--format", "langfuse",
                 "--dataset-name", "probes")  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    items = send(host, lines)
    assert [i.id for i in items] == [row["id"]] and items[0].dataset_name == "probes"
    sent = received[-1]
    assert sent["datasetName"] == "probes" and sent["expectedOutput"] == "Thirty days."
    assert sent["input"] == {"question": row["user_input"]}
    assert sent["metadata"]["gold_docs"] == [{"id": doc, "grade": 2}]
    # candidate rows marked reviewed by hand export the same way
    rows_out = [
        golden_export.to_langfuse({**r, "reference": "Ref."}, "candidates") for r in rows.values()
    ]
    items = send(host, rows_out)
    assert (
        len(items) == len(rows) and received[-1]["sourceTraceId"] == rows_out[-1]["source_trace_id"]
    )
