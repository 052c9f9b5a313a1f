"""The component tables of the registry agree with the config and with the components."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from pydantic import ValidationError

from monitor import components, registry
from monitor.checks import CHECK_NAMES
from monitor.config import Settings, SourceConfig
from monitor.judge.config import JudgeConfig, JuryConfig
from monitor.sources.section import SourceSection

# the sources' own sections, in the table's order
SOURCE_SECTIONS: list[type[SourceSection]] = [
    r.section for r in components.SOURCES if r.section and issubclass(r.section, SourceSection)
]


def test_the_settings_are_derived_from_the_component_table() -> None:
    """Each row with settings of its own has them mounted from the row, of its class, at its
    place (``checks.<key>``, ``source.<key>``, a sink's at the top level), and ``of`` finds
    them there; source.type's choices are the source rows, in order (the first the default).
    A section's place comes from nowhere else: none of these is written in the settings."""
    places = {"check": ("checks",), "source": ("source",), "sink": (), "judge": ("judge",)}
    settings = Settings()
    mounted = 0
    for row in components.TABLE:
        if row.section is None:
            continue
        node: Any = Settings
        for part in places[row.kind]:
            node = node.model_fields[part].annotation
        assert node.model_fields[row.key].annotation is row.section, row.name
        assert type(settings.of(row.section)) is row.section
        mounted += 1
    assert mounted >= 7  # two checks' options, four sources, the OTel events
    for row in components.SOURCES:  # source.type names the row, its key and its section
        assert row.section is not None and issubclass(row.section, SourceSection)
        assert row.name == row.key == row.section.kind
    types = typing.get_args(SourceConfig.model_fields["type"].annotation)
    assert [row.name for row in registry.SOURCES] == list(types)
    assert settings.source.type == types[0]
    assert settings.source.chosen is settings.of(SOURCE_SECTIONS[0])


@pytest.mark.parametrize("section", SOURCE_SECTIONS, ids=lambda s: s.kind)
def test_every_source_takes_its_own_batch_and_commit_settings(section: Any) -> None:
    """The chosen source's max_poll_records and commit_interval_seconds reach the pipeline,
    whichever source it is (only Kafka's did: the others were fixed at 500 and 1 s)."""
    settings = Settings.model_validate({"source": {
        "type": section.kind, section.kind: {"max_poll_records": 7, "commit_interval_seconds": 9}
    }})  # fmt: skip
    pipeline = registry.build_pipeline(settings, registry.build_metrics(CollectorRegistry()))
    assert (pipeline.batch_size, pipeline.commit_interval) == (7, 9.0)


def test_the_decoder_follows_the_chosen_sources_record_format() -> None:
    """Kafka's format, the receiver's OTLP, native otherwise; only a source that re-reads
    its records (Kafka) keeps record-time deadlines, and not for a format it does not carry."""
    from monitor.ingest.assembly import OtlpAssembler
    from monitor.ingest.decoder import OneItemPerRecord

    def decoder(source: dict[str, Any], fmt: str | None = None) -> Any:
        return registry.build_decoder(Settings.model_validate({"source": source}), None, fmt)

    assert isinstance(decoder({"type": "demo"}), OneItemPerRecord)
    kafka = decoder({"type": "kafka", "kafka": {"format": "otlp_json"}})
    assert isinstance(kafka, OtlpAssembler) and kafka._replays
    assert not decoder({"type": "kafka"}, "otlp_json")._replays  # a file, not the topic
    assert not decoder({"type": "otlp_http"})._replays


def test_every_judge_backend_of_the_config_has_a_row_and_no_other() -> None:
    backends = typing.get_args(JudgeConfig.model_fields["backend"].annotation)
    assert [row.name for row in registry.JUDGES] == [b for b in backends if b != "none"]
    jury = typing.get_args(JuryConfig.model_fields["backend"].annotation)
    assert set(jury) == set(backends)


@pytest.mark.parametrize("row", [*registry.SOURCES, *registry.SINKS], ids=lambda r: r.name)
def test_each_row_builds_its_component_from_its_own_configuration(
    row: registry.Component[Any, Any],
) -> None:
    """A row's factory is its component's ``from_config``, whose configuration is the row's
    configuration class (not the settings); the row and the component agree on the name."""
    made = row.load()
    cls = made.__self__  # type: ignore[attr-defined]
    assert made == cls.from_config
    # (annotations are strings here: the modules import their types for checking only)
    config = next(iter(inspect.signature(cls.from_config).parameters.values()))
    assert config.annotation == row.config.__name__, (config.name, config.annotation)
    assert cls.name == row.name


def test_the_check_table_is_the_default_suite_in_its_order() -> None:
    assert tuple(row.name for row in registry.CHECKS) == CHECK_NAMES
    built = registry.build_suite(Settings())
    assert built.names == list(CHECK_NAMES)


def test_every_checks_declared_options_reach_it() -> None:
    """The checks config has a section exactly for each check that declares options, named
    as the check and of its options type; the built check holds that very object; a section
    spelled unlike a check is refused (it used to be ignored: the value never reached it)."""
    from monitor.checks import CHECK_TYPES
    from monitor.config import ChecksConfig

    sections = set(ChecksConfig.model_fields) - {"enabled", "memo_bytes"}
    assert sections == {c.name for c in CHECK_TYPES if c.options is not None}
    settings = Settings()
    by_name = {c.name: c for c in registry.build_suite(settings).checks}
    for cls in CHECK_TYPES:
        section = settings.checks.options_of(cls)
        if cls.options is None:
            assert section is None
            continue
        assert type(section) is cls.options
        assert by_name[cls.name].opts is section  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="context_conflit"):
        Settings.model_validate({"checks": {"context_conflit": {"similarity": 0.9}}})


