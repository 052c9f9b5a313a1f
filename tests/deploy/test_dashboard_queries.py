"""A real Prometheus scrapes a running ragmon; every dashboard query returns data, and every
metric a dashboard or an alert rule names is one ragmon exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from monitor.judge.calibration import calibrate
from monitor.judge.config import JudgeConfig
from monitor.judge.rubric import RUBRIC_ID
from monitor.sources import framing
from tests import otel_spans
from tests.integration.conftest import free_port, start_otlp_http_daemon
from tests.integration.kafka_support import Daemon, create_topic, produce, wait_until
from tests.integration.messages_api import MessagesApi, Reply, verdict
from tests.otel_spans import CONVENTIONS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dashboards"))
import build as dashboard  # noqa: E402

pytestmark = pytest.mark.integration


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return str(resp.read().decode())


def golden_set_for_demo(directory: Path, count: int, seed: int = 11) -> Path:
    """A published golden set holding every golden_id of the first `count` demo traces: the
    first packed passage is the gold document, abstentions are expected to refuse."""
    from monitor.golden import review
    from monitor.sources import demo

    items = {}
    for i in range(count):
        trace = demo.generate(i, seed)
        gid = trace.get("golden_id")
        if not gid or gid in items:
            continue
        docs = [p["doc_id"] for p in trace["context"] if p.get("doc_id")][:1]
        refuse = trace["attributes"].get("ragmon.demo.failure_mode") == "correct_abstention"
        # the demo asks one abstention question of several documents: a set holds a
        # question once, so each item's question names its document (probes go by id)
        items[gid] = {"schema": "ragmon.golden/v1", "id": gid,
                      "query": f"{trace['query']} [{gid}]",
                      "reference": None, "gold_docs": [{"id": d, "grade": 2} for d in docs],
                      "category": "unanswerable" if refuse else "answerable",
                      "expected": "refuse" if refuse else "answer"}  # fmt: skip
    review.publish(sorted(items.values(), key=lambda i: i["id"]), directory)
    return directory


def reviewed(directory: Path) -> Path:
    """A golden dir whose review log holds an accepted and a rejected refusal row."""
    from monitor.golden import review

    log = review.ReviewLog(directory)
    for rid, action in (("r1", "accept"), ("r2", "reject")):
        row = {"id": rid, "ragmon": {"reason": "refusal", "route": "billing"}}
        review.decide(log, row, action, "ana", reference="x", reason="check_wrong")  # type: ignore[arg-type]
    return directory


def post_otlp(url: str) -> None:
    """Complete traces of every convention, an agent's (PydanticAI's real instrumentation,
    tool spans with their arguments: the agent panels), then root-less ones that overflow
    the buffer."""
    bodies = [encode_spans(make()[0]).SerializeToString() for make in CONVENTIONS.values()]
    agents = (ROOT / "tests" / "otel_corpus" / "pydantic-ai-genai.otlp").read_bytes()
    bodies += list(framing.read_messages(agents, "otlp-proto"))
    for _ in range(4):
        spans, _ = otel_spans.openinference_langchain()
        bodies.append(encode_spans([s for s in spans if s.parent is not None]).SerializeToString())
    for body in bodies:
        req = urllib.request.Request(
            url, data=body, headers={"Content-Type": "application/x-protobuf"}, method="POST"
        )
        urllib.request.urlopen(req, timeout=5).read()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], str]]:
    """(ragmon metrics URLs, Prometheus URL) with one ragmon consuming Kafka, judging
    through the local Messages API (some calls fail) and exporting a calibration record,
    and one receiving OTLP/HTTP spans whose assembly buffer overflows."""
    prometheus = shutil.which("prometheus")
    if prometheus is None:
        pytest.fail("prometheus not found: `make test` installs Debian's prometheus package")
    tmp = tmp_path_factory.mktemp("prom")
    topic = create_topic(2)
    produce(topic, 1500, bad_every=60)
    produce_conversations(topic, 60)  # for the follow-up panel
    cal = tmp / "calibration.json"
    measured = ("anthropic", JudgeConfig().anthropic.model, RUBRIC_ID)  # the judge this daemon runs
    calibrate([("pass", "pass")] * 9 + [("hard_fail", "hard_fail")], *measured).save(cal)
    with MessagesApi() as api:
        api.default = verdict("SUPPORTED", "ABSENT", "CONTRADICTED", relevance="partial")
        api.script.extend(
            [Reply(status=500) if i % 7 == 0 else verdict("SUPPORTED") for i in range(60)]
        )
        daemon = Daemon(
            tmp, topic, "g-dash",
            RAGMON_JUDGE__BACKEND="anthropic", RAGMON_JUDGE__ANTHROPIC__BASE_URL=api.base_url,
            RAGMON_JUDGE__MAX_RETRIES="0", RAGMON_JUDGE__SAMPLING__BASE_RATE="0.3",
            RAGMON_JUDGE__CALIBRATION_FILE=str(cal), ANTHROPIC_API_KEY="test-key",
            RAGMON_GOLDEN__SET_PATH=str(golden_set_for_demo(tmp / "golden-set", 1500)),
            RAGMON_GOLDEN__DIR=str(reviewed(tmp / "golden")),
            # a shadow candidate on half the traces, for the shadow panels
            RAGMON_SHADOW__CHECKS__CONTEXT_CONFLICT__SIMILARITY="0.3", RAGMON_SHADOW__SHARE="0.5",
            RAGMON_SHADOW__JUDGE__BACKEND="heuristic",  # and a shadow judge
            RAGMON_SESSIONS__LATENESS_SECONDS="1",  # one replica: turns paired in memory
            RAGMON_SESSIONS__IDLE_SECONDS="2",  # conversations close in the test's time
        ).start()  # fmt: skip
        # a second ragmon receiving OTLP/HTTP with a two-trace assembly buffer
        otlp = start_otlp_http_daemon(
            tmp / "otlp-daemon.log",
            RAGMON_SOURCE__ASSEMBLY__MAX_TRACES="2",
            RAGMON_SOURCE__ASSEMBLY__QUIET_SECONDS="0.5",
        )
        prom_port = free_port()
        config = tmp / "prometheus.yml"
        config.write_text(
            "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
            "scrape_configs:\n"
            "  - job_name: ragmon\n"
            f"    static_configs: [{{targets: ['127.0.0.1:{daemon.port}', "
            f"'127.0.0.1:{otlp.metrics_port}']}}]\n"
        )
        proc = subprocess.Popen(
            [prometheus, f"--config.file={config}", f"--storage.tsdb.path={tmp / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prom_port}", "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        prom = f"http://127.0.0.1:{prom_port}"
        try:
            wait_until(lambda: get(f"{prom}/-/ready") is not None, 60, "prometheus ready")
            metrics = f"http://127.0.0.1:{daemon.port}/metrics"
            wait_until(lambda: "ragmon_judge_errors_total{" in get(metrics), 60, "judge errors")
            paired = 'ragmon_session_turns_total{outcome="paired"} 0.0'
            wait_until(lambda: "ragmon_session_turns_total" in get(metrics)
                       and paired not in get(metrics), 60, "follow-ups")  # fmt: skip
            otlp_metrics = otlp.metrics_url
            post_otlp(otlp.url)
            evicted = 'outcome="evicted"'
            wait_until(lambda: evicted in get(otlp_metrics), 30, "assembly evictions")
            time.sleep(12)  # a dozen scrapes for every rate()
            produce(topic, 300, start=5000, bad_every=60)
            time.sleep(8)
            yield [metrics, otlp_metrics], prom
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            daemon.terminate()
            otlp.stop()


def produce_conversations(topic: str, sessions: int) -> None:
    """``sessions`` conversations of three demo turns a minute apart: a question, the same
    again, then a request for a person."""
    from kafka import KafkaProducer

    from monitor.sources import demo
    from tests.integration.kafka_support import bootstrap

    producer = KafkaProducer(bootstrap_servers=bootstrap())
    for s in range(sessions):
        for turn, query in enumerate(("How much is the Pro plan?", "how much is the pro plan??",
                                      "let me talk to a person")):  # fmt: skip
            record = demo.generate(9000 + 3 * s + turn)
            record.pop("golden_id", None)  # not a probe
            record.update(session_id=f"dash-{s}", query=query,
                          timestamp=f"2026-12-01T10:{turn:02d}:{s % 60:02d}Z")  # fmt: skip
            producer.send(topic, json.dumps(record).encode())
    producer.flush()
    producer.close()


def query(prom: str, expr: str) -> list[dict[str, object]]:
    expr = expr.replace("$__rate_interval", "15s").replace("$app", ".*").replace("$route", ".*")
    expr = expr.replace("$dimension", "language").replace("$check", "refusal")
    url = f"{prom}/api/v1/query?query={urllib.parse.quote(expr)}"
    body = json.loads(get(url))
    assert body["status"] == "success", body
    return list(body["data"]["result"])


@pytest.mark.parametrize("expr", dashboard.expressions())
def test_every_dashboard_query_returns_data(running: tuple[str, str], expr: str) -> None:
    """Each panel query, evaluated by Prometheus over ragmon's scraped metrics, has data."""
    _, prom = running
    assert query(prom, expr), expr


