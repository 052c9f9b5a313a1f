"""Deployment files parse, and reference only ports, environment variables and config keys
that exist (checked against the config schema)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.config import ENV_PREFIX, NOT_SETTINGS, Settings, _env_names, load
from sinks.store import StoreConfig

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KNOWN_ENV = _env_names(Settings, ENV_PREFIX) | NOT_SETTINGS


def k8s() -> dict[str, dict[str, Any]]:
    docs = yaml.safe_load_all((DEPLOY / "k8s" / "ragmon.yaml").read_text())
    return {d["kind"]: d for d in docs if d}


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return data


def configmap_settings(tmp_path: Path) -> Settings:
    path = tmp_path / "ragmon.yaml"
    path.write_text(k8s()["ConfigMap"]["data"]["ragmon.yaml"])
    return load(path)


def test_configmap_config_is_valid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped config passes `ragmon config validate` rules."""
    for key in [k for k in __import__("os").environ if k.startswith(ENV_PREFIX)]:
        monkeypatch.delenv(key)
    settings = configmap_settings(tmp_path)
    assert settings.source.type == "kafka"


def test_the_shipped_deployments_run_no_judge_until_one_is_set(tmp_path: Path) -> None:
    """The heuristic screen is not a faithfulness measurement: a deployment that turned it
    on fed the judged-faithfulness panels and the hard-fail alert with its verdicts."""
    assert configmap_settings(tmp_path).judge.backend == "none"
    assert compose()["services"]["ragmon"]["environment"]["RAGMON_JUDGE__BACKEND"] == "none"


def test_the_exemplar_links_open_a_review_page_compose_serves() -> None:
    """Grafana's exemplar links go to the review service; it reads the golden dir the
    daemon writes (one volume); and the Dockerfile gives that dir to the daemon's user."""
    services = compose()["services"]
    url = services["grafana"]["environment"]["RAGMON_REVIEW_URL"]
    review = services["review"]
    port = review["command"][review["command"].index("--port") + 1]
    assert url == f"http://localhost:{port}" and f"{port}:{port}" in review["ports"]
    golden = services["ragmon"]["environment"]["RAGMON_GOLDEN__DIR"]
    assert review["command"][review["command"].index("--dir") + 1] == golden
    assert f"golden:{golden}" in review["volumes"] and f"golden:{golden}" in services[
        "ragmon"]["volumes"]  # fmt: skip
    assert f"install -d -o 10001 {golden}" in (DEPLOY / "Dockerfile").read_text()


def test_the_review_service_reads_the_store_the_daemon_writes() -> None:
    """The review service's trace, session and search pages read the evaluation store the
    daemon writes: the same file on one volume, whose directory the image gives the daemon's
    user."""
    services = compose()["services"]
    store = Path(services["ragmon"]["environment"]["RAGMON_STORE__PATH"])
    review = services["review"]
    assert review["command"][review["command"].index("--store") + 1] == str(store)
    mount = f"store:{store.parent}"
    assert mount in services["ragmon"]["volumes"] and mount in review["volumes"]
    assert "store" in compose()["volumes"]
    assert f"/var/lib/ragmon/golden {store.parent}" in (DEPLOY / "Dockerfile").read_text()


def test_the_image_installs_the_pinned_versions() -> None:
    """deploy/constraints.txt (deploy/lock.py) pins every direct runtime requirement to a
    version its specifier allows, and the Dockerfile installs with it."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    lines = (DEPLOY / "constraints.txt").read_text().splitlines()
    pins = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    for text in metadata.requires("ragmon") or []:
        req = Requirement(text)
        if req.marker is not None and "extra" in str(req.marker):
            continue
        pinned = pins.get(canonicalize_name(req.name))
        assert pinned is not None, f"{req.name} is not pinned"
        assert req.specifier.contains(pinned, prereleases=True), (req, pinned)
    assert "-c constraints.txt ." in (DEPLOY / "Dockerfile").read_text()


def test_ports_agree_everywhere(tmp_path: Path) -> None:
    """Config port = container port = Service port = Dockerfile EXPOSE = compose mapping."""
    port = configmap_settings(tmp_path).metrics.port
    docs = k8s()
    container = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert container["ports"][0]["containerPort"] == port
    assert docs["Service"]["spec"]["ports"][0]["port"] == port
    assert f"EXPOSE {port}" in (DEPLOY / "Dockerfile").read_text()
    assert f"{port}:{port}" in compose()["services"]["ragmon"]["ports"]
    health = re.search(r"HEALTHCHECK.*\n.*CMD (.*)", (DEPLOY / "Dockerfile").read_text())
    assert health is not None and "/healthz" in health[1]
    assert f"os.environ.get('RAGMON_METRICS__PORT', '{port}')" in health[1]


def test_probes_use_the_health_endpoints() -> None:
    """Liveness is /healthz, readiness /readyz, both on the metrics port."""
    container = k8s()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_environment_variables_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every RAGMON_* variable in the manifests names a setting and its value validates."""
    container = k8s()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value", "") for e in container["env"]}
    env.update(compose()["services"]["ragmon"]["environment"])
    ragmon_env = {k: v for k, v in env.items() if k.startswith(ENV_PREFIX)}
    assert ragmon_env
    assert set(ragmon_env) <= KNOWN_ENV, set(ragmon_env) - KNOWN_ENV
    for key in [k for k in __import__("os").environ if k.startswith(ENV_PREFIX)]:
        monkeypatch.delenv(key)
    for key, value in compose()["services"]["ragmon"]["environment"].items():
        if key.startswith(ENV_PREFIX):
            monkeypatch.setenv(key, str(value))
    assert load(None).source.type == "kafka"


