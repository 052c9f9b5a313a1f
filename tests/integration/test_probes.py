"""Golden probes end to end: `ragmon probe` asks a small real RAG application (a term-overlap
retriever over four documents, a context packer that keeps the best passage, and a fake LLM
that answers from it) the golden questions; the application reads the golden id from the W3C
baggage with OpenTelemetry's propagator and produces its traces to Kafka; `ragmon run`
consumes them and scores each probe: the stage that lost the answer and recall."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from opentelemetry import baggage
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from monitor.golden import review
from tests.integration.conftest import free_port, ragmon, serve_asgi
from tests.integration.kafka_support import Daemon, bootstrap, create_topic, wait_until

pytestmark = pytest.mark.integration

DOCS = {
    "refund-policy": "Refunds are possible within 30 days of purchase.",
    "shipping": "Parcels are delivered in 5 business days.",
    "holidays": "Our offices are closed on public holidays.",
    "pricing": "The Pro plan costs $25 per month.",
}
WORD = re.compile(r"[a-z]{3,}")


def retrieve(query: str, k: int = 2) -> list[tuple[str, int]]:
    """Documents sharing words with the query, best first (ties by id)."""
    q = set(WORD.findall(query.lower()))
    scored = [(len(q & set(WORD.findall(t.lower()))), d) for d, t in DOCS.items()]
    return [(d, s) for s, d in sorted(scored, key=lambda x: (-x[0], x[1])) if s > 0][:k]


class RagApp:
    """POST /ask {"question": ...}: retrieval, packing (best passage), a fake LLM; the trace
    goes to Kafka with the golden id the request's baggage carried."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all")
        self.seen_headers: list[dict[str, str]] = []
        self.n = 0

    async def ask(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.seen_headers.append(dict(request.headers))
        ctx = W3CBaggagePropagator().extract(dict(request.headers))
        golden_id = baggage.get_baggage("ragmon.golden_id", ctx)
        hits = retrieve(body["question"])
        packed = hits[:1]
        answer = (
            (DOCS[packed[0][0]] + " [1]") if packed else "I cannot find that in the documentation."
        )
        self.n += 1
        trace = {
            "trace_id": f"{self.n:032x}", "route": "support", "query": body["question"],
            "retrieved": [{"doc_id": d, "score": float(s), "rank": i + 1}
                          for i, (d, s) in enumerate(hits)],
            "context": [{"doc_id": d, "text": DOCS[d]} for d, _ in packed],
            "answer": answer, "golden_id": golden_id,
        }  # fmt: skip
        self.producer.send(self.topic, json.dumps(trace).encode()).get(timeout=30)
        return JSONResponse({"answer": answer})


@pytest.fixture
def app() -> Iterator[tuple[RagApp, str]]:
    rag = RagApp(create_topic(1))
    try:
        with serve_asgi(Starlette(routes=[Route("/ask", rag.ask, methods=["POST"])])) as url:
            yield rag, f"{url}/ask"
    finally:
        rag.producer.close()


def golden_set(directory: Path) -> Path:
    items = [
        {"id": "g-refund", "query": "How many days do I have to ask for refunds?",
         "reference": "Within 30 days.", "gold_docs": [{"id": "refund-policy", "grade": 3}],
         "expected": "answer", "category": "answerable"},
        {"id": "g-parcel", "query": "When will my order arrive?",
         "reference": "In 5 business days.", "gold_docs": [{"id": "shipping", "grade": 3}],
         "expected": "answer", "category": "near_miss"},
        {"id": "g-discount", "query": "Is there a student discount?", "reference": None,
         "gold_docs": [], "expected": "refuse", "category": "unanswerable"},
    ]  # fmt: skip
    review.publish([{"schema": "ragmon.golden/v1", **i} for i in items], directory)
    return directory


def samples(body: str, name: str) -> dict[str, float]:
    out = {}
    for line in body.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) + 1 :].rsplit("} ", 1)
            out[labels] = float(value)
    return out