def test_a_checks_config_section_reaches_its_check() -> None:
    """checks.<name> holds the check's constructor options: set, they are the check's."""
    settings = Settings.model_validate(
        {"checks": {"context_conflict": {"similarity": 0.9}, "grounding_overlap": {"min_words": 7}}}
    )
    by_name = {c.name: c for c in registry.build_suite(settings).checks}
    assert by_name["context_conflict"].similarity == 0.9  # type: ignore[attr-defined]
    assert by_name["grounding_overlap"].min_words == 7  # type: ignore[attr-defined]


def test_each_sink_row_builds_the_sink_of_its_name(tmp_path: Path) -> None:
    """With every local output configured, the table builds each sink and names it right
    (the Kafka dead-letter sink needs a broker: tests/integration)."""
    settings = Settings.model_validate({
        "output": {"evaluations_jsonl": str(tmp_path / "e.jsonl")},
        "golden": {"dir": str(tmp_path / "golden")},
        "otel": {"endpoint": "http://127.0.0.1:9/v1/logs"},
    })  # fmt: skip
    sinks = registry.build_sinks(settings, registry.build_metrics(CollectorRegistry()))
    assert [s.name for s in sinks] == ["prometheus", "jsonl", "golden_rows", "otel_events"]


SINK_SECTIONS = {  # what turns each sink on, and nothing else
    "prometheus": {},
    "jsonl": {"output": {"dead_letters_jsonl": "dead.jsonl"}},
    "kafka_dead_letters": {"output": {"dead_letters_topic": "dead"}},
    "golden_rows": {"golden": {"topic": "rows"}},
    "otel_events": {"otel": {"endpoint": "http://127.0.0.1:9/v1/logs"}},
    "probe_scores": {"golden": {"set_path": "golden.jsonl"}},
    "store": {"store": {"path": "evaluations.db"}},
}


@pytest.mark.parametrize("row", registry.SINKS, ids=lambda r: r.name)
def test_a_sink_says_once_when_it_is_on(row: registry.Component[Any, Any]) -> None:
    """Each sink's ``from_config`` is its on/off rule: None on the default settings (but the
    always-on Prometheus sink), itself when its own setting is given, and no other sink's
    setting turns it on. Built without starting: nothing is opened or connected."""
    assert set(SINK_SECTIONS) == {r.name for r in registry.SINKS}  # a new row needs its case
    metrics = registry.build_metrics(CollectorRegistry())
    for name, given in SINK_SECTIONS.items():
        made = row.build(Settings.model_validate(given), metrics)
        on = name == row.name or row.name == "prometheus"
        assert (made is not None) == on, (row.name, name)
        assert made is None or made.name == row.name