def test_grace_period_exceeds_the_shutdown_budget(tmp_path: Path) -> None:
    """Kubernetes waits longer than ragmon's own shutdown budget before SIGKILL."""
    budget = configmap_settings(tmp_path).shutdown_timeout_seconds
    spec = k8s()["Deployment"]["spec"]["template"]["spec"]
    assert spec["terminationGracePeriodSeconds"] > budget
    stop = compose()["services"]["ragmon"]["stop_grace_period"]
    assert int(re.sub(r"\D", "", stop)) > budget


def test_keda_scales_the_right_group(tmp_path: Path) -> None:
    """KEDA watches the configured group and topic and never exceeds the partition count."""
    settings = configmap_settings(tmp_path)
    trigger = k8s()["ScaledObject"]["spec"]["triggers"][0]["metadata"]
    assert trigger["consumerGroup"] == settings.source.kafka.group_id
    assert trigger["topic"] in settings.source.kafka.topics
    partitions = int(
        re.search(
            r"--topic rag_traces --partitions (\d+)", compose()["services"]["kafka-init"]["command"]
        ).group(1)
    )  # type: ignore[union-attr]
    assert k8s()["ScaledObject"]["spec"]["maxReplicaCount"] <= partitions


def test_prometheus_rule_matches_the_rule_file() -> None:
    """The PrometheusRule carries exactly deploy/prometheus/rules.yml."""
    sys.path.insert(0, str(DEPLOY / "k8s"))
    try:
        import gen_prometheusrule
    finally:
        sys.path.pop(0)
    assert (DEPLOY / "k8s" / "prometheusrule.yaml").read_text() == gen_prometheusrule.build()


def test_grafana_provisioning_points_at_the_dashboards() -> None:
    """The provisioned dashboard path is where compose mounts dashboards/."""
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/ragmon.yaml").read_text())
    path = provider["providers"][0]["options"]["path"]
    mounts = compose()["services"]["grafana"]["volumes"]
    assert f"../dashboards:{path}:ro" in mounts
    prom = yaml.safe_load((DEPLOY / "prometheus/prometheus.yml").read_text())
    target = prom["scrape_configs"][0]["static_configs"][0]["targets"][0]
    assert target == "ragmon:9464"


def service_links(services: list[dict[str, Any]]) -> dict[str, str]:
    """The variables the kubelet injects into a pod for each Service of its namespace when
    service links are on (the Kubernetes default): <NAME>_SERVICE_HOST, _SERVICE_PORT,
    _SERVICE_PORT_<PORT NAME>, _PORT and _PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR]."""
    env: dict[str, str] = {}
    for n, svc in enumerate(services):
        name = svc["metadata"]["name"].upper().replace("-", "_")
        ip = f"10.96.0.{10 + n}"
        ports = svc["spec"]["ports"]
        env[f"{name}_SERVICE_HOST"] = ip
        env[f"{name}_SERVICE_PORT"] = str(ports[0]["port"])
        env[f"{name}_PORT"] = f"tcp://{ip}:{ports[0]['port']}"
        for p in ports:
            proto, port = p.get("protocol", "TCP"), p["port"]
            if "name" in p:
                env[f"{name}_SERVICE_PORT_{p['name'].upper().replace('-', '_')}"] = str(port)
            base = f"{name}_PORT_{port}_{proto}"
            env[base] = f"{proto.lower()}://{ip}:{port}"
            env[f"{base}_PROTO"], env[f"{base}_PORT"], env[f"{base}_ADDR"] = (
                proto.lower(), str(port), ip)  # fmt: skip
    return env


