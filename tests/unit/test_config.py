"""Configuration: YAML file, RAGMON_* overrides, unknown keys rejected by name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor import components
from monitor.config import Settings, load
from monitor.core.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ragmon.yaml"
    path.write_text(text)
    return path


def test_defaults_need_no_file() -> None:
    """With nothing configured the source is the demo traffic on port 9464."""
    settings = load(None)
    assert settings.source.type == "demo"
    assert settings.metrics.port == 9464


def test_file_values_are_read(tmp_path: Path) -> None:
    """Values in the YAML file are applied."""
    settings = load(write(tmp_path, "metrics:\n  port: 9500\nsource:\n  demo:\n    seed: 3\n"))
    assert settings.metrics.port == 9500
    assert settings.source.demo.seed == 3


def test_environment_overrides_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RAGMON_SECTION__KEY beats the file."""
    monkeypatch.setenv("RAGMON_METRICS__PORT", "9600")
    assert load(write(tmp_path, "metrics:\n  port: 9500\n")).metrics.port == 9600


def test_unknown_key_in_file_is_named(tmp_path: Path) -> None:
    """A typo in the file fails with the dotted key."""
    with pytest.raises(ConfigError, match=r"source\.tpye: unknown key"):
        load(write(tmp_path, "source:\n  tpye: demo\n"))


def test_unknown_environment_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in an environment variable fails with its name."""
    monkeypatch.setenv("RAGMON_METRICS__PROT", "1")
    with pytest.raises(ConfigError, match="RAGMON_METRICS__PROT"):
        load(None)


KUBELET_SERVICE_LINKS = {  # what a pod sees for the Services ragmon and ragmon-otlp
    "RAGMON_SERVICE_HOST": "10.96.12.7",
    "RAGMON_SERVICE_PORT": "9464",
    "RAGMON_SERVICE_PORT_METRICS": "9464",
    "RAGMON_PORT": "tcp://10.96.12.7:9464",
    "RAGMON_PORT_9464_TCP": "tcp://10.96.12.7:9464",
    "RAGMON_PORT_9464_TCP_PROTO": "tcp",
    "RAGMON_PORT_9464_TCP_PORT": "9464",
    "RAGMON_PORT_9464_TCP_ADDR": "10.96.12.7",
    "RAGMON_OTLP_SERVICE_HOST": "10.96.12.8",
    "RAGMON_OTLP_PORT_4318_TCP": "tcp://10.96.12.8:4318",
}


def test_kubernetes_service_link_variables_are_not_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kubelet injects <SERVICE>_SERVICE_HOST, <SERVICE>_PORT... into every pod: for a
    Service named ragmon they start with RAGMON_ and must not stop the daemon; a typo beside
    them is still refused."""
    for name, value in KUBELET_SERVICE_LINKS.items():
        monkeypatch.setenv(name, value)
    assert load(None).metrics.port == 9464
    monkeypatch.setenv("RAGMON_METRICS__PROT", "1")
    with pytest.raises(ConfigError, match=r"RAGMON_METRICS__PROT(?! \(and)"):
        load(None)


def test_bad_value_is_explained(tmp_path: Path) -> None:
    """A value of the wrong type names the key and the problem."""
    with pytest.raises(ConfigError, match=r"metrics\.port: Input should be a valid integer"):
        load(write(tmp_path, "metrics:\n  port: high\n"))


def test_unknown_check_name_rejected(tmp_path: Path) -> None:
    """Enabling a check that does not exist fails at startup, listing the known ones."""
    with pytest.raises(ConfigError, match="unknown check"):
        load(write(tmp_path, "checks:\n  enabled: [refusal, halucination]\n"))


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    """Unreadable or malformed files are clear errors, not tracebacks."""
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load(write(tmp_path, "metrics: [\n"))
    with pytest.raises(ConfigError, match="mapping"):
        load(write(tmp_path, "- 1\n"))


def test_settings_are_frozen() -> None:
    """Settings cannot be changed after load."""
    settings = Settings()
    with pytest.raises(ValueError):
        settings.shutdown_timeout_seconds = 1  # type: ignore[misc]