def test_probe_run_is_scored_by_the_daemon(app: tuple[RagApp, str], tmp_path: Path) -> None:
    rag, endpoint = app
    gset = golden_set(tmp_path / "set")
    template = tmp_path / "request.json"
    template.write_text('{"question": "{query}", "meta": {"probe": "{golden_id}"}}')
    out = ragmon("probe", "--golden", str(gset), "--endpoint", endpoint,
                 "--request-template", str(template), "--rate", "20")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "golden set v0001: probes sent 3, answered 3, failed: none" in out.stderr
    assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00 golden set v0001:", out.stderr,
                     re.MULTILINE)  # each run's line says when it ran  # fmt: skip
    ids = sorted(h["x-ragmon-golden-id"] for h in rag.seen_headers)
    assert ids == ["g-discount", "g-parcel", "g-refund"]
    assert all(
        h["baggage"] == f"ragmon.golden_id={h['x-ragmon-golden-id']}" for h in rag.seen_headers
    )

    daemon = Daemon(tmp_path, rag.topic, "g-probes", RAGMON_GOLDEN__SET_PATH=str(gset)).start()
    try:
        url = f"http://127.0.0.1:{daemon.port}/metrics"
        name = "ragmon_probe_traces_total"

        def scored() -> bool:
            return (
                sum(samples(urllib.request.urlopen(url, timeout=5).read().decode(), name).values())
                >= 3
            )

        wait_until(scored, 60, "three probes scored")
        body = urllib.request.urlopen(url, timeout=5).read().decode()
        stages = {
            re.search(r'stage="(\w+)"', k).group(1): v for k, v in samples(body, name).items()
        }  # type: ignore[union-attr]
        assert stages == {"ok": 1.0, "retrieval_miss": 1.0, "abstained": 1.0}
        recall = samples(body, "ragmon_probe_retrieval_sum")
        key = 'depth="retrieved",golden_version="v0001",metric="recall",route="support"'
        assert recall[key] == 1.0  # refund found, parcel missed: 1 + 0
        assert samples(body, "ragmon_probe_retrieval_count")[key] == 2.0
    finally:
        daemon.terminate()


def test_probe_reports_failures_and_exits_1(tmp_path: Path) -> None:
    gset = golden_set(tmp_path / "set")
    template = tmp_path / "request.json"
    template.write_text('{"question": "{query}"}')
    port = free_port()  # nothing listens
    t0 = time.monotonic()
    out = ragmon("probe", "--golden", str(gset), "--endpoint", f"http://127.0.0.1:{port}/ask",
                 "--request-template", str(template), "--rate", "50")  # fmt: skip
    assert out.returncode == 1 and "failed: connection 3" in out.stderr, out.stderr
    assert time.monotonic() - t0 < 30
    bad = ragmon("probe", "--golden", str(tmp_path / "none"), "--endpoint", "http://x",
                 "--request-template", str(template))  # fmt: skip
    assert bad.returncode == 2 and "ragmon probe:" in bad.stderr


def test_template_values_are_filled_structurally() -> None:
    from monitor.golden.probe_client import render

    item: dict[str, Any] = {"id": "g1", "query": 'say "hi" }, {"evil": 1'}
    body = render({"q": "{query}", "n": 3, "tags": ["{golden_id}"]}, item)
    assert body == {"q": 'say "hi" }, {"evil": 1', "n": 3, "tags": ["g1"]}


def test_the_daemon_sends_probes_itself(app: tuple[RagApp, str], tmp_path: Path) -> None:
    """probes.endpoint: `ragmon run` sends the golden questions every period and scores the
    traces they cause (read back from the application's topic)."""
    rag, endpoint = app
    gset = golden_set(tmp_path / "set")
    template = tmp_path / "request.json"
    template.write_text('{"question": "{query}"}')
    daemon = Daemon(
        tmp_path, rag.topic, "g-probe-loop", RAGMON_GOLDEN__SET_PATH=str(gset),
        RAGMON_PROBES__ENDPOINT=endpoint, RAGMON_PROBES__REQUEST_TEMPLATE=str(template),
        RAGMON_PROBES__EVERY_SECONDS="2", RAGMON_PROBES__RATE_PER_SECOND="20",
    ).start()  # fmt: skip
    try:
        url = f"http://127.0.0.1:{daemon.port}/metrics"

        def body() -> str:
            return urllib.request.urlopen(url, timeout=5).read().decode()

        wait_until(lambda: sum(samples(body(), "ragmon_probe_traces_total").values()) >= 6, 60,
                   "two probe runs scored")  # fmt: skip
        sent = samples(body(), "ragmon_probe_requests_total")
        assert sent['outcome="answered"'] >= 6
    finally:
        daemon.terminate()