def test_the_daemon_starts_with_the_environment_a_cluster_gives_its_pod(tmp_path: Path) -> None:
    """As the kubelet runs the Deployment: its container's environment, the config file from
    the ConfigMap, plus the service-link variables of every Service in the manifests (in case
    a pod template turns enableServiceLinks back on). ``ragmon config validate`` — the same
    loader ``run`` starts with — must accept it; the pod template turns service links off."""
    import subprocess

    from tests.integration.conftest import clean_env

    docs = [d for d in yaml.safe_load_all((DEPLOY / "k8s" / "ragmon.yaml").read_text()) if d]
    pod = k8s()["Deployment"]["spec"]["template"]["spec"]
    assert pod["enableServiceLinks"] is False
    links = service_links([d for d in docs if d["kind"] == "Service"])
    assert "RAGMON_SERVICE_HOST" in links and "RAGMON_PORT_9464_TCP" in links
    config = tmp_path / "ragmon.yaml"
    config.write_text(k8s()["ConfigMap"]["data"]["ragmon.yaml"])
    env = {e["name"]: e["value"] for e in pod["containers"][0]["env"] if "value" in e}
    env["RAGMON_CONFIG_FILE"] = str(config)
    done = subprocess.run(
        [sys.executable, "-m", "monitor.commands.cli", "config", "validate"],
        env=clean_env(**env, **links), capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_the_manifests_validate_against_the_kubernetes_schemas() -> None:
    """Every object of the manifests against the OpenAPI schemas of the newest Kubernetes
    release kubernetes-validate bundles, strictly (an unknown or misspelt field is an error,
    as a server-side apply would say). The two custom resources (Prometheus Operator, KEDA)
    have no bundled schema: they are the only ones skipped."""
    import kubernetes_validate as kv

    skipped = []
    for doc in yaml.safe_load_all((DEPLOY / "k8s" / "ragmon.yaml").read_text()):
        if not doc:
            continue
        try:
            kv.validate(doc, kv.latest_version(), strict=True)
        except kv.SchemaNotFoundError:
            skipped.append(doc["kind"])
    assert skipped == ["ServiceMonitor", "ScaledObject"]


def test_the_kubernetes_story_is_one_of_a_stateless_deployment(tmp_path: Path) -> None:
    """KEDA owns the replica count (the Deployment sets none), a node drain is never blocked
    at KEDA's minimum of one replica, and every path the config writes to is on a writable
    volume — the shipped config writes none: rows and dead letters go to topics."""
    docs = k8s()
    assert "replicas" not in docs["Deployment"]["spec"]
    assert (
        docs["ScaledObject"]["spec"]["scaleTargetRef"]["name"]
        == docs["Deployment"]["metadata"]["name"]
    )
    pdb = docs["PodDisruptionBudget"]["spec"]
    minimum = docs["ScaledObject"]["spec"]["minReplicaCount"]
    if "minAvailable" in pdb:
        assert int(pdb["minAvailable"]) < minimum
    else:
        assert int(pdb["maxUnavailable"]) >= 1
    pod = docs["Deployment"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    writable = {m["mountPath"] for m in container["volumeMounts"] if not m.get("readOnly")}
    settings = configmap_settings(tmp_path)
    out = settings.output
    for path in (settings.golden.dir, settings.judge.batch.dir, out.evaluations_jsonl,
                 out.dead_letters_jsonl, settings.of(StoreConfig).path):  # fmt: skip
        assert path is None or any(str(path).startswith(w) for w in writable), path
    assert settings.golden.topic and settings.output.dead_letters_topic


def test_compose_starts_in_order_and_asks_for_the_review_token() -> None:
    """The topics exist before ragmon starts (kafka-init completed, after Kafka is healthy),
    and the review service's token is a required variable, so `up` without it stops with
    compose's own message instead of a review service that exits 2."""
    services = compose()["services"]
    assert services["ragmon"]["depends_on"]["kafka-init"]["condition"] == (
        "service_completed_successfully"
    )
    assert services["kafka-init"]["depends_on"]["kafka"]["condition"] == "service_healthy"
    assert "healthcheck" in services["kafka"]
    token = services["review"]["environment"]["RAGMON_REVIEW_TOKEN"]
    assert token.startswith("${RAGMON_REVIEW_TOKEN:?")
    page = (ROOT / "docs" / "deployment.md").read_text()
    before_up = page.split("docker compose -f deploy/compose.yaml up")[0]
    assert "export RAGMON_REVIEW_TOKEN=" in before_up  # the documented step itself sets it


def test_the_shipped_replicas_meet_conversations_on_a_turns_topic(tmp_path: Path) -> None:
    """Several replicas pairing conversations in memory would each see a share of a session's
    turns (issue 70.6): the Kubernetes manifest (1-6 replicas), compose and the local config
    set ``sessions.topic``, and the topic is created where the traces' topic is: compose's
    init, ``make kafka-up``'s default list, and the command docs/conversations.md gives."""
    topic = configmap_settings(tmp_path).sessions.topic
    assert topic is not None
    assert compose()["services"]["ragmon"]["environment"]["RAGMON_SESSIONS__TOPIC"] == topic
    assert f"--topic {topic} --partitions" in compose()["services"]["kafka-init"]["command"]
    local = load(DEPLOY / "ragmon.local.yaml")
    assert local.sessions.topic == topic
    up = (DEPLOY / "kafka" / "kafka-up.sh").read_text()
    default = re.search(r'topics="\$\{LOCAL_KAFKA_TOPICS-([^}]*)\}"', up)
    assert default is not None and topic in default.group(1).split()
    assert f"--create --topic {topic}" in (ROOT / "docs" / "conversations.md").read_text()