def test_example_config_matches_the_defaults() -> None:
    """deploy/ragmon.example.yaml is valid and lists exactly the built-in defaults: every
    key of the core spelled out, and each section it writes whole. A component's own section
    (mounted from its row in the component table) may be left to the generated reference
    (docs/configuration.md), so that adding a component does not rewrite the example."""
    example = Path(__file__).resolve().parents[2] / "deploy" / "ragmon.example.yaml"
    assert load(example) == Settings()
    written = yaml.safe_load(example.read_text())
    defaults = Settings().model_dump(mode="json")
    places = {"check": ("checks",), "source": ("source",), "sink": ()}
    for row in components.TABLE:
        if row.section is None:
            continue
        *area, key = (*places[row.kind], row.key)
        into_written, into_defaults = written, defaults
        for part in area:
            into_written, into_defaults = into_written[part], into_defaults[part]
        if key not in into_written:
            del into_defaults[key]
    assert written == defaults
    assert "otel" in written and "kafka" in written["source"]  # the built-in ones are shown


def test_config_file_variable_is_not_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """RAGMON_CONFIG_FILE names the file; it is not rejected as an unknown setting."""
    monkeypatch.setenv("RAGMON_CONFIG_FILE", "ragmon.yaml")
    assert load(None).source.type == "demo"


def test_local_config_is_valid_and_consumes_the_topics_kafka_up_creates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """deploy/ragmon.local.yaml works as written against `make kafka-up`, on its port."""
    monkeypatch.delenv("LOCAL_KAFKA_PORT", raising=False)
    root = Path(__file__).resolve().parents[2]
    settings = load(root / "deploy" / "ragmon.local.yaml")
    created = re.search(
        r"LOCAL_KAFKA_TOPICS-([^}]*)}", (root / "deploy/kafka/kafka-up.sh").read_text()
    )
    assert created is not None
    topics = set(created.group(1).split())
    assert settings.source.type == "kafka"
    assert set(settings.source.kafka.topics) <= topics
    assert settings.output.dead_letters_topic in topics
    assert settings.kafka.bootstrap_servers == ["127.0.0.1:9092"]
    monkeypatch.setenv("LOCAL_KAFKA_PORT", "19092")  # the broker moved: the config follows
    moved = load(root / "deploy" / "ragmon.local.yaml")
    assert moved.kafka.bootstrap_servers == ["127.0.0.1:19092"]


