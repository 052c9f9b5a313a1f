"""MkDocs hook: the reference pages generated from the code at each build, so they cannot
drift from it — every configuration key from the settings model (what `ragmon config
schema` prints) and every metric the daemon's registry declares (``Metrics``). Neither page
is a file in docs/; both are written into the build (``File.generated``)."""

from __future__ import annotations

import json
import typing
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the two generated pages."""
    files.append(File.generated(config, "reference/configuration.md", content=configuration()))
    files.append(File.generated(config, "reference/metrics.md", content=metrics()))
    return files


def _cell(text: object) -> str:
    """Text for one table cell: pipes and newlines would break the row."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type(annotation: Any) -> str:
    """A field's type as people read it: ``list[str]``, ``float | None``, ``'a' | 'b'``."""
    if typing.get_origin(annotation) is typing.Literal:
        return " \\| ".join(repr(a) for a in typing.get_args(annotation))
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return _cell(str(annotation).replace("typing.", "").replace("pydantic.types.", ""))


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        try:
            value = field.default_factory()  # type: ignore[call-arg]
        except TypeError:
            return "(computed)"
    elif field.default is PydanticUndefined:
        return "(required)"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "(section)"
    try:
        return f"`{_cell(json.dumps(value, default=str))}`"
    except (TypeError, ValueError):
        return f"`{_cell(value)}`"


def _rows(model: type[BaseModel], prefix: str) -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        ann = field.annotation
        nested = [a for a in (ann, *typing.get_args(ann))
                  if isinstance(a, type) and issubclass(a, BaseModel)]  # fmt: skip
        if nested:
            rows.extend(_rows(nested[0], f"{key}."))
            continue
        env = "RAGMON_" + key.upper().replace(".", "__")
        rows.append(f"| `{key}` | {_type(ann)} | {_default(field)} | "
                    f"{_cell(field.description or '')} | `{env}` |")  # fmt: skip
    return rows


def configuration() -> str:
    """Every key of the settings model, with its type, default, description and variable."""
    from monitor.config import Settings

    rows = _rows(Settings, "")
    return "\n".join([
        "# Configuration keys",
        "",
        "Generated from the settings model at each build of this site (what `ragmon config "
        "schema` prints as a JSON Schema): every key, its type, its default and the "
        "`RAGMON_*` variable that overrides it. How the file and the environment combine, "
        "and the forms a list takes in a variable: [Configuration](../configuration.md).",
        "",
        "| key | type | default | what it is | variable |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ])  # fmt: skip


def metrics() -> str:
    """Every metric the daemon's registry declares: name, type, labels and help text."""
    from prometheus_client import CollectorRegistry

    from monitor import registry

    reg = CollectorRegistry()
    registry.build_metrics(reg)
    rows = []
    for collector in reg._collector_to_names:  # the registry's own index of its collectors
        name = getattr(collector, "_name", None)
        if name is None:
            for family in collector.collect():
                labels = sorted({k for s in family.samples for k in s.labels})
                rows.append((family.name, family.type, labels, family.documentation))
            continue
        kind = getattr(collector, "_type", "")
        suffix = "_total" if kind == "counter" else ""
        labels = list(getattr(collector, "_labelnames", ()))
        rows.append((f"{name}{suffix}", kind, labels, getattr(collector, "_documentation", "")))
    rows.sort()
    return "\n".join(
        [
            "# Metrics",
            "",
            f"Generated from the daemon's metric registry at each build of this site: the "
            f"{len(rows)} series families `ragmon run` declares on `/metrics`, with their labels. "
            "What they mean together, the label bounds and the review page's and probes' own "
            "series: [Metrics](../metrics.md).",
            "",
            "| metric | type | labels | help |",
            "|---|---|---|---|",
            *(
                f"| `{n}` | {t} | {', '.join(f'`{x}`' for x in labels) or '-'} | {_cell(doc)} |"
                for n, t, labels, doc in rows
            ),
            "",
        ]
    )