def test_dashboard_json_is_generated_from_the_table() -> None:
    """dashboards/ragmon.json is what dashboards/build.py produces."""
    assert (ROOT / "dashboards" / "ragmon.json").read_text() == dashboard.render()


def test_the_dashboard_imports_asking_for_its_data_source() -> None:
    """Grafana's import format: __inputs name the Prometheus data source (the import dialog
    asks for it), __requires the plugins; every panel reads through the data-source
    variable, and every flagged share queries exemplars (the link to the review page)."""
    board = json.loads((ROOT / "dashboards" / "ragmon.json").read_text())
    (ds,) = board["__inputs"]
    assert (ds["name"], ds["type"], ds["pluginId"]) == ("DS_PROMETHEUS", "datasource", "prometheus")
    required = {(r["type"], r["id"]) for r in board["__requires"]}
    assert required >= {
        ("grafana", "grafana"),
        ("datasource", "prometheus"),
        ("panel", "timeseries"),
    }
    variable = board["templating"]["list"][0]
    assert variable["type"] == "datasource" and variable["current"]["value"] == "${DS_PROMETHEUS}"
    targets = [t for p in board["panels"] for t in p["targets"]]
    assert all(t["datasource"]["uid"] == "${datasource}" for t in targets)
    flagged = [t for t in targets if 'result="flagged"' in t["expr"]]
    assert flagged and all(t.get("exemplar") is True for t in flagged)


def test_every_metric_named_is_exported(running: tuple[str, str]) -> None:
    """Names used by the dashboard and the alert rules exist in ragmon's exposition."""
    urls, _ = running
    exported = {line.split("{")[0].split(" ")[0] for url in urls for line in get(url).splitlines()
                if line and not line.startswith("#")}  # fmt: skip
    text = (ROOT / "dashboards" / "ragmon.json").read_text()
    text += (ROOT / "deploy" / "prometheus" / "rules.yml").read_text()
    named = set(re.findall(r"(?<![:\w])(ragmon_[a-z_]+)", text))
    missing = {n for n in named if n not in exported}
    assert not missing, missing