def test_probes_need_a_golden_set_and_a_template(tmp_path: Path) -> None:
    out = ragmon("config", "validate")  # the defaults are fine
    assert out.returncode == 0
    from tests.integration.test_daemon import start

    proc = start(free_port(), RAGMON_PROBES__ENDPOINT="http://127.0.0.1:1/ask")
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "probes.endpoint needs golden.set_path" in stderr


def test_breaking_the_retriever_fires_the_recall_alert(
    app: tuple[RagApp, str], tmp_path: Path
) -> None:
    """Drop a gold document from the application's index: the per-run increments of the
    probe metrics that ragmon exports, before and after, replayed one run a minute through
    the real rules (promtool), fire RagmonProbeRecallDrop; the healthy increments alone do
    not."""
    import shutil
    import subprocess

    import yaml

    rag, endpoint = app
    items = [
        {"schema": "ragmon.golden/v1", "id": f"g{i}", "query": q, "reference": None,
         "gold_docs": [{"id": d, "grade": 3}], "expected": "answer"}
        for i, (q, d) in enumerate([("How many days for refunds?", "refund-policy"),
                                    ("How much does the Pro plan cost per month?", "pricing"),
                                    ("Which days are the offices closed?", "holidays")])
    ]  # fmt: skip
    review.publish(items, tmp_path / "set")
    template = tmp_path / "request.json"
    template.write_text('{"question": "{query}"}')
    daemon = Daemon(
        tmp_path, rag.topic, "g-break", RAGMON_GOLDEN__SET_PATH=str(tmp_path / "set")
    ).start()
    url = f"http://127.0.0.1:{daemon.port}/metrics"
    names = (
        "ragmon_probe_retrieval_sum",
        "ragmon_probe_retrieval_count",
        "ragmon_probe_retrieval_squares_total",
    )
    key = 'depth="retrieved",golden_version="v0001",metric="recall",route="support"'

    def totals() -> list[float]:
        body = urllib.request.urlopen(url, timeout=5).read().decode()
        return [samples(body, n).get(key, 0.0) for n in names]

    def one_run() -> list[float]:
        before = totals()
        out = ragmon("probe", "--golden", str(tmp_path / "set"), "--endpoint", endpoint,
                     "--request-template", str(template), "--rate", "50")  # fmt: skip
        assert out.returncode == 0, out.stderr
        wait_until(lambda: totals()[1] >= before[1] + 3, 60, "a probe run scored")
        return [a - b for a, b in zip(totals(), before, strict=True)]

    try:
        wait_until(daemon.assigned, 60, "the daemon consuming")
        healthy = one_run()
        del DOCS["pricing"]  # the index loses a document
        try:
            broken = one_run()
        finally:
            DOCS["pricing"] = "The Pro plan costs $25 per month."
    finally:
        daemon.terminate()
    assert healthy[1] == broken[1] == 3 and broken[0] < healthy[0]

    def series(phases: list[tuple[list[float], int]]) -> list[dict[str, str]]:
        out = []
        for i, name in enumerate(names):
            values, total = [], 0.0
            for inc, minutes in phases:
                for _ in range(minutes):
                    total += inc[i]
                    values.append(f"{total:g}")
            out.append({"series": f"{name}{{{key}}}", "values": " ".join(values)})
        return out

    rules = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "rules.yml"
    for name, phases, fires in (("broken", [(healthy, 180), (broken, 90)], True),
                                ("healthy", [(healthy, 270)], False)):  # fmt: skip
        firing = 'count(ALERTS{alertname="RagmonProbeRecallDrop",alertstate="firing"})'
        expect = [{"labels": "{}", "value": 1}] if fires else []
        check = {"expr": firing, "eval_time": "260m", "exp_samples": expect}
        group = {"interval": "1m", "input_series": series(phases), "promql_expr_test": [check]}
        test = {"rule_files": [str(rules)], "evaluation_interval": "1m", "tests": [group]}
        path = tmp_path / f"{name}.yml"
        path.write_text(yaml.safe_dump(test, width=1 << 20))
        promtool = shutil.which("promtool")
        assert promtool, "promtool: make test installs it"
        done = subprocess.run(
            [promtool, "test", "rules", str(path)], capture_output=True, text=True
        )
        assert done.returncode == 0, (name, done.stdout + done.stderr)
