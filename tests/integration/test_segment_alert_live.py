"""A planted Spanish refusal spike and a packer that drops passages, through a running ragmon
into a real Prometheus, then through the shipped rules.

The daemon consumes two phases of traffic from the real broker: a healthy one (5 % refusals
in every language, five packed passages) and one where Spanish queries refuse half the time
and the packer keeps one passage. A real Prometheus scrapes the daemon; the counters it
stored at the end of each phase are what the rules see. The rules need a week's hourly
baseline and an alert holds for 10 minutes, which no test can wait for: each phase's counts,
read back from Prometheus, are spread as a steady rate over simulated minutes (three hours
healthy, 90 minutes after) and run through the shipped rules by promtool, Prometheus's own
rule engine. The per-segment alert fires for ``language=es`` only, and the drift panel's
recorded series moves.
"""

from __future__ import annotations

import json
import random
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaProducer

from tests.integration.conftest import prometheus_server
from tests.integration.kafka_support import Daemon, bootstrap, create_topic, wait_until

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy" / "prometheus"))
import scenarios  # noqa: E402
from gen_rules_test import phases  # noqa: E402

pytestmark = pytest.mark.integration

HEALTHY, AFTER = 180, 90  # simulated minutes of each phase
PER_MINUTE = 30  # traces a simulated minute, in both phases
QUESTIONS = {
    "en": [
        ("How many days do I have to return an item?", "You have 30 days to return an item [1]."),
        ("What does the Pro plan cost per month?", "The Pro plan costs $25 per month [1]."),
        ("Can I change the email address on my account after signing up?",
         "Yes, you can change it under Settings, then Account [1]."),
        ("Do you ship to Canada?", "Yes, orders to Canada ship within 5 business days [1]."),
        ("How long is the warranty on hardware bought through the online store in the "
         "United Kingdom?", "All hardware carries a 2-year warranty [1]."),
    ],
    "es": [
        ("¿Cuántos días tengo para devolver un artículo?",
         "Tienes 30 días para devolver un artículo [1]."),
        ("¿Cuánto cuesta el plan Pro al mes?", "El plan Pro cuesta 25 dólares al mes [1]."),
        ("¿Puedo cambiar la dirección de correo de mi cuenta después de registrarme?",
         "Sí, puedes cambiarla en Ajustes, Cuenta [1]."),
        ("¿Hacen envíos a Canadá?", "Sí, los pedidos a Canadá se envían en 5 días hábiles [1]."),
        ("¿Cuánto dura la garantía del hardware comprado en la tienda en línea del Reino "
         "Unido?", "Todo el hardware tiene una garantía de 2 años [1]."),
    ],
}  # fmt: skip
REFUSALS = {"en": "I'm sorry, I don't have information about that.",
            "es": "Lo siento, no tengo información sobre eso."}  # fmt: skip
PASSAGES = [  # the first holds every fact the answers state: a packer keeping one drops none
    "Summary: returns within 30 days, the Pro plan at $25 per month, the sign-in email changed "
    "under Settings, Canada in 5 business days, a 2-year hardware warranty.",
    "Returns: items can be returned within 30 days of delivery for a full refund.",
    "Pricing: the Pro plan costs $25 per month per seat, billed monthly or yearly.",
    "Accounts: the sign-in email can be changed under Settings, then Account.",
    "Shipping: orders to Canada ship within 5 business days from our Toronto warehouse.",
    "Warranty: all hardware carries a 2-year limited warranty from the date of delivery.",
]


def traffic(
    count: int, spanish_refusals: float, packed: int, rng: random.Random
) -> Iterator[bytes]:
    """``count`` native records: 5 % Spanish, refusals at 5 % (Spanish ones at
    ``spanish_refusals``), ``packed`` passages each."""
    for _ in range(count):
        language = "es" if rng.random() < 0.05 else "en"
        query, answer = rng.choice(QUESTIONS[language])
        if rng.random() < (spanish_refusals if language == "es" else 0.05):
            answer = REFUSALS[language]
        context = [{"doc_id": f"doc-{i}", "text": PASSAGES[i]} for i in range(packed)]
        yield json.dumps({"trace_id": f"{rng.getrandbits(128):032x}", "query": query,
                          "answer": answer, "context": context}).encode()  # fmt: skip


def send(topic: str, records: Iterator[bytes]) -> int:
    producer = KafkaProducer(bootstrap_servers=bootstrap(), acks="all", linger_ms=20)
    n = 0
    for raw in records:
        producer.send(topic, raw)
        n += 1
    producer.flush()
    producer.close()
    return n