def test_review_token_in_the_environment_is_a_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RAGMON_REVIEW_TOKEN is read into golden.review_token (a secret: never shown), so
    every command starts with it set; RAGMON_GOLDEN__REVIEW_TOKEN wins over it."""
    monkeypatch.setenv("RAGMON_REVIEW_TOKEN", "tok-1")
    settings = load(write(tmp_path, "golden:\n  review_host: 0.0.0.0\n"))
    assert settings.golden.review_token is not None
    assert settings.golden.review_token.get_secret_value() == "tok-1"
    assert "tok-1" not in str(settings.model_dump(mode="json"))
    monkeypatch.setenv("RAGMON_GOLDEN__REVIEW_TOKEN", "tok-2")
    assert load().golden.review_token.get_secret_value() == "tok-2"  # type: ignore[union-attr]
    assert "review_token" in str(Settings.model_json_schema())


def test_anthropic_key_from_its_usual_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    key = load().judge.anthropic.api_key
    assert key is not None and key.get_secret_value() == "sk-test"


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        # the case that ran gpt-4.1-mini without a word: judge.model is the anthropic judge's
        ({"backend": "openai", "model": "qwen3-32b"},
         "judge.model is the anthropic judge's, but judge.backend is openai .* set "
         "judge.openai.model"),
        ({"backend": "anthropic", "openai": {"base_url": "http://x/v1"}},
         "judge.openai.base_url is the openai judge's, but judge.backend is anthropic"),
        ({"backend": "heuristic", "anthropic": {"model": "claude-x"}}, "remove it"),
    ],
)  # fmt: skip
def test_a_judge_setting_no_running_judge_reads_is_refused(
    tmp_path: Path, judge: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, yaml.safe_dump({"judge": judge})))


def test_judge_settings_bind_to_the_backend_and_old_keys_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each backend reads its own section, the jury's member too; API keys of another
    provider in the environment are no error; judge.model / base_url / api_key still read as
    judge.anthropic's, with a deprecation line each."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")  # ambient: not an error
    jury = load(write(tmp_path, yaml.safe_dump({"judge": {
        "backend": "anthropic", "jury": {"backend": "openai"}, "openai": {"model": "qwen3"},
        "anthropic": {"model": "claude-x"}}})))  # fmt: skip
    assert (jury.judge.anthropic.model, jury.judge.openai.model) == ("claude-x", "qwen3")
    assert jury.judge.deprecated == []
    old = load(write(tmp_path, "judge:\n  backend: anthropic\n  model: claude-y\n"
                     "  base_url: http://proxy\n"))  # fmt: skip
    assert (old.judge.anthropic.model, old.judge.anthropic.base_url) == ("claude-y", "http://proxy")
    assert old.judge.deprecated == [
        "judge.model is deprecated: set judge.anthropic.model",
        "judge.base_url is deprecated: set judge.anthropic.base_url",
    ]
    none = load(write(tmp_path, "judge:\n  backend: none\n  openai: {model: q}\n"))
    assert none.judge.openai.model == "q"  # no judge runs: nothing is read, nothing refused


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("golden:\n  review_port: 8901\n", "review_port needs dir"),
        ("golden:\n  dir: g\n  review_tls_cert_file: c.pem\n", "go together"),
    ],
)
def test_review_page_settings_are_checked_together(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, text))


def test_file_values_may_name_environment_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, 'kafka:\n  bootstrap_servers: ["127.0.0.1:${env:PORT_X:-9092}"]\n')
    assert load(path).kafka.bootstrap_servers == ["127.0.0.1:9092"]
    monkeypatch.setenv("PORT_X", "19092")
    assert load(path).kafka.bootstrap_servers == ["127.0.0.1:19092"]
    bare = write(tmp_path, "log:\n  level: ${env:NOT_SET_ANYWHERE}\n")
    with pytest.raises(ConfigError, match="NOT_SET_ANYWHERE"):
        load(bare)


def test_a_binary_config_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load(path)


def test_an_exposed_otlp_receiver_needs_a_token_only_when_it_is_the_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cross-section rule of the configuration, said at load with the fix."""
    monkeypatch.setenv("RAGMON_SOURCE__OTLP_HTTP__HOST", "0.0.0.0")
    assert load().source.type == "demo"  # the receiver is not started: nothing exposed
    monkeypatch.setenv("RAGMON_SOURCE__TYPE", "otlp_http")
    with pytest.raises(ConfigError) as err:
        load()
    message = str(err.value)
    assert "source.otlp_http.host is 0.0.0.0, beyond this machine, without bearer_token" in message
    assert "Value error" not in message and "\n  :" not in message
    monkeypatch.setenv("RAGMON_SOURCE__OTLP_HTTP__BEARER_TOKEN", "t0ken")
    assert load().source.otlp_http.bearer_token is not None


@pytest.mark.parametrize(
    ("variable", "value", "read"),
    [
        ("RAGMON_KAFKA__BOOTSTRAP_SERVERS", "127.0.0.1:9092", ["127.0.0.1:9092"]),
        ("RAGMON_KAFKA__BOOTSTRAP_SERVERS", "a:9092, b:9092", ["a:9092", "b:9092"]),
        ("RAGMON_SOURCE__KAFKA__TOPICS", "rag_traces", ["rag_traces"]),
        ("RAGMON_SOURCE__KAFKA__TOPICS", '["a", "b"]', ["a", "b"]),  # JSON still works
        ("RAGMON_METRICS__ROUTES", "billing,search", ["billing", "search"]),
    ],
)
def test_a_list_from_the_environment_takes_the_forms_people_type(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, read: list[str]
) -> None:
    """A list of strings from a variable: comma-separated, as KAFKA_* and OTEL_* variables
    take lists, or JSON (before: a traceback from pydantic-settings for anything not JSON,
    from every command)."""
    monkeypatch.setenv(variable, value)
    settings = load(None)
    node: object = settings
    for part in variable.removeprefix("RAGMON_").lower().split("__"):
        node = getattr(node, part)
    assert list(node) == read  # type: ignore[call-overload]