def query(prom: str, expr: str, at: float | None = None) -> list[dict[str, object]]:
    params = {"query": expr, **({"time": f"{at:.3f}"} if at is not None else {})}
    url = f"{prom}/api/v1/query?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=10) as resp:
        body = json.loads(resp.read())
    assert body["status"] == "success", body
    return list(body["data"]["result"])


COUNTERS = (
    "ragmon_segment_check_results_total", "ragmon_segment_check_results_weight_total",
    "ragmon_segment_traces_total", "ragmon_segment_traces_weight_total",
    "ragmon_segment_traces_weight_squares_total", "ragmon_input_passages_bucket",
)  # fmt: skip


def stored(prom: str, at: float) -> dict[str, float]:
    """Every counter the segment and drift rules read, as Prometheus stored it at ``at``:
    {series in the rules' terms (no job or instance): value}."""
    out: dict[str, float] = {}
    for name in COUNTERS:
        for sample in query(prom, name, at):
            labels = {k: v for k, v in dict(sample["metric"]).items()  # type: ignore[call-overload]
                      if k not in ("__name__", "job", "instance")}  # fmt: skip
            key = name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
            out[key] = float(sample["value"][1])  # type: ignore[index]
    return out


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real Prometheus (its URL) and the file of its scrape targets."""
    targets = tmp_path / "targets.json"
    targets.write_text("[]")
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: ragmon\n"
        f"    file_sd_configs: [{{files: ['{targets}'], refresh_interval: 1s}}]\n"
    )
    with prometheus_server(config, tmp_path / "tsdb") as url:
        yield url, targets


def test_a_spanish_refusal_spike_fires_the_segment_alert_for_spanish_only(
    tmp_path: Path, prometheus: tuple[str, Path]
) -> None:
    prom, targets = prometheus
    topic = create_topic(2)
    daemon = Daemon(tmp_path, topic, "g-segment-live").start()
    rng = random.Random(5)
    try:
        targets.write_text(json.dumps([{"targets": [f"127.0.0.1:{daemon.port}"]}]))
        wait_until(daemon.assigned, 60, "the daemon consuming")
        stored_at = []
        total = 0
        for count, spanish, packed in ((HEALTHY * PER_MINUTE, 0.05, 5),
                                       (AFTER * PER_MINUTE, 0.5, 1)):  # fmt: skip
            total += send(topic, traffic(count, spanish, packed, rng))

            def scraped(n: int = total) -> bool:
                got = query(prom, "sum(ragmon_traces_total)")
                return bool(got) and float(got[0]["value"][1]) >= n  # type: ignore[index]

            wait_until(scraped, 120, f"{total} traces evaluated and scraped")
            stored_at.append(time.time())
    finally:
        daemon.terminate()
    before, after = (stored(prom, at) for at in stored_at)
    assert any('segment="es"' in k for k in before), "no Spanish segment stored"
    series = []
    for key in sorted(set(before) | set(after)):
        first = before.get(key, 0.0)
        rates = [(first / HEALTHY, HEALTHY), ((after.get(key, first) - first) / AFTER, AFTER)]
        series.append({"series": key, "values": phases(*rates)})
    firing = ('label_join(group by (dimension, segment) (ALERTS{alertname="RagmonSegmentCheckRise",'
              'alertstate="firing"{check}}), "route", "=", "dimension", "segment")')  # fmt: skip
    exprs = {
        "firing": firing.replace("{check}", ""),
        "refusal": firing.replace("{check}", ',check="refusal"'),
        "drift": 'input:ragmon_input:drift1h{input="passages"}',
        "median1h": 'input:ragmon_input:median1h{input="passages"}',
        "median7d": 'input:ragmon_input:median7d{input="passages"}',
    }
    rules = scenarios.RULES.read_text()
    late = scenarios.query_values(rules, series, HEALTHY + 60, exprs)
    early = scenarios.query_values(rules, series, HEALTHY - 5, exprs)
    assert set(late["firing"]) == {"language=es"}, late["firing"]  # Spanish only
    assert set(late["refusal"]) == {"language=es"}
    assert "firing" not in early  # nothing before the spike
    assert early["drift"][""] == pytest.approx(0.0)  # the same passages as the week
    assert late["drift"][""] == pytest.approx(1.0)  # 5 passages -> 1: past every bucket
    assert late["median1h"][""] <= 1 < 4 <= late["median7d"][""]