def test_a_mapping_from_the_environment_not_in_json_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Anything else that is not JSON: one line naming the variable and the form it takes."""
    monkeypatch.setenv("RAGMON_JUDGE__SAMPLING__ROUTES", "billing")
    with pytest.raises(ConfigError) as caught:
        load(None)
    said = str(caught.value)
    assert "\n" not in said and "RAGMON_JUDGE__SAMPLING__ROUTES='billing'" in said
    assert "a JSON object" in said
    monkeypatch.setenv("RAGMON_JUDGE__SAMPLING__ROUTES", '{"billing": 0.5}')
    assert load(None).judge.sampling.routes == {"billing": 0.5}


# Every kind of key: a path, an optional string, an integer, a list of strings, a mapping,
# a literal, a float, a whole section. The file sets each one.
EVERY_KIND = {
    "RAGMON_GOLDEN__DIR": ("golden.dir", "gold", Path("gold")),
    "RAGMON_SESSIONS__TOPIC": ("sessions.topic", "turns", "turns"),
    "RAGMON_METRICS__PORT": ("metrics.port", 9999, 9999),
    "RAGMON_SEGMENTS__ATTRIBUTES": ("segments.attributes", ["tenant"], ["tenant"]),
    "RAGMON_JUDGE__SAMPLING__ROUTES": ("judge.sampling.routes", {"billing": 0.5},
                                       {"billing": 0.5}),
    "RAGMON_LOG__LEVEL": ("log.level", "debug", "debug"),
    "RAGMON_SHUTDOWN_TIMEOUT_SECONDS": ("shutdown_timeout_seconds", 12.0, 12.0),
}  # fmt: skip


def _key(settings: Settings, dotted: str) -> object:
    node: object = settings
    for part in dotted.split("."):
        node = getattr(node, part)
    return node


def _file_setting_every_kind(tmp_path: Path) -> Path:
    tree: dict[str, Any] = {"source": {"type": "kafka"}}  # sessions.topic is Kafka's
    for dotted, value, _ in EVERY_KIND.values():
        *parents, last = dotted.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    path = tmp_path / "ragmon.yaml"
    path.write_text(yaml.safe_dump(tree))
    return path


@pytest.mark.parametrize("variable", sorted(EVERY_KIND))
def test_an_empty_variable_leaves_the_key_to_the_file_or_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """``RAGMON_X=`` is as if it were not set, for every kind of key: the file's value,
    else the default (a path became ``.``, a number or a list was refused)."""
    dotted, _, from_file = EVERY_KIND[variable]
    monkeypatch.setenv(variable, "")
    assert _key(load(_file_setting_every_kind(tmp_path)), dotted) == from_file
    assert _key(load(None), dotted) == _key(Settings(), dotted)


def test_an_empty_variable_for_a_whole_section_leaves_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGMON_GOLDEN", "")
    assert load(_file_setting_every_kind(tmp_path)).golden.dir == Path("gold")


@pytest.mark.parametrize("variable", ["RAGMON_GOLDEN__DIR", "RAGMON_SESSIONS__TOPIC"])
def test_null_clears_a_key_the_file_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """``null`` is none for a key that takes none, as in the file (it was a directory or a
    topic named "null")."""
    monkeypatch.setenv(variable, "null")
    assert _key(load(_file_setting_every_kind(tmp_path)), EVERY_KIND[variable][0]) is None


def test_null_for_a_key_that_takes_no_none_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMON_METRICS__PORT", "null")
    with pytest.raises(ConfigError, match=r"metrics\.port \(from RAGMON_METRICS__PORT\)"):
        load(None)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RAGMON_SOURCE__KAFKA__TOPICS", '["t"'),
        ("RAGMON_SEGMENTS__ATTRIBUTES", "[tenant, plan]"),
        ("RAGMON_JUDGE__SAMPLING__ROUTES", "{billing: 0.5}"),
        ("RAGMON_GOLDEN", '{"dir": "g"'),
    ],
)
def test_a_value_that_starts_like_json_and_does_not_parse_is_one_line(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    """A value meant as JSON is never taken as a string (the topic '["t"' with exit 0)."""
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as caught:
        load(None)
    said = str(caught.value)
    assert "\n" not in said and said.startswith(
        f"invalid configuration (environment): {variable}={value!r} is not valid JSON: "
    ), said


def test_a_bad_file_value_beside_an_empty_variable_is_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The empty variable was not read: the error does not name it as the value's origin."""
    path = tmp_path / "ragmon.yaml"
    path.write_text("metrics:\n  port: -1\n")
    monkeypatch.setenv("RAGMON_METRICS__PORT", "")
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert "metrics.port:" in str(caught.value) and "RAGMON_METRICS__PORT" not in str(caught.value)
